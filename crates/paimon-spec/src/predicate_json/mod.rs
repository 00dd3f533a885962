//! Java Paimon's JSON form of predicates and transforms (Jackson over Java `Predicate`,
//! `LeafPredicate`, `CompoundPredicate`, `Transform` and its subclasses), as a query-auth
//! split (Java `QueryAuthSplit` / `TableQueryAuthResult`) carries its row filters and column
//! masks, and as paimon-datafusion's scan node carries its filter: [`predicate_from_json`]
//! reads what Java reads, [`predicate_to_json`] writes what Java writes, and
//! [`predicate_from_json_all_types`] reads back everything the writer writes (Java writes
//! temporal and decimal literals in forms it cannot read itself).
//!
//! ```text
//! {"kind":"LEAF","transform":{"name":"FIELD_REF","fieldRef":{"index":0,"name":"dept","type":"STRING"}},
//!  "function":"EQUAL","literals":["eng"]}
//! {"kind":"COMPOUND","function":"OR","children":[<predicate>, ...]}
//! {"name":"CONCAT","inputs":["****",{"index":2,"name":"phone","type":"STRING"}]}
//! ```
//!
//! Field references are resolved by name, as Java remaps them onto the read row type; the
//! `index` is ignored. Unknown JSON properties are ignored, as Java's mapper does
//! (`FAIL_ON_UNKNOWN_PROPERTIES` off). A rule this model cannot express exactly is
//! [`Error::Unsupported`] naming it, never approximated: the rules decide which rows and values
//! a reader may return.

mod encode;
mod written;

pub use encode::predicate_to_json;
pub use written::predicate_from_json_all_types;

use serde_json::{Map, Value};

use crate::binary::Datum;
use crate::error::{Error, Result};
use crate::predicate::{LeafOp, Predicate};
use crate::types::{DataType, TypeKind};

const WHAT: &str = "predicate JSON";

/// A column-masking transform (Java `Transform` as registered for JSON in 1.4: `FIELD_REF`,
/// `NULL`, `CONCAT`, `CONCAT_WS`, `UPPER`, `LOWER`; `CAST` is decoded and refused).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transform {
    /// Java `FieldTransform`: the value of a column, of the given type.
    Field {
        /// Column name.
        column: String,
        /// The type the reference declares.
        data_type: DataType,
    },
    /// Java `NullTransform`: always null.
    Null,
    /// Java `ConcatTransform`: the inputs concatenated; null when any input is null
    /// (`BinaryString.concat`).
    Concat(Vec<StringInput>),
    /// Java `ConcatWsTransform`: inputs after the first joined by the first; null when the
    /// separator is null, null inputs skipped (`BinaryString.concatWs`).
    ConcatWs(Vec<StringInput>),
    /// Java `UpperTransform`: the input upper-cased; null stays null.
    Upper(StringInput),
    /// Java `LowerTransform`: the input lower-cased; null stays null.
    Lower(StringInput),
}

/// An input of a string transform (Java `StringTransform.InputDeserializer`): a string
/// column, a string literal, or a JSON null.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StringInput {
    /// A column of a character-string type.
    Column(String),
    /// A literal; `None` for JSON null.
    Literal(Option<String>),
}

impl Transform {
    /// The columns the transform reads.
    pub fn columns(&self) -> Vec<&str> {
        fn strings(inputs: &[StringInput]) -> Vec<&str> {
            inputs
                .iter()
                .filter_map(|i| match i {
                    StringInput::Column(c) => Some(c.as_str()),
                    StringInput::Literal(_) => None,
                })
                .collect()
        }
        match self {
            Transform::Field { column, .. } => vec![column.as_str()],
            Transform::Null => Vec::new(),
            Transform::Concat(i) | Transform::ConcatWs(i) => strings(i),
            Transform::Upper(i) | Transform::Lower(i) => strings(std::slice::from_ref(i)),
        }
    }
}

/// Parses one row filter (Java `JsonSerdeUtil.fromJson(json, Predicate.class)`).
///
/// # Errors
/// [`Error::Corrupt`] on JSON Java could not read either (an empty string, JSON `null`, a
/// missing `kind`, an unknown function); [`Error::Unsupported`] for a rule that is valid Java
/// but has no exact form here: a leaf over a transform other than a plain field,
/// `ENDS_WITH`, `CONTAINS`, `LIKE`, or literals of a type Java 1.4 cannot read back from JSON
/// (DATE, TIME, TIMESTAMP, DECIMAL, binary and nested types).
pub fn predicate_from_json(json: &str) -> Result<Predicate> {
    if json.trim().is_empty() {
        return Err(Error::corrupt(WHAT, "a row filter cannot be empty"));
    }
    let v: Value = serde_json::from_str(json).map_err(|e| Error::corrupt(WHAT, e.to_string()))?;
    if v.is_null() {
        return Err(Error::corrupt(WHAT, "a row filter cannot be JSON null"));
    }
    predicate(&v, 0)
}

/// Parses one column-masking transform (Java `JsonSerdeUtil.fromJson(json, Transform.class)`).
///
/// # Errors
/// [`Error::Corrupt`] on JSON Java could not read either; [`Error::Unsupported`] for `CAST`,
/// whose Java cast semantics are not reproduced here.
pub fn transform_from_json(json: &str) -> Result<Transform> {
    if json.trim().is_empty() {
        return Err(Error::corrupt(WHAT, "a column mask cannot be empty"));
    }
    let v: Value = serde_json::from_str(json).map_err(|e| Error::corrupt(WHAT, e.to_string()))?;
    if v.is_null() {
        return Err(Error::corrupt(WHAT, "a column mask cannot be JSON null"));
    }
    transform(&v)
}

/// Java's mapper nests without a bound; ours stops well before the stack would.
const MAX_DEPTH: usize = 64;

fn object<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| Error::corrupt(WHAT, format!("{what} is not an object: {v}")))
}

fn string_field<'a>(o: &'a Map<String, Value>, key: &str, what: &str) -> Result<&'a str> {
    o.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| Error::corrupt(WHAT, format!("{what} without a string \"{key}\"")))
}

fn predicate(v: &Value, depth: usize) -> Result<Predicate> {
    if depth > MAX_DEPTH {
        return Err(Error::corrupt(
            WHAT,
            format!("predicate nested deeper than {MAX_DEPTH}"),
        ));
    }
    let o = object(v, "a predicate")?;
    match string_field(o, "kind", "a predicate")? {
        "LEAF" => leaf(o),
        "COMPOUND" => {
            let function = string_field(o, "function", "a compound predicate")?;
            let children = o
                .get("children")
                .and_then(Value::as_array)
                .ok_or_else(|| Error::corrupt(WHAT, "a compound predicate without children"))?;
            let children = children
                .iter()
                .map(|c| predicate(c, depth + 1))
                .collect::<Result<Vec<_>>>()?;
            match function {
                // Java's `And.test` over no children is true, `Or.test` false.
                "AND" => Ok(Predicate::And(children)),
                "OR" => Ok(Predicate::Or(children)),
                other => Err(Error::corrupt(
                    WHAT,
                    format!("unknown compound predicate function '{other}'"),
                )),
            }
        }
        other => Err(Error::corrupt(
            WHAT,
            format!("unknown predicate kind '{other}'"),
        )),
    }
}

fn field_ref(v: &Value) -> Result<(String, DataType)> {
    let o = object(v, "a field reference")?;
    let name = string_field(o, "name", "a field reference")?.to_string();
    let ty = o
        .get("type")
        .ok_or_else(|| Error::corrupt(WHAT, format!("field reference {name} without a type")))?;
    Ok((name, DataType::from_json(ty)?))
}

fn leaf(o: &Map<String, Value>) -> Result<Predicate> {
    let t = o
        .get("transform")
        .ok_or_else(|| Error::corrupt(WHAT, "a leaf predicate without a transform"))?;
    let (column, ty) = leaf_column(t)?;
    let function = string_field(o, "function", "a leaf predicate")?;
    let literals = match o.get("literals") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|l| literal(l, &ty, &column))
            .collect::<Result<Vec<_>>>()?,
        Some(other) => {
            return Err(Error::corrupt(
                WHAT,
                format!("literals of {column} are not a list: {other}"),
            ))
        }
    };
    leaf_predicate(column, function, literals)
}

/// The column a leaf reads: only a plain field reference has an exact form here.
fn leaf_column(t: &Value) -> Result<(String, DataType)> {
    match transform(t)? {
        Transform::Field { column, data_type } => Ok((column, data_type)),
        other => Err(Error::unsupported(format!(
            "a row filter over the transform {}",
            transform_name(&other)
        ))),
    }
}

/// A leaf of Java `LeafFunction` `function` over `column` with its literals already typed.
fn leaf_predicate(column: String, function: &str, literals: Vec<Datum>) -> Result<Predicate> {
    let nth = |i: usize| -> Result<Datum> {
        literals.get(i).cloned().ok_or_else(|| {
            Error::corrupt(
                WHAT,
                format!("{function} on {column} needs {} literal(s)", i + 1),
            )
        })
    };
    let simple = |op: LeafOp, n: usize| -> Result<Predicate> {
        let lits = (0..n).map(nth).collect::<Result<Vec<_>>>()?;
        Ok(Predicate::leaf(column.clone(), op, lits))
    };
    match function {
        "EQUAL" => simple(LeafOp::Eq, 1),
        "NOT_EQUAL" => simple(LeafOp::NotEq, 1),
        "LESS_THAN" => simple(LeafOp::Lt, 1),
        "LESS_OR_EQUAL" => simple(LeafOp::LtEq, 1),
        "GREATER_THAN" => simple(LeafOp::Gt, 1),
        "GREATER_OR_EQUAL" => simple(LeafOp::GtEq, 1),
        "IS_NULL" => simple(LeafOp::IsNull, 0),
        "IS_NOT_NULL" => simple(LeafOp::IsNotNull, 0),
        "STARTS_WITH" => simple(LeafOp::StartsWith, 1),
        "IN" => Ok(Predicate::leaf(
            column.clone(),
            LeafOp::In,
            literals.clone(),
        )),
        "NOT_IN" => Ok(Predicate::leaf(
            column.clone(),
            LeafOp::NotIn,
            literals.clone(),
        )),
        // Java `Between` / `NotBetween`: two-valued, a null field or bound fails the row,
        // which is what the three-valued form gives at the top of a filter without NOT (Java's
        // JSON has no NOT).
        "BETWEEN" => Ok(Predicate::And(vec![
            Predicate::leaf(column.clone(), LeafOp::GtEq, vec![nth(0)?]),
            Predicate::leaf(column.clone(), LeafOp::LtEq, vec![nth(1)?]),
        ])),
        "NOT_BETWEEN" => Ok(Predicate::Or(vec![
            Predicate::leaf(column.clone(), LeafOp::Lt, vec![nth(0)?]),
            Predicate::leaf(column.clone(), LeafOp::Gt, vec![nth(1)?]),
        ])),
        "TRUE" => Ok(Predicate::AlwaysTrue),
        "FALSE" => Ok(Predicate::AlwaysFalse),
        "ENDS_WITH" | "CONTAINS" | "LIKE" => Err(Error::unsupported(format!(
            "the row filter function {function} (on {column})"
        ))),
        other => Err(Error::corrupt(
            WHAT,
            format!("could not resolve leaf function '{other}'"),
        )),
    }
}

/// A literal as Java's `PredicateBuilder.convertJavaObject` makes it from what Jackson read.
fn literal(v: &Value, ty: &DataType, column: &str) -> Result<Datum> {
    if v.is_null() {
        return Ok(Datum::Null);
    }
    let bad = || {
        Error::corrupt(
            WHAT,
            format!("literal {v} does not fit {column} of type {ty}"),
        )
    };
    let int = |min: i64, max: i64| -> Result<i64> {
        v.as_i64()
            .filter(|x| (min..=max).contains(x))
            .ok_or_else(bad)
    };
    Ok(match &ty.kind {
        TypeKind::Boolean => Datum::Boolean(v.as_bool().ok_or_else(bad)?),
        TypeKind::TinyInt => Datum::TinyInt(int(i8::MIN.into(), i8::MAX.into())? as i8),
        TypeKind::SmallInt => Datum::SmallInt(int(i16::MIN.into(), i16::MAX.into())? as i16),
        TypeKind::Int => Datum::Int(int(i32::MIN.into(), i32::MAX.into())? as i32),
        TypeKind::BigInt => Datum::BigInt(int(i64::MIN, i64::MAX)?),
        TypeKind::Float => Datum::Float(v.as_f64().ok_or_else(bad)? as f32),
        TypeKind::Double => Datum::Double(v.as_f64().ok_or_else(bad)?),
        // `o.toString()` of whatever Jackson read: strings, and numbers in their Java form
        // only when integral (a double's Java text differs from Rust's).
        TypeKind::Char { .. } | TypeKind::VarChar { .. } => match v {
            Value::String(s) => Datum::String(s.clone()),
            Value::Number(n) if n.is_i64() || n.is_u64() => Datum::String(n.to_string()),
            Value::Bool(b) => Datum::String(b.to_string()),
            _ => return Err(bad()),
        },
        _ => {
            return Err(Error::unsupported(format!(
                "a row filter literal of type {ty} (on {column}): Java 1.4 cannot read it from JSON"
            )))
        }
    })
}

fn transform_name(t: &Transform) -> &'static str {
    match t {
        Transform::Field { .. } => "FIELD_REF",
        Transform::Null => "NULL",
        Transform::Concat(_) => "CONCAT",
        Transform::ConcatWs(_) => "CONCAT_WS",
        Transform::Upper(_) => "UPPER",
        Transform::Lower(_) => "LOWER",
    }
}

fn transform(v: &Value) -> Result<Transform> {
    let o = object(v, "a transform")?;
    let name = string_field(o, "name", "a transform")?;
    let inputs = || -> Result<Vec<StringInput>> {
        let a = o
            .get("inputs")
            .and_then(Value::as_array)
            .ok_or_else(|| Error::corrupt(WHAT, format!("{name} transform without inputs")))?;
        a.iter().map(string_input).collect()
    };
    let one = |mut i: Vec<StringInput>| -> Result<StringInput> {
        match (i.pop(), i.is_empty()) {
            (Some(x), true) => Ok(x),
            _ => Err(Error::corrupt(
                WHAT,
                format!("{name} transform takes exactly one input"),
            )),
        }
    };
    match name {
        "FIELD_REF" => {
            let r = o
                .get("fieldRef")
                .ok_or_else(|| Error::corrupt(WHAT, "FIELD_REF transform without fieldRef"))?;
            let (column, data_type) = field_ref(r)?;
            Ok(Transform::Field { column, data_type })
        }
        "NULL" => Ok(Transform::Null),
        "CONCAT" => Ok(Transform::Concat(inputs()?)),
        "CONCAT_WS" => {
            let i = inputs()?;
            if i.len() < 2 {
                return Err(Error::corrupt(
                    WHAT,
                    "CONCAT_WS transform takes a separator and at least one input",
                ));
            }
            Ok(Transform::ConcatWs(i))
        }
        "UPPER" => Ok(Transform::Upper(one(inputs()?)?)),
        "LOWER" => Ok(Transform::Lower(one(inputs()?)?)),
        "CAST" => Err(Error::unsupported(
            "the CAST transform (Java CastExecutors semantics are not reproduced)",
        )),
        other => Err(Error::corrupt(
            WHAT,
            format!("unknown transform name '{other}'"),
        )),
    }
}

fn string_input(v: &Value) -> Result<StringInput> {
    match v {
        Value::Null => Ok(StringInput::Literal(None)),
        Value::String(s) => Ok(StringInput::Literal(Some(s.clone()))),
        Value::Object(_) => {
            let (name, ty) = field_ref(v)?;
            // Java `StringTransform` checks `ref.type().is(CHARACTER_STRING)`.
            if !matches!(ty.kind, TypeKind::Char { .. } | TypeKind::VarChar { .. }) {
                return Err(Error::corrupt(
                    WHAT,
                    format!("string transform input {name} has type {ty}, not a string"),
                ));
            }
            Ok(StringInput::Column(name))
        }
        other => Err(Error::corrupt(
            WHAT,
            format!("unsupported string transform input {other}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(name: &str, ty: &str) -> String {
        format!(r#"{{"name":"FIELD_REF","fieldRef":{{"index":3,"name":"{name}","type":"{ty}"}}}}"#)
    }

    #[test]
    fn leaf_and_compound() {
        let eq = format!(
            r#"{{"kind":"LEAF","transform":{},"function":"EQUAL","literals":["eng"]}}"#,
            field("dept", "STRING")
        );
        assert_eq!(
            predicate_from_json(&eq).unwrap(),
            Predicate::leaf("dept", LeafOp::Eq, vec![Datum::String("eng".into())])
        );
        let between = format!(
            r#"{{"kind":"LEAF","transform":{},"function":"BETWEEN","literals":[2,4],"x":1}}"#,
            field("f1", "INT")
        );
        let or = format!(r#"{{"kind":"COMPOUND","function":"OR","children":[{between},{eq}]}}"#);
        let p = predicate_from_json(&or).unwrap();
        let Predicate::Or(c) = p else { panic!("{p:?}") };
        assert_eq!(
            c[0],
            Predicate::And(vec![
                Predicate::leaf("f1", LeafOp::GtEq, vec![Datum::Int(2)]),
                Predicate::leaf("f1", LeafOp::LtEq, vec![Datum::Int(4)]),
            ])
        );
    }

    #[test]
    fn refuses_what_it_cannot_express() {
        let like = format!(
            r#"{{"kind":"LEAF","transform":{},"function":"LIKE","literals":["a%"]}}"#,
            field("s", "STRING")
        );
        assert!(matches!(
            predicate_from_json(&like),
            Err(Error::Unsupported { .. })
        ));
        let date = format!(
            r#"{{"kind":"LEAF","transform":{},"function":"EQUAL","literals":[[2024,1,1]]}}"#,
            field("d", "DATE")
        );
        assert!(matches!(
            predicate_from_json(&date),
            Err(Error::Unsupported { .. })
        ));
        let upper = r#"{"kind":"LEAF","transform":{"name":"UPPER","inputs":[{"index":0,"name":"s","type":"STRING"}]},"function":"EQUAL","literals":["A"]}"#;
        assert!(matches!(
            predicate_from_json(upper),
            Err(Error::Unsupported { .. })
        ));
        for bad in [
            "",
            "null",
            "{}",
            r#"{"kind":"LEAF"}"#,
            "filter-json-1",
            "[1]",
        ] {
            assert!(
                matches!(predicate_from_json(bad), Err(Error::Corrupt { .. })),
                "{bad}"
            );
        }
        let big = format!(
            r#"{{"kind":"LEAF","transform":{},"function":"EQUAL","literals":[300]}}"#,
            field("t", "TINYINT")
        );
        assert!(predicate_from_json(&big).is_err());
    }

    #[test]
    fn transforms() {
        let t = transform_from_json(
            r#"{"name":"CONCAT_WS","inputs":["-",null,{"index":1,"name":"phone","type":"VARCHAR(20)"}]}"#,
        )
        .unwrap();
        assert_eq!(
            t,
            Transform::ConcatWs(vec![
                StringInput::Literal(Some("-".into())),
                StringInput::Literal(None),
                StringInput::Column("phone".into()),
            ])
        );
        assert_eq!(t.columns(), vec!["phone"]);
        assert_eq!(
            transform_from_json(r#"{"name":"NULL"}"#).unwrap(),
            Transform::Null
        );
        assert!(matches!(
            transform_from_json(
                r#"{"name":"CAST","fieldRef":{"index":0,"name":"a","type":"INT"},"type":"STRING"}"#
            ),
            Err(Error::Unsupported { .. })
        ));
        for bad in [
            "",
            "null",
            r#"{"name":"UPPER","inputs":["a","b"]}"#,
            r#"{"name":"UPPER","inputs":[{"index":0,"name":"n","type":"INT"}]}"#,
            r#"{"name":"CONCAT_WS","inputs":["-"]}"#,
            r#"{"name":"MD5"}"#,
            "mask-name-json",
        ] {
            assert!(
                matches!(transform_from_json(bad), Err(Error::Corrupt { .. })),
                "{bad}"
            );
        }
    }
}
