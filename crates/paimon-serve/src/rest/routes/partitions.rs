//! Changes to a table's partitions and the filtered listing (Java `ResourcePaths.dropPartitions`,
//! `markDonePartitions`, `listPartitionsByFilter`).
//!
//! - `partitions/drop` (Java `DropPartitionsRequest` / `DropPartitionsResponse`) removes the
//!   partitions' rows with one overwrite-style commit, as Java's `Catalog.dropPartitions`
//!   does for a Paimon table (`truncatePartitions`): the files stay until snapshot expiry, and
//!   a catalog keeping partitions (Hive's `metastore.partitioned-table`) drops them there too.
//!   Needs the table's `write` grant.
//! - `partitions/mark` (Java `MarkDonePartitionsRequest`) is a notification: Java's own server
//!   hands it to its filesystem catalog, whose `markDonePartitions` does nothing. The specs are
//!   checked and nothing is recorded. Needs `write`.
//! - `partitions/list-by-filter` (Java `ListPartitionsByFilterRequest`, answered as
//!   `ListPartitionsResponse`): the partitions whose values may satisfy the Java predicate JSON
//!   `filter`, paged by the body's `maxResults` / `pageToken`, filtered by its
//!   `partitionNamePattern`. The API allows a superset (clients evaluate the filter again), so
//!   a leaf this server cannot decide, or a value it cannot type, keeps the partition; a filter
//!   that is not predicate JSON is a 400. Needs `read`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use paimon_rs::meta::catalog::rest::messages;
use paimon_rs::meta::catalog::Partition;
use paimon_rs::meta::commit::BATCH_COMMIT_IDENTIFIER;
use paimon_rs::meta::scan::prune::{may_match, ColumnStats};
use paimon_rs::spec::binary::Datum;
use paimon_rs::spec::predicate::typed_literal;
use paimon_rs::spec::predicate_json::predicate_from_json;
use serde_json::{json, Value};

use super::super::error::ApiError;
use super::super::paging::{page_by, NameFilter};
use super::super::request::Request;
use super::table_meta::{partition_name, specs_of};
use super::{Answer, Service};
use crate::auth::Access;

/// Makes each drop's commit user unique within this process.
static DROPS: AtomicU64 = AtomicU64::new(0);

impl Service {
    /// `POST .../partitions/drop`: `dropped` lists the request's specs that matched a
    /// partition, `missing` the others; with `ignoreIfNotExists: false` a missing spec is a
    /// 404 `PARTITION` and nothing is dropped. A spec may name some of the partition keys (it
    /// then matches every partition agreeing on them, as Java's `truncatePartitions`); a key
    /// that is not a partition column, or a value not of its column's type, is a 400.
    pub(super) fn drop_partitions(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Write, db, t)?;
        let body = r.json()?;
        let specs = specs_of(&body, "partitionSpecs", "DropPartitionsRequest", true)?;
        let ignore_missing = match body.get("ignoreIfNotExists") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(v) => {
                return Err(ApiError::bad_request(format!(
                    "DropPartitionsRequest: \"ignoreIfNotExists\" {v} is not a boolean"
                )))
            }
        };
        let (id, table) = self.table(db, t)?;
        if table.schema().partition_keys.is_empty() {
            return Err(ApiError::bad_request(format!(
                "table {id} is not partitioned"
            )));
        }
        // Typed specs first: a spec naming other columns is refused before anything changes.
        let typed = specs
            .iter()
            .map(|s| {
                let pairs: Vec<(String, String)> =
                    s.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                table
                    .partition_spec(&pairs)
                    .map_err(|e| ApiError::bad_request(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let lock = self.commit_lock(&id)?;
        let _held = lock
            .lock()
            .map_err(|_| ApiError::new(500, "commit lock poisoned"))?;
        let existing = self.catalog.list_partitions(&id)?;
        let matches = |spec: &BTreeMap<String, String>| {
            existing
                .iter()
                .any(|p| spec.iter().all(|(k, v)| p.spec.get(k) == Some(v)))
        };
        let (dropped, missing): (Vec<usize>, Vec<usize>) =
            (0..specs.len()).partition(|i| matches(&specs[*i]));
        if !ignore_missing && !missing.is_empty() {
            let keys = &table.schema().partition_keys;
            let names: Vec<String> = missing
                .iter()
                .map(|i| {
                    keys.iter()
                        .filter_map(|k| specs[*i].get(k).map(|v| format!("{k}={v}")))
                        .collect::<Vec<_>>()
                        .join("/")
                })
                .collect();
            return Err(ApiError::not_found(
                "PARTITION",
                names[0].clone(),
                format!("partitions {names:?} of table {id} do not exist"),
            ));
        }
        if !dropped.is_empty() {
            let user = format!(
                "paimon-serve-drop-{}-{}",
                super::now_millis(),
                DROPS.fetch_add(1, Ordering::Relaxed)
            );
            let chosen = dropped.iter().map(|i| typed[*i].clone()).collect();
            table
                .new_commit(&user)
                .drop_partitions(BATCH_COMMIT_IDENTIFIER, chosen)?;
        }
        let list = |idx: &[usize]| idx.iter().map(|i| json!(specs[*i])).collect::<Vec<_>>();
        Ok(json!({"dropped": list(&dropped), "missing": list(&missing)}))
    }

    /// `POST .../partitions/mark`: checks the table and the specs (objects of strings naming
    /// partition columns) and records nothing, as Java's server does over its filesystem
    /// catalog.
    pub(super) fn mark_done_partitions(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Write, db, t)?;
        let body = r.json()?;
        let specs = specs_of(&body, "specs", "MarkDonePartitionsRequest", true)?;
        let (id, table) = self.table(db, t)?;
        let keys = &table.schema().partition_keys;
        for spec in &specs {
            if let Some(k) = spec.keys().find(|k| !keys.contains(k)) {
                return Err(ApiError::bad_request(format!(
                    "MarkDonePartitionsRequest: {k} is not a partition column of {id}"
                )));
            }
        }
        Ok(json!({}))
    }

    /// `POST .../partitions/list-by-filter`.
    pub(super) fn list_partitions_by_filter(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Read, db, t)?;
        let body = r.json()?;
        let filter = body
            .get("filter")
            .and_then(Value::as_str)
            .filter(|f| !f.is_empty())
            .ok_or_else(|| {
                ApiError::bad_request("ListPartitionsByFilterRequest: no string \"filter\"")
            })?;
        let predicate = predicate_from_json(filter).map_err(|e| {
            ApiError::bad_request(format!("ListPartitionsByFilterRequest: filter: {e}"))
        })?;
        // The paging fields are the body's: text for `page_by`.
        let mut params: BTreeMap<&str, String> = BTreeMap::new();
        for key in ["partitionNamePattern", "pageToken", "maxResults"] {
            match body.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) if key != "maxResults" => {
                    params.insert(key, s.clone());
                }
                Some(Value::Number(n)) if key == "maxResults" => {
                    params.insert(key, n.to_string());
                }
                Some(v) => {
                    return Err(ApiError::bad_request(format!(
                        "ListPartitionsByFilterRequest: \"{key}\" {v} is of the wrong type"
                    )))
                }
            }
        }
        let (id, table) = self.table(db, t)?;
        let schema = table.schema();
        let keys = schema.partition_keys.clone();
        let default_name = table.options().partition_default_name.clone();
        let typed = |p: &Partition, column: &str| -> Option<ColumnStats> {
            let field = schema.field(column)?;
            if !keys.iter().any(|k| k == column) {
                return None;
            }
            let text = p.spec.get(column)?;
            let value = if *text == default_name {
                Datum::Null
            } else {
                typed_literal(text, &field.data_type)?
            };
            Some(ColumnStats::exact(&value))
        };
        let named: Vec<(String, Partition)> = self
            .catalog
            .list_partitions(&id)?
            .into_iter()
            .filter(|p| may_match(&predicate, 1, &|c| typed(p, c)))
            .map(|p| (partition_name(&p, &keys), p))
            .collect();
        let (items, next) = page_by(
            &|k| params.get(k).cloned(),
            named,
            |(n, _)| n.as_str(),
            NameFilter::Like("partitionNamePattern"),
        )?;
        let partitions: Vec<Value> = items.iter().map(|(_, p)| messages::partition(p)).collect();
        Ok(json!({"partitions": partitions, "nextPageToken": next}))
    }
}
