//! Avro writer schemas, parsed from the container's `avro.schema` JSON.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value as Json;

/// An Avro schema, with logical types reduced to their physical type.
#[derive(Debug, Clone, PartialEq)]
pub enum Schema {
    /// null
    Null,
    /// boolean
    Boolean,
    /// int (and date, time-millis)
    Int,
    /// long (and timestamps)
    Long,
    /// float
    Float,
    /// double
    Double,
    /// bytes (and decimal on bytes)
    Bytes,
    /// string
    String,
    /// fixed of a size
    Fixed(usize),
    /// enum with its symbols
    Enum(Arc<[String]>),
    /// array of items
    Array(Box<Schema>),
    /// map with string keys
    Map(Box<Schema>),
    /// union of branches
    Union(Vec<Schema>),
    /// record
    Record(Arc<RecordSchema>),
}

/// A record schema: field names and field schemas in order.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordSchema {
    /// Full name of the record.
    pub name: String,
    /// Field names.
    pub names: Arc<[String]>,
    /// Field schemas.
    pub fields: Vec<Schema>,
}

impl Schema {
    /// Parses the JSON text of a writer schema.
    ///
    /// # Errors
    /// A reason string when the JSON is not a valid schema.
    pub fn parse(text: &str) -> Result<Schema> {
        let json: Json =
            serde_json::from_str(text).map_err(|e| bad(format!("schema JSON: {e}")))?;
        let mut named = HashMap::new();
        parse(&json, None, &mut named, 0)
    }

    /// Whether a value of this schema may occupy zero bytes (null, empty record, ...).
    pub fn can_be_empty(&self) -> bool {
        match self {
            Schema::Null => true,
            Schema::Fixed(n) => *n == 0,
            Schema::Record(r) => r.fields.iter().all(Schema::can_be_empty),
            Schema::Union(_) | Schema::Enum(_) => false,
            _ => false,
        }
    }
}

const MAX_DEPTH: usize = 64;

fn full_name(name: &str, ns: Option<&str>) -> String {
    match ns {
        Some(ns) if !name.contains('.') && !ns.is_empty() => format!("{ns}.{name}"),
        _ => name.to_string(),
    }
}

fn primitive(name: &str) -> Option<Schema> {
    Some(match name {
        "null" => Schema::Null,
        "boolean" => Schema::Boolean,
        "int" => Schema::Int,
        "long" => Schema::Long,
        "float" => Schema::Float,
        "double" => Schema::Double,
        "bytes" => Schema::Bytes,
        "string" => Schema::String,
        _ => return None,
    })
}

fn parse(
    json: &Json,
    ns: Option<&str>,
    named: &mut HashMap<String, Schema>,
    depth: usize,
) -> Result<Schema> {
    if depth > MAX_DEPTH {
        return Err(bad("schema nested too deeply"));
    }
    match json {
        Json::String(s) => primitive(s)
            .or_else(|| named.get(&full_name(s, ns)).cloned())
            .or_else(|| named.get(s.as_str()).cloned())
            .ok_or_else(|| bad(format!("unknown type '{s}'"))),
        Json::Array(branches) => Ok(Schema::Union(
            branches
                .iter()
                .map(|b| parse(b, ns, named, depth + 1))
                .collect::<Result<_, _>>()?,
        )),
        Json::Object(obj) => {
            let ty = obj
                .get("type")
                .ok_or(bad("schema object without \"type\""))?;
            let ty_name = match ty {
                Json::String(s) => s.as_str(),
                // {"type": {...}} or {"type": [...]} wraps another schema.
                other => return parse(other, ns, named, depth + 1),
            };
            let name = |obj: &serde_json::Map<String, Json>| -> Result<(String, Option<String>)> {
                let n = obj
                    .get("name")
                    .and_then(Json::as_str)
                    .ok_or_else(|| bad(format!("{ty_name} without a name")))?;
                let own_ns = obj.get("namespace").and_then(Json::as_str).or(ns);
                let full = full_name(n, own_ns);
                let child_ns = full.rfind('.').map(|i| full[..i].to_string());
                Ok((full, child_ns))
            };
            match ty_name {
                "record" | "error" => {
                    let (full, child_ns) = name(obj)?;
                    let fields = obj
                        .get("fields")
                        .and_then(Json::as_array)
                        .ok_or_else(|| bad(format!("record {full} without fields")))?;
                    let mut names = Vec::with_capacity(fields.len());
                    let mut schemas = Vec::with_capacity(fields.len());
                    for f in fields {
                        let fname = f
                            .get("name")
                            .and_then(Json::as_str)
                            .ok_or_else(|| bad(format!("field of {full} without a name")))?;
                        let fty = f.get("type").ok_or_else(|| {
                            bad(format!("field {fname} of {full} without a type"))
                        })?;
                        names.push(fname.to_string());
                        schemas.push(parse(fty, child_ns.as_deref(), named, depth + 1)?);
                    }
                    let s = Schema::Record(Arc::new(RecordSchema {
                        name: full.clone(),
                        names: names.into(),
                        fields: schemas,
                    }));
                    named.insert(full, s.clone());
                    Ok(s)
                }
                "enum" => {
                    let (full, _) = name(obj)?;
                    let symbols = obj
                        .get("symbols")
                        .and_then(Json::as_array)
                        .ok_or_else(|| bad(format!("enum {full} without symbols")))?
                        .iter()
                        .map(|s| {
                            s.as_str()
                                .map(str::to_string)
                                .ok_or(bad("non-string enum symbol"))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    let s = Schema::Enum(symbols.into());
                    named.insert(full, s.clone());
                    Ok(s)
                }
                "fixed" => {
                    let (full, _) = name(obj)?;
                    let size = obj
                        .get("size")
                        .and_then(Json::as_u64)
                        .and_then(|s| usize::try_from(s).ok())
                        .ok_or_else(|| bad(format!("fixed {full} without a valid size")))?;
                    let s = Schema::Fixed(size);
                    named.insert(full, s.clone());
                    Ok(s)
                }
                "array" => Ok(Schema::Array(Box::new(parse(
                    obj.get("items").ok_or(bad("array without items"))?,
                    ns,
                    named,
                    depth + 1,
                )?))),
                "map" => Ok(Schema::Map(Box::new(parse(
                    obj.get("values").ok_or(bad("map without values"))?,
                    ns,
                    named,
                    depth + 1,
                )?))),
                // Primitives, possibly with a logicalType: the physical type is what is encoded.
                other => primitive(other)
                    .or_else(|| named.get(&full_name(other, ns)).cloned())
                    .ok_or_else(|| bad(format!("unknown type '{other}'"))),
            }
        }
        other => Err(bad(format!("invalid schema JSON {other}"))),
    }
}

/// An [`Error`] of Avro schema: `reason` says what is wrong.
fn bad(reason: impl Into<String>) -> Error {
    Error::corrupt("Avro schema", reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_records_unions_and_logical_types() {
        let s = Schema::parse(
            r#"{"type":"record","name":"record","namespace":"org.x","fields":[
                {"name":"a","type":"int"},
                {"name":"b","type":["null",{"type":"long","logicalType":"timestamp-millis"}]},
                {"name":"c","type":{"type":"array","items":{"type":"record","name":"e","fields":[{"name":"x","type":"string"}]}}},
                {"name":"d","type":"org.x.e"}
            ]}"#,
        )
        .unwrap();
        let Schema::Record(r) = s else { panic!() };
        assert_eq!(&*r.names, &["a", "b", "c", "d"]);
        assert_eq!(r.fields[1], Schema::Union(vec![Schema::Null, Schema::Long]));
        assert!(matches!(r.fields[3], Schema::Record(_)));
        assert!(Schema::parse(r#""nope""#).is_err());
        assert!(Schema::parse(r#"{"type":"record","name":"r"}"#).is_err());
    }
}
