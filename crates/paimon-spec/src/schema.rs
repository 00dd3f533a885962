//! Table schemas (Java `TableSchema`, `SchemaSerializer`).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::error::{Error, Result};
use crate::types::{DataField, DataType, TypeKind};

/// Schema JSON version written by Paimon 0.7.
pub const PAIMON_07_VERSION: i32 = 1;
/// Schema JSON version written by Paimon 0.8.
pub const PAIMON_08_VERSION: i32 = 2;
/// Schema JSON version written today.
pub const CURRENT_VERSION: i32 = 3;

/// One `schema/schema-N` file (Java `TableSchema`).
#[derive(Debug, Clone, PartialEq)]
pub struct TableSchema {
    /// JSON layout version (1..=3).
    pub version: i32,
    /// Schema id, the N of `schema-N`.
    pub id: i64,
    /// Top-level fields.
    pub fields: Vec<DataField>,
    /// Largest field id ever assigned, nested and dropped ones included.
    pub highest_field_id: i32,
    /// Partition key names.
    pub partition_keys: Vec<String>,
    /// Primary key names (may include partition keys).
    pub primary_keys: Vec<String>,
    /// Table options, with Java's read-time compatibility defaults applied.
    pub options: BTreeMap<String, String>,
    /// Optional table comment.
    pub comment: Option<String>,
    /// Creation time (epoch millis), 0 when absent.
    pub time_millis: i64,
}

/// Shared schema handle.
pub type TableSchemaRef = std::sync::Arc<TableSchema>;

impl TableSchema {
    /// Parses a schema file's JSON text.
    ///
    /// # Errors
    /// [`Error::Corrupt`] on malformed JSON or missing keys.
    pub fn from_json_str(text: &str) -> Result<Self> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| Error::corrupt("schema JSON", e.to_string()))?;
        Self::from_json(&v)
    }

    /// The schema file text Java writes (`SchemaSerializer` through Jackson's pretty printer):
    /// options in map order, `comment` only when set.
    pub fn to_json_string(&self) -> String {
        crate::jackson::to_pretty_string(&self.to_json())
    }

    /// Parses a schema from JSON.
    ///
    /// # Errors
    /// [`Error::Corrupt`] on missing or ill-typed keys.
    pub fn from_json(v: &Value) -> Result<Self> {
        let bad = |r: &str| Error::corrupt("schema JSON", r.to_string());
        let obj = v.as_object().ok_or_else(|| bad("expected an object"))?;
        let version = match obj.get("version") {
            None | Some(Value::Null) => PAIMON_07_VERSION,
            Some(x) => x
                .as_i64()
                .and_then(|x| i32::try_from(x).ok())
                .ok_or_else(|| bad("invalid \"version\""))?,
        };
        let id = obj
            .get("id")
            .and_then(Value::as_i64)
            .ok_or_else(|| bad("missing \"id\""))?;
        let fields = obj
            .get("fields")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("missing \"fields\""))?
            .iter()
            .map(DataField::from_json)
            .collect::<Result<Vec<_>>>()?;
        let highest_field_id = match obj.get("highestFieldId") {
            Some(x) => x
                .as_i64()
                .and_then(|x| i32::try_from(x).ok())
                .ok_or_else(|| bad("invalid \"highestFieldId\""))?,
            None => fields.iter().map(|f| f.id).max().unwrap_or(-1),
        };
        let names = |key: &str| -> Result<Vec<String>> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|s| {
                        s.as_str().map(str::to_string).ok_or_else(|| {
                            Error::corrupt("schema JSON", format!("non-string in \"{key}\""))
                        })
                    })
                    .collect(),
                Some(_) => Err(Error::corrupt(
                    "schema JSON",
                    format!("\"{key}\" is not an array"),
                )),
            }
        };
        let mut options = BTreeMap::new();
        if let Some(o) = obj.get("options") {
            let o = o
                .as_object()
                .ok_or_else(|| bad("\"options\" is not an object"))?;
            for (k, v) in o {
                let s = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                options.insert(k.clone(), s);
            }
        }
        if version <= PAIMON_07_VERSION && !options.contains_key("bucket") {
            options.insert("bucket".into(), "1".into());
        }
        if version <= PAIMON_08_VERSION && !options.contains_key("file.format") {
            options.insert("file.format".into(), "orc".into());
        }
        let schema = TableSchema {
            version,
            id,
            fields,
            highest_field_id,
            partition_keys: names("partitionKeys")?,
            primary_keys: names("primaryKeys")?,
            options,
            comment: obj
                .get("comment")
                .and_then(Value::as_str)
                .map(str::to_string),
            time_millis: obj.get("timeMillis").and_then(Value::as_i64).unwrap_or(0),
        };
        schema.validate()?;
        Ok(schema)
    }

    fn validate(&self) -> Result<()> {
        crate::types::check_field_names(&self.fields)?;
        for key in self.partition_keys.iter().chain(&self.primary_keys) {
            if self.field(key).is_none() {
                return Err(Error::corrupt(
                    "schema JSON",
                    format!("key column '{key}' is not a field"),
                ));
            }
        }
        Ok(())
    }

    /// The JSON Java writes (key order as `SchemaSerializer`).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("version".into(), json!(self.version));
        m.insert("id".into(), json!(self.id));
        m.insert(
            "fields".into(),
            Value::Array(self.fields.iter().map(DataField::to_json).collect()),
        );
        m.insert("highestFieldId".into(), json!(self.highest_field_id));
        m.insert("partitionKeys".into(), json!(self.partition_keys));
        m.insert("primaryKeys".into(), json!(self.primary_keys));
        m.insert("options".into(), json!(self.options));
        if let Some(c) = &self.comment {
            m.insert("comment".into(), json!(c));
        }
        m.insert("timeMillis".into(), json!(self.time_millis));
        Value::Object(m)
    }

    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&DataField> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The top-level field with id `id`.
    pub fn field_by_id(&self, id: i32) -> Option<&DataField> {
        self.fields.iter().find(|f| f.id == id)
    }

    /// The partition fields, in partition-key order.
    pub fn partition_fields(&self) -> Vec<DataField> {
        self.partition_keys
            .iter()
            .filter_map(|k| self.field(k).cloned())
            .collect()
    }

    /// Primary keys minus partition keys (Java `trimmedPrimaryKeys`).
    pub fn trimmed_primary_keys(&self) -> Vec<String> {
        self.primary_keys
            .iter()
            .filter(|k| !self.partition_keys.contains(k))
            .cloned()
            .collect()
    }

    /// The trimmed primary key fields.
    pub fn trimmed_primary_key_fields(&self) -> Vec<DataField> {
        self.trimmed_primary_keys()
            .iter()
            .filter_map(|k| self.field(k).cloned())
            .collect()
    }

    /// Bucket key names: `bucket-key` option, else trimmed primary keys.
    pub fn bucket_keys(&self) -> Vec<String> {
        match self.options.get("bucket-key") {
            Some(s) if !s.trim().is_empty() => s.split(',').map(|k| k.trim().to_string()).collect(),
            _ => self.trimmed_primary_keys(),
        }
    }

    /// The schema's row type.
    pub fn row_type(&self) -> DataType {
        DataType::nullable(TypeKind::Row(self.fields.clone()))
    }

    /// This schema projected onto `names` (for data-evolution `_WRITE_COLS`), in the given order.
    /// Unknown names are skipped.
    pub fn project(&self, names: &[String]) -> Vec<DataField> {
        names
            .iter()
            .filter_map(|n| self.field(n).cloned())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    /// Every schema file Java 1.4.2 wrote in fixtures/warehouse re-encodes to its exact bytes,
    /// except for the order of options (ours are sorted; Java keeps insertion order), where the
    /// JSON values are equal.
    #[test]
    fn to_json_string_reproduces_java_schema_files() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/warehouse");
        let (mut exact, mut reordered) = (0, 0);
        let mut stack = vec![root];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                if !p.parent().is_some_and(|d| d.ends_with("schema")) {
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap();
                let ours = super::TableSchema::from_json_str(&text)
                    .unwrap()
                    .to_json_string();
                if ours == text {
                    exact += 1;
                } else {
                    let a: serde_json::Value = serde_json::from_str(&ours).unwrap();
                    let b: serde_json::Value = serde_json::from_str(&text).unwrap();
                    assert_eq!(a, b, "{}", p.display());
                    reordered += 1;
                }
            }
        }
        assert!(
            exact > 50,
            "{exact} exact, {reordered} with reordered options"
        );
    }

    use super::*;

    #[test]
    fn defaults_for_old_versions() {
        let s = TableSchema::from_json_str(
            r#"{"id":0,"fields":[{"id":0,"name":"a","type":"INT"}],"partitionKeys":[],"primaryKeys":[],"options":{}}"#,
        )
        .unwrap();
        assert_eq!(s.version, 1);
        assert_eq!(s.options.get("bucket").map(String::as_str), Some("1"));
        assert_eq!(
            s.options.get("file.format").map(String::as_str),
            Some("orc")
        );
        assert_eq!(s.highest_field_id, 0);
    }

    #[test]
    fn key_not_a_field_is_corrupt() {
        let e = TableSchema::from_json_str(
            r#"{"version":3,"id":0,"fields":[],"partitionKeys":["x"],"primaryKeys":[],"options":{}}"#,
        );
        assert!(e.is_err());
    }

    /// Java's `RowType` refuses duplicate and blank field names, at the top level and in
    /// nested rows; so does the parser (a duplicate would read one column as the other).
    #[test]
    fn duplicate_or_blank_field_names_are_corrupt() {
        let schema = |fields: &str| {
            TableSchema::from_json_str(&format!(
                r#"{{"version":3,"id":0,"fields":[{fields}],"partitionKeys":[],"primaryKeys":[],"options":{{}}}}"#
            ))
        };
        let err = |fields: &str| schema(fields).unwrap_err().to_string();
        let e = err(r#"{"id":0,"name":"ts","type":"DATE"},{"id":1,"name":"ts","type":"INT"}"#);
        assert!(e.contains("\"ts\" appears twice"), "{e}");
        let e = err(
            r#"{"id":0,"name":"r","type":{"type":"ROW","fields":[{"id":1,"name":"x","type":"INT"},{"id":2,"name":"x","type":"INT"}]}}"#,
        );
        assert!(e.contains("\"x\" appears twice"), "{e}");
        for blank in [r#""""#, r#"" \t""#, r#""\u001f""#] {
            let e = err(&format!(r#"{{"id":3,"name":{blank},"type":"INT"}}"#));
            assert!(e.contains("field 3 has a blank name"), "{e}");
        }
        // Names Java's isWhitespace does not count as blank, and case-distinct names, pass.
        schema(r#"{"id":0,"name":"\u00a0","type":"INT"},{"id":1,"name":"A","type":"INT"},{"id":2,"name":"a","type":"INT"}"#).unwrap();
    }
}
