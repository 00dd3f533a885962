//! What Java's `HiveCatalog` (Paimon 1.4.2) registers in the metastore for a database and a
//! Paimon table, as Thrift structs: the database's location and parameters; the table's
//! owner, times, `MANAGED_TABLE` type, parameters (every table option as
//! `sync-all-properties` does by default, with `primary-key`, `partition`, `bucket-key`,
//! `table_type = PAIMON` and the `storage_handler`), and its storage descriptor (columns in
//! Hive types, location, Paimon's input/output formats and serde); under the table option
//! `metastore.partitioned-table`, a partitioned table's partition fields are its partition
//! keys instead of columns.

use std::collections::BTreeMap;

use paimon_spec::schema::TableSchema;
use paimon_spec::types::{DataType, TypeKind};

use super::thrift::{ttype, Value, Writer};

/// `table_type`: marks a Paimon table.
pub(super) const TABLE_TYPE_PROP: &str = "table_type";
/// Its value for a Paimon table.
pub(super) const PAIMON_TABLE_TYPE: &str = "PAIMON";
/// `storage_handler` (Hive's `META_TABLE_STORAGE`).
pub(super) const STORAGE_HANDLER_PROP: &str = "storage_handler";
/// Paimon's Hive storage handler.
pub(super) const STORAGE_HANDLER: &str = "org.apache.paimon.hive.PaimonStorageHandler";
/// Paimon's Hive input format (Java's `isPaimonTable` checks it and the output format).
pub(super) const INPUT_FORMAT: &str = "org.apache.paimon.hive.mapred.PaimonInputFormat";
/// Paimon's Hive output format.
pub(super) const OUTPUT_FORMAT: &str = "org.apache.paimon.hive.mapred.PaimonOutputFormat";
/// Paimon's Hive serde.
pub(super) const SERDE: &str = "org.apache.paimon.hive.PaimonSerDe";
/// The metastore's default catalog, which Java's client fills in.
pub(super) const DEFAULT_CATALOG: &str = "hive";
/// Hive's longest CHAR and VARCHAR.
const MAX_CHAR: u32 = 255;
const MAX_VARCHAR: u32 = 65535;

/// Hive's type name of a Paimon type (Java `HiveTypeUtils.toTypeInfo(..).getTypeName()`);
/// `None` for a type Hive has no form of (Java refuses those too).
pub(super) fn hive_type_name(t: &DataType) -> Option<String> {
    Some(match &t.kind {
        TypeKind::Boolean => "boolean".into(),
        TypeKind::TinyInt => "tinyint".into(),
        TypeKind::SmallInt => "smallint".into(),
        TypeKind::Int => "int".into(),
        TypeKind::BigInt => "bigint".into(),
        TypeKind::Float => "float".into(),
        TypeKind::Double => "double".into(),
        TypeKind::Decimal { precision, scale } => format!("decimal({precision},{scale})"),
        TypeKind::Char { length } if *length > MAX_CHAR => "string".into(),
        TypeKind::Char { length } => format!("char({length})"),
        TypeKind::VarChar { length } if *length > MAX_VARCHAR => "string".into(),
        TypeKind::VarChar { length } => format!("varchar({length})"),
        TypeKind::Binary { .. } | TypeKind::VarBinary { .. } => "binary".into(),
        TypeKind::Date => "date".into(),
        TypeKind::Time { .. } => "string".into(),
        TypeKind::Timestamp { .. } => "timestamp".into(),
        TypeKind::LocalZonedTimestamp { .. } => "timestamp with local time zone".into(),
        TypeKind::Array(e) => format!("array<{}>", hive_type_name(e)?),
        TypeKind::Multiset(e) => format!("map<{},int>", hive_type_name(e)?),
        TypeKind::Map { key, value } => {
            format!("map<{},{}>", hive_type_name(key)?, hive_type_name(value)?)
        }
        TypeKind::Row(fields) => {
            let mut parts = Vec::with_capacity(fields.len());
            for f in fields {
                parts.push(format!("{}:{}", f.name, hive_type_name(&f.data_type)?));
            }
            format!("struct<{}>", parts.join(","))
        }
        _ => return None,
    })
}

/// The table parameters Java writes (`sync-all-properties`, its default): the options, the
/// key lists, the comment, and Paimon's markers.
pub(super) fn table_parameters(schema: &TableSchema) -> BTreeMap<String, String> {
    let mut p = schema.options.clone();
    p.remove("path");
    if !schema.primary_keys.is_empty() {
        p.insert("primary-key".into(), schema.primary_keys.join(","));
    }
    if !schema.partition_keys.is_empty() {
        p.insert("partition".into(), schema.partition_keys.join(","));
    }
    let bucket_keys = schema.bucket_keys();
    if !bucket_keys.is_empty() {
        p.insert("bucket-key".into(), bucket_keys.join(","));
    }
    p.insert(TABLE_TYPE_PROP.into(), PAIMON_TABLE_TYPE.into());
    p.insert(STORAGE_HANDLER_PROP.into(), STORAGE_HANDLER.into());
    if let Some(c) = &schema.comment {
        p.insert("comment".into(), c.clone());
    }
    p
}

/// A Hive column: name, Hive type, comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Column {
    pub(super) name: String,
    pub(super) hive_type: String,
    pub(super) comment: Option<String>,
}

/// The columns of `schema`: all fields (Java keeps partition fields among the columns),
/// unless the table is registered partitioned ([`partitioned_in_metastore`]): then the
/// non-partition fields, the partition fields being the partition keys ([`partition_keys`]).
///
/// # Errors
/// The name of a field whose type Hive cannot hold.
pub(super) fn columns(schema: &TableSchema) -> std::result::Result<Vec<Column>, String> {
    let partitioned = partitioned_in_metastore(schema);
    schema
        .fields
        .iter()
        .filter(|f| !(partitioned && schema.partition_keys.contains(&f.name)))
        .map(column)
        .collect()
}

/// The partition keys the metastore holds for `schema`: its partition fields in partition-key
/// order when it is registered partitioned ([`partitioned_in_metastore`]), else none.
///
/// # Errors
/// The name of a field whose type Hive cannot hold.
pub(super) fn partition_keys(schema: &TableSchema) -> std::result::Result<Vec<Column>, String> {
    if !partitioned_in_metastore(schema) {
        return Ok(Vec::new());
    }
    schema.partition_fields().iter().map(column).collect()
}

/// Whether Java registers the table as partitioned in the metastore: it has partition keys
/// and the table option `metastore.partitioned-table` is true (Java `updateHmsTable`).
pub(super) fn partitioned_in_metastore(schema: &TableSchema) -> bool {
    !schema.partition_keys.is_empty()
        && schema
            .options
            .get(METASTORE_PARTITIONED_TABLE)
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// The table option that registers a partitioned table with its partitions.
pub(super) const METASTORE_PARTITIONED_TABLE: &str = "metastore.partitioned-table";

fn column(f: &paimon_spec::types::DataField) -> std::result::Result<Column, String> {
    Ok(Column {
        name: f.name.clone(),
        hive_type: hive_type_name(&f.data_type).ok_or_else(|| f.name.clone())?,
        comment: f.description.clone(),
    })
}

/// Writes `columns` as the `list<FieldSchema>` field `id`.
pub(super) fn write_columns(w: &mut Writer, id: i16, columns: &[Column]) {
    w.list_header(id, ttype::STRUCT, columns.len());
    for c in columns {
        w.string_field(1, &c.name);
        w.string_field(2, &c.hive_type);
        w.opt_string_field(3, c.comment.as_deref());
        w.stop();
    }
}

/// `columns` as a decoded `list<FieldSchema>`, to put into a table the metastore returned.
pub(super) fn columns_value(columns: Vec<Column>) -> Value {
    Value::List(
        ttype::LIST,
        ttype::STRUCT,
        columns
            .into_iter()
            .map(|c| {
                let mut f = vec![
                    (1, Value::Bytes(c.name.into_bytes())),
                    (2, Value::Bytes(c.hive_type.into_bytes())),
                ];
                if let Some(comment) = c.comment {
                    f.push((3, Value::Bytes(comment.into_bytes())));
                }
                Value::Struct(f)
            })
            .collect(),
    )
}

/// A new table's registration.
#[derive(Debug, Clone)]
pub(super) struct HmsTable<'a> {
    pub(super) database: &'a str,
    pub(super) table: &'a str,
    pub(super) owner: &'a str,
    pub(super) now_secs: i32,
    pub(super) location: &'a str,
    pub(super) columns: Vec<Column>,
    pub(super) partition_keys: Vec<Column>,
    pub(super) parameters: BTreeMap<String, String>,
}

impl HmsTable<'_> {
    /// Writes it as the field `id` (a `Table` struct).
    pub(super) fn write(&self, w: &mut Writer, id: i16) {
        w.field(ttype::STRUCT, id);
        w.string_field(1, self.table);
        w.string_field(2, self.database);
        w.string_field(3, self.owner);
        w.i32_field(4, self.now_secs);
        w.i32_field(5, self.now_secs);
        w.i32_field(6, i32::MAX);
        // 7: the storage descriptor.
        w.field(ttype::STRUCT, 7);
        write_columns(w, 1, &self.columns);
        w.string_field(2, self.location);
        w.string_field(3, INPUT_FORMAT);
        w.string_field(4, OUTPUT_FORMAT);
        w.bool_field(5, false);
        w.i32_field(6, 0);
        w.field(ttype::STRUCT, 7);
        w.string_field(2, SERDE);
        w.string_map_field(3, std::iter::empty());
        w.stop();
        w.string_list_field(8, &[]);
        w.list_header(9, ttype::STRUCT, 0);
        w.string_map_field(10, std::iter::empty());
        w.stop();
        // 8: the partition keys; 9: the parameters; 12: the type.
        write_columns(w, 8, &self.partition_keys);
        w.string_map_field(9, self.parameters.iter());
        w.string_field(12, "MANAGED_TABLE");
        w.bool_field(14, false);
        w.string_field(17, DEFAULT_CATALOG);
        // 18: ownerType USER.
        w.i32_field(18, 1);
        w.stop();
    }
}

/// Writes a `Database` struct as the field `id` (Java's `convertToHiveDatabase`: `comment`
/// is the description, `location` the location URI, the rest parameters).
pub(super) fn write_database(
    w: &mut Writer,
    id: i16,
    name: &str,
    location: &str,
    options: &BTreeMap<String, String>,
) {
    w.field(ttype::STRUCT, id);
    w.string_field(1, name);
    w.opt_string_field(2, options.get("comment").map(String::as_str));
    w.string_field(3, location);
    let params: BTreeMap<&String, &String> = options
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "comment" | "location" | "owner"))
        .collect();
    w.string_map_field(4, params.into_iter());
    w.opt_string_field(6, options.get("owner").map(String::as_str));
    if options.contains_key("owner") {
        w.i32_field(7, 1);
    }
    w.string_field(8, DEFAULT_CATALOG);
    w.stop();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(json_fields: &str, pk: &str, part: &str, options: &str) -> TableSchema {
        TableSchema::from_json_str(&format!(
            r#"{{"version":3,"id":0,"fields":[{json_fields}],"highestFieldId":9,
                "partitionKeys":[{part}],"primaryKeys":[{pk}],"options":{{{options}}},
                "comment":"a table","timeMillis":0}}"#
        ))
        .unwrap()
    }

    /// Hive type names as Java's `HiveTypeUtils` gives them.
    #[test]
    fn hive_types_as_java_names_them() {
        let s = schema(
            r#"{"id":0,"name":"a","type":"INT NOT NULL"},
               {"id":1,"name":"b","type":"STRING"},
               {"id":2,"name":"c","type":"VARCHAR(10)"},
               {"id":3,"name":"d","type":"DECIMAL(10, 2)"},
               {"id":4,"name":"e","type":"TIMESTAMP(6) WITH LOCAL TIME ZONE"},
               {"id":5,"name":"f","type":{"type":"MAP","key":"STRING","value":{"type":"ARRAY","element":"BIGINT"}}},
               {"id":6,"name":"g","type":{"type":"ROW","fields":[{"id":8,"name":"x","type":"CHAR(300)"},{"id":9,"name":"y","type":"TIME"}]}},
               {"id":7,"name":"h","type":"BYTES","description":"raw"}"#,
            "",
            "",
            "",
        );
        let cols: Vec<(String, String)> = columns(&s)
            .unwrap()
            .into_iter()
            .map(|c| (c.name, c.hive_type))
            .collect();
        let want = [
            ("a", "int"),
            ("b", "string"),
            ("c", "varchar(10)"),
            ("d", "decimal(10,2)"),
            ("e", "timestamp with local time zone"),
            ("f", "map<string,array<bigint>>"),
            ("g", "struct<x:string,y:string>"),
            ("h", "binary"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(cols, want);
        assert_eq!(columns(&s).unwrap()[7].comment.as_deref(), Some("raw"));
    }

    /// The parameters of a primary-key partitioned table: every option, the key lists
    /// (bucket keys are the trimmed primary keys), the comment and Paimon's markers.
    #[test]
    fn parameters_as_java_syncs_them() {
        let s = schema(
            r#"{"id":0,"name":"dt","type":"STRING NOT NULL"},{"id":1,"name":"id","type":"INT NOT NULL"}"#,
            r#""dt","id""#,
            r#""dt""#,
            r#""bucket":"2","path":"/x""#,
        );
        let p = table_parameters(&s);
        let want: BTreeMap<String, String> = [
            ("bucket", "2"),
            ("primary-key", "dt,id"),
            ("partition", "dt"),
            ("bucket-key", "id"),
            ("table_type", "PAIMON"),
            (
                "storage_handler",
                "org.apache.paimon.hive.PaimonStorageHandler",
            ),
            ("comment", "a table"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(p, want);
    }
}
