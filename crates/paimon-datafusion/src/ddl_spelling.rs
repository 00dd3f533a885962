//! Flink's and Spark's DDL spellings that DataFusion's parser (sqlparser, generic dialect)
//! rejects, rewritten before parsing into spellings it takes and [`crate::ddl`] reads back:
//!
//! - a column type the parser does not know (`MAP<K, V>`, `ROW<a INT, b STRING>`,
//!   `ROW(a INT)`, `ARRAY<..>` of such types, `MULTISET<..>`, `VECTOR<..>`,
//!   `TIMESTAMP(3) WITH LOCAL TIME ZONE`, `TIMESTAMP_LTZ(3)`) in `CREATE TABLE`'s column
//!   list or `ALTER TABLE .. ADD COLUMN`, becomes a double-quoted custom type holding the
//!   text as typed (`"MAP<STRING, INT>"`), which [`crate::ddl`] parses as a Paimon type name
//!   (`paimon_spec::type_sql`);
//! - `ALTER TABLE t UNSET TBLPROPERTIES [IF EXISTS] ('k', ..)` (Spark) and
//!   `ALTER TABLE t RESET ('k', ..)` (Flink) become `SET TBLPROPERTIES ('k' = NULL, ..)`,
//!   which [`crate::ddl`] runs as the removal of each option;
//! - Spark's `ALTER TABLE t ADD COLUMNS (a T, b T)` becomes `ADD COLUMN a T, ADD COLUMN b T`;
//! - Flink's `ALTER TABLE t ADD (a T, b T)` likewise;
//! - a table `COMMENT '..'` of `CREATE TABLE` (which the parser takes only without `WITH`)
//!   becomes the option `'comment' = '..'`, Spark's property for the table's comment;
//! - Spark's `CREATE TABLE .. USING paimon` loses the `USING paimon` (every table here is a
//!   Paimon table); any other `USING x` is refused by name;
//! - Paimon's Spark tag statements become the `CALL` of the procedure that does the same
//!   ([`crate::call`]): `ALTER TABLE t CREATE TAG [IF NOT EXISTS] n [AS OF VERSION s]
//!   [RETAIN k DAYS|HOURS|MINUTES]` is `sys.create_tag`, `ALTER TABLE t DELETE TAG [IF EXISTS]
//!   n[,m..]` is `sys.delete_tag`, `ALTER TABLE t RENAME TAG a TO b` is `sys.rename_tag`
//!   (`REPLACE TAG` is refused);
//! - `SHOW TAGS` is left as typed once it is checked to name one table (`db.t`): the parser
//!   drops the dots of the words after `SHOW`, so [`crate::show_tags`] could not tell
//!   `SHOW TAGS db.t` from `SHOW TAGS db t`.
//!
//! Everything else is left byte for byte as typed; only the spans rewritten change.

use datafusion::error::{DataFusionError, Result};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::tokenizer::{Location, Token, Tokenizer};

/// `sql` with the spellings of the module docs rewritten.
///
/// # Errors
/// Text the tokenizer rejects, or an `UNSET`/`RESET` whose keys are not a list of strings.
pub(crate) fn rewrite(sql: &str) -> Result<String> {
    let spans = tokens(sql)?;
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for statement in spans.split(|t| t.token == Token::SemiColon) {
        match (word_at(statement, 0), word_at(statement, 1)) {
            (Some("CREATE"), _) => create_table(sql, statement, &mut edits)?,
            (Some("ALTER"), Some("TABLE")) => alter_table(sql, statement, &mut edits)?,
            (Some("SHOW"), Some("TAGS")) => show_tags(sql, statement)?,
            _ => {}
        }
    }
    if edits.is_empty() {
        return Ok(sql.to_string());
    }
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(sql.len() + 16);
    let mut at = 0;
    for (start, end, text) in edits {
        out.push_str(&sql[at..start]);
        out.push_str(&text);
        at = end;
    }
    out.push_str(&sql[at..]);
    Ok(out)
}

/// A token (whitespace and comments left out) and its byte range in the text.
#[derive(Debug, Clone)]
struct Spanned {
    token: Token,
    start: usize,
    end: usize,
}

fn tokens(sql: &str) -> Result<Vec<Spanned>> {
    let dialect = GenericDialect {};
    let with_spans = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .map_err(|e| DataFusionError::SQL(Box::new(e.into()), None))?;
    let lines: Vec<usize> = std::iter::once(0)
        .chain(sql.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |l: Location| -> usize {
        let Some(line_start) = usize::try_from(l.line)
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|n| lines.get(n))
        else {
            return sql.len();
        };
        let col = usize::try_from(l.column).unwrap_or(1).saturating_sub(1);
        sql[*line_start..]
            .char_indices()
            .nth(col)
            .map_or(sql.len(), |(i, _)| line_start + i)
    };
    Ok(with_spans
        .into_iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::EOF))
        .map(|t| Spanned {
            start: offset(t.span.start),
            end: offset(t.span.end),
            token: t.token,
        })
        .collect())
}

/// The unquoted word at `i`, upper-cased.
fn word_at(ts: &[Spanned], i: usize) -> Option<&'static str> {
    const WORDS: [&str; 19] = [
        "CREATE",
        "ALTER",
        "TABLE",
        "ARRAY",
        "MAP",
        "MULTISET",
        "ROW",
        "VECTOR",
        "TIMESTAMP",
        "TIMESTAMP_LTZ",
        "WITH",
        "LOCAL",
        "UNSET",
        "RESET",
        "TBLPROPERTIES",
        "ADD",
        "COLUMNS",
        "SHOW",
        "TAGS",
    ];
    match &ts.get(i)?.token {
        Token::Word(w) if w.quote_style.is_none() => WORDS
            .iter()
            .find(|k| w.value.eq_ignore_ascii_case(k))
            .copied(),
        _ => None,
    }
}

/// Checks that `SHOW TAGS` (the first two of `ts`) is followed by one table name, words
/// joined by dots, and nothing else.
fn show_tags(sql: &str, ts: &[Spanned]) -> Result<()> {
    let name = ts.get(2..).unwrap_or_default();
    let well_formed = name.len() % 2 == 1
        && name.iter().enumerate().all(|(i, t)| {
            if i % 2 == 0 {
                matches!(t.token, Token::Word(_))
            } else {
                t.token == Token::Period
            }
        });
    if well_formed {
        return Ok(());
    }
    let text = match (ts.first(), ts.last()) {
        (Some(a), Some(z)) => sql.get(a.start..z.end).unwrap_or_default(),
        _ => "",
    };
    Err(DataFusionError::Plan(format!(
        "SHOW TAGS takes one table name (SHOW TAGS db.t), not '{text}'"
    )))
}

/// The index of the token closing the bracket opened at `open` (`(`/`)` or `<`/`>`, where a
/// `>>` closes two), or `None` when it is not closed.
fn closing(ts: &[Spanned], open: usize) -> Option<usize> {
    let angle = ts.get(open)?.token == Token::Lt;
    let mut depth = 0i32;
    for (i, t) in ts.iter().enumerate().skip(open) {
        depth += match (&t.token, angle) {
            (Token::Lt, true) | (Token::LParen, false) => 1,
            (Token::Gt, true) | (Token::RParen, false) => -1,
            (Token::ShiftRight, true) => -2,
            (Token::ShiftLeft, true) => 2,
            _ => 0,
        };
        if depth <= 0 {
            // `ARRAY<ARRAY<INT>>` ends on the `>>` that closes both.
            return Some(i);
        }
    }
    None
}

/// The end (exclusive token index) of a type at `i` that the parser would reject, if one
/// starts there: after a column name, `ARRAY|MAP|MULTISET|VECTOR|ROW <..>`, `ROW(..)`,
/// `TIMESTAMP_LTZ[(p)]`, `TIMESTAMP[(p)] WITH LOCAL TIME ZONE`.
fn paimon_type_at(ts: &[Spanned], i: usize) -> Option<usize> {
    if i == 0 || !matches!(ts[i - 1].token, Token::Word(_)) {
        return None;
    }
    let next = ts.get(i + 1).map(|t| &t.token);
    let precision = |j: usize| match ts.get(j).map(|t| &t.token) {
        Some(Token::LParen) => closing(ts, j).map(|c| c + 1),
        _ => Some(j),
    };
    match word_at(ts, i)? {
        "ARRAY" | "MAP" | "MULTISET" | "VECTOR" | "ROW" if next == Some(&Token::Lt) => {
            closing(ts, i + 1).map(|c| c + 1)
        }
        "ROW" if next == Some(&Token::LParen) => closing(ts, i + 1).map(|c| c + 1),
        "TIMESTAMP_LTZ" => precision(i + 1),
        "TIMESTAMP" => {
            let j = precision(i + 1)?;
            let words = ["WITH", "LOCAL", "TIME", "ZONE"];
            let local = words.iter().enumerate().all(|(k, w)| {
                matches!(&ts.get(j + k).map(|t| &t.token), Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
            });
            local.then_some(j + words.len())
        }
        _ => None,
    }
}

/// Rewrites the types in `ts[from..to]` (see [`paimon_type_at`]) as quoted custom types.
fn quote_types(
    sql: &str,
    ts: &[Spanned],
    from: usize,
    to: usize,
    edits: &mut Vec<(usize, usize, String)>,
) {
    let mut i = from;
    while i < to {
        match paimon_type_at(ts, i) {
            Some(end) if end <= to && end > i => {
                let (start, stop) = (ts[i].start, ts[end - 1].end);
                let text = &sql[start..stop];
                edits.push((start, stop, format!("\"{}\"", text.replace('"', "\"\""))));
                i = end;
            }
            _ => i += 1,
        }
    }
}

/// `CREATE [..] TABLE [IF NOT EXISTS] name [(columns)] ..`: the types of the column list,
/// a table `COMMENT '..'` after it written as the `comment` option (Spark's property for
/// it), since the parser takes a comment only without `WITH`, and `USING paimon` dropped.
fn create_table(sql: &str, ts: &[Spanned], edits: &mut Vec<(usize, usize, String)>) -> Result<()> {
    let is = |i: usize, w: &str| matches!(ts.get(i).map(|t| &t.token), Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let Some(table) = (1..ts.len().min(5)).find(|&i| word_at(ts, i) == Some("TABLE")) else {
        return Ok(());
    };
    let mut i = table + 1;
    if is(i, "IF") && is(i + 1, "NOT") && is(i + 2, "EXISTS") {
        i += 3;
    }
    // The name: words joined by periods.
    while matches!(ts.get(i).map(|t| &t.token), Some(Token::Word(_))) {
        i += 1;
        if ts.get(i).map(|t| &t.token) != Some(&Token::Period) {
            break;
        }
        i += 1;
    }
    let mut after = i;
    if ts.get(i).map(|t| &t.token) == Some(&Token::LParen) && !is(i + 1, "LIKE") {
        let Some(close) = closing(ts, i) else {
            return Ok(());
        };
        quote_types(sql, ts, i + 1, close, edits);
        after = close + 1;
    }
    // The table's clauses up to `AS` (a query) at the top level.
    let mut depth = 0i32;
    let mut comment = None;
    let mut options = None;
    let mut end = ts.len();
    for j in after..ts.len() {
        match &ts[j].token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ if depth != 0 => {}
            _ if is(j, "AS") => {
                end = j;
                break;
            }
            Token::Word(_) if is(j, "USING") => {
                let format = match ts.get(j + 1).map(|t| &t.token) {
                    Some(Token::Word(w)) => w.value.clone(),
                    _ => String::new(),
                };
                if !format.eq_ignore_ascii_case("paimon") {
                    return Err(DataFusionError::Plan(format!(
                        "CREATE TABLE .. USING {format}: only USING paimon is supported (every \
                         table of this catalog is a Paimon table)"
                    )));
                }
                edits.push((ts[j].start, ts[j + 1].end, String::new()));
            }
            Token::Word(_) if is(j, "COMMENT") => {
                if let Some(Token::SingleQuotedString(_)) = ts.get(j + 1).map(|t| &t.token) {
                    comment = Some(j);
                }
            }
            Token::Word(_)
                if (is(j, "WITH") || is(j, "TBLPROPERTIES"))
                    && ts.get(j + 1).map(|t| &t.token) == Some(&Token::LParen) =>
            {
                options.get_or_insert(j + 1);
            }
            _ => {}
        }
    }
    let Some(c) = comment else {
        return Ok(());
    };
    let text = &sql[ts[c + 1].start..ts[c + 1].end];
    edits.push((ts[c].start, ts[c + 1].end, String::new()));
    let key = crate::ddl::TABLE_COMMENT;
    match options {
        Some(open) => {
            let empty = ts.get(open + 1).map(|t| &t.token) == Some(&Token::RParen);
            let at = ts[open].end;
            let sep = if empty { "" } else { ", " };
            edits.push((at, at, format!("'{key}' = {text}{sep}")));
        }
        None => {
            let at = match ts.get(end) {
                Some(t) if end < ts.len() => t.start,
                _ => ts.last().map_or(sql.len(), |t| t.end),
            };
            let clause = format!("WITH ('{key}' = {text})");
            let clause = if end < ts.len() {
                format!("{clause} ")
            } else {
                format!(" {clause}")
            };
            edits.push((at, at, clause));
        }
    }
    Ok(())
}

/// `ALTER TABLE name ..`: `UNSET TBLPROPERTIES`, `RESET`, `ADD COLUMNS (..)` and the types
/// of added columns.
fn alter_table(sql: &str, ts: &[Spanned], edits: &mut Vec<(usize, usize, String)>) -> Result<()> {
    if let Some(call) = tag_statement(ts)? {
        let (Some(first), Some(last)) = (ts.first(), ts.last()) else {
            return Ok(());
        };
        edits.push((first.start, last.end, call));
        return Ok(());
    }
    let mut i = 2;
    while i < ts.len() {
        let (list_at, spelled) = match (word_at(ts, i), word_at(ts, i + 1)) {
            (Some("UNSET"), Some("TBLPROPERTIES")) => {
                let if_exists = matches!((&ts.get(i + 2), &ts.get(i + 3)), (Some(a), Some(b)) if matches!(&a.token, Token::Word(w) if w.value.eq_ignore_ascii_case("IF")) && matches!(&b.token, Token::Word(w) if w.value.eq_ignore_ascii_case("EXISTS")));
                (i + if if_exists { 4 } else { 2 }, "UNSET TBLPROPERTIES")
            }
            (Some("RESET"), _) if ts.get(i + 1).map(|t| &t.token) == Some(&Token::LParen) => {
                (i + 1, "RESET")
            }
            (Some("ADD"), next)
                if (next == Some("COLUMNS")
                    && ts.get(i + 2).map(|t| &t.token) == Some(&Token::LParen))
                    || ts.get(i + 1).map(|t| &t.token) == Some(&Token::LParen) =>
            {
                // Spark's `ADD COLUMNS (..)`, Flink's `ADD (..)`.
                let open = if next == Some("COLUMNS") {
                    i + 2
                } else {
                    i + 1
                };
                let close = closing(ts, open).ok_or_else(|| {
                    DataFusionError::Plan(
                        "ALTER TABLE .. ADD COLUMNS (..: the list is not closed".into(),
                    )
                })?;
                // `ADD COLUMNS (a T, b T)` as `ADD COLUMN a T, ADD COLUMN b T`: each comma at
                // the list's top level starts the next `ADD COLUMN`.
                edits.push((ts[i].start, ts[open].end, "ADD COLUMN ".into()));
                let mut depth = 0i32;
                for t in &ts[open + 1..close] {
                    match &t.token {
                        Token::LParen | Token::Lt => depth += 1,
                        Token::RParen | Token::Gt => depth -= 1,
                        Token::ShiftRight => depth -= 2,
                        Token::Comma if depth == 0 => {
                            edits.push((t.start, t.end, ", ADD COLUMN".into()))
                        }
                        _ => {}
                    }
                }
                edits.push((ts[close].start, ts[close].end, String::new()));
                quote_types(sql, ts, open + 1, close, edits);
                i = close + 1;
                continue;
            }
            _ => {
                if let Some(end) = paimon_type_at(ts, i) {
                    quote_types(sql, ts, i, end, edits);
                    i = end;
                } else {
                    i += 1;
                }
                continue;
            }
        };
        let bad = || {
            DataFusionError::Plan(format!(
                "ALTER TABLE .. {spelled} takes a list of quoted option keys: ('k1', 'k2')"
            ))
        };
        if ts.get(list_at).map(|t| &t.token) != Some(&Token::LParen) {
            return Err(bad());
        }
        let close = closing(ts, list_at).ok_or_else(bad)?;
        let mut keys = Vec::new();
        for (n, t) in ts[list_at + 1..close].iter().enumerate() {
            match (&t.token, n % 2) {
                (Token::SingleQuotedString(_), 0) => keys.push(&sql[t.start..t.end]),
                (Token::Comma, 1) => {}
                _ => return Err(bad()),
            }
        }
        if keys.is_empty() {
            return Err(bad());
        }
        let set: Vec<String> = keys.iter().map(|k| format!("{k} = NULL")).collect();
        edits.push((
            ts[i].start,
            ts[close].end,
            format!("SET TBLPROPERTIES ({})", set.join(", ")),
        ));
        i = close + 1;
    }
    Ok(())
}

/// Whether `ts[i]` is the unquoted word `w` (any case).
fn is_word(ts: &[Spanned], i: usize, w: &str) -> bool {
    matches!(ts.get(i).map(|t| &t.token), Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
}

/// `s` as a single-quoted SQL string.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Paimon's Spark tag statements (`ALTER TABLE t CREATE TAG ..`, `DELETE TAG ..`,
/// `RENAME TAG ..`; see the module docs) as the `CALL` that does the same; `None` for every
/// other `ALTER TABLE`.
///
/// # Errors
/// A tag statement that does not follow the grammar, `REPLACE TAG`.
fn tag_statement(ts: &[Spanned]) -> Result<Option<String>> {
    // The table's name: words joined by periods, each quoted part kept quoted.
    let mut i = 2;
    let mut parts = Vec::new();
    while let Some(Token::Word(w)) = ts.get(i).map(|t| &t.token) {
        parts.push(match w.quote_style {
            None => w.value.clone(),
            Some(_) => format!("\"{}\"", w.value.replace('"', "\"\"")),
        });
        i += 1;
        if ts.get(i).map(|t| &t.token) != Some(&Token::Period) {
            break;
        }
        i += 1;
    }
    let tag_at = |k: usize| is_word(ts, k, "TAG");
    let verb = ["CREATE", "DELETE", "RENAME", "REPLACE"]
        .into_iter()
        .find(|v| is_word(ts, i, v));
    let verb = match verb {
        Some("CREATE") if is_word(ts, i + 1, "OR") && is_word(ts, i + 2, "REPLACE") => "REPLACE",
        Some(v) if tag_at(i + 1) => v,
        _ => return Ok(None),
    };
    let table = parts.join(".");
    let fail = |what: &str| {
        DataFusionError::Plan(format!(
            "ALTER TABLE {table} {verb} TAG: {what} (Paimon's grammar: CREATE TAG [IF NOT \
             EXISTS] name [AS OF VERSION n] [RETAIN n DAYS|HOURS|MINUTES], DELETE TAG [IF \
             EXISTS] name, RENAME TAG name TO name)"
        ))
    };
    if verb == "REPLACE" {
        return Err(fail(
            "replacing a tag is not supported; DELETE TAG, then CREATE TAG",
        ));
    }
    let mut k = i + 2;
    // A tag name: a word (any quotes) or a quoted string.
    let name = |k: usize| match ts.get(k).map(|t| &t.token) {
        Some(Token::Word(w)) => Some(w.value.clone()),
        Some(Token::SingleQuotedString(s)) => Some(s.clone()),
        _ => None,
    };
    let number = |k: usize| match ts.get(k).map(|t| &t.token) {
        Some(Token::Number(n, _)) if n.chars().all(|c| c.is_ascii_digit()) => Some(n.clone()),
        _ => None,
    };
    let mut args = vec![format!("table => {}", quoted(&table))];
    match verb {
        "CREATE" => {
            let if_not_exists =
                is_word(ts, k, "IF") && is_word(ts, k + 1, "NOT") && is_word(ts, k + 2, "EXISTS");
            if if_not_exists {
                k += 3;
            }
            let tag = name(k).ok_or_else(|| fail("the tag's name is missing"))?;
            args.push(format!("tag => {}", quoted(&tag)));
            k += 1;
            if is_word(ts, k, "AS") && is_word(ts, k + 1, "OF") && is_word(ts, k + 2, "VERSION") {
                let id = number(k + 3).ok_or_else(|| fail("AS OF VERSION takes a snapshot id"))?;
                args.push(format!("snapshot => {id}"));
                k += 4;
            }
            if is_word(ts, k, "RETAIN") {
                let n = number(k + 1).ok_or_else(|| fail("RETAIN takes a number"))?;
                let unit = ["DAYS", "HOURS", "MINUTES"]
                    .into_iter()
                    .find(|u| is_word(ts, k + 2, u))
                    .ok_or_else(|| fail("RETAIN's unit is DAYS, HOURS or MINUTES"))?;
                args.push(format!("time_retained => '{n} {unit}'"));
                k += 3;
            }
            if if_not_exists {
                args.push("ignore_if_exists => true".into());
            }
        }
        "DELETE" => {
            // `IF EXISTS` changes nothing: Java's `deleteTag` skips a tag that is not there.
            if is_word(ts, k, "IF") && is_word(ts, k + 1, "EXISTS") {
                k += 2;
            }
            let tag = name(k).ok_or_else(|| fail("the tag's name is missing"))?;
            args.push(format!("tag => {}", quoted(&tag)));
            k += 1;
        }
        _ => {
            let from = name(k).ok_or_else(|| fail("the tag's name is missing"))?;
            if !is_word(ts, k + 1, "TO") {
                return Err(fail("expected TO after the tag's name"));
            }
            let to = name(k + 2).ok_or_else(|| fail("the new name is missing"))?;
            args.push(format!("tag => {}", quoted(&from)));
            args.push(format!("target_tag => {}", quoted(&to)));
            k += 3;
        }
    }
    if k < ts.len() {
        return Err(fail(&format!("unexpected '{}'", ts[k].token)));
    }
    let procedure = match verb {
        "CREATE" => "create_tag",
        "DELETE" => "delete_tag",
        _ => "rename_tag",
    };
    Ok(Some(format!("CALL sys.{procedure}({})", args.join(", "))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_and_local_zoned_types_become_quoted_custom_types() {
        assert_eq!(
            rewrite("CREATE TABLE t (m MAP<STRING, ARRAY<INT>> NOT NULL, r ROW<a INT, `b` STRING>, ts TIMESTAMP(3) WITH LOCAL TIME ZONE, l TIMESTAMP_LTZ(6), x INT) WITH ('k' = 'MAP<a')").unwrap(),
            "CREATE TABLE t (m \"MAP<STRING, ARRAY<INT>>\" NOT NULL, r \"ROW<a INT, `b` STRING>\", ts \"TIMESTAMP(3) WITH LOCAL TIME ZONE\", l \"TIMESTAMP_LTZ(6)\", x INT) WITH ('k' = 'MAP<a')"
        );
        assert_eq!(
            rewrite("create table t (\"row\" row(a int, \"b\" string))").unwrap(),
            "create table t (\"row\" \"row(a int, \"\"b\"\" string)\")"
        );
        assert_eq!(
            rewrite("ALTER TABLE t ADD COLUMN m MAP<INT, INT>").unwrap(),
            "ALTER TABLE t ADD COLUMN m \"MAP<INT, INT>\""
        );
    }

    #[test]
    fn a_table_comment_becomes_the_comment_option() {
        assert_eq!(
            rewrite("CREATE TABLE t (a INT COMMENT 'col') COMMENT 'it''s' PARTITIONED BY (a) WITH ('k' = 'v')").unwrap(),
            "CREATE TABLE t (a INT COMMENT 'col')  PARTITIONED BY (a) WITH ('comment' = 'it''s', 'k' = 'v')"
        );
        assert_eq!(
            rewrite("CREATE TABLE t (a INT) COMMENT 'x'").unwrap(),
            "CREATE TABLE t (a INT)  WITH ('comment' = 'x')"
        );
        assert_eq!(
            rewrite("CREATE TABLE t COMMENT 'x' AS SELECT 1 AS a").unwrap(),
            "CREATE TABLE t  WITH ('comment' = 'x') AS SELECT 1 AS a"
        );
    }

    #[test]
    fn tag_statements_become_procedure_calls() {
        assert_eq!(
            rewrite("ALTER TABLE db.t CREATE TAG `TAG-1` AS OF VERSION 2;ALTER TABLE t CREATE TAG IF NOT EXISTS x RETAIN 7 DAYS").unwrap(),
            "CALL sys.create_tag(table => 'db.t', tag => 'TAG-1', snapshot => 2);CALL sys.create_tag(table => 't', tag => 'x', time_retained => '7 DAYS', ignore_if_exists => true)"
        );
        assert_eq!(
            rewrite("alter table \"Db\".t delete tag if exists 'a,b'").unwrap(),
            "CALL sys.delete_tag(table => '\"Db\".t', tag => 'a,b')"
        );
        assert_eq!(
            rewrite("ALTER TABLE t RENAME TAG a TO `it's`").unwrap(),
            "CALL sys.rename_tag(table => 't', tag => 'a', target_tag => 'it''s')"
        );
        for bad in [
            "ALTER TABLE t CREATE TAG",
            "ALTER TABLE t CREATE TAG x AS OF VERSION y",
            "ALTER TABLE t CREATE TAG x RETAIN 7 WEEKS",
            "ALTER TABLE t CREATE TAG x extra",
            "ALTER TABLE t REPLACE TAG x",
            "ALTER TABLE t CREATE OR REPLACE TAG x",
            "ALTER TABLE t RENAME TAG a b",
        ] {
            let e = rewrite(bad).unwrap_err().to_string();
            assert!(e.contains("TAG"), "{bad}: {e}");
        }
        // A column named `tag` is a column.
        let rename = "ALTER TABLE t RENAME COLUMN tag TO tags";
        assert_eq!(rewrite(rename).unwrap(), rename);
    }

    #[test]
    fn using_paimon_is_dropped_and_other_formats_refused() {
        assert_eq!(
            rewrite("CREATE TABLE t (a INT) USING paimon TBLPROPERTIES ('k' = 'v')").unwrap(),
            "CREATE TABLE t (a INT)  TBLPROPERTIES ('k' = 'v')"
        );
        assert_eq!(
            rewrite("CREATE TABLE t USING PAIMON AS SELECT 1 AS a").unwrap(),
            "CREATE TABLE t  AS SELECT 1 AS a"
        );
        let e = rewrite("CREATE TABLE t (a INT) USING parquet").unwrap_err();
        assert!(e.to_string().contains("USING parquet"), "{e}");
        let join = "CREATE TABLE t AS SELECT * FROM a JOIN b USING (k)";
        assert_eq!(rewrite(join).unwrap(), join);
    }

    #[test]
    fn queries_and_other_statements_stay_as_typed() {
        for sql in [
            "SELECT map < 3, row FROM t WHERE ts < TIMESTAMP '2024-01-01'",
            "CREATE TABLE t AS SELECT map < 3 AS x FROM s",
            "INSERT INTO t VALUES ('it''s')",
            "CREATE TABLE t (a INT COMMENT 'it''s', ts TIMESTAMP(3))",
        ] {
            assert_eq!(rewrite(sql).unwrap(), sql);
        }
    }

    #[test]
    fn unset_reset_and_add_columns_become_what_the_parser_takes() {
        assert_eq!(
            rewrite("ALTER TABLE db.t UNSET TBLPROPERTIES ('a', 'b.c')").unwrap(),
            "ALTER TABLE db.t SET TBLPROPERTIES ('a' = NULL, 'b.c' = NULL)"
        );
        assert_eq!(
            rewrite("alter table t unset tblproperties if exists ('a')").unwrap(),
            "alter table t SET TBLPROPERTIES ('a' = NULL)"
        );
        assert_eq!(
            rewrite("ALTER TABLE t RESET ('a')").unwrap(),
            "ALTER TABLE t SET TBLPROPERTIES ('a' = NULL)"
        );
        assert_eq!(
            rewrite("ALTER TABLE t ADD COLUMNS (a INT, m MAP<INT, DECIMAL(10, 2)>)").unwrap(),
            "ALTER TABLE t ADD COLUMN a INT, ADD COLUMN m \"MAP<INT, DECIMAL(10, 2)>\""
        );
        assert_eq!(
            rewrite("ALTER TABLE t ADD (a INT COMMENT 'x' FIRST, b ROW<c INT> AFTER a)").unwrap(),
            "ALTER TABLE t ADD COLUMN a INT COMMENT 'x' FIRST, ADD COLUMN b \"ROW<c INT>\" AFTER a"
        );
        for bad in [
            "ALTER TABLE t RESET (a)",
            "ALTER TABLE t RESET ()",
            "ALTER TABLE t UNSET TBLPROPERTIES ('a' 'b')",
            "ALTER TABLE t UNSET TBLPROPERTIES 'a'",
        ] {
            assert!(rewrite(bad).is_err(), "{bad}");
        }
        // A column named `reset` is a column.
        let rename = "ALTER TABLE t RENAME COLUMN reset TO unset";
        assert_eq!(rewrite(rename).unwrap(), rename);
    }
}
