//! The checks of Java 1.4.2's `SchemaValidation.validateTableSchema` on a schema's options that
//! need no more than the schema itself, run on every schema this crate publishes: the first one
//! ([`super::create_table_at`]) and each altered one ([`crate::Table::alter`]), so a table Java
//! would refuse to open is never committed. Each refusal names the option.

use std::collections::BTreeMap;

use paimon_spec::options::{ChangelogProducer, CoreOptions, MergeEngine};
use paimon_spec::schema::TableSchema;
use paimon_spec::types::TypeKind;

const SNAPSHOT_MIN: &str = "snapshot.num-retained.min";
const SNAPSHOT_MAX: &str = "snapshot.num-retained.max";
const CHANGELOG_MIN: &str = "changelog.num-retained.min";
const CHANGELOG_MAX: &str = "changelog.num-retained.max";

/// Refuses `s` (its options parsed as `o`) where Java's `SchemaValidation` would.
///
/// # Errors
/// What is wrong, naming the option.
pub(crate) fn check(s: &TableSchema, o: &CoreOptions) -> Result<(), String> {
    check_retention(&s.options)?;
    let has_pk = !s.primary_keys.is_empty();
    if !has_pk && o.changelog_producer != ChangelogProducer::None {
        return Err("changelog-producer needs a primary key".into());
    }
    let overwrite = flag(&s.options, "streaming-read-overwrite")?;
    if overwrite
        && matches!(
            o.changelog_producer,
            ChangelogProducer::FullCompaction | ChangelogProducer::Lookup
        )
    {
        return Err(
            "streaming-read-overwrite cannot be true with changelog-producer full-compaction or \
             lookup (it would read changes twice)"
                .into(),
        );
    }
    if overwrite && !has_pk {
        return Err("streaming-read-overwrite needs a primary key".into());
    }
    if s.options.contains_key("partition.expiration-time") && s.partition_keys.is_empty() {
        return Err("partition.expiration-time cannot be set on a table without partitions".into());
    }
    if let Some(name) = s.options.get("record-level.time-field") {
        let f = s
            .fields
            .iter()
            .find(|f| &f.name == name)
            .ok_or_else(|| format!("record-level.time-field {name:?} is not a field"))?;
        if !matches!(
            f.data_type.kind,
            TypeKind::Int
                | TypeKind::BigInt
                | TypeKind::Timestamp { .. }
                | TypeKind::LocalZonedTimestamp { .. }
        ) {
            return Err(format!(
                "record-level.time-field {name:?} has type {}; it must be INT, BIGINT or TIMESTAMP",
                f.data_type
            ));
        }
    }
    if let Some(name) = s.options.get("rowkind.field") {
        if !s.fields.iter().any(|f| &f.name == name) {
            return Err(format!("rowkind.field {name:?} is not a field"));
        }
    }
    // Java `SchemaValidation.validateForDeletionVectors` and its first-row checks.
    let first_row = o.merge_engine == MergeEngine::FirstRow;
    if o.deletion_vectors_enabled && o.changelog_producer == ChangelogProducer::FullCompaction {
        return Err(
            "deletion-vectors.enabled goes with changelog-producer none, input or lookup only"
                .into(),
        );
    }
    if o.deletion_vectors_enabled && first_row {
        return Err(
            "deletion-vectors.enabled: the first-row merge engine takes no deletion vectors (it \
             never deletes old rows)"
                .into(),
        );
    }
    if first_row
        && matches!(
            o.changelog_producer,
            ChangelogProducer::Input | ChangelogProducer::FullCompaction
        )
    {
        return Err(
            "changelog-producer: the first-row merge engine takes none or lookup only".into(),
        );
    }
    Ok(())
}

/// `snapshot.num-retained.min` at least 1 and at most `snapshot.num-retained.max`, and the
/// same of `changelog.num-retained.*`, which default to the snapshot values (Java's defaults:
/// min 10, max `Integer.MAX_VALUE`).
fn check_retention(options: &BTreeMap<String, String>) -> Result<(), String> {
    let snapshot_min = int(options, SNAPSHOT_MIN)?.unwrap_or(10);
    let snapshot_max = int(options, SNAPSHOT_MAX)?.unwrap_or(i32::MAX);
    let changelog_min = int(options, CHANGELOG_MIN)?.unwrap_or(snapshot_min);
    let changelog_max = int(options, CHANGELOG_MAX)?.unwrap_or(snapshot_max);
    for (min_key, min, max_key, max) in [
        (SNAPSHOT_MIN, snapshot_min, SNAPSHOT_MAX, snapshot_max),
        (CHANGELOG_MIN, changelog_min, CHANGELOG_MAX, changelog_max),
    ] {
        if min < 1 {
            return Err(format!("{min_key} is {min}; it must be at least 1"));
        }
        if min > max {
            let said = |key: &str, v: i32| match options.contains_key(key) {
                true => format!("{key} = {v}"),
                false => format!("{key} = {v} (the default)"),
            };
            return Err(format!(
                "{} is below {}; the maximum number of retained snapshots cannot be smaller \
                 than the minimum",
                said(max_key, max),
                said(min_key, min)
            ));
        }
    }
    Ok(())
}

/// An integer option as Java's `intType()` reads it; `None` when unset.
fn int(options: &BTreeMap<String, String>, key: &str) -> Result<Option<i32>, String> {
    options
        .get(key)
        .map(|v| {
            v.trim()
                .parse::<i32>()
                .map_err(|_| format!("{key} = {v:?} is not an integer"))
        })
        .transpose()
}

/// A boolean option as Java's `booleanType()` reads it, false when unset.
fn flag(options: &BTreeMap<String, String>, key: &str) -> Result<bool, String> {
    match options.get(key).map(|v| v.trim().to_ascii_lowercase()) {
        None => Ok(false),
        Some(v) if v == "true" => Ok(true),
        Some(v) if v == "false" => Ok(false),
        Some(v) => Err(format!("{key} = {v:?} is not true or false")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(options: &[(&str, &str)], partitioned: bool) -> (TableSchema, CoreOptions) {
        let mut s = TableSchema::from_json(&serde_json::json!({
            "version": 3, "id": 0,
            "fields": [{"id": 0, "name": "id", "type": "INT NOT NULL"},
                       {"id": 1, "name": "dt", "type": "STRING"}],
            "partitionKeys": if partitioned { vec!["dt"] } else { vec![] },
            "primaryKeys": [], "options": {},
        }))
        .unwrap();
        for (k, v) in options {
            s.options.insert((*k).into(), (*v).into());
        }
        let o = CoreOptions::try_new(&s.options).unwrap();
        (s, o)
    }

    fn refused(options: &[(&str, &str)], partitioned: bool) -> String {
        let (s, o) = schema(options, partitioned);
        check(&s, &o).unwrap_err()
    }

    #[test]
    fn retention_bounds_are_java_s() {
        let e = refused(&[("snapshot.num-retained.max", "7")], false);
        assert_eq!(
            e,
            "snapshot.num-retained.max = 7 is below snapshot.num-retained.min = 10 (the \
             default); the maximum number of retained snapshots cannot be smaller than the \
             minimum"
        );
        let (s, o) = schema(
            &[
                ("snapshot.num-retained.max", "7"),
                ("snapshot.num-retained.min", "7"),
            ],
            false,
        );
        check(&s, &o).unwrap();
        assert!(refused(&[("snapshot.num-retained.min", "0")], false)
            .starts_with("snapshot.num-retained.min is 0"));
        assert!(refused(&[("changelog.num-retained.max", "3")], false)
            .starts_with("changelog.num-retained.max = 3 is below changelog.num-retained.min"));
        assert!(refused(&[("snapshot.num-retained.max", "x")], false).contains("not an integer"));
    }

    #[test]
    fn other_option_checks_name_the_option() {
        assert!(refused(&[("partition.expiration-time", "1 d")], false)
            .starts_with("partition.expiration-time"));
        let (s, o) = schema(&[("partition.expiration-time", "1 d")], true);
        check(&s, &o).unwrap();
        assert!(refused(&[("record-level.time-field", "dt")], false).contains("must be INT"));
        assert!(refused(&[("rowkind.field", "nope")], false).contains("rowkind.field"));
        assert!(refused(&[("streaming-read-overwrite", "true")], false)
            .starts_with("streaming-read-overwrite"));
        assert!(
            refused(&[("changelog-producer", "input")], false).starts_with("changelog-producer")
        );
    }
}
