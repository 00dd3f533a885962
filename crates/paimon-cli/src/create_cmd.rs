//! `paimon create-table`: a table's first schema from a JSON description or a Parquet file's
//! Arrow schema, published through paimon-meta's `create_table_at` (Java
//! `SchemaManager.createTable`).
//!
//! The JSON is the shape of Java's `org.apache.paimon.schema.Schema` as Jackson writes it:
//!
//! ```json
//! {"fields": [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "dt", "type": "STRING"}],
//!  "primaryKeys": ["id", "dt"], "partitionKeys": ["dt"], "options": {"bucket": "2"},
//!  "comment": "optional"}
//! ```
//!
//! Field `type`s are Paimon's type strings (or Java's JSON objects for ARRAY/MAP/ROW); an `id`
//! per field is optional (assigned in order when missing).

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use arrow::datatypes::{DataType as ArrowType, Field, TimeUnit};
use clap::Args;
use paimon_io::file_io_for;
use paimon_spec::schema::{TableSchema, CURRENT_VERSION};
use paimon_spec::types::{DataField, DataType, TypeKind};
use serde_json::{json, Value};

use crate::scan_args::table_location;

/// `paimon create-table TABLE (--schema JSON | --like PARQUET_FILE)`.
#[derive(Debug, Args)]
pub struct CreateTableArgs {
    /// Table directory to create.
    pub table: String,
    /// The schema as JSON text, or `@FILE` to read it from a file (see the module docs).
    #[arg(long, conflicts_with = "like", required_unless_present = "like")]
    pub schema: Option<String>,
    /// Take the columns from this Parquet file's Arrow schema.
    #[arg(long)]
    pub like: Option<PathBuf>,
    /// Primary-key columns, comma separated (added to those of `--schema`).
    #[arg(long = "primary-key", value_delimiter = ',')]
    pub primary_key: Vec<String>,
    /// Partition columns, comma separated (added to those of `--schema`).
    #[arg(long = "partition-key", value_delimiter = ',')]
    pub partition_key: Vec<String>,
    /// A table option `KEY=VALUE` (repeatable; wins over `--schema`'s options).
    #[arg(long = "option")]
    pub option: Vec<String>,
    /// Succeed without changes when the table exists.
    #[arg(long = "if-not-exists")]
    pub if_not_exists: bool,
}

pub fn create_table(a: CreateTableArgs) -> Result<()> {
    let path = table_location(&a.table);
    let schema = build_schema(&a).with_context(|| format!("create table {path}"))?;
    let io = file_io_for(&path).map_err(|e| anyhow!("{path}: {e}"))?;
    let table = paimon_meta::commit::create_table_at(io, &path, schema, a.if_not_exists)
        .map_err(|e| anyhow!("{e}"))?;
    let s = table.schema();
    crate::outln!(
        "created {path}: {} fields, primary keys [{}], partition keys [{}]",
        s.fields.len(),
        s.primary_keys.join(","),
        s.partition_keys.join(",")
    );
    Ok(())
}

/// The schema the arguments describe, before paimon-meta's normalization.
fn build_schema(a: &CreateTableArgs) -> Result<TableSchema> {
    let mut v = match (&a.schema, &a.like) {
        (Some(text), _) => {
            let text = match text.strip_prefix('@') {
                Some(file) => std::fs::read_to_string(file).with_context(|| file.to_string())?,
                None => text.clone(),
            };
            let v: Value =
                serde_json::from_str(&text).map_err(|e| anyhow!("--schema is not JSON: {e}"))?;
            if !v.is_object() {
                bail!("--schema must be a JSON object");
            }
            v
        }
        (None, Some(file)) => json!({ "fields": fields_of_parquet(file)? }),
        (None, None) => bail!("give --schema or --like"),
    };
    let obj = v
        .as_object_mut()
        .ok_or_else(|| anyhow!("--schema must be a JSON object"))?;
    let fields = obj
        .get_mut("fields")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| anyhow!("--schema needs a \"fields\" array"))?;
    for f in fields.iter_mut() {
        if let Some(o) = f.as_object_mut() {
            o.entry("id").or_insert(json!(-1));
        }
    }
    obj.insert("version".into(), json!(CURRENT_VERSION));
    obj.insert("id".into(), json!(0));
    obj.remove("highestFieldId");
    for (key, extra) in [
        ("primaryKeys", &a.primary_key),
        ("partitionKeys", &a.partition_key),
    ] {
        let list = obj.entry(key).or_insert(json!([]));
        let arr = list
            .as_array_mut()
            .ok_or_else(|| anyhow!("\"{key}\" must be an array"))?;
        arr.extend(
            extra
                .iter()
                .map(|s| s.trim())
                .filter(|s| !s.is_empty())
                .map(|s| json!(s)),
        );
    }
    let options = obj.entry("options").or_insert(json!({}));
    let options = options
        .as_object_mut()
        .ok_or_else(|| anyhow!("\"options\" must be an object"))?;
    for kv in &a.option {
        let (k, v) = kv
            .split_once('=')
            .filter(|(k, _)| !k.trim().is_empty())
            .ok_or_else(|| anyhow!("--option takes KEY=VALUE (got '{kv}')"))?;
        options.insert(k.trim().to_string(), json!(v));
    }
    let mut schema = TableSchema::from_json(&v).map_err(|e| anyhow!("{e}"))?;
    schema.time_millis = now_millis();
    Ok(schema)
}

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// The fields of a Parquet file's Arrow schema as schema JSON fields.
fn fields_of_parquet(file: &std::path::Path) -> Result<Vec<Value>> {
    let f = std::fs::File::open(file).with_context(|| format!("--like {}", file.display()))?;
    let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
        .with_context(|| format!("--like {}", file.display()))?;
    builder
        .schema()
        .fields()
        .iter()
        .map(|f| {
            let ty = paimon_type_of(f).with_context(|| format!("--like {}", file.display()))?;
            Ok(DataField::new(-1, f.name(), ty).to_json())
        })
        .collect()
}

/// The Paimon type of an Arrow field (the inverse of paimon-data's `to_arrow_type` where one
/// exists).
pub fn paimon_type_of(field: &Field) -> Result<DataType> {
    let kind = match field.data_type() {
        ArrowType::Boolean => TypeKind::Boolean,
        ArrowType::Int8 => TypeKind::TinyInt,
        ArrowType::Int16 => TypeKind::SmallInt,
        ArrowType::Int32 => TypeKind::Int,
        ArrowType::Int64 => TypeKind::BigInt,
        ArrowType::Float32 => TypeKind::Float,
        ArrowType::Float64 => TypeKind::Double,
        ArrowType::Decimal128(p, s) if *s >= 0 => TypeKind::Decimal {
            precision: u32::from(*p),
            scale: u32::from(s.unsigned_abs()),
        },
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View => TypeKind::VarChar {
            length: i32::MAX as u32,
        },
        ArrowType::Binary | ArrowType::LargeBinary | ArrowType::BinaryView => TypeKind::VarBinary {
            length: i32::MAX as u32,
        },
        ArrowType::FixedSizeBinary(n) if *n > 0 => TypeKind::Binary {
            length: n.unsigned_abs(),
        },
        ArrowType::Date32 => TypeKind::Date,
        ArrowType::Time32(_) => TypeKind::Time { precision: 3 },
        ArrowType::Time64(_) => TypeKind::Time { precision: 3 },
        ArrowType::Timestamp(unit, tz) => {
            let precision = match unit {
                TimeUnit::Second => 0,
                TimeUnit::Millisecond => 3,
                TimeUnit::Microsecond => 6,
                TimeUnit::Nanosecond => 9,
            };
            if tz.is_some() {
                TypeKind::LocalZonedTimestamp { precision }
            } else {
                TypeKind::Timestamp { precision }
            }
        }
        ArrowType::List(e) | ArrowType::LargeList(e) => {
            TypeKind::Array(Box::new(paimon_type_of(e)?))
        }
        ArrowType::Map(entries, _) => match entries.data_type() {
            ArrowType::Struct(kv) if kv.len() == 2 => TypeKind::Map {
                key: Box::new(paimon_type_of(&kv[0])?),
                value: Box::new(paimon_type_of(&kv[1])?),
            },
            other => bail!("column {}: map entries of type {other}", field.name()),
        },
        ArrowType::Struct(fields) => TypeKind::Row(
            fields
                .iter()
                .map(|f| Ok(DataField::new(-1, f.name(), paimon_type_of(f)?)))
                .collect::<Result<Vec<_>>>()?,
        ),
        other => bail!(
            "column {}: Arrow type {other} has no Paimon type",
            field.name()
        ),
    };
    Ok(if field.is_nullable() {
        DataType::nullable(kind)
    } else {
        DataType::not_null(kind)
    })
}
