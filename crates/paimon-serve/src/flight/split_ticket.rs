//! Split tickets: what a planner started with `--workers` puts in its scan endpoints, and what
//! a worker (`paimon serve --worker-bind`) reads at `DoGet`. A split ticket is a protobuf
//! `Any` whose type URL is [`SPLIT_TICKET_TYPE`] and whose value is one JSON object:
//!
//! ```text
//! {"version":1,"database":"db","table":"t",
//!  "options":"{\"version\":1,\"schema_id\":0,...}",
//!  "splits":["U1BMSVRfVjEA...", ...]}
//! ```
//!
//! `options` are the read options bytes of [`paimon_rs::split::read_options`] (as a JSON
//! string), `splits` the split group's Java `SPLIT_V1` frames in standard base64 (each one a
//! split `paimon read-split` reads as it is). The table is named by database and table, never
//! by a path: a worker reads `<its warehouse>/<database>.db/<table>`.
//!
//! A ticket comes back from a client, so it is decoded as untrusted: at most
//! [`MAX_TICKET_BYTES`], no unknown key, the names plain directory names, the options decoded
//! with their own bounds; the reader then reads only files inside the table's roots.

use arrow_flight::sql::Any;
use arrow_flight::Ticket;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use std::sync::Arc;

use paimon_datafusion::ScanNode;
use paimon_rs::io::FileIORef;
use paimon_rs::meta::schema_manager::SchemaManager;
use paimon_rs::spec::layout::{branch_root, check_file_name};
use paimon_rs::split::{encode_read_options, SplitReadOptions};
use prost::Message;
use serde_json::{json, Map, Value};

/// The `Any` type URL of a split ticket.
pub const SPLIT_TICKET_TYPE: &str = "type.googleapis.com/paimon.rs.SplitTicket";
/// The layout version written and the only one read.
pub const SPLIT_TICKET_VERSION: u64 = 1;
/// A split ticket's value longer than this is refused.
pub const MAX_TICKET_BYTES: usize = 64 << 20;
/// The most splits one ticket may carry.
const MAX_SPLITS: usize = 1 << 16;
const KEYS: [&str; 5] = ["version", "database", "table", "options", "splits"];

/// One split group of one table, with the read options to read it with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitTicket {
    /// The database (directory `<database>.db` of the warehouse).
    pub database: String,
    /// The table (directory below the database's).
    pub table: String,
    /// Read options bytes ([`paimon_rs::split::encode_read_options`]).
    pub options: Vec<u8>,
    /// The splits, each a `SPLIT_V1` frame.
    pub splits: Vec<Vec<u8>>,
}

/// What is wrong with a split ticket (its message names the field and the cause).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TicketError(String);

impl SplitTicket {
    /// The ticket's bytes (an `Any`).
    ///
    /// # Errors
    /// When the options are not UTF-8 (read options are JSON).
    pub fn encode(&self) -> Result<Ticket, TicketError> {
        let options = std::str::from_utf8(&self.options)
            .map_err(|_| TicketError("split ticket: the read options are not UTF-8 JSON".into()))?;
        let splits: Vec<String> = self.splits.iter().map(|s| STANDARD.encode(s)).collect();
        let value = json!({
            "version": SPLIT_TICKET_VERSION,
            "database": self.database,
            "table": self.table,
            "options": options,
            "splits": splits,
        });
        let any = Any {
            type_url: SPLIT_TICKET_TYPE.to_string(),
            value: value.to_string().into_bytes().into(),
        };
        Ok(Ticket::new(any.encode_to_vec()))
    }

    /// The ticket of an `Any` of type [`SPLIT_TICKET_TYPE`].
    ///
    /// # Errors
    /// A message saying what is wrong with the ticket.
    pub fn decode_any(any: &Any) -> Result<SplitTicket, TicketError> {
        if any.type_url != SPLIT_TICKET_TYPE {
            return Err(TicketError(format!(
                "a worker serves split tickets ({SPLIT_TICKET_TYPE}), not '{}'",
                any.type_url.chars().take(200).collect::<String>()
            )));
        }
        SplitTicket::decode_value(&any.value)
    }

    /// The ticket of a `DoGet` ticket's bytes.
    ///
    /// # Errors
    /// A message saying what is wrong with the ticket.
    pub fn decode(ticket: &[u8]) -> Result<SplitTicket, TicketError> {
        let any = Any::decode(ticket)
            .map_err(|e| TicketError(format!("split ticket: not a protobuf Any: {e}")))?;
        SplitTicket::decode_any(&any)
    }

    fn decode_value(bytes: &[u8]) -> Result<SplitTicket, TicketError> {
        let bad = |why: &str| TicketError(format!("split ticket: {why}"));
        if bytes.len() > MAX_TICKET_BYTES {
            return Err(bad(&format!("more than {MAX_TICKET_BYTES} bytes")));
        }
        let v: Value = serde_json::from_slice(bytes).map_err(|e| bad(&format!("not JSON: {e}")))?;
        let Value::Object(o) = v else {
            return Err(bad("not a JSON object"));
        };
        if let Some(k) = o.keys().find(|k| !KEYS.contains(&k.as_str())) {
            let k: String = k.chars().take(100).collect();
            return Err(bad(&format!("unknown key '{k}'")));
        }
        if o.get("version").and_then(Value::as_u64) != Some(SPLIT_TICKET_VERSION) {
            return Err(bad(&format!(
                "version is not {SPLIT_TICKET_VERSION} (the one this build reads)"
            )));
        }
        let text = |o: &Map<String, Value>, k: &str| {
            o.get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| bad(&format!("{k} is not a string")))
        };
        let database = text(&o, "database")?;
        let table = text(&o, "table")?;
        for (field, name) in [
            ("database", format!("{database}.db")),
            ("table", table.clone()),
        ] {
            check_file_name(field, &name).map_err(|e| bad(&e.to_string()))?;
            if name.contains(['$', '@']) || name.starts_with('.') {
                return Err(bad(&format!(
                    "{field} '{name}' is not a table directory name"
                )));
            }
        }
        let options = text(&o, "options")?.into_bytes();
        let Some(Value::Array(list)) = o.get("splits") else {
            return Err(bad("splits is not a list"));
        };
        if list.len() > MAX_SPLITS {
            return Err(bad(&format!("more than {MAX_SPLITS} splits")));
        }
        let splits = list
            .iter()
            .map(|s| {
                let s = s.as_str().ok_or_else(|| bad("a split is not a string"))?;
                STANDARD
                    .decode(s)
                    .map_err(|e| bad(&format!("a split is not base64: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SplitTicket {
            database,
            table,
            options,
            splits,
        })
    }
}

/// The split tickets of a scan-shaped query's node, one per non-empty split group, for a
/// planner that hands its scans to workers; `None` when the node cannot travel as read
/// options (a `rowkind` column, which the worker's reader names `_ROW_KIND`, or a table that
/// is not `<db>.db/<table>` of the warehouse).
///
/// # Errors
/// When the node's schema file cannot be read or its filter has no Java JSON form.
pub(crate) fn tickets_of_node(
    node: &ScanNode,
    warehouse: &str,
    io: &FileIORef,
) -> Result<Option<Vec<SplitTicket>>, String> {
    if node.with_row_kind {
        return Ok(None);
    }
    let Some((database, table)) = super::ticket::table_of(warehouse, &node.table_path) else {
        return Ok(None);
    };
    let root = match &node.branch {
        Some(b) => branch_root(&node.table_path, b),
        None => node.table_path.clone(),
    };
    let schema = SchemaManager::new(Arc::clone(io), &root)
        .schema(node.schema_id)
        .map_err(|e| format!("{}: {e}", node.table_path))?;
    let options = SplitReadOptions {
        schema_id: Some(node.schema_id),
        branch: node.branch.clone(),
        projection: node.projection.clone(),
        filter: node.predicate.clone(),
        limit: node.limit.map(|n| u64::try_from(n).unwrap_or(u64::MAX)),
        batch_size: None,
        with_row_kind: false,
    };
    let options = encode_read_options(&options, &schema.fields)
        .map_err(|e| format!("{}: {e}", node.table_path))?;
    Ok(Some(
        node.partitions
            .iter()
            .filter(|g| !g.is_empty())
            .map(|g| SplitTicket {
                database: database.clone(),
                table: table.clone(),
                options: options.clone(),
                splits: g.clone(),
            })
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tickets_round_trip_and_hostile_ones_are_errors() {
        let t = SplitTicket {
            database: "db".into(),
            table: "t".into(),
            options: br#"{"version":1}"#.to_vec(),
            splits: vec![vec![1, 2, 3], vec![]],
        };
        let bytes = t.encode().unwrap().ticket;
        assert_eq!(SplitTicket::decode(&bytes).unwrap(), t);
        let value = |v: &str| {
            Any {
                type_url: SPLIT_TICKET_TYPE.into(),
                value: v.as_bytes().to_vec().into(),
            }
            .encode_to_vec()
        };
        let ok = r#""version":1,"options":"{}","splits":[]"#;
        for (bytes, what) in [
            (b"\xff\xff".to_vec(), "not a protobuf Any"),
            (value("nope"), "not JSON"),
            (
                value(&format!(r#"{{{ok},"database":"..","table":"t"}}"#)),
                "database",
            ),
            (
                value(&format!(r#"{{{ok},"database":"d","table":"../x"}}"#)),
                "table",
            ),
            (
                value(&format!(r#"{{{ok},"database":"d","table":"t$files"}}"#)),
                "table",
            ),
            (
                value(&format!(r#"{{{ok},"database":"d","table":"t","x":1}}"#)),
                "unknown key",
            ),
            (
                value(r#"{"version":1,"database":"d","table":"t","options":"{}","splits":["!"]}"#),
                "base64",
            ),
            (value(r#"{"version":2}"#), "version"),
        ] {
            let e = SplitTicket::decode(&bytes).unwrap_err().to_string();
            assert!(e.contains(what), "{what}: {e}");
        }
    }
}
