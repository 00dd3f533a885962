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
use clap::Args;
use paimon_data::arrow_schema::from_arrow_field;
use paimon_io::file_io_for;
use paimon_spec::schema::{TableSchema, CURRENT_VERSION};
use paimon_spec::types::DataField;
use serde_json::{json, Value};

use crate::scan_args::table_location;

/// `paimon create-table TABLE (--schema JSON | --like PARQUET_FILE)`.
#[derive(Debug, Args)]
pub struct CreateTableArgs {
    /// Table directory to create (`db.table` under a catalog).
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
    let table = match crate::catalog_cmd::catalog_for(&path)? {
        // `db.table`: the catalog creates it (a REST server decides its location).
        Some(c) => {
            let chain = |e: paimon_rs::Error| anyhow!("create table {path}: {}", e.chain());
            c.create_table(&path, schema, a.if_not_exists)
                .map_err(chain)?;
            c.table(&path).map_err(chain)?.meta().clone()
        }
        None => {
            let io = file_io_for(&path).map_err(|e| anyhow!("{path}: {e}"))?;
            paimon_meta::commit::create_table_at(io, &path, schema, a.if_not_exists)
                .map_err(|e| anyhow!("{e}"))?
        }
    };
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
            let ty = from_arrow_field(f)
                .map_err(|e| anyhow!("{e}"))
                .with_context(|| format!("--like {}", file.display()))?;
            Ok(DataField::new(-1, f.name(), ty).to_json())
        })
        .collect()
}
