//! Statement handles: what a client holds between preparing a statement and running it, and
//! what a `TicketStatementQuery` carries back. The server keeps nothing for them. A handle is
//! either the statement's SQL (UTF-8), or, once the client has bound parameters (`DoPut` of a
//! parameter batch), [`MAGIC`], the SQL's length (u32, little-endian), the SQL, and the
//! parameter batch as an Arrow IPC stream: the handle the server returns in
//! `DoPutPreparedStatementResult`, which Flight SQL clients use from then on.
//!
//! Handles come back from clients: they are untrusted bytes, decoded with bounds and never
//! trusted to hold what the server wrote.

use std::io::Cursor;

use arrow::array::RecordBatch;
use arrow::ipc::reader::StreamReader;
use arrow::ipc::writer::StreamWriter;
use arrow_flight::FlightData;
use datafusion::common::{ParamValues, ScalarValue};
use tonic::Status;

/// Starts a handle with bound parameters (no SQL statement starts with these bytes: not
/// UTF-8).
const MAGIC: &[u8] = b"\xffPRS-PARAMS1";

/// The largest handle taken (the SQL and its parameters).
const MAX_HANDLE: usize = 16 << 20;

/// The most IPC messages of a parameter batch (its schema, dictionaries, the batch).
const MAX_MESSAGES: usize = 16;

/// The most parameters one statement binds.
const MAX_PARAMETERS: usize = 4096;

/// A decoded statement handle.
#[derive(Debug)]
pub(crate) struct StatementHandle {
    pub(crate) sql: String,
    /// One row: the values of `$1`, `$2`, ... in column order.
    pub(crate) parameters: Option<ParamValues>,
}

fn invalid(what: impl std::fmt::Display) -> Status {
    Status::invalid_argument(format!("statement handle: {what}"))
}

/// Decodes `bytes`, a handle a client sent back.
///
/// # Errors
/// `INVALID_ARGUMENT` for a handle over [`MAX_HANDLE`], SQL that is not UTF-8, a truncated or
/// damaged parameter batch, or one that is not one row.
pub(crate) fn decode(bytes: &[u8]) -> Result<StatementHandle, Status> {
    let (sql, ipc) = split(bytes)?;
    let parameters = match ipc {
        Some(ipc) => Some(parameter_values(&read_batch(ipc)?)?),
        None => None,
    };
    Ok(StatementHandle {
        sql: sql.to_string(),
        parameters,
    })
}

/// The SQL of a handle and, when it has bound parameters, the bytes of their IPC stream
/// (not yet read).
///
/// # Errors
/// `INVALID_ARGUMENT` for a handle over [`MAX_HANDLE`], SQL that is not UTF-8 or a length
/// past the handle's end.
pub(crate) fn split(bytes: &[u8]) -> Result<(&str, Option<&[u8]>), Status> {
    fn utf8(b: &[u8]) -> Result<&str, Status> {
        std::str::from_utf8(b).map_err(|_| invalid("the SQL is not UTF-8"))
    }
    if bytes.len() > MAX_HANDLE {
        return Err(invalid(format!(
            "{} bytes, over the {MAX_HANDLE} taken",
            bytes.len()
        )));
    }
    let Some(rest) = bytes.strip_prefix(MAGIC) else {
        return Ok((utf8(bytes)?, None));
    };
    let (len, rest) = rest
        .split_first_chunk::<4>()
        .ok_or_else(|| invalid("truncated before the SQL's length"))?;
    let len = u32::from_le_bytes(*len) as usize;
    if len > rest.len() {
        return Err(invalid(format!(
            "the SQL's length {len} runs past the handle's end"
        )));
    }
    let (sql, ipc) = rest.split_at(len);
    Ok((utf8(sql)?, Some(ipc)))
}

/// The one batch of an IPC stream a client wrote (a handle's parameters). Every message is
/// checked first ([`check_message`]), so arrow-ipc never allocates what a header claims
/// beyond the bytes there are; a panic in it on hostile bytes is caught and refused as well.
pub(crate) fn read_batch(ipc: &[u8]) -> Result<RecordBatch, Status> {
    stream_messages(ipc).map_err(|e| invalid(format!("the parameters: {e}")))?;
    let read = std::panic::catch_unwind(|| -> Result<Vec<RecordBatch>, String> {
        let reader = StreamReader::try_new(Cursor::new(ipc), None).map_err(|e| e.to_string())?;
        reader
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())
    });
    let batches = match read {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => return Err(invalid(format!("the parameters: {e}"))),
        Err(_) => return Err(invalid("the parameters are not an Arrow IPC stream")),
    };
    one_batch(batches).map_err(|e| invalid(format!("the parameters: {e}")))
}

/// The only batch of `batches`.
fn one_batch(batches: Vec<RecordBatch>) -> Result<RecordBatch, String> {
    match <[RecordBatch; 1]>::try_from(batches) {
        Ok([b]) => Ok(b),
        Err(b) => Err(format!(
            "one batch of one row is bound, {} batches sent",
            b.len()
        )),
    }
}

/// One message of an IPC stream: its metadata (flatbuffer header) and its body.
pub(crate) type IpcMessage<'a> = (&'a [u8], &'a [u8]);

/// Walks the messages of an IPC stream (`[0xFFFFFFFF] length metadata body`, ended by a
/// zero length or the end), checking each with [`check_message`]: each message's metadata and
/// body.
pub(crate) fn stream_messages(ipc: &[u8]) -> Result<Vec<IpcMessage<'_>>, String> {
    /// The next `n` bytes of `rest`, which then starts after them.
    fn take<'a>(rest: &mut &'a [u8], n: usize, what: &str) -> Result<&'a [u8], String> {
        if n > rest.len() {
            return Err(format!("truncated in a message's {what}"));
        }
        let (head, tail) = rest.split_at(n);
        *rest = tail;
        Ok(head)
    }
    fn length(rest: &mut &[u8]) -> Result<i32, String> {
        let bytes = take(rest, 4, "length")?;
        Ok(i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }
    let mut rest = ipc;
    let mut messages = Vec::new();
    while !rest.is_empty() {
        let mut len = length(&mut rest)?;
        if len == -1 {
            len = length(&mut rest)?;
        }
        if len == 0 {
            break;
        }
        let len = usize::try_from(len).map_err(|_| format!("a negative length {len}"))?;
        let meta = take(&mut rest, len, "metadata")?;
        let body = check_message(meta, rest.len())?;
        messages.push((meta, take(&mut rest, body, "body")?));
        if messages.len() > MAX_MESSAGES {
            return Err(format!("more than {MAX_MESSAGES} messages"));
        }
    }
    Ok(messages)
}

/// Checks one IPC message's metadata against the `available` bytes of its body: its body
/// length and every buffer of a record or dictionary batch within them, and no compression
/// (whose stated uncompressed length would be allocated as given). Returns the body length.
pub(crate) fn check_message(meta: &[u8], available: usize) -> Result<usize, String> {
    let message = arrow::ipc::root_as_message(meta)
        .map_err(|e| format!("a message header that is not Arrow's: {e}"))?;
    let body = usize::try_from(message.bodyLength())
        .ok()
        .filter(|b| *b <= available)
        .ok_or_else(|| {
            format!(
                "a body of {} bytes where {available} are",
                message.bodyLength()
            )
        })?;
    let batch = message
        .header_as_record_batch()
        .or_else(|| message.header_as_dictionary_batch().and_then(|d| d.data()));
    if let Some(batch) = batch {
        if batch.compression().is_some() {
            return Err("a compressed batch (parameters are sent uncompressed)".into());
        }
        for b in batch.buffers().iter().flatten() {
            let end = u64::try_from(b.offset())
                .ok()
                .zip(u64::try_from(b.length()).ok())
                .and_then(|(o, l)| o.checked_add(l));
            if end.is_none_or(|e| e > body as u64) {
                return Err(format!(
                    "a buffer at {} of {} bytes outside the body of {body}",
                    b.offset(),
                    b.length()
                ));
            }
        }
    }
    Ok(body)
}

/// The one-row parameter batch of a `DoPut`: at most [`MAX_HANDLE`] bytes in at most
/// [`MAX_MESSAGES`] messages, each checked ([`check_message`]) before arrow-flight decodes them (a panic in
/// it is caught and refused).
///
/// # Errors
/// `INVALID_ARGUMENT` for anything but one batch of one row within the bounds.
pub(crate) async fn read_parameters(
    mut data: impl futures::Stream<Item = Result<FlightData, Status>> + Unpin,
) -> Result<RecordBatch, Status> {
    use futures::StreamExt as _;
    let mut messages = Vec::new();
    let mut size = 0usize;
    while let Some(m) = data.next().await {
        let m = m?;
        size = size.saturating_add(m.data_header.len() + m.data_body.len());
        if size > MAX_HANDLE || messages.len() >= MAX_MESSAGES {
            return Err(invalid(format!(
                "the parameters: over {MAX_HANDLE} bytes or {MAX_MESSAGES} messages"
            )));
        }
        if !m.data_header.is_empty() {
            check_message(&m.data_header, m.data_body.len())
                .map_err(|e| invalid(format!("the parameters: {e}")))?;
        }
        messages.push(m);
    }
    let decoded = std::panic::catch_unwind(|| {
        arrow_flight::utils::flight_data_to_batches(&messages).map_err(|e| e.to_string())
    });
    match decoded {
        Ok(Ok(batches)) => one_batch(batches).map_err(|e| invalid(format!("the parameters: {e}"))),
        Ok(Err(e)) => Err(invalid(format!("the parameters: {e}"))),
        Err(_) => Err(invalid("the parameters are not Arrow Flight data")),
    }
}

/// The values of a one-row parameter batch, in column order.
///
/// # Errors
/// `INVALID_ARGUMENT` unless the batch is one row of at most [`MAX_PARAMETERS`] columns.
pub(crate) fn parameter_values(batch: &RecordBatch) -> Result<ParamValues, Status> {
    if batch.num_rows() != 1 {
        return Err(invalid(format!(
            "parameters bind one row, {} given (run the statement once per row)",
            batch.num_rows()
        )));
    }
    if batch.num_columns() > MAX_PARAMETERS {
        return Err(invalid(format!(
            "{} parameters, over the {MAX_PARAMETERS} taken",
            batch.num_columns()
        )));
    }
    let values = batch
        .columns()
        .iter()
        .map(|c| ScalarValue::try_from_array(c, 0))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| invalid(format!("a parameter: {e}")))?;
    Ok(ParamValues::List(
        values.into_iter().map(Into::into).collect(),
    ))
}

/// The handle of `sql` bound to the one-row `parameters`.
///
/// # Errors
/// `INVALID_ARGUMENT` for SQL over [`MAX_HANDLE`]; `INTERNAL` if the batch cannot be written.
pub(crate) fn encode(sql: &str, parameters: &RecordBatch) -> Result<Vec<u8>, Status> {
    let len = u32::try_from(sql.len())
        .ok()
        .filter(|l| (*l as usize) < MAX_HANDLE)
        .ok_or_else(|| invalid("the SQL is too long"))?;
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + sql.len() + 1024);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(sql.as_bytes());
    let mut w = StreamWriter::try_new(&mut out, &parameters.schema())
        .map_err(|e| Status::internal(format!("writing the parameters: {e}")))?;
    w.write(parameters)
        .and_then(|()| w.finish())
        .map_err(|e| Status::internal(format!("writing the parameters: {e}")))?;
    drop(w);
    if out.len() > MAX_HANDLE {
        return Err(invalid("the SQL and its parameters are too long"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Int32Array, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};

    use super::*;

    fn params(rows: usize) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("$1", DataType::Int32, true),
            Field::new("$2", DataType::Utf8, true),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int32Array::from(vec![7; rows])),
                Arc::new(StringArray::from(vec!["x"; rows])),
            ],
        )
        .unwrap()
    }

    #[test]
    fn a_bound_handle_decodes_to_its_sql_and_values_and_damage_is_refused() {
        let sql = "SELECT * FROM t WHERE id < $1 AND name <> $2";
        let bytes = encode(sql, &params(1)).unwrap();
        let h = decode(&bytes).unwrap();
        assert_eq!(h.sql, sql);
        let Some(ParamValues::List(v)) = h.parameters else {
            panic!("no parameters")
        };
        assert_eq!(v[0].value(), &ScalarValue::Int32(Some(7)));
        assert_eq!(v[1].value(), &ScalarValue::Utf8(Some("x".into())));
        // Plain SQL is its own handle.
        assert_eq!(decode(b"SELECT 1").unwrap().sql, "SELECT 1");
        assert!(decode(b"SELECT 1").unwrap().parameters.is_none());
        // Every truncation and every flipped byte is an error or a handle, never a panic.
        for cut in 0..bytes.len() {
            let _ = decode(&bytes[..cut]);
        }
        for i in MAGIC.len()..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x5a;
            let _ = decode(&b);
        }
        assert!(decode(&bytes[..MAGIC.len() + 2]).is_err());
        let two_rows = encode(sql, &params(2)).unwrap();
        let err = decode(&two_rows).unwrap_err();
        assert!(err.message().contains("one row"), "{}", err.message());
    }
}
