//! The `files` system table (Java `FilesTable`): one row per live data file of the latest
//! snapshot, all levels, with its keys and value statistics printed as Java prints them.

use std::collections::HashMap;

use paimon_data::datum::{datum_at, datum_to_array};
use paimon_data::format::FileFormat;
use paimon_data::schema_mapper::java_cast;
use paimon_meta::{Error, LiveFile, Result, Table};
use paimon_spec::binary::{BinaryRow, Datum};
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::schema::{TableSchema, TableSchemaRef};
use paimon_spec::types::DataType;

use super::columns::Columns;
use super::java_text::{internal_object_string, row_string, tree_map_string};

/// One file's row values that are not plain copies of its metadata.
struct FileRow {
    partition: String,
    path: String,
    format: String,
    min_key: Option<String>,
    max_key: Option<String>,
    null_counts: String,
    min_values: String,
    max_values: String,
}

/// The `files` table of the latest snapshot.
pub fn files(table: &Table) -> Result<Columns> {
    // Java lists every level (`withLevelFilter(level -> true)`).
    let files = table.live_files(Some(table.scan().with_all_levels(true)))?;
    let current = table.schema().clone();
    let part_types: Vec<DataType> = current
        .partition_fields()
        .iter()
        .map(|f| f.data_type.clone())
        .collect();
    let mut schemas: HashMap<i64, TableSchemaRef> = HashMap::new();
    let mut rows = Vec::with_capacity(files.len());
    for f in &files {
        let schema = match schemas.get(&f.file.schema_id) {
            Some(s) => s.clone(),
            None => {
                let s = table.schema_manager().schema(f.file.schema_id)?;
                schemas.insert(f.file.schema_id, s.clone());
                s
            }
        };
        rows.push(file_row(f, &part_types, &schema, &current)?);
    }
    let meta = |g: fn(&DataFileMeta) -> Option<i64>| files.iter().map(move |f| g(&f.file));
    Ok(Columns::new()
        .string("partition", true, rows.iter().map(|r| Some(&r.partition)))
        .int("bucket", false, files.iter().map(|f| Some(f.bucket)))
        .string("file_path", false, rows.iter().map(|r| Some(&r.path)))
        .string("file_format", false, rows.iter().map(|r| Some(&r.format)))
        .bigint("schema_id", false, meta(|f| Some(f.schema_id)))
        .int("level", false, files.iter().map(|f| Some(f.file.level)))
        .bigint("record_count", false, meta(|f| Some(f.row_count)))
        .bigint("file_size_in_bytes", false, meta(|f| Some(f.file_size)))
        .string("min_key", true, rows.iter().map(|r| r.min_key.as_ref()))
        .string("max_key", true, rows.iter().map(|r| r.max_key.as_ref()))
        .string(
            "null_value_counts",
            false,
            rows.iter().map(|r| Some(&r.null_counts)),
        )
        .string(
            "min_value_stats",
            false,
            rows.iter().map(|r| Some(&r.min_values)),
        )
        .string(
            "max_value_stats",
            false,
            rows.iter().map(|r| Some(&r.max_values)),
        )
        .bigint(
            "min_sequence_number",
            true,
            meta(|f| Some(f.min_sequence_number)),
        )
        .bigint(
            "max_sequence_number",
            true,
            meta(|f| Some(f.max_sequence_number)),
        )
        .timestamp("creation_time", true, meta(|f| f.creation_time))
        .bigint("deleteRowCount", true, meta(|f| f.delete_row_count))
        .string(
            "file_source",
            true,
            files
                .iter()
                .map(|f| f.file.file_source.map(file_source_name)),
        )
        .bigint("first_row_id", true, meta(|f| f.first_row_id))
        .string_array(
            "write_cols",
            files.iter().map(|f| f.file.write_cols.clone()),
        ))
}

/// Java `FileSource.toString`.
fn file_source_name(code: i8) -> String {
    match code {
        0 => "APPEND".into(),
        1 => "COMPACT".into(),
        other => format!("UNKNOWN({other})"),
    }
}

fn file_row(
    f: &LiveFile,
    part_types: &[DataType],
    schema: &TableSchema,
    current: &TableSchema,
) -> Result<FileRow> {
    let file = &f.file;
    let path = file
        .external_path
        .clone()
        .unwrap_or_else(|| format!("{}/{}", f.bucket_path, file.file_name));
    let (null_counts, min_values, max_values) = value_stats(file, schema, current)
        .map_err(|reason| Error::corrupt(&path, format!("value stats: {reason}")))?;
    Ok(FileRow {
        partition: row_string(&f.partition, part_types),
        format: format_identifier(&file.file_name),
        min_key: key_string(&file.min_key, schema).map_err(|e| Error::spec(&path, e))?,
        max_key: key_string(&file.max_key, schema).map_err(|e| Error::spec(&path, e))?,
        path,
        null_counts,
        min_values,
        max_values,
    })
}

/// Java `DataFilePathFactory.formatIdentifier`.
fn format_identifier(file_name: &str) -> String {
    match FileFormat::from_file_name(file_name) {
        Ok(FileFormat::Parquet) => "parquet".into(),
        Ok(FileFormat::Orc) => "orc".into(),
        Ok(FileFormat::Avro) => "avro".into(),
        Ok(FileFormat::Blob) => "blob".into(),
        Err(_) => file_name.rsplit('.').next().unwrap_or_default().to_string(),
    }
}

/// `Arrays.toString` of a min or max key typed by the file schema's trimmed primary keys
/// (all columns for a table without primary keys); `None` for an empty key.
fn key_string(bytes: &[u8], schema: &TableSchema) -> paimon_spec::Result<Option<String>> {
    let row = BinaryRow::from_serialized(bytes)?;
    if row.arity() == 0 {
        return Ok(None);
    }
    let fields = match schema.trimmed_primary_key_fields() {
        k if k.is_empty() => schema.fields.clone(),
        k => k,
    };
    let types: Vec<DataType> = fields
        .iter()
        .map(|f| f.data_type.with_nullable(true))
        .collect();
    let types = types.get(..row.arity()).unwrap_or(&types[..]);
    let values = row.to_datums(types)?;
    let parts: Vec<String> = values.iter().map(internal_object_string).collect();
    Ok(Some(format!("[{}]", parts.join(", "))))
}

/// The null counts, minima and maxima of a file's value stats mapped onto the current
/// columns (Java `SimpleStatsEvolution`), each as `TreeMap.toString`: columns the file's
/// schema lacks count every row as null; columns without dense stats are null. A column whose
/// type changed has its stats cast to the current type as Java casts values
/// ([`java_cast`], Java `CastExecutors`); one that does not cast prints null. The stats
/// of a data-evolution file cover its `write_cols`; Java 1.4.2 reads them as a whole row.
fn value_stats(
    file: &DataFileMeta,
    schema: &TableSchema,
    current: &TableSchema,
) -> std::result::Result<(String, String, String), String> {
    let stats = &file.value_stats;
    let min = BinaryRow::from_serialized(&stats.min_values).map_err(|e| e.to_string())?;
    let max = BinaryRow::from_serialized(&stats.max_values).map_err(|e| e.to_string())?;
    // A data-evolution file written with some columns holds stats of those only.
    let dense = file.value_stats_cols.as_ref().or(file.write_cols.as_ref());
    // Position in the stats row of each field of the file's schema.
    let positions: Vec<Option<usize>> = match dense {
        Some(cols) => schema
            .fields
            .iter()
            .map(|f| cols.iter().position(|c| *c == f.name))
            .collect(),
        None => (0..schema.fields.len()).map(Some).collect(),
    };
    // Java maps the stats onto the current columns only when the columns differ; otherwise
    // it prints as many columns as the stats row has.
    let same_columns = schema.fields.len() == current.fields.len()
        && schema
            .fields
            .iter()
            .zip(&current.fields)
            .all(|(a, b)| a.id == b.id);
    let width = match (dense, same_columns) {
        (_, false) => current.fields.len(),
        (Some(_), true) => schema.fields.len(),
        (None, true) => min.arity().min(current.fields.len()),
    };
    let (mut nulls, mut mins, mut maxs) = (Vec::new(), Vec::new(), Vec::new());
    for field in current.fields.iter().take(width) {
        let name = field.name.clone();
        let Some(j) = schema.fields.iter().position(|f| f.id == field.id) else {
            nulls.push((name.clone(), file.row_count.to_string()));
            mins.push((name.clone(), "null".into()));
            maxs.push((name, "null".into()));
            continue;
        };
        let Some(pos) = positions[j] else {
            nulls.push((name.clone(), "null".into()));
            mins.push((name.clone(), "null".into()));
            maxs.push((name, "null".into()));
            continue;
        };
        let count = stats
            .null_counts
            .as_ref()
            .and_then(|n| n.get(pos).copied().flatten());
        nulls.push((
            name.clone(),
            count.map_or_else(|| "null".into(), |c| c.to_string()),
        ));
        let ty = schema.fields[j].data_type.with_nullable(true);
        let now = field.data_type.with_nullable(true);
        let value = |row: &BinaryRow<'_>| -> std::result::Result<String, String> {
            if pos >= row.arity() {
                return Ok("null".into());
            }
            let d = row.get(pos, &ty).map_err(|e| e.to_string())?;
            if d == Datum::Null {
                return Ok("null".into());
            }
            if ty == now {
                return Ok(internal_object_string(&d));
            }
            Ok(cast_stat(&d, &ty, &now)
                .map_or_else(|| "null".into(), |d| internal_object_string(&d)))
        };
        mins.push((name.clone(), value(&min)?));
        maxs.push((name, value(&max)?));
    }
    Ok((
        tree_map_string(nulls),
        tree_map_string(mins),
        tree_map_string(maxs),
    ))
}

/// `d` of type `from` cast to `to` as Java casts a value; `None` when it does not cast.
fn cast_stat(d: &Datum, from: &DataType, to: &DataType) -> Option<Datum> {
    let array = datum_to_array(d, from).ok()?;
    let cast = java_cast(&array, from, to, "stats").ok()?;
    match datum_at(&cast, 0, to)? {
        Datum::Null => None,
        d => Some(d),
    }
}
