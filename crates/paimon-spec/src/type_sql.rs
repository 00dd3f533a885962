//! Paimon's SQL type names as Flink and Spark users type them in DDL, nested types included:
//! `ARRAY<INT>`, `MAP<STRING, BIGINT NOT NULL>`, `ROW<a INT, b STRING COMMENT 'x'>` (or
//! Flink's `ROW(a INT, b STRING)`), `MULTISET<T>`, `VECTOR<FLOAT, 8>`, and every atomic name
//! the schema JSON takes (`TIMESTAMP(3) WITH LOCAL TIME ZONE`, `TIMESTAMP_LTZ(3)`, ...).
//!
//! The text [`DataType`]'s `Display` prints parses back to the same type. Nested row fields
//! get id -1: the schema they join assigns them (as Java's `ReassignFieldId`).

use crate::error::{Error, Result};
use crate::types::{check_field_names, parse_atomic, DataField, DataType, TypeKind};

/// Parses one SQL type name, with its `NOT NULL`.
///
/// # Errors
/// [`Error::Corrupt`] naming the text and what is wrong in it.
pub fn parse_sql_type(text: &str) -> Result<DataType> {
    let mut p = Parser { text, pos: 0 };
    let t = p.data_type()?;
    p.skip_space();
    if p.pos < text.len() {
        return Err(p.bad(format!("unexpected '{}'", &text[p.pos..])));
    }
    Ok(t)
}

/// The SQL text of `t` that [`parse_sql_type`] reads back to `t`: its `Display`, with nested
/// row fields' comments (`ROW<`a` INT COMMENT 'x'>`, as Java's `asSQLString`) and names quoted
/// in backticks (a backtick in a name doubled).
pub fn sql_type_text(t: &DataType) -> String {
    let suffix = if t.nullable { "" } else { " NOT NULL" };
    match &t.kind {
        TypeKind::Array(e) => format!("ARRAY<{}>{suffix}", sql_type_text(e)),
        TypeKind::Multiset(e) => format!("MULTISET<{}>{suffix}", sql_type_text(e)),
        TypeKind::Map { key, value } => {
            format!(
                "MAP<{}, {}>{suffix}",
                sql_type_text(key),
                sql_type_text(value)
            )
        }
        TypeKind::Vector { element, length } => {
            format!("VECTOR<{}, {length}>{suffix}", sql_type_text(element))
        }
        TypeKind::Row(fields) => {
            let fields: Vec<String> = fields
                .iter()
                .map(|f| {
                    let mut text =
                        format!("{} {}", quote_name(&f.name), sql_type_text(&f.data_type));
                    if let Some(d) = &f.description {
                        text.push_str(&format!(" COMMENT {}", quote_string(d)));
                    }
                    text
                })
                .collect();
            format!("ROW<{}>{suffix}", fields.join(", "))
        }
        _ => t.to_string(),
    }
}

/// `name` in backticks, a backtick in it doubled.
pub fn quote_name(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// `text` in single quotes, a quote in it doubled.
pub fn quote_string(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn bad(&self, reason: impl Into<String>) -> Error {
        Error::corrupt(format!("SQL type '{}'", self.text), reason)
    }

    fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.rest().chars().next()
    }

    /// Consumes `c` (after spaces) when it is next.
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.bad(format!("expected '{c}' at '{}'", self.rest())))
        }
    }

    /// The next bare word (letters, digits, `_`), not consumed.
    fn word(&mut self) -> &'a str {
        self.skip_space();
        let rest = self.rest();
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        &rest[..end]
    }

    /// Consumes the bare word `w` (any case) when it is next.
    fn eat_word(&mut self, w: &str) -> bool {
        let next = self.word();
        if next.eq_ignore_ascii_case(w) {
            self.pos += next.len();
            true
        } else {
            false
        }
    }

    fn data_type(&mut self) -> Result<DataType> {
        let name = self.word().to_ascii_uppercase();
        let kind = match name.as_str() {
            "ARRAY" | "MULTISET" => {
                self.pos += name.len();
                self.expect('<')?;
                let element = Box::new(self.data_type()?);
                self.expect('>')?;
                match name.as_str() {
                    "ARRAY" => TypeKind::Array(element),
                    _ => TypeKind::Multiset(element),
                }
            }
            "MAP" => {
                self.pos += name.len();
                self.expect('<')?;
                let key = Box::new(self.data_type()?);
                self.expect(',')?;
                let value = Box::new(self.data_type()?);
                self.expect('>')?;
                TypeKind::Map { key, value }
            }
            "VECTOR" => {
                self.pos += name.len();
                self.expect('<')?;
                let element = Box::new(self.data_type()?);
                self.expect(',')?;
                let digits = self.word().to_string();
                let length = digits
                    .parse::<u32>()
                    .map_err(|_| self.bad(format!("VECTOR length '{digits}'")))?;
                self.pos += digits.len();
                self.expect('>')?;
                TypeKind::Vector { element, length }
            }
            "ROW" | "STRUCT" => {
                self.pos += name.len();
                let close = if self.eat('<') {
                    '>'
                } else if self.eat('(') {
                    ')'
                } else {
                    return Err(self.bad("ROW takes its fields in <..> or (..)"));
                };
                let mut fields = Vec::new();
                if !self.eat(close) {
                    loop {
                        fields.push(self.field()?);
                        if self.eat(close) {
                            break;
                        }
                        self.expect(',')?;
                    }
                }
                check_field_names(&fields).map_err(|e| self.bad(e.to_string()))?;
                TypeKind::Row(fields)
            }
            "" => return Err(self.bad(format!("expected a type at '{}'", self.rest()))),
            _ => return self.atomic(),
        };
        let nullable = self.nullability()?;
        Ok(DataType { nullable, kind })
    }

    /// `[NOT] NULL` after a type: whether it is nullable.
    fn nullability(&mut self) -> Result<bool> {
        let save = self.pos;
        if self.eat_word("NOT") {
            if self.eat_word("NULL") {
                return Ok(false);
            }
            self.pos = save;
            return Err(self.bad(format!("expected NOT NULL at '{}'", self.rest())));
        }
        self.eat_word("NULL");
        Ok(true)
    }

    /// A name, its type and an optional `COMMENT '..'` inside a ROW.
    fn field(&mut self) -> Result<DataField> {
        let name = self.name()?;
        let data_type = self.data_type()?;
        let mut field = DataField::new(-1, name, data_type);
        if self.eat_word("COMMENT") {
            field.description = Some(self.string()?);
        }
        Ok(field)
    }

    /// A field name: bare, or quoted with backticks or double quotes (doubled to escape).
    fn name(&mut self) -> Result<String> {
        match self.peek() {
            Some(q @ ('`' | '"')) => {
                self.pos += 1;
                self.quoted(q)
            }
            _ => {
                let w = self.word().to_string();
                if w.is_empty() {
                    return Err(self.bad(format!("expected a field name at '{}'", self.rest())));
                }
                self.pos += w.len();
                Ok(w)
            }
        }
    }

    /// `'text'` with `''` for a quote.
    fn string(&mut self) -> Result<String> {
        if !self.eat('\'') {
            return Err(self.bad(format!("expected a quoted string at '{}'", self.rest())));
        }
        self.quoted('\'')
    }

    /// The text up to the closing `q` (already past the opening one); `qq` is one `q`.
    fn quoted(&mut self, q: char) -> Result<String> {
        let mut out = String::new();
        let mut chars = self.rest().char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == q {
                if matches!(chars.peek(), Some((_, n)) if *n == q) {
                    chars.next();
                    out.push(q);
                    continue;
                }
                self.pos += i + c.len_utf8();
                return Ok(out);
            }
            out.push(c);
        }
        Err(self.bad(format!("unterminated {q}")))
    }

    /// An atomic type: words and one parenthesized parameter list, up to a `,`, `>`, `)`, the
    /// end, or a `NOT NULL` / `NULL` / `COMMENT` that follows it; parsed as the schema JSON's
    /// type strings are.
    fn atomic(&mut self) -> Result<DataType> {
        let start = {
            self.skip_space();
            self.pos
        };
        loop {
            let w = self.word().to_string();
            let stop = ["NOT", "NULL", "COMMENT"]
                .iter()
                .any(|s| w.eq_ignore_ascii_case(s));
            if !w.is_empty() && !stop {
                self.pos += w.len();
                continue;
            }
            if w.is_empty() && self.peek() == Some('(') {
                let close = self
                    .rest()
                    .find(')')
                    .ok_or_else(|| self.bad("unclosed '('"))?;
                self.pos += close + 1;
                continue;
            }
            break;
        }
        let text = self.text;
        let body = text[start..self.pos].trim();
        if body.is_empty() {
            return Err(self.bad(format!("expected a type at '{}'", self.rest())));
        }
        let t = parse_atomic(body).map_err(|_| self.bad(format!("unknown type '{body}'")))?;
        let nullable = self.nullability()?;
        Ok(t.with_nullable(nullable))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int() -> DataType {
        DataType::nullable(TypeKind::Int)
    }

    #[test]
    fn nested_types_parse_with_their_nullability_and_comments() {
        let t = parse_sql_type(
            "ROW<a INT NOT NULL, `b c` MAP<STRING, ARRAY<TIMESTAMP_LTZ(3)>> COMMENT 'it''s'>",
        )
        .unwrap();
        let TypeKind::Row(fields) = &t.kind else {
            panic!("{t:?}")
        };
        assert_eq!(fields[0].name, "a");
        assert_eq!(fields[0].data_type, int().with_nullable(false));
        assert_eq!(fields[1].name, "b c");
        assert_eq!(fields[1].description.as_deref(), Some("it's"));
        assert_eq!(
            fields[1].data_type.to_string(),
            "MAP<STRING, ARRAY<TIMESTAMP(3) WITH LOCAL TIME ZONE>>"
        );
        assert_eq!(
            parse_sql_type("ROW(x DECIMAL(10, 2), y TIMESTAMP(3) WITH LOCAL TIME ZONE) NOT NULL")
                .unwrap()
                .to_string(),
            "ROW<`x` DECIMAL(10, 2), `y` TIMESTAMP(3) WITH LOCAL TIME ZONE> NOT NULL"
        );
        assert_eq!(
            parse_sql_type("multiset<int not null>")
                .unwrap()
                .to_string(),
            "MULTISET<INT NOT NULL>"
        );
        assert_eq!(
            parse_sql_type("VECTOR<FLOAT, 8>").unwrap().to_string(),
            "VECTOR<FLOAT, 8>"
        );
    }

    #[test]
    fn sql_text_keeps_nested_comments_and_odd_names() {
        let text = "ROW<`a``b` INT NOT NULL COMMENT 'it''s', `c` ARRAY<MAP<STRING, ROW<`x` DATE>>>> NOT NULL";
        let t = parse_sql_type(text).unwrap();
        assert_eq!(sql_type_text(&t), text);
        let TypeKind::Row(fields) = &t.kind else {
            panic!("{t:?}")
        };
        assert_eq!(fields[0].name, "a`b");
    }

    #[test]
    fn display_parses_back() {
        for text in [
            "INT",
            "STRING NOT NULL",
            "DECIMAL(38, 10)",
            "TIMESTAMP(9)",
            "TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL",
            "ARRAY<ROW<`a` INT, `b` BYTES>>",
            "MAP<VARCHAR(10) NOT NULL, DOUBLE>",
        ] {
            assert_eq!(parse_sql_type(text).unwrap().to_string(), text);
        }
    }

    #[test]
    fn malformed_types_are_errors_naming_the_text() {
        for text in [
            "",
            "MAP<INT>",
            "ARRAY<INT",
            "ROW<a>",
            "ROW<a INT, a INT>",
            "INTEGRAL",
            "INT NOT",
            "ARRAY<INT> extra",
            "ROW<a INT COMMENT 'x>",
            "DECIMAL(10",
        ] {
            let e = parse_sql_type(text).unwrap_err().to_string();
            assert!(e.contains(&format!("SQL type '{text}'")), "{text}: {e}");
        }
    }
}
