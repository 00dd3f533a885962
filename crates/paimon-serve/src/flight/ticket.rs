//! Scan tickets: what a scan-shaped query's endpoints carry, and what `DoGet` takes back.
//!
//! A scan ticket is a protobuf `Any` (as every Flight SQL ticket is) whose type URL is
//! [`SCAN_TICKET_TYPE`] and whose value is one paimon-datafusion [`ScanNode`] in its wire form
//! ([`ScanNode::encode`]): the table directory, branch, schema id, projection, filter and
//! limit, and one split group as Java `SPLIT_V1` frames. Each frame is a split that
//! `paimon read-split` reads as it is.
//!
//! A ticket comes back from a client, so the server decodes it as untrusted: the node decoder
//! refuses malformed JSON, base64 and predicates, the table must be `<db>.db/<table>` directly
//! below the warehouse ([`ScanNode::check_in_warehouse`]), and the reader checks every file
//! a split names against the table's roots when it reads it.

use arrow_flight::sql::Any;
use arrow_flight::Ticket;
use datafusion::error::{DataFusionError, Result};
use paimon_datafusion::ScanNode;
use prost::Message;

/// The `Any` type URL of a scan ticket.
pub const SCAN_TICKET_TYPE: &str = "type.googleapis.com/paimon.rs.ScanTicket";

/// The ticket of one split group of `node` (its other groups dropped).
///
/// # Errors
/// When the node has no wire form ([`ScanNode::encode`]).
pub fn encode(node: &ScanNode, group: Vec<Vec<u8>>) -> Result<Ticket> {
    let node = ScanNode {
        partitions: vec![group],
        ..node.clone()
    };
    let any = Any {
        type_url: SCAN_TICKET_TYPE.to_string(),
        value: node.encode()?.into(),
    };
    Ok(Ticket::new(any.encode_to_vec()))
}

/// The scan node of a ticket's bytes (e.g. to take its `SPLIT_V1` frames), unchecked.
///
/// # Errors
/// [`DataFusionError::Execution`] when the bytes are not a scan ticket.
pub fn node_of(ticket: &[u8]) -> Result<ScanNode> {
    let any = Any::decode(ticket)
        .map_err(|e| DataFusionError::Execution(format!("scan ticket: not a protobuf Any: {e}")))?;
    node_of_any(&any)
}

/// The scan node an `Any` carries.
pub(crate) fn node_of_any(any: &Any) -> Result<ScanNode> {
    if any.type_url != SCAN_TICKET_TYPE {
        return Err(DataFusionError::Execution(format!(
            "ticket of unknown type '{}' (expected {SCAN_TICKET_TYPE} or a Flight SQL command)",
            any.type_url.chars().take(200).collect::<String>()
        )));
    }
    ScanNode::decode(&any.value)
}

/// A scan ticket's node, checked to read a table of `warehouse`, and that table's database
/// and name.
///
/// # Errors
/// [`DataFusionError`] saying what is wrong with the ticket.
pub(crate) fn decode(any: &Any, warehouse: &str) -> Result<(ScanNode, String, String)> {
    let node = node_of_any(any)?;
    node.check_in_warehouse(warehouse)?;
    let (db, table) = table_of(warehouse, &node.table_path).ok_or_else(|| {
        DataFusionError::Plan(format!(
            "scan ticket: '{}' is not a table directory <db>.db/<table> of the warehouse",
            node.table_path
        ))
    })?;
    Ok((node, db, table))
}

/// The database and table of `table_path` when it is `<warehouse>/<db>.db/<table>`.
pub(crate) fn table_of(warehouse: &str, table_path: &str) -> Option<(String, String)> {
    let below = table_path
        .strip_prefix(warehouse.trim_end_matches('/'))?
        .strip_prefix('/')?;
    let (db_dir, table) = below.split_once('/')?;
    let db = db_dir.strip_suffix(".db")?;
    let plain =
        |s: &str| !s.is_empty() && s != "." && s != ".." && !s.contains(['/', '\\', '$', '@']);
    (plain(db) && plain(table)).then(|| (db.to_string(), table.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_db_dir_and_table_below_the_warehouse() {
        let w = "/w/h";
        assert_eq!(
            table_of(w, "/w/h/sales.db/orders"),
            Some(("sales".into(), "orders".into()))
        );
        for bad in [
            "/w/h/sales/orders",
            "/w/h/sales.db/orders/x",
            "/w/h/.db/orders",
            "/w/h/sales.db/",
            "/w/hx/sales.db/orders",
            "/w/h/sales.db/..",
            "/w/h/sales.db/t$snapshots",
            "/other/sales.db/orders",
        ] {
            assert_eq!(table_of(w, bad), None, "{bad}");
        }
    }
}
