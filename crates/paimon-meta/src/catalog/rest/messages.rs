//! The JSON bodies of the REST API 1.0 as Java 1.4.2 writes and reads them (`requests.*`,
//! `responses.*`, `Schema`, `SchemaChange`, `Identifier`): each message is written and read
//! here once, for our client (the `*` writers) and for a server (`paimon serve`: the
//! `*_from_json` readers).

use serde_json::{json, Map, Value};

use paimon_spec::schema::TableSchema;
use paimon_spec::types::DataType;

use crate::catalog::{Identifier, Partition};
use crate::commit::{ColumnPosition, SchemaChange};
use crate::error::{CatalogFailure, Error, Result};
use crate::java_time;
use crate::schema_manager::Tag;
use crate::snapshot::Snapshot;

/// `Identifier`: `{"database": .., "object": ..}`.
pub fn identifier(id: &Identifier) -> Value {
    json!({"database": id.database, "object": id.object})
}

/// `Schema` (what `CreateTableRequest` carries): fields, keys, options, comment.
pub fn schema(s: &TableSchema) -> Value {
    let full = s.to_json();
    let mut m = Map::new();
    for k in ["fields", "partitionKeys", "primaryKeys", "options"] {
        m.insert(k.to_string(), full.get(k).cloned().unwrap_or(Value::Null));
    }
    m.insert(
        "comment".to_string(),
        s.comment.as_ref().map_or(Value::Null, |c| json!(c)),
    );
    Value::Object(m)
}

/// One `SchemaChange` with its `action`.
pub fn schema_change(c: &SchemaChange) -> Value {
    match c {
        SchemaChange::SetOption { key, value } => {
            json!({"action": "setOption", "key": key, "value": value})
        }
        SchemaChange::RemoveOption { key } => json!({"action": "removeOption", "key": key}),
        SchemaChange::AddColumn {
            name,
            data_type,
            description,
            position,
        } => json!({
            "action": "addColumn", "fieldNames": [name], "dataType": data_type.to_json(),
            "comment": description, "move": position.as_ref().map(|p| column_move(name, p))
        }),
        SchemaChange::RenameColumn { from, to } => {
            json!({"action": "renameColumn", "fieldNames": [from], "newName": to})
        }
        SchemaChange::DropColumn { name } => json!({"action": "dropColumn", "fieldNames": [name]}),
        SchemaChange::UpdateColumnType { name, data_type } => json!({
            "action": "updateColumnType", "fieldNames": [name],
            "newDataType": data_type.to_json(), "keepNullability": true
        }),
    }
}

/// Java `SchemaChange.Move` of column `name`.
fn column_move(name: &str, p: &ColumnPosition) -> Value {
    let (kind, reference) = match p {
        ColumnPosition::First => ("FIRST", None),
        ColumnPosition::After(r) => ("AFTER", Some(r)),
        ColumnPosition::Before(r) => ("BEFORE", Some(r)),
        ColumnPosition::Last => ("LAST", None),
    };
    json!({"fieldName": name, "referenceFieldName": reference, "type": kind})
}

/// The [`ColumnPosition`] of a Java `SchemaChange.Move` (`null`: none).
fn column_position(what: &str, v: Option<&Value>) -> Result<Option<ColumnPosition>> {
    let Some(m) = v.filter(|m| !m.is_null()) else {
        return Ok(None);
    };
    let reference = || str_field(what, m, "referenceFieldName").map(str::to_string);
    Ok(Some(match str_field(what, m, "type")? {
        "FIRST" => ColumnPosition::First,
        "AFTER" => ColumnPosition::After(reference()?),
        "BEFORE" => ColumnPosition::Before(reference()?),
        "LAST" => ColumnPosition::Last,
        other => return Err(bad_request(what, format!("move type {other:?}"))),
    }))
}

/// A request body that is not the message it should be: what is wrong, for a 400 answer.
fn bad_request(what: &str, reason: impl std::fmt::Display) -> Error {
    Error::InvalidArgument {
        table: format!("(request body: {what})"),
        reason: reason.to_string(),
    }
}

fn str_field<'a>(what: &str, v: &'a Value, key: &str) -> Result<&'a str> {
    v.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| bad_request(what, format!("field {key:?} is missing or not a string")))
}

/// Reads an `Identifier` ([`identifier`]'s inverse).
///
/// # Errors
/// [`Error::InvalidArgument`] when `database` or `object` is missing or not a string.
pub fn identifier_from_json(v: &Value) -> Result<Identifier> {
    let what = "Identifier";
    Ok(Identifier::new(
        str_field(what, v, "database")?,
        str_field(what, v, "object")?,
    ))
}

/// Reads a `Schema` ([`schema`]'s inverse) as schema 0 of a new table, created `time_millis`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming what is wrong (not an object, fields without ids or
/// types, key columns that are not fields).
pub fn schema_from_json(v: &Value, time_millis: i64) -> Result<TableSchema> {
    let what = "Schema";
    let Some(o) = v.as_object() else {
        return Err(bad_request(what, "not a JSON object"));
    };
    let mut full = Map::new();
    full.insert(
        "version".into(),
        json!(paimon_spec::schema::CURRENT_VERSION),
    );
    full.insert("id".into(), json!(0));
    for k in [
        "fields",
        "partitionKeys",
        "primaryKeys",
        "options",
        "comment",
    ] {
        if let Some(x) = o.get(k).filter(|x| !x.is_null()) {
            full.insert(k.to_string(), x.clone());
        }
    }
    full.insert("timeMillis".into(), json!(time_millis));
    TableSchema::from_json(&Value::Object(full)).map_err(|e| bad_request(what, e))
}

/// Reads one `SchemaChange` ([`schema_change`]'s inverse).
///
/// # Errors
/// [`Error::InvalidArgument`] for a malformed change; [`Error::Unsupported`] for an action
/// this version does not apply (nested columns, comments, moves).
pub fn schema_change_from_json(v: &Value) -> Result<SchemaChange> {
    let what = "SchemaChange";
    let action = str_field(what, v, "action")?;
    let column = || -> Result<String> {
        match v
            .get("fieldNames")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            Some([Value::String(n)]) => Ok(n.clone()),
            Some([_, _, ..]) => Err(Error::Unsupported {
                feature: format!("schema change {action} on a nested column"),
            }),
            _ => Err(bad_request(
                what,
                "\"fieldNames\" is not a list of one name",
            )),
        }
    };
    let data_type = |key: &str| {
        v.get(key)
            .ok_or_else(|| bad_request(what, format!("field {key:?} is missing")))
            .and_then(|t| DataType::from_json(t).map_err(|e| bad_request(what, e)))
    };
    Ok(match action {
        "setOption" => SchemaChange::SetOption {
            key: str_field(what, v, "key")?.to_string(),
            value: str_field(what, v, "value")?.to_string(),
        },
        "removeOption" => SchemaChange::RemoveOption {
            key: str_field(what, v, "key")?.to_string(),
        },
        "addColumn" => SchemaChange::AddColumn {
            name: column()?,
            data_type: data_type("dataType")?,
            description: v.get("comment").and_then(Value::as_str).map(str::to_string),
            position: column_position(what, v.get("move"))?,
        },
        "renameColumn" => SchemaChange::RenameColumn {
            from: column()?,
            to: str_field(what, v, "newName")?.to_string(),
        },
        "dropColumn" => SchemaChange::DropColumn { name: column()? },
        "updateColumnType" => SchemaChange::UpdateColumnType {
            name: column()?,
            data_type: data_type("newDataType")?,
        },
        other => {
            return Err(Error::Unsupported {
                feature: format!("schema change action {other:?}"),
            })
        }
    })
}

/// `Partition` (Java 1.4.2 `Partition`: its `PartitionStatistics` fields, `totalBuckets`
/// among them, plus `done`).
pub fn partition(p: &Partition) -> Value {
    json!({
        "spec": p.spec,
        "recordCount": p.record_count,
        "fileSizeInBytes": p.file_size_in_bytes,
        "fileCount": p.file_count,
        "lastFileCreationTime": p.last_file_creation_time,
        "totalBuckets": p.total_buckets,
        "done": p.done,
    })
}

/// Reads a `Partition` ([`partition`]'s inverse; `done` absent is `false`).
///
/// # Errors
/// [`Error::InvalidArgument`] for a missing spec or count.
pub fn partition_from_json(v: &Value) -> Result<Partition> {
    let what = "Partition";
    let spec = match v.get("spec") {
        Some(Value::Object(o)) => o
            .iter()
            .map(|(k, x)| match x {
                Value::String(s) => Ok((k.clone(), s.clone())),
                // Java writes a null value for a null partition column in some versions.
                Value::Null => Ok((k.clone(), String::new())),
                _ => Err(bad_request(what, format!("spec.{k} is not a string"))),
            })
            .collect::<Result<_>>()?,
        _ => return Err(bad_request(what, "field \"spec\" is not an object")),
    };
    let long = |key: &str| {
        v.get(key)
            .and_then(Value::as_i64)
            .ok_or_else(|| bad_request(what, format!("field {key:?} is missing or not a number")))
    };
    Ok(Partition {
        spec,
        record_count: long("recordCount")?,
        file_size_in_bytes: long("fileSizeInBytes")?,
        file_count: long("fileCount")?,
        last_file_creation_time: long("lastFileCreationTime")?,
        // Absent before Java 1.3.
        total_buckets: v
            .get("totalBuckets")
            .and_then(Value::as_i64)
            .and_then(|n| i32::try_from(n).ok())
            .unwrap_or(0),
        done: v.get("done").and_then(Value::as_bool).unwrap_or(false),
    })
}

/// `GetTagResponse`: the name, the tagged snapshot, `tagCreateTime` as epoch millis (Java's
/// `LocalDateTime` read in this machine's zone) and `tagTimeRetained` as Java's
/// `Duration.toString`.
///
/// # Errors
/// [`Error::Internal`] when the snapshot's own JSON does not parse.
pub fn tag(name: &str, t: &Tag) -> Result<Value> {
    let snapshot: Value = serde_json::from_str(&t.snapshot.to_json())
        .map_err(|e| Error::Internal(format!("snapshot JSON does not parse: {e}")))?;
    Ok(json!({
        "tagName": name,
        "snapshot": snapshot,
        "tagCreateTime": t.create_time.map(|(ms, _)| java_time::epoch_millis_of_local(ms)),
        "tagTimeRetained": t.time_retained.map(|(s, n)| java_time::duration_string(s, n)),
    }))
}

/// Reads a `GetTagResponse` ([`tag`]'s inverse): the name and the tag.
///
/// # Errors
/// [`Error::InvalidArgument`] for a missing name or snapshot, a malformed snapshot or
/// retention.
pub fn tag_from_json(v: &Value) -> Result<(String, Tag)> {
    let what = "GetTagResponse";
    let name = str_field(what, v, "tagName")?.to_string();
    let snapshot = v
        .get("snapshot")
        .filter(|s| s.is_object())
        .ok_or_else(|| bad_request(what, "field \"snapshot\" is not an object"))?;
    let snapshot =
        Snapshot::from_json_str(&format!("snapshot of tag {name}"), &snapshot.to_string())
            .map_err(|e| bad_request(what, e))?;
    let create_time = match v.get("tagCreateTime") {
        None | Some(Value::Null) => None,
        Some(x) => Some((
            java_time::local_millis_of_epoch(
                x.as_i64()
                    .ok_or_else(|| bad_request(what, "tagCreateTime is not a number"))?,
            ),
            0,
        )),
    };
    let time_retained = match v.get("tagTimeRetained") {
        None | Some(Value::Null) => None,
        Some(x) => Some(
            x.as_str()
                .and_then(java_time::parse_duration_string)
                .ok_or_else(|| {
                    bad_request(what, format!("tagTimeRetained {x} is not a duration"))
                })?,
        ),
    };
    Ok((
        name,
        Tag {
            snapshot,
            create_time,
            time_retained,
        },
    ))
}

/// Reads response fields, naming the call in errors.
pub(crate) struct Response<'a> {
    pub(crate) uri: &'a str,
    pub(crate) what: String,
    pub(crate) body: &'a Value,
}

impl Response<'_> {
    pub(crate) fn bad(&self, reason: String) -> Error {
        Error::catalog(
            self.uri,
            CatalogFailure::MalformedResponse,
            &self.what,
            reason,
        )
    }

    /// A string field.
    pub(crate) fn str(&self, key: &str) -> Result<&str> {
        self.body
            .get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| self.bad(format!("field {key:?} is not a string")))
    }

    /// A list of strings (`databases`, `tables`).
    pub(crate) fn strings(&self, key: &str) -> Result<Vec<String>> {
        match self.body.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(a)) => a
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| self.bad(format!("field {key:?} holds a non-string")))
                })
                .collect(),
            Some(_) => Err(self.bad(format!("field {key:?} is not a list"))),
        }
    }

    /// A string map (`options`, `defaults`, `token`); absent or null is empty.
    pub(crate) fn map(&self, key: &str) -> Result<std::collections::BTreeMap<String, String>> {
        match self.body.get(key) {
            None | Some(Value::Null) => Ok(Default::default()),
            Some(Value::Object(o)) => o
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    _ => Err(self.bad(format!("field {key:?}.{k} is not a string"))),
                })
                .collect(),
            Some(_) => Err(self.bad(format!("field {key:?} is not an object"))),
        }
    }

    /// `nextPageToken`, when there is a next page.
    pub(crate) fn next_page(&self) -> Option<String> {
        self.body
            .get("nextPageToken")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bodies Java's Jackson mapping reads: keys of `Schema`, `SchemaChange` actions.
    #[test]
    fn request_bodies_have_javas_keys() {
        let s = TableSchema::from_json_str(
            r#"{"version":3,"id":0,"fields":[{"id":0,"name":"a","type":"INT NOT NULL"}],
                "highestFieldId":0,"partitionKeys":[],"primaryKeys":["a"],
                "options":{"bucket":"1"},"timeMillis":5}"#,
        )
        .unwrap();
        assert_eq!(
            schema(&s),
            json!({"fields":[{"id":0,"name":"a","type":"INT NOT NULL"}],"partitionKeys":[],
                   "primaryKeys":["a"],"options":{"bucket":"1"},"comment":null})
        );
        let add = SchemaChange::AddColumn {
            name: "b".into(),
            data_type: DataType::from_json(&json!("BIGINT")).unwrap(),
            description: None,
            position: None,
        };
        assert_eq!(
            schema_change(&add),
            json!({"action":"addColumn","fieldNames":["b"],"dataType":"BIGINT",
                   "comment":null,"move":null})
        );
        assert_eq!(
            identifier(&Identifier::new("d", "t")),
            json!({"database":"d","object":"t"})
        );
    }

    /// What a server reads back is what the client wrote; malformed bodies are
    /// `InvalidArgument` (a 400), never a panic.
    #[test]
    fn server_reads_what_the_client_writes() {
        let s = TableSchema::from_json_str(
            r#"{"version":3,"id":0,"fields":[{"id":0,"name":"a","type":"INT NOT NULL"},
                {"id":1,"name":"b","type":"STRING"}],"highestFieldId":1,"partitionKeys":[],
                "primaryKeys":["a"],"options":{"bucket":"2"},"timeMillis":7}"#,
        )
        .unwrap();
        assert_eq!(schema_from_json(&schema(&s), 7).unwrap(), s);
        let changes = [
            SchemaChange::SetOption {
                key: "k".into(),
                value: "v".into(),
            },
            SchemaChange::RemoveOption { key: "k".into() },
            SchemaChange::AddColumn {
                name: "c".into(),
                data_type: DataType::from_json(&json!("BIGINT")).unwrap(),
                description: None,
                position: None,
            },
            SchemaChange::AddColumn {
                name: "e".into(),
                data_type: DataType::from_json(&json!("INT")).unwrap(),
                description: Some("x".into()),
                position: Some(ColumnPosition::After("a".into())),
            },
            SchemaChange::AddColumn {
                name: "f".into(),
                data_type: DataType::from_json(&json!("INT")).unwrap(),
                description: None,
                position: Some(ColumnPosition::First),
            },
            SchemaChange::RenameColumn {
                from: "c".into(),
                to: "d".into(),
            },
            SchemaChange::DropColumn { name: "d".into() },
            SchemaChange::UpdateColumnType {
                name: "b".into(),
                data_type: DataType::from_json(&json!("INT")).unwrap(),
            },
        ];
        for c in &changes {
            assert_eq!(&schema_change_from_json(&schema_change(c)).unwrap(), c);
        }
        let id = Identifier::new("d", "t");
        assert_eq!(identifier_from_json(&identifier(&id)).unwrap(), id);
        for bad in [
            json!(1),
            json!({"fields": "x"}),
            json!({"fields": [{"name": "a"}]}),
        ] {
            assert!(matches!(
                schema_from_json(&bad, 0),
                Err(Error::InvalidArgument { .. })
            ));
        }
        assert!(matches!(
            schema_change_from_json(&json!({"action": "addColumn", "fieldNames": [1]})),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            schema_change_from_json(&json!({"action": "updateComment"})),
            Err(Error::Unsupported { .. })
        ));
        assert!(matches!(
            identifier_from_json(&json!({"database": "d"})),
            Err(Error::InvalidArgument { .. })
        ));
    }

    #[test]
    fn malformed_fields_name_the_call_and_field() {
        let body = json!({"tables": [1]});
        let r = Response {
            uri: "http://h",
            what: "GET /v1/databases/d/tables".into(),
            body: &body,
        };
        let e = r.strings("tables").unwrap_err().to_string();
        assert_eq!(
            e,
            "catalog http://h: malformed response to GET /v1/databases/d/tables: field \"tables\" holds a non-string"
        );
    }
}
