//! The system tables over metadata files: `snapshots` (Java `SnapshotsTable`), `schemas`
//! (`SchemasTable`), `options` (`OptionsTable`), `tags` (`TagsTable`) and `branches`
//! (`BranchesTable`).

use paimon_meta::{Error, Result, Table};
use paimon_spec::layout;
use paimon_spec::schema::TableSchema;
use serde_json::Value;

use super::columns::{local_millis, Columns};
use super::java_text::{duration_string, hash_map_order};

/// Every snapshot of the branch, ascending.
pub fn snapshots(table: &Table) -> Result<Columns> {
    let s = table.snapshots()?;
    Ok(Columns::new()
        .bigint("snapshot_id", false, s.iter().map(|s| Some(s.id)))
        .bigint("schema_id", false, s.iter().map(|s| Some(s.schema_id)))
        .string("commit_user", false, s.iter().map(|s| Some(&s.commit_user)))
        .bigint(
            "commit_identifier",
            false,
            s.iter().map(|s| Some(s.commit_identifier)),
        )
        .string("commit_kind", false, s.iter().map(|s| Some(&s.commit_kind)))
        .timestamp(
            "commit_time",
            false,
            s.iter().map(|s| Some(local_millis(s.time_millis))),
        )
        .string(
            "base_manifest_list",
            false,
            s.iter().map(|s| Some(&s.base_manifest_list)),
        )
        .string(
            "delta_manifest_list",
            false,
            s.iter().map(|s| Some(&s.delta_manifest_list)),
        )
        .string(
            "changelog_manifest_list",
            true,
            s.iter().map(|s| s.changelog_manifest_list.as_ref()),
        )
        .bigint(
            "total_record_count",
            true,
            s.iter().map(|s| s.total_record_count),
        )
        .bigint(
            "delta_record_count",
            true,
            s.iter().map(|s| s.delta_record_count),
        )
        .bigint(
            "changelog_record_count",
            true,
            s.iter().map(|s| s.changelog_record_count),
        )
        .bigint("watermark", true, s.iter().map(|s| s.watermark))
        .bigint("next_row_id", true, s.iter().map(|s| s.next_row_id)))
}

/// Every schema of the branch, ascending by id.
pub fn schemas(table: &Table) -> Result<Columns> {
    let manager = table.schema_manager();
    let mut rows = Vec::new();
    for id in manager.schema_ids()? {
        let schema = manager.schema(id)?;
        let options = options_in_java_order(table, &schema)?;
        let options_json: serde_json::Map<String, Value> = options
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        rows.push((schema, Value::Object(options_json).to_string()));
    }
    let json = |v: Value| Some(v.to_string());
    Ok(Columns::new()
        .bigint("schema_id", false, rows.iter().map(|(s, _)| Some(s.id)))
        .string(
            "fields",
            false,
            rows.iter()
                .map(|(s, _)| json(Value::Array(s.fields.iter().map(|f| f.to_json()).collect()))),
        )
        .string(
            "partition_keys",
            false,
            rows.iter()
                .map(|(s, _)| json(s.partition_keys.clone().into())),
        )
        .string(
            "primary_keys",
            false,
            rows.iter()
                .map(|(s, _)| json(s.primary_keys.clone().into())),
        )
        .string("options", false, rows.iter().map(|(_, o)| Some(o)))
        .string(
            "comment",
            true,
            rows.iter().map(|(s, _)| s.comment.as_ref()),
        )
        .timestamp(
            "update_time",
            false,
            rows.iter().map(|(s, _)| Some(local_millis(s.time_millis))),
        ))
}

/// The options of the branch's latest schema.
pub fn options(table: &Table) -> Result<Columns> {
    let options = options_in_java_order(table, table.schema())?;
    Ok(Columns::new()
        .string("key", false, options.iter().map(|(k, _)| Some(k)))
        .string("value", false, options.iter().map(|(_, v)| Some(v))))
}

/// `schema`'s options in the order Java iterates them: Java keeps them in a `HashMap` filled
/// in the order of the schema file (then the defaults it adds for old schema versions), so
/// the file is read again for that order.
fn options_in_java_order(table: &Table, schema: &TableSchema) -> Result<Vec<(String, String)>> {
    let path = table.schema_manager().schema_path(schema.id);
    let bytes = table.file_io().read(&path).map_err(Error::io)?;
    let file: Value =
        serde_json::from_slice(&bytes).map_err(|e| Error::corrupt(&path, e.to_string()))?;
    let mut keys: Vec<&String> = file
        .get("options")
        .and_then(Value::as_object)
        .map(|o| {
            o.keys()
                .filter(|k| schema.options.contains_key(*k))
                .collect()
        })
        .unwrap_or_default();
    // The compatibility defaults (`bucket`, then `file.format`) come after the file's keys.
    let defaults: Vec<&String> = schema
        .options
        .keys()
        .filter(|k| !keys.contains(k))
        .collect();
    keys.extend(defaults);
    Ok(hash_map_order(&keys)
        .into_iter()
        .map(|i| {
            let k = keys[i];
            (k.clone(), schema.options[k].clone())
        })
        .collect())
}

/// Every tag of the branch, by name.
pub fn tags(table: &Table) -> Result<Columns> {
    let manager = table.tag_manager();
    let mut names = manager.tag_names()?;
    names.sort();
    let tags = names
        .iter()
        .map(|n| manager.tag_info(n))
        .collect::<Result<Vec<_>>>()?;
    Ok(Columns::new()
        .string("tag_name", false, names.iter().map(Some))
        .bigint(
            "snapshot_id",
            false,
            tags.iter().map(|t| Some(t.snapshot.id)),
        )
        .bigint(
            "schema_id",
            false,
            tags.iter().map(|t| Some(t.snapshot.schema_id)),
        )
        .timestamp(
            "commit_time",
            false,
            tags.iter()
                .map(|t| Some(local_millis(t.snapshot.time_millis))),
        )
        .bigint(
            "record_count",
            true,
            tags.iter().map(|t| t.snapshot.total_record_count),
        )
        .timestamp(
            "create_time",
            true,
            tags.iter().map(|t| t.create_time.map(|c| c.0)),
        )
        .string(
            "time_retained",
            true,
            tags.iter()
                .map(|t| t.time_retained.map(|(s, n)| duration_string(s, n))),
        ))
}

/// Every branch of the table (not `main`), by name, created when its directory was last
/// modified (Java reads the directory's modification time too).
pub fn branches(table: &Table) -> Result<Columns> {
    let dir = table.layout().branch_dir();
    let entries = match table.file_io().list(&dir) {
        Ok(e) => e,
        Err(e) if e.is_not_found() => Vec::new(),
        Err(e) => return Err(Error::io(e)),
    };
    let mut branches: Vec<(String, Option<i64>)> = entries
        .iter()
        .filter(|e| e.is_dir)
        .filter_map(|e| {
            let name = e.name().strip_prefix(layout::BRANCH_PREFIX)?;
            Some((name.to_string(), e.modified_ms))
        })
        .collect();
    branches.sort();
    let missing = branches.iter().find(|(_, t)| t.is_none());
    if let Some((name, _)) = missing {
        return Err(Error::unsupported(format!(
            "the storage reports no modification time for branch directory {}",
            layout::branch_root(table.path(), name)
        )));
    }
    Ok(Columns::new()
        .string("branch_name", false, branches.iter().map(|(n, _)| Some(n)))
        .timestamp(
            "create_time",
            false,
            branches.iter().map(|(_, t)| t.map(local_millis)),
        ))
}
