//! A Hive table's partitions in the metastore (Java `HiveCatalog.createPartitions` /
//! `dropPartitions` behind `AddPartitionCommitCallback` and partition expiry, for tables under
//! `metastore.partitioned-table`): `add_partitions_req` with `ifNotExists`, each partition a
//! copy of the table's storage descriptor at `<table location>/<k1>=<v1>/.../` (the table's
//! `data-file.path-directory` parameter in between when set); `drop_partition` without its
//! data, a missing partition skipped. Partitions added are remembered (as Java's callback
//! caches them) so that a commit to a known partition makes no call.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use paimon_spec::layout::partition_path_of_text;

use super::client::{string_map_field, Client, Thrown};
use super::registration::DEFAULT_CATALOG;
use super::thrift::{ttype, Value};
use super::{hms_table, now_secs};
use crate::catalog::{PartitionModification, PartitionValues};
use crate::error::{CatalogFailure, Error, Result};

/// How many added partitions are remembered (Java's cache holds 300).
const REMEMBERED: usize = 300;

/// The partitions of `database.table` in the metastore.
#[derive(Debug)]
pub(super) struct HivePartitions {
    client: Arc<Client>,
    database: String,
    table: String,
    added: Mutex<BTreeSet<PartitionValues>>,
}

impl HivePartitions {
    pub(super) fn new(client: Arc<Client>, database: &str, table: &str) -> Self {
        HivePartitions {
            client,
            database: database.to_string(),
            table: table.to_string(),
            added: Mutex::new(BTreeSet::new()),
        }
    }

    fn error(&self, failure: CatalogFailure, reason: String) -> Error {
        Error::catalog(
            self.client.uri(),
            failure,
            format!("partitions of table {}.{}", self.database, self.table),
            reason,
        )
    }

    fn remembered(&self) -> std::sync::MutexGuard<'_, BTreeSet<PartitionValues>> {
        // The set is only a cache: a poisoned one is as good as any.
        self.added.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A partition's location: `<data path>/<k1>=<v1>/.../` with keys and values escaped (Java
/// `PartitionPathUtils.generatePartitionPathUtil`, trailing `/` included).
pub(super) fn partition_location(data_path: &str, partition: &PartitionValues) -> String {
    format!(
        "{}/{}",
        data_path.trim_end_matches('/'),
        partition_path_of_text(partition)
    )
}

impl PartitionModification for HivePartitions {
    fn create_partitions(&self, partitions: &[PartitionValues]) -> Result<()> {
        let new: Vec<&PartitionValues> = {
            let known = self.remembered();
            partitions.iter().filter(|p| !known.contains(*p)).collect()
        };
        if new.is_empty() {
            return Ok(());
        }
        let info = hms_table(&self.client, &self.database, &self.table)?.ok_or_else(|| {
            Error::not_found_in(
                self.client.uri(),
                "table",
                format!("{}.{}", self.database, self.table),
            )
        })?;
        let Some(sd) = info.raw.field(7).cloned() else {
            return Err(self.error(
                CatalogFailure::MalformedResponse,
                "the table has no storage descriptor".into(),
            ));
        };
        // Java's getDataFilePath: the table's location, then its data directory if any.
        let table_location = info.location.clone().ok_or_else(|| {
            self.error(
                CatalogFailure::MalformedResponse,
                "the table has no location".into(),
            )
        })?;
        let data_path = match string_map_field(&info.raw, 9)
            .into_iter()
            .find(|(k, _)| k == "data-file.path-directory")
        {
            Some((_, dir)) => format!("{}/{dir}", table_location.trim_end_matches('/')),
            None => table_location,
        };
        let now = now_secs();
        let parts: Vec<Value> = new
            .iter()
            .map(|p| {
                let mut psd = sd.clone();
                psd.set_field(
                    2,
                    Value::Bytes(partition_location(&data_path, p).into_bytes()),
                );
                Value::Struct(vec![
                    (
                        1,
                        Value::List(
                            ttype::LIST,
                            ttype::STRING,
                            p.iter()
                                .map(|(_, v)| Value::Bytes(v.as_bytes().to_vec()))
                                .collect(),
                        ),
                    ),
                    (2, Value::Bytes(self.database.as_bytes().to_vec())),
                    (3, Value::Bytes(self.table.as_bytes().to_vec())),
                    (4, Value::I32(now)),
                    (5, Value::I32(now)),
                    (6, psd),
                    (9, Value::Bytes(DEFAULT_CATALOG.as_bytes().to_vec())),
                ])
            })
            .collect();
        // add_partitions(parts, ifNotExists = true, needResult = false), as Java calls it.
        let reply = self.client.call("add_partitions_req", false, |w| {
            w.field(ttype::STRUCT, 1);
            w.string_field(1, &self.database);
            w.string_field(2, &self.table);
            w.value_field(3, &Value::List(ttype::LIST, ttype::STRUCT, parts.clone()));
            w.bool_field(4, true);
            w.bool_field(5, false);
            w.string_field(6, DEFAULT_CATALOG);
            w.stop();
        })?;
        match reply {
            Ok(_) => {
                let mut known = self.remembered();
                if known.len() + new.len() > REMEMBERED {
                    known.clear();
                }
                known.extend(new.into_iter().cloned());
                Ok(())
            }
            Err(t) => Err(self.error(CatalogFailure::Refused, format!("add_partitions: {t:?}"))),
        }
    }

    fn drop_partitions(&self, partitions: &[PartitionValues]) -> Result<()> {
        for p in partitions {
            let values: Vec<String> = p.iter().map(|(_, v)| v.clone()).collect();
            // drop_partition(db, table, values, deleteData = false), as Java calls it.
            let reply = self.client.call("drop_partition", false, |w| {
                w.string_field(1, &self.database);
                w.string_field(2, &self.table);
                w.string_list_field(3, &values);
                w.bool_field(4, false);
            })?;
            match reply {
                Ok(_) | Err(Thrown::NoSuchObject(_)) => {}
                Err(t) => {
                    return Err(self.error(
                        CatalogFailure::Refused,
                        format!("drop_partition {values:?}: {t:?}"),
                    ))
                }
            }
            self.remembered().remove(p);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Java's `getPartitionLocation`: the data path, `k=v` segments escaped as the directory
    /// names, and a trailing `/`.
    #[test]
    fn partition_locations_as_java_makes_them() {
        let p = |pairs: &[(&str, &str)]| -> PartitionValues {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(
            partition_location("file:/w/db.db/t", &p(&[("dt", "20240101"), ("h", "0")])),
            "file:/w/db.db/t/dt=20240101/h=0/"
        );
        assert_eq!(
            partition_location("s3://b/t/", &p(&[("k", "a/b:c=d")])),
            "s3://b/t/k=a%2Fb%3Ac%3Dd/"
        );
    }
}
