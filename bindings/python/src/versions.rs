//! `Table.create_tag`, `delete_tag`, `rename_tag`, `create_branch`, `delete_branch`,
//! `fast_forward`, `rollback_to` and the consumer calls: paimon-rs's
//! [`paimon_rs::versions`] for Python, each releasing the GIL while it touches storage.

use paimon_rs::{BranchStart, RollbackTarget};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{invalid, py as pyr};

fn facade(table: &paimon_meta::Table) -> paimon_rs::Table {
    paimon_rs::Table::from_meta(table.clone())
}

/// Tags `snapshot` (the latest when `None`); `time_retained` as `"1 d"`.
pub fn create_tag(
    py: Python<'_>,
    table: &paimon_meta::Table,
    name: &str,
    snapshot: Option<i64>,
    time_retained: Option<&str>,
) -> PyResult<i64> {
    let t = facade(table);
    match time_retained {
        None => pyr(py.detach(|| t.create_tag(name, snapshot))),
        Some(text) => {
            let ms = paimon_spec::options::parse_duration_millis(text).ok_or_else(|| {
                invalid(format!(
                    "time_retained: '{text}' is not a duration such as '1 h'"
                ))
            })?;
            pyr(py.detach(|| t.create_tag_retained(name, snapshot, ms)))
        }
    }
}

/// Tags the first snapshot committed at or after `timestamp` (epoch millis).
pub fn create_tag_from_timestamp(
    py: Python<'_>,
    table: &paimon_meta::Table,
    name: &str,
    timestamp: i64,
) -> PyResult<i64> {
    let t = facade(table);
    pyr(py.detach(|| t.create_tag_from_timestamp(name, timestamp)))
}

/// Deletes a tag; the files removed with it.
pub fn delete_tag(py: Python<'_>, table: &paimon_meta::Table, name: &str) -> PyResult<Vec<String>> {
    let t = facade(table);
    let r = pyr(py.detach(|| t.delete_tag(name)))?;
    Ok(r.data_files.into_iter().chain(r.metadata_files).collect())
}

/// Creates a branch: empty, from `tag` or from `snapshot`.
pub fn create_branch(
    py: Python<'_>,
    table: &paimon_meta::Table,
    name: &str,
    tag: Option<String>,
    snapshot: Option<i64>,
) -> PyResult<()> {
    let start = match (tag, snapshot) {
        (Some(_), Some(_)) => return Err(invalid("create_branch: give tag or snapshot, not both")),
        (Some(t), None) => BranchStart::Tag(t),
        (None, Some(s)) => BranchStart::Snapshot(s),
        (None, None) => BranchStart::Empty,
    };
    let t = facade(table);
    pyr(py.detach(|| t.create_branch(name, &start)))
}

/// Rolls back to a snapshot id (int) or tag (str); what was removed.
pub fn rollback_to<'py>(
    py: Python<'py>,
    table: &paimon_meta::Table,
    target: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let target = if let Ok(id) = target.extract::<i64>() {
        RollbackTarget::Snapshot(id)
    } else if let Ok(name) = target.extract::<String>() {
        RollbackTarget::Tag(name)
    } else {
        return Err(invalid(
            "rollback_to takes a snapshot id (int) or a tag name (str)",
        ));
    };
    let t = facade(table);
    let r = pyr(py.detach(|| t.rollback_to(target)))?;
    let d = PyDict::new(py);
    d.set_item("snapshot_id", r.snapshot_id)?;
    d.set_item("snapshots", r.snapshots)?;
    d.set_item("tags", r.tags)?;
    d.set_item("changelogs", r.changelogs)?;
    Ok(d)
}

/// Runs a facade call on the table without the GIL.
pub fn run<T: Send>(
    py: Python<'_>,
    table: &paimon_meta::Table,
    f: impl FnOnce(&paimon_rs::Table) -> paimon_rs::Result<T> + Send,
) -> PyResult<T> {
    let t = facade(table);
    pyr(py.detach(|| f(&t)))
}

/// `Table.stream(...)`: one `(snapshot_id, RecordBatchReader)` per snapshot with changes
/// (Java's streaming read: each snapshot's delta, or its changelog with a changelog producer).
/// With a `consumer_id`, it starts from the consumer's saved next snapshot and saves
/// `snapshot_id + 1` when the next item is asked for, i.e. after the caller has consumed the
/// previous one; with `poll_interval` (seconds) it waits for new snapshots instead of stopping.
#[pyclass(module = "paimon_rs")]
pub struct ChangeStream {
    scan: crate::scan::Scan,
    changes: paimon_meta::ChangeScan,
    consumer: Option<(paimon_meta::consumer::ConsumerManager, String)>,
    poll_interval: Option<f64>,
    delivered: Option<i64>,
}

impl ChangeStream {
    /// The stream of `scan`'s table after snapshot `since` (a consumer's saved position
    /// wins; without either, after the latest snapshot).
    pub fn new(
        py: Python<'_>,
        table: &paimon_meta::Table,
        scan: crate::scan::Scan,
        consumer_id: Option<String>,
        since: Option<i64>,
        poll_interval: Option<f64>,
    ) -> PyResult<ChangeStream> {
        if poll_interval.is_some_and(|p| !(p.is_finite() && p >= 0.0)) {
            return Err(invalid(
                "poll_interval must be a non-negative number of seconds",
            ));
        }
        let consumer = consumer_id.map(|id| (table.consumer_manager(), id));
        let saved = match &consumer {
            Some((m, id)) => pyr(py.detach(|| m.consumer(id)))?,
            None => None,
        };
        let after = match (saved, since) {
            (Some(next), _) => next - 1,
            (None, Some(s)) => s,
            (None, None) => pyr(py.detach(|| table.snapshot_manager().latest_id()))?.unwrap_or(0),
        };
        let changes = scan.builder().change_scan(after);
        Ok(ChangeStream {
            scan,
            changes,
            consumer,
            poll_interval,
            delivered: None,
        })
    }
}

#[pymethods]
impl ChangeStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(
        &mut self,
        py: Python<'_>,
    ) -> PyResult<Option<(i64, crate::reader::RecordBatchReader)>> {
        if let (Some(id), Some((m, consumer))) = (self.delivered.take(), &self.consumer) {
            pyr(py.detach(|| m.reset_consumer(consumer, id + 1)))?;
        }
        loop {
            let changes = &mut self.changes;
            let next = pyr(py.detach(|| changes.next_plan()))?;
            match next {
                Some(p) if p.splits.is_empty() => {
                    if let Some((m, consumer)) = &self.consumer {
                        pyr(py.detach(|| m.reset_consumer(consumer, p.snapshot_id + 1)))?;
                    }
                }
                Some(p) => {
                    self.delivered = Some(p.snapshot_id);
                    let reader = self.scan.reader(8192, 1, None)?;
                    let splits = p
                        .splits
                        .into_iter()
                        .map(paimon_split::Split::Data)
                        .collect();
                    return Ok(Some((p.snapshot_id, reader.read_splits(py, splits)?)));
                }
                None => match self.poll_interval {
                    None => return Ok(None),
                    Some(secs) => {
                        py.detach(|| std::thread::sleep(std::time::Duration::from_secs_f64(secs)));
                        py.check_signals()?;
                    }
                },
            }
        }
    }
}
