//! What the fuzz crate (`fuzz/fuzz_targets/hive_thrift.rs`) drives: a metastore reply's bytes
//! through the reader and reply decoder the client uses, and replies written with the same
//! writers the catalog registers objects with (its seeds). Not an API: hidden from the docs.

use std::collections::BTreeMap;

use paimon_spec::schema::TableSchema;

use super::client::{decode_reply, string_field, string_list, string_map_field};
use super::registration::{columns, partition_keys, table_parameters, write_database, HmsTable};
use super::thrift::{self, ttype, Reader, Writer};

/// Decodes `bytes` as one Thrift message (header, then the body struct) as the client reads
/// a reply, then as the reply to the method and sequence id it names (exceptions classified,
/// the result's strings, parameters and name lists read as the catalog reads them).
/// Returns the message written back from what the reader decoded.
///
/// # Errors
/// The reader's message when the bytes are not a Thrift message.
pub fn decode_message(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let budget = bytes.len() as u64;
    let mut r = Reader::new(bytes, budget);
    let header = r.header().map_err(|e| e.to_string())?;
    let body = r.structure(0).map_err(|e| e.to_string())?;
    let mut w = Writer::default();
    w.header(&header.name, header.kind, header.seq);
    w.value(&body);
    // A message that is no reply (a call, an unknown kind) is an error here; the bytes
    // written back stand for what the reader decoded either way.
    if let Ok(Ok(Some(result))) =
        decode_reply(&mut Reader::new(bytes, budget), &header.name, header.seq)
    {
        let _ = string_field(&result, 1);
        let _ = string_map_field(&result, 4);
        let _ = string_map_field(&result, 9);
        if let Some(table) = result.field(1) {
            let _ = string_field(table, 12);
            let _ = string_map_field(table, 9);
        }
        let _ = string_list(Some(result));
    }
    Ok(w.buf)
}

/// The `hive_thrift` fuzz target's checks on one input: bytes that decode (see
/// [`decode_message`]) are written back no longer than they came, and what was written
/// decodes again and writes back to the same bytes. Bytes the reader refuses pass.
///
/// # Errors
/// Which check failed: a defect of the reader or the writer.
pub fn check(bytes: &[u8]) -> Result<(), String> {
    let Ok(once) = decode_message(bytes) else {
        return Ok(());
    };
    if once.len() > bytes.len() {
        return Err(format!(
            "{} bytes written back from {}",
            once.len(),
            bytes.len()
        ));
    }
    let again = decode_message(&once)
        .map_err(|e| format!("a written-back message does not decode: {e}"))?;
    if again != once {
        return Err("a message changed in a round trip".into());
    }
    Ok(())
}

/// Replies as a metastore sends them for the calls the catalog makes, with the objects the
/// catalog registers (written by the catalog's own writers): `get_all_databases`,
/// `get_database`, `get_table_req` of a primary-key table, `get_table_req` answering
/// `NoSuchObjectException`, and a `TApplicationException`.
///
/// # Errors
/// When the sample table's schema does not parse or map to Hive types (a bug).
pub fn seed_replies() -> Result<Vec<(&'static str, Vec<u8>)>, String> {
    let reply = |method: &str, kind: u8, seq: i32, body: &dyn Fn(&mut Writer)| {
        let mut w = Writer::default();
        w.header(method, kind, seq);
        body(&mut w);
        w.stop();
        w.buf
    };
    let schema = TableSchema::from_json_str(
        r#"{"version":3,"id":0,"fields":[{"id":0,"name":"id","type":"INT NOT NULL"},
            {"id":1,"name":"v","type":"STRING","description":"the value"},
            {"id":2,"name":"dt","type":"DATE"}],
            "highestFieldId":2,"partitionKeys":["dt"],"primaryKeys":["dt","id"],
            "options":{"bucket":"2","file.format":"parquet"},"timeMillis":0}"#,
    )
    .map_err(|e| e.to_string())?;
    let table = HmsTable {
        database: "db",
        table: "t",
        owner: "paimon",
        now_secs: 1_700_000_000,
        location: "file:/w/db.db/t",
        columns: columns(&schema)?,
        partition_keys: partition_keys(&schema)?,
        parameters: table_parameters(&schema),
    };
    let options: BTreeMap<String, String> = [("comment", "sales"), ("owner", "ann"), ("k", "v")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Ok(vec![
        (
            "get_all_databases",
            reply("get_all_databases", thrift::REPLY, 1, &|w| {
                w.string_list_field(0, &["default".to_string(), "db".to_string()]);
            }),
        ),
        (
            "get_database",
            reply("get_database", thrift::REPLY, 2, &|w| {
                write_database(w, 0, "db", "file:/w/db.db", &options);
            }),
        ),
        (
            "get_table_req",
            reply("get_table_req", thrift::REPLY, 3, &|w| {
                w.field(ttype::STRUCT, 0);
                table.write(w, 1);
                w.stop();
            }),
        ),
        (
            "get_table_req-missing",
            reply("get_table_req", thrift::REPLY, 4, &|w| {
                w.field(ttype::STRUCT, 2);
                w.string_field(1, "db.t table not found");
                w.stop();
            }),
        ),
        (
            "application-exception",
            reply("alter_table", thrift::EXCEPTION, 5, &|w| {
                w.string_field(1, "Invalid method name: 'alter_table'");
                w.i32_field(2, 1);
            }),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every seed decodes and is written back byte for byte; cut short, none decodes.
    #[test]
    fn seeds_round_trip() {
        for (name, bytes) in seed_replies().unwrap() {
            assert_eq!(decode_message(&bytes).unwrap(), bytes, "{name}");
            assert!(decode_message(&bytes[..bytes.len() - 1]).is_err(), "{name}");
        }
    }

    /// The fuzz target's committed inputs (`fuzz/seeds/hive_thrift`, written by make_seeds
    /// from [`seed_replies`], and `fuzz/regressions/hive_thrift`) all pass its checks; every
    /// seed is one of [`seed_replies`], byte for byte.
    #[test]
    fn committed_fuzz_inputs_pass() {
        let inputs = paimon_test_utils::fuzz_inputs("hive_thrift");
        let seeds: Vec<Vec<u8>> = seed_replies()
            .unwrap()
            .into_iter()
            .map(|(_, b)| b)
            .collect();
        let mut seen = 0;
        for (path, bytes) in &inputs {
            check(bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if path
                .parent()
                .and_then(|p| p.parent())
                .is_some_and(|p| p.ends_with("seeds"))
            {
                assert!(seeds.contains(bytes), "{} is no seed reply", path.display());
                seen += 1;
            }
        }
        assert_eq!(
            seen,
            seeds.len(),
            "seeds committed under fuzz/seeds/hive_thrift"
        );
    }
}
