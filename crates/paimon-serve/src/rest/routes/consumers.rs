//! A table's streaming consumers (Java `ResourcePaths.consumers`, `resetConsumer`), read and
//! written as Java's `ConsumerManager` keeps them (`consumer/consumer-<id>` in the table's
//! branch, through paimon-meta's [`ConsumerManager`](paimon_rs::meta::consumer::ConsumerManager)).
//! Listing needs the table's `read` grant, resetting its `write` grant.

use serde_json::{json, Value};

use super::super::error::ApiError;
use super::super::paging::{page, NameFilter};
use super::super::request::{str_field, Request};
use super::{Answer, Service};
use crate::auth::Access;

impl Service {
    /// `GET .../consumers` (Java `ListConsumersResponse` of `ConsumerInfo`): each consumer's
    /// id and next snapshot, paged by id.
    pub(super) fn list_consumers(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Read, db, t)?;
        let (_, table) = self.table(db, t)?;
        let consumers: Vec<(String, i64)> =
            table.consumer_manager().consumers()?.into_iter().collect();
        let (items, next) = page(r, consumers, |(id, _)| id.as_str(), NameFilter::None)?;
        let consumers: Vec<Value> = items
            .iter()
            .map(|(id, n)| json!({"consumerId": id, "nextSnapshot": n}))
            .collect();
        Ok(json!({"consumers": consumers, "nextPageToken": next}))
    }

    /// `POST .../consumers/reset` (Java `ResetConsumerRequest`): with `nextSnapshotId`, the
    /// consumer reads that snapshot next (404 `SNAPSHOT` when the table does not have it, as
    /// Java's server looks the snapshot up first); without it, the consumer is deleted.
    pub(super) fn reset_consumer(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Write, db, t)?;
        let body = r.json()?;
        let consumer = str_field(&body, "ResetConsumerRequest", "consumerId")?;
        let next = match body.get("nextSnapshotId") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_i64().ok_or_else(|| {
                ApiError::bad_request(format!(
                    "ResetConsumerRequest: \"nextSnapshotId\" {v} is not a number"
                ))
            })?),
        };
        let (_, table) = self.table(db, t)?;
        let consumers = table.consumer_manager();
        match next {
            Some(n) => {
                // A missing snapshot is a 404 `SNAPSHOT` naming it.
                table.snapshot_manager().snapshot(n)?;
                consumers.reset_consumer(consumer, n)?;
            }
            None => {
                consumers.delete_consumer(consumer)?;
            }
        }
        Ok(json!({}))
    }
}
