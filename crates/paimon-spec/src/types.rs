//! Paimon data types and their JSON form.
//!
//! Mirrors Java's `org.apache.paimon.types.DataType` family and `DataTypeJsonParser`. Atomic
//! types serialize as a JSON string holding their SQL form (`"INT NOT NULL"`,
//! `"DECIMAL(10, 2)"`); composite types as objects (`{"type":"ARRAY","element":...}`).

use serde_json::{json, Map, Value};

use crate::error::{Error, Result};

/// Largest VARCHAR / VARBINARY length; printed as `STRING` / `BYTES`.
pub const MAX_LENGTH: u32 = i32::MAX as u32;

/// A Paimon data type with its nullability (Java `DataType`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DataType {
    /// Whether values may be null.
    pub nullable: bool,
    /// The type proper.
    pub kind: TypeKind,
}

/// The type without nullability.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TypeKind {
    /// BOOLEAN
    Boolean,
    /// TINYINT (i8)
    TinyInt,
    /// SMALLINT (i16)
    SmallInt,
    /// INT (i32)
    Int,
    /// BIGINT (i64)
    BigInt,
    /// FLOAT (f32)
    Float,
    /// DOUBLE (f64)
    Double,
    /// DECIMAL(p, s)
    Decimal {
        /// Total digits, 1..=38.
        precision: u32,
        /// Digits after the point.
        scale: u32,
    },
    /// CHAR(n)
    Char {
        /// Length in characters.
        length: u32,
    },
    /// VARCHAR(n); `STRING` is VARCHAR(2147483647).
    VarChar {
        /// Maximum length.
        length: u32,
    },
    /// BINARY(n)
    Binary {
        /// Length in bytes.
        length: u32,
    },
    /// VARBINARY(n); `BYTES` is VARBINARY(2147483647).
    VarBinary {
        /// Maximum length.
        length: u32,
    },
    /// DATE: days since 1970-01-01.
    Date,
    /// TIME(p): millis of day.
    Time {
        /// Fractional second digits.
        precision: u32,
    },
    /// TIMESTAMP(p) without time zone (wall-clock fields).
    Timestamp {
        /// Fractional second digits, 0..=9.
        precision: u32,
    },
    /// TIMESTAMP(p) WITH LOCAL TIME ZONE (an instant).
    LocalZonedTimestamp {
        /// Fractional second digits, 0..=9.
        precision: u32,
    },
    /// VARIANT (semi-structured value + metadata).
    Variant,
    /// BLOB (large binary, possibly stored out of line).
    Blob,
    /// GEOMETRY / GEOGRAPHY, kept as their SQL text.
    Spatial {
        /// The SQL form without nullability, e.g. `GEOMETRY(OGC:CRS84)`.
        sql: String,
    },
    /// `ARRAY<element>`
    Array(Box<DataType>),
    /// `MULTISET<element>` (a map from element to INT count).
    Multiset(Box<DataType>),
    /// `MAP<key, value>`
    Map {
        /// Key type.
        key: Box<DataType>,
        /// Value type.
        value: Box<DataType>,
    },
    /// `ROW<fields...>`, each nested field with its own id.
    Row(Vec<DataField>),
    /// `VECTOR<element, length>`
    Vector {
        /// Element type.
        element: Box<DataType>,
        /// Number of elements.
        length: u32,
    },
}

/// A named field with a stable id (Java `DataField`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DataField {
    /// Field id, stable across renames.
    pub id: i32,
    /// Current name.
    pub name: String,
    /// Type.
    pub data_type: DataType,
    /// Optional description.
    pub description: Option<String>,
    /// Optional default value expression.
    pub default_value: Option<String>,
}

impl DataType {
    /// A nullable type of `kind`.
    pub fn nullable(kind: TypeKind) -> Self {
        DataType {
            nullable: true,
            kind,
        }
    }

    /// A `NOT NULL` type of `kind`.
    pub fn not_null(kind: TypeKind) -> Self {
        DataType {
            nullable: false,
            kind,
        }
    }

    /// The same type with the given nullability.
    pub fn with_nullable(&self, nullable: bool) -> Self {
        DataType {
            nullable,
            kind: self.kind.clone(),
        }
    }

    /// `STRING` (nullable).
    pub fn string() -> Self {
        Self::nullable(TypeKind::VarChar { length: MAX_LENGTH })
    }

    /// `BYTES` (nullable).
    pub fn bytes() -> Self {
        Self::nullable(TypeKind::VarBinary { length: MAX_LENGTH })
    }

    /// Whether the two types are equal ignoring nullability at every level.
    pub fn eq_ignore_nullable(&self, other: &DataType) -> bool {
        match (&self.kind, &other.kind) {
            (TypeKind::Array(a), TypeKind::Array(b))
            | (TypeKind::Multiset(a), TypeKind::Multiset(b)) => a.eq_ignore_nullable(b),
            (TypeKind::Map { key: k1, value: v1 }, TypeKind::Map { key: k2, value: v2 }) => {
                k1.eq_ignore_nullable(k2) && v1.eq_ignore_nullable(v2)
            }
            (TypeKind::Row(a), TypeKind::Row(b)) => {
                a.len() == b.len()
                    && a.iter().zip(b).all(|(x, y)| {
                        x.id == y.id
                            && x.name == y.name
                            && x.data_type.eq_ignore_nullable(&y.data_type)
                    })
            }
            (
                TypeKind::Vector {
                    element: a,
                    length: la,
                },
                TypeKind::Vector {
                    element: b,
                    length: lb,
                },
            ) => la == lb && a.eq_ignore_nullable(b),
            (a, b) => a == b,
        }
    }

    /// Parses the JSON form used in schema files.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the JSON is not a valid Paimon type.
    pub fn from_json(value: &Value) -> Result<Self> {
        match value {
            Value::String(s) => parse_atomic(s),
            Value::Object(obj) => parse_composite(obj),
            other => Err(Error::corrupt(
                "data type JSON",
                format!("expected a string or object, found {other}"),
            )),
        }
    }

    /// Parses the JSON text of a type.
    ///
    /// # Errors
    /// [`Error::Corrupt`] on malformed JSON or an unknown type.
    pub fn from_json_str(text: &str) -> Result<Self> {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| Error::corrupt("data type JSON", e.to_string()))?;
        Self::from_json(&v)
    }

    /// The JSON form Java writes.
    pub fn to_json(&self) -> Value {
        let suffix = if self.nullable { "" } else { " NOT NULL" };
        match &self.kind {
            TypeKind::Array(e) => json!({"type": format!("ARRAY{suffix}"), "element": e.to_json()}),
            TypeKind::Multiset(e) => {
                json!({"type": format!("MULTISET{suffix}"), "element": e.to_json()})
            }
            TypeKind::Map { key, value } => json!({
                "type": format!("MAP{suffix}"),
                "key": key.to_json(),
                "value": value.to_json(),
            }),
            TypeKind::Row(fields) => json!({
                "type": format!("ROW{suffix}"),
                "fields": fields.iter().map(DataField::to_json).collect::<Vec<_>>(),
            }),
            TypeKind::Vector { element, length } => json!({
                "type": format!("VECTOR{suffix}"),
                "element": element.to_json(),
                "length": length,
            }),
            _ => Value::String(self.to_string()),
        }
    }

    /// Whether this is a fixed-width value in a BinaryRow slot (Java `BinaryRow.isInFixedLengthPart`).
    pub fn is_fixed_length(&self) -> bool {
        match &self.kind {
            TypeKind::Boolean
            | TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Float
            | TypeKind::Double
            | TypeKind::Date
            | TypeKind::Time { .. } => true,
            TypeKind::Decimal { precision, .. } => *precision <= 18,
            TypeKind::Timestamp { precision } | TypeKind::LocalZonedTimestamp { precision } => {
                *precision <= 3
            }
            _ => false,
        }
    }
}

impl std::fmt::Display for DataType {
    /// The SQL form, e.g. `DECIMAL(10, 2) NOT NULL`, `ARRAY<INT>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            TypeKind::Boolean => f.write_str("BOOLEAN")?,
            TypeKind::TinyInt => f.write_str("TINYINT")?,
            TypeKind::SmallInt => f.write_str("SMALLINT")?,
            TypeKind::Int => f.write_str("INT")?,
            TypeKind::BigInt => f.write_str("BIGINT")?,
            TypeKind::Float => f.write_str("FLOAT")?,
            TypeKind::Double => f.write_str("DOUBLE")?,
            TypeKind::Decimal { precision, scale } => write!(f, "DECIMAL({precision}, {scale})")?,
            TypeKind::Char { length } => write!(f, "CHAR({length})")?,
            TypeKind::VarChar { length } if *length == MAX_LENGTH => f.write_str("STRING")?,
            TypeKind::VarChar { length } => write!(f, "VARCHAR({length})")?,
            TypeKind::Binary { length } => write!(f, "BINARY({length})")?,
            TypeKind::VarBinary { length } if *length == MAX_LENGTH => f.write_str("BYTES")?,
            TypeKind::VarBinary { length } => write!(f, "VARBINARY({length})")?,
            TypeKind::Date => f.write_str("DATE")?,
            TypeKind::Time { precision } => write!(f, "TIME({precision})")?,
            TypeKind::Timestamp { precision } => write!(f, "TIMESTAMP({precision})")?,
            TypeKind::LocalZonedTimestamp { precision } => {
                write!(f, "TIMESTAMP({precision}) WITH LOCAL TIME ZONE")?
            }
            TypeKind::Variant => f.write_str("VARIANT")?,
            TypeKind::Blob => f.write_str("BLOB")?,
            TypeKind::Spatial { sql } => f.write_str(sql)?,
            TypeKind::Array(e) => write!(f, "ARRAY<{e}>")?,
            TypeKind::Multiset(e) => write!(f, "MULTISET<{e}>")?,
            TypeKind::Map { key, value } => write!(f, "MAP<{key}, {value}>")?,
            TypeKind::Row(fields) => {
                f.write_str("ROW<")?;
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "`{}` {}", field.name, field.data_type)?;
                }
                f.write_str(">")?;
            }
            TypeKind::Vector { element, length } => write!(f, "VECTOR<{element}, {length}>")?,
        }
        if !self.nullable {
            f.write_str(" NOT NULL")?;
        }
        Ok(())
    }
}

/// Java `RowType.validateFields`: field names are unique and each holds a character other than
/// whitespace (as Java's `Character.isWhitespace` counts it). A row with two fields of one name
/// would read one column in place of the other.
///
/// # Errors
/// [`Error::Corrupt`] naming the offending field.
pub(crate) fn check_field_names(fields: &[DataField]) -> Result<()> {
    let java_whitespace = |c: char| {
        matches!(c, '\u{1C}'..='\u{1F}')
            || (c.is_whitespace() && !matches!(c, '\u{85}' | '\u{A0}' | '\u{2007}' | '\u{202F}'))
    };
    let mut seen = std::collections::HashSet::new();
    for f in fields {
        if f.name.chars().all(java_whitespace) {
            return Err(Error::corrupt(
                "schema JSON",
                format!("field {} has a blank name {:?}", f.id, f.name),
            ));
        }
        if !seen.insert(f.name.as_str()) {
            return Err(Error::corrupt(
                "schema JSON",
                format!("field name {:?} appears twice in one row", f.name),
            ));
        }
    }
    Ok(())
}

impl DataField {
    /// A field without description or default.
    pub fn new(id: i32, name: impl Into<String>, data_type: DataType) -> Self {
        DataField {
            id,
            name: name.into(),
            data_type,
            description: None,
            default_value: None,
        }
    }

    /// Parses `{"id":..,"name":..,"type":..}`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when a key is missing or has the wrong type.
    pub fn from_json(value: &Value) -> Result<Self> {
        let obj = value
            .as_object()
            .ok_or_else(|| Error::corrupt("data field JSON", "expected an object"))?;
        let id = obj
            .get("id")
            .and_then(Value::as_i64)
            .and_then(|v| i32::try_from(v).ok())
            .ok_or_else(|| Error::corrupt("data field JSON", "missing or invalid \"id\""))?;
        let name = obj
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::corrupt("data field JSON", "missing \"name\""))?
            .to_string();
        let data_type = DataType::from_json(obj.get("type").ok_or_else(|| {
            Error::corrupt("data field JSON", format!("field '{name}' has no \"type\""))
        })?)?;
        let opt_str = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
        Ok(DataField {
            id,
            name,
            data_type,
            description: opt_str("description"),
            default_value: opt_str("defaultValue"),
        })
    }

    /// The JSON form Java writes.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), json!(self.id));
        m.insert("name".into(), json!(self.name));
        m.insert("type".into(), self.data_type.to_json());
        if let Some(d) = &self.description {
            m.insert("description".into(), json!(d));
        }
        if let Some(d) = &self.default_value {
            m.insert("defaultValue".into(), json!(d));
        }
        Value::Object(m)
    }
}

fn parse_composite(obj: &Map<String, Value>) -> Result<DataType> {
    let bad = |r: String| Error::corrupt("data type JSON", r);
    let tag = obj
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("composite type without a \"type\" string".into()))?;
    let (name, nullable) = split_nullability(tag);
    let child = |key: &str| -> Result<Box<DataType>> {
        let v = obj
            .get(key)
            .ok_or_else(|| bad(format!("{name} type without \"{key}\"")))?;
        Ok(Box::new(DataType::from_json(v)?))
    };
    let kind = match name.to_ascii_uppercase().as_str() {
        "ARRAY" => TypeKind::Array(child("element")?),
        "MULTISET" => TypeKind::Multiset(child("element")?),
        "MAP" => TypeKind::Map {
            key: child("key")?,
            value: child("value")?,
        },
        "ROW" => {
            let fields = obj
                .get("fields")
                .and_then(Value::as_array)
                .ok_or_else(|| bad("ROW type without \"fields\" array".into()))?;
            let fields = fields
                .iter()
                .map(DataField::from_json)
                .collect::<Result<Vec<_>>>()?;
            check_field_names(&fields)?;
            TypeKind::Row(fields)
        }
        "VECTOR" => {
            let length = obj
                .get("length")
                .and_then(Value::as_u64)
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| bad("VECTOR type without a valid \"length\"".into()))?;
            TypeKind::Vector {
                element: child("element")?,
                length,
            }
        }
        other => return Err(bad(format!("unknown composite type '{other}'"))),
    };
    Ok(DataType { nullable, kind })
}

/// Splits `"X NOT NULL"` into (`"X"`, false); Java checks for the substring `NOT NULL`.
fn split_nullability(s: &str) -> (&str, bool) {
    let t = s.trim();
    let upper = t.to_ascii_uppercase();
    match upper.find("NOT NULL") {
        Some(pos) => (t[..pos].trim_end(), false),
        None => {
            let t = t.strip_suffix(" NULL").unwrap_or(t);
            (t.trim_end(), true)
        }
    }
}

pub(crate) fn parse_atomic(text: &str) -> Result<DataType> {
    let bad = || Error::corrupt("data type JSON", format!("unknown type '{text}'"));
    let (body, nullable) = split_nullability(text);
    let upper = body.to_ascii_uppercase();
    // Separate the name, an optional parenthesized parameter list and a trailing qualifier.
    let (name, params, rest) = match upper.find('(') {
        Some(open) => {
            let close = upper[open..].find(')').map(|c| open + c).ok_or_else(bad)?;
            let params = upper[open + 1..close]
                .split(',')
                .map(|p| p.trim().to_string())
                .collect::<Vec<_>>();
            (
                upper[..open].trim().to_string(),
                params,
                upper[close + 1..].trim().to_string(),
            )
        }
        None => {
            // Qualifiers such as "WITH LOCAL TIME ZONE" follow the name.
            let mut words = upper.splitn(2, ' ');
            let n = words.next().unwrap_or("").to_string();
            (n, Vec::new(), words.next().unwrap_or("").trim().to_string())
        }
    };
    let num = |i: usize, default: u32| -> Result<u32> {
        match params.get(i) {
            None => Ok(default),
            Some(p) => p.parse::<u32>().map_err(|_| bad()),
        }
    };
    let kind = match (name.as_str(), rest.as_str()) {
        ("BOOLEAN", "") => TypeKind::Boolean,
        ("TINYINT", "") => TypeKind::TinyInt,
        ("SMALLINT", "") => TypeKind::SmallInt,
        ("INT" | "INTEGER", "") => TypeKind::Int,
        ("BIGINT", "") => TypeKind::BigInt,
        ("FLOAT", "") => TypeKind::Float,
        ("DOUBLE", "" | "PRECISION") => TypeKind::Double,
        ("DECIMAL" | "NUMERIC" | "DEC", "") => TypeKind::Decimal {
            precision: num(0, 10)?,
            scale: num(1, 0)?,
        },
        ("CHAR", "") => TypeKind::Char { length: num(0, 1)? },
        ("VARCHAR", "") => TypeKind::VarChar { length: num(0, 1)? },
        ("STRING", "") => TypeKind::VarChar { length: MAX_LENGTH },
        ("BINARY", "") => TypeKind::Binary { length: num(0, 1)? },
        ("VARBINARY", "") => TypeKind::VarBinary { length: num(0, 1)? },
        ("BYTES", "") => TypeKind::VarBinary { length: MAX_LENGTH },
        ("DATE", "") => TypeKind::Date,
        ("TIME", "" | "WITHOUT TIME ZONE") => TypeKind::Time {
            precision: num(0, 0)?,
        },
        ("TIMESTAMP", "" | "WITHOUT TIME ZONE") => TypeKind::Timestamp {
            precision: num(0, 6)?,
        },
        ("TIMESTAMP", "WITH LOCAL TIME ZONE") | ("TIMESTAMP_LTZ", "") => {
            TypeKind::LocalZonedTimestamp {
                precision: num(0, 6)?,
            }
        }
        ("VARIANT", "") => TypeKind::Variant,
        ("BLOB", "") => TypeKind::Blob,
        ("GEOMETRY" | "GEOGRAPHY", _) => TypeKind::Spatial {
            sql: body.to_string(),
        },
        _ => return Err(bad()),
    };
    if let TypeKind::Decimal { precision, scale } = kind {
        if !(1..=38).contains(&precision) || scale > precision {
            return Err(Error::corrupt(
                "data type JSON",
                format!("invalid decimal precision/scale in '{text}'"),
            ));
        }
    }
    if let TypeKind::Timestamp { precision } | TypeKind::LocalZonedTimestamp { precision } = kind {
        if precision > 9 {
            return Err(Error::corrupt(
                "data type JSON",
                format!("timestamp precision above 9 in '{text}'"),
            ));
        }
    }
    Ok(DataType { nullable, kind })
}

/// A ROW type's fields as a flat list; helper for schema code.
pub fn row_type(fields: Vec<DataField>) -> DataType {
    DataType::nullable(TypeKind::Row(fields))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_round_trip() {
        for s in [
            "INT",
            "INT NOT NULL",
            "STRING",
            "BYTES NOT NULL",
            "DECIMAL(5, 2)",
            "TIMESTAMP(9)",
            "TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL",
            "VARCHAR(10)",
            "CHAR(3)",
            "BINARY(4)",
            "TIME(0)",
            "BLOB",
            "VARIANT",
        ] {
            let t = DataType::from_json(&Value::String(s.into())).unwrap();
            assert_eq!(t.to_json(), Value::String(s.into()), "{s}");
        }
    }

    #[test]
    fn aliases_and_defaults() {
        let p = |s: &str| DataType::from_json(&Value::String(s.into())).unwrap();
        assert_eq!(p("INTEGER").kind, TypeKind::Int);
        assert_eq!(
            p("DECIMAL").kind,
            TypeKind::Decimal {
                precision: 10,
                scale: 0
            }
        );
        assert_eq!(p("TIMESTAMP").kind, TypeKind::Timestamp { precision: 6 });
        assert_eq!(
            p("TIMESTAMP_LTZ(3)").kind,
            TypeKind::LocalZonedTimestamp { precision: 3 }
        );
        assert_eq!(p("VARCHAR").kind, TypeKind::VarChar { length: 1 });
        assert!(DataType::from_json(&Value::String("WAT".into())).is_err());
        assert!(DataType::from_json(&Value::String("DECIMAL(50, 2)".into())).is_err());
    }

    #[test]
    fn composite_round_trip() {
        let text = r#"{"type":"MAP NOT NULL","key":"STRING NOT NULL","value":{"type":"ROW","fields":[{"id":6,"name":"x","type":"INT"}]}}"#;
        let t = DataType::from_json_str(text).unwrap();
        assert!(!t.nullable);
        let back = t.to_json();
        assert_eq!(back, serde_json::from_str::<Value>(text).unwrap());
    }
}
