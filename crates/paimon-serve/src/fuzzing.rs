//! What the fuzz crate's `split_ticket`, `rest_request` and `statement_handle` targets drive,
//! with the checks they make on every input, so the targets and this crate's tests (which
//! replay the committed `fuzz/seeds/` and `fuzz/regressions/` inputs) check the same things. Not an API: hidden
//! from the docs. Each check answers `Err` naming what broke: a defect, never a refusal of
//! the input (refusals are what hostile input should get).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use paimon_rs::meta::catalog::Identifier;
use paimon_rs::spec::layout::check_file_name;
use paimon_rs::spec::schema::TableSchema;

use crate::flight::split_ticket::SplitTicket;
use crate::flight::{handle, ticket};
use crate::rest::{answer, Service};

/// The `split_ticket` target's checks on one ticket's bytes: read as a planner's scan ticket
/// and as a worker's split ticket without panicking; a decoded split ticket names a plain
/// database and table directory, its read options and split frames go through their
/// decoders, and it re-encodes to bytes that decode to the same ticket and re-encode the
/// same.
///
/// # Errors
/// Which check failed.
pub fn check_split_ticket(bytes: &[u8]) -> Result<(), String> {
    let _ = ticket::node_of(bytes);
    let Ok(t) = SplitTicket::decode(bytes) else {
        return Ok(());
    };
    check_file_name("database", &format!("{}.db", t.database))
        .map_err(|e| format!("a decoded ticket's database: {e}"))?;
    check_file_name("table", &t.table).map_err(|e| format!("a decoded ticket's table: {e}"))?;
    let _ = paimon_rs::split::decode_read_options(&t.options);
    for s in &t.splits {
        let _ = paimon_rs::split::decode_any(s);
    }
    let once = t
        .encode()
        .map_err(|e| format!("a decoded ticket does not re-encode: {e}"))?;
    let again = SplitTicket::decode(&once.ticket)
        .map_err(|e| format!("a re-encoded ticket does not decode: {e}"))?;
    if again != t {
        return Err(format!(
            "a ticket changed in a round trip: {t:?} -> {again:?}"
        ));
    }
    let twice = again
        .encode()
        .map_err(|e| format!("a ticket does not re-encode twice: {e}"))?;
    if twice.ticket != once.ticket {
        return Err("a ticket re-encodes to other bytes".into());
    }
    Ok(())
}

/// The warehouse's name: what `rest_request` inputs put after `/v1/`.
pub const WAREHOUSE: &str = "wh";

/// The table `db.t` of every fresh warehouse: partitioned by `dt`, primary key `(dt, id)`.
///
/// # Errors
/// Never for this constant schema (a parse error would be a bug).
pub fn table_schema() -> Result<TableSchema, String> {
    TableSchema::from_json_str(
        r#"{"version":3,"id":0,"fields":[{"id":0,"name":"id","type":"INT NOT NULL"},
            {"id":1,"name":"v","type":"STRING"},{"id":2,"name":"dt","type":"STRING NOT NULL"}],
            "highestFieldId":2,"partitionKeys":["dt"],"primaryKeys":["dt","id"],
            "options":{"bucket":"1"},"timeMillis":0}"#,
    )
    .map_err(|e| e.to_string())
}

/// The `rest_request` target's checks on one input `[method][path?query]\n[body]` (the
/// method byte modulo 4 picks GET, POST, DELETE, PUT; the path follows `/v1/`), answered as
/// the server answers without `--auth` against a fresh warehouse [`WAREHOUSE`] (database
/// `db`, table `db.t` of [`table_schema`]) made in `base/paimon-fuzz-rest-<pid>`, emptied
/// first: every refusal an HTTP error status (400..=599), and nothing but the warehouse in
/// that directory afterwards. Returns the answer's status (200 for an answer), `None` for
/// an input left unanswered (empty, or a path that is not UTF-8).
///
/// # Errors
/// Which check failed, or the fresh warehouse could not be made.
pub fn check_rest_request(base: &Path, data: &[u8]) -> Result<Option<u16>, String> {
    let Some((&m, rest)) = data.split_first() else {
        return Ok(None);
    };
    let method = ["GET", "POST", "DELETE", "PUT"][usize::from(m % 4)];
    let (line, body) = match rest.iter().position(|b| *b == b'\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let Ok(line) = std::str::from_utf8(line) else {
        return Ok(None);
    };
    let (path, query) = match line.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (line, None),
    };
    let root = base.join(format!("paimon-fuzz-rest-{}", std::process::id()));
    let catalog = fresh_warehouse(&root)?;
    let service = Service::new(Arc::clone(catalog.catalog()), WAREHOUSE.to_string());
    let status = match answer(
        &service,
        method,
        &format!("/v1/{path}"),
        query,
        body.to_vec(),
    ) {
        Ok(_) => 200,
        Err(e) if (400..600).contains(&e.status) => e.status,
        Err(e) => return Err(format!("status {} ({})", e.status, e.message)),
    };
    let entries = std::fs::read_dir(&root).map_err(|e| format!("list {}: {e}", root.display()))?;
    let mut outside = Vec::new();
    for e in entries {
        let name = e
            .map_err(|e| format!("list {}: {e}", root.display()))?
            .file_name();
        if name != WAREHOUSE {
            outside.push(name);
        }
    }
    if !outside.is_empty() {
        return Err(format!("written beside the warehouse: {outside:?}"));
    }
    Ok(Some(status))
}

/// `root` emptied, holding only a new warehouse [`WAREHOUSE`] with database `db` and table
/// `db.t`; the filesystem catalog over it.
fn fresh_warehouse(root: &Path) -> Result<paimon_rs::Catalog, String> {
    if root.exists() {
        std::fs::remove_dir_all(root).map_err(|e| format!("empty {}: {e}", root.display()))?;
    }
    let wh: PathBuf = root.join(WAREHOUSE);
    std::fs::create_dir_all(&wh).map_err(|e| format!("make {}: {e}", wh.display()))?;
    let wh = wh
        .to_str()
        .ok_or_else(|| format!("{} is not UTF-8", wh.display()))?;
    let catalog = paimon_rs::Catalog::filesystem(wh).map_err(|e| e.to_string())?;
    let c = catalog.catalog();
    c.create_database("db", false, &BTreeMap::new())
        .map_err(|e| e.to_string())?;
    c.create_table(&Identifier::new("db", "t"), table_schema()?, false)
        .map_err(|e| e.to_string())?;
    Ok(catalog)
}

/// The `statement_handle` target's checks on one prepared-statement handle a Flight SQL
/// client sends back (`flight::handle`: the SQL, or `MAGIC`, the SQL's length, the SQL and the
/// bound parameters as an Arrow IPC stream): decoded as `DoGet`/`GetFlightInfo` decode it, and
/// its IPC messages sent as a `DoPut` of parameters would send them; no panic, every refusal
/// `INVALID_ARGUMENT` naming the statement handle. A parameter batch either path accepts is
/// bound as the server binds it: it encodes to a handle (the `DoPut` answer) that decodes to
/// the same SQL and values and re-encodes to the same bytes.
///
/// # Errors
/// Which check failed.
pub fn check_statement_handle(bytes: &[u8]) -> Result<(), String> {
    let decoded = handle::decode(bytes);
    let (sql, ipc) = match handle::split(bytes) {
        Ok(parts) => parts,
        Err(e) => {
            refused("a handle", &e)?;
            return match decoded {
                Err(_) => Ok(()),
                Ok(_) => Err("a handle that does not split decodes".into()),
            };
        }
    };
    let Some(ipc) = ipc else {
        return match decoded {
            Ok(h) if h.sql == sql && h.parameters.is_none() => Ok(()),
            Ok(h) => Err(format!("plain SQL {sql:?} decodes to {h:?}")),
            Err(e) => Err(format!("plain SQL {sql:?} refused: {}", e.message())),
        };
    };
    if let Err(e) = &decoded {
        refused("a handle", e)?;
    }
    match handle::read_batch(ipc) {
        Ok(batch) => bind(sql, &batch)?,
        Err(e) => refused("a handle's parameters", &e)?,
    }
    // The same messages as the `FlightData` of a `DoPut` of parameters.
    if let Ok(messages) = handle::stream_messages(ipc) {
        let data = messages.iter().map(|(header, body)| {
            Ok(arrow_flight::FlightData::new()
                .with_data_header(header.to_vec())
                .with_data_body(body.to_vec()))
        });
        match futures::executor::block_on(handle::read_parameters(futures::stream::iter(data))) {
            Ok(batch) => bind(sql, &batch)?,
            Err(e) => refused("DoPut parameters", &e)?,
        }
    }
    Ok(())
}

/// `Ok` for a refusal of hostile bytes (`INVALID_ARGUMENT` naming the statement handle).
fn refused(what: &str, e: &tonic::Status) -> Result<(), String> {
    if e.code() == tonic::Code::InvalidArgument && e.message().starts_with("statement handle: ") {
        Ok(())
    } else {
        Err(format!(
            "{what} refused with {:?}: {}",
            e.code(),
            e.message()
        ))
    }
}

/// A parameter batch bound as the server binds one (`DoPut`): unless its values are refused,
/// `sql` and the batch encode to a handle that decodes to the same SQL and values, whose batch
/// re-encodes to the same bytes.
fn bind(sql: &str, batch: &arrow::array::RecordBatch) -> Result<(), String> {
    let values = match handle::parameter_values(batch) {
        Ok(v) => v,
        Err(e) => return refused("a parameter batch", &e),
    };
    let once = match handle::encode(sql, batch) {
        Ok(b) => b,
        // The SQL and its parameters over the largest handle taken.
        Err(e) if e.code() == tonic::Code::InvalidArgument => return refused("a bound handle", &e),
        Err(e) => {
            return Err(format!(
                "an accepted parameter batch does not encode: {}",
                e.message()
            ))
        }
    };
    let h = handle::decode(&once)
        .map_err(|e| format!("a handle we encoded does not decode: {}", e.message()))?;
    if h.sql != sql || format!("{:?}", h.parameters) != format!("{:?}", Some(values)) {
        return Err(format!("a bound handle changed: {sql:?} -> {h:?}"));
    }
    let again = match handle::split(&once) {
        Ok((_, Some(ipc))) => handle::read_batch(ipc)
            .map_err(|e| format!("a handle we encoded does not read: {}", e.message()))?,
        _ => return Err("a handle we encoded has no parameters".into()),
    };
    let twice = handle::encode(sql, &again)
        .map_err(|e| format!("a decoded handle does not re-encode: {}", e.message()))?;
    if twice != once {
        return Err("a bound handle re-encodes to other bytes".into());
    }
    Ok(())
}

/// The parameter batch of the `statement_handle` seed `bound-many-types` (one row):
/// `$1`..`$14` of the types Flight SQL clients bind.
///
/// # Errors
/// Never for these constant columns (an error would be a bug).
pub fn many_types_parameters() -> Result<arrow::array::RecordBatch, String> {
    use arrow::array::{
        Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, DictionaryArray,
        Float32Array, Float64Array, Int16Array, Int64Array, Int8Array, ListArray, StringArray,
        TimestampMicrosecondArray,
    };
    use arrow::datatypes::Int32Type;
    fn col(a: impl Array + 'static) -> ArrayRef {
        Arc::new(a)
    }
    let decimal = Decimal128Array::from(vec![12_345])
        .with_precision_and_scale(10, 2)
        .map_err(|e| e.to_string())?;
    let columns = [
        col(Int64Array::from(vec![-9_007_199_254_740_993])),
        col(Float64Array::from(vec![2.5])),
        col(StringArray::from(vec![Some("名前 'x'")])),
        col(BooleanArray::from(vec![true])),
        col(Date32Array::from(vec![19_723])),
        col(TimestampMicrosecondArray::from(vec![1_704_067_200_123_456]).with_timezone("UTC")),
        col(decimal),
        col(BinaryArray::from(vec![&b"\x00\xff"[..]])),
        col(StringArray::from(vec![None::<&str>])),
        col(Int8Array::from(vec![-128])),
        col(Int16Array::from(vec![Some(300)])),
        col(Float32Array::from(vec![f32::NAN])),
        col(ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
            Some(vec![Some(1), None, Some(3)]),
        ])),
        col(DictionaryArray::<Int32Type>::from_iter(["dt=2024-01-01"])),
    ];
    arrow::array::RecordBatch::try_from_iter_with_nullable(
        columns
            .into_iter()
            .enumerate()
            .map(|(i, c)| (format!("${}", i + 1), c, true)),
    )
    .map_err(|e| e.to_string())
}

/// The committed seeds of the `statement_handle` target: handles as the server hands them
/// out, made with its own encoder (plain SQL, and SQL bound to one-row parameter batches).
///
/// # Errors
/// If a handle cannot be encoded (a bug).
pub fn statement_handle_seeds() -> Result<Vec<(&'static str, Vec<u8>)>, String> {
    use arrow::array::{Int32Array, StringArray};
    let e = |e: tonic::Status| e.message().to_string();
    let two = arrow::array::RecordBatch::try_from_iter(vec![
        (
            "$1",
            Arc::new(Int32Array::from(vec![7])) as arrow::array::ArrayRef,
        ),
        (
            "$2",
            Arc::new(StringArray::from(vec!["x"])) as arrow::array::ArrayRef,
        ),
    ])
    .map_err(|e| e.to_string())?;
    Ok(vec![
        (
            "plain-sql",
            b"SELECT id, v FROM db.t WHERE dt = '2024-01-01' ORDER BY id".to_vec(),
        ),
        (
            "bound-int-string",
            handle::encode("SELECT * FROM db.t WHERE id < $1 AND v <> $2", &two).map_err(e)?,
        ),
        (
            "bound-many-types",
            handle::encode(MANY_TYPES_SQL, &many_types_parameters()?).map_err(e)?,
        ),
    ])
}

/// The SQL of the `statement_handle` seed `bound-many-types`.
pub const MANY_TYPES_SQL: &str =
    "SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14";

#[cfg(test)]
mod tests {
    use super::*;

    /// Every committed input of the `split_ticket` target passes its checks; the seeds that
    /// carry Java's golden `SPLIT_V1` frames decode to tickets whose frames are those
    /// files' bytes.
    #[test]
    fn committed_split_ticket_inputs_pass() {
        let inputs = paimon_test_utils::fuzz_inputs("split_ticket");
        assert!(inputs.len() >= 2, "seeds under fuzz/seeds/split_ticket");
        for (path, bytes) in &inputs {
            check_split_ticket(bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        let java: Vec<Vec<u8>> = ["split-v1-data", "split-v1-indexed"]
            .iter()
            .map(|f| std::fs::read(paimon_test_utils::java_compat(f)).unwrap())
            .collect();
        let (_, seed) = inputs
            .iter()
            .find(|(p, _)| p.ends_with("seeds/split_ticket/two-java-splits"))
            .expect("seed two-java-splits");
        let t = SplitTicket::decode(seed).unwrap();
        assert_eq!((t.database.as_str(), t.table.as_str()), ("db", "t"));
        assert_eq!(t.splits, java);
        // Tickets a planner (`paimon serve --workers`) issued for queries over `db.p`, a table
        // pypaimon 2.1 wrote in two commits of 5 and 3 rows (one Parquet file each):
        // `SELECT id, v .. WHERE id > 2`, `SELECT * .. LIMIT 3`, `SELECT v .. WHERE v LIKE ..
        // AND id BETWEEN ..`. Each carries its query's projection, filter and limit and one
        // data split of both files.
        for (seed, projection, limit) in [
            ("planner-filter", Some(vec!["id", "v"]), None),
            ("planner-limit", Some(vec!["id", "v"]), Some(3)),
            ("planner-like", Some(vec!["v"]), None),
        ] {
            let (_, bytes) = inputs
                .iter()
                .find(|(p, _)| p.ends_with(format!("seeds/split_ticket/{seed}")))
                .unwrap_or_else(|| panic!("seed {seed}"));
            let t = SplitTicket::decode(bytes).unwrap();
            assert_eq!(
                (t.database.as_str(), t.table.as_str()),
                ("db", "p"),
                "{seed}"
            );
            let o = paimon_rs::split::decode_read_options(&t.options).unwrap();
            let projection = projection.map(|p| p.into_iter().map(String::from).collect());
            assert_eq!(
                (o.projection, o.limit, o.schema_id),
                (projection, limit, Some(0)),
                "{seed}"
            );
            assert_eq!(o.filter.is_some(), seed != "planner-limit", "{seed}");
            let rows: i64 = t
                .splits
                .iter()
                .map(|s| match paimon_rs::split::decode_any(s).unwrap().split {
                    paimon_rs::split::Split::Data(d) => d.row_count(),
                    other => panic!("{seed}: not a data split: {other:?}"),
                })
                .sum();
            assert_eq!(rows, 8, "{seed}");
        }
    }

    /// Every committed input of the `rest_request` target passes its checks, each against a
    /// fresh warehouse, and the server answers every seed with a 200 but the commits.
    #[test]
    fn committed_rest_request_inputs_pass() {
        let inputs = paimon_test_utils::fuzz_inputs("rest_request");
        assert!(inputs.len() >= 9, "seeds under fuzz/seeds/rest_request");
        let base = tempfile::tempdir().unwrap();
        let mut answers = Vec::new();
        for (path, bytes) in &inputs {
            let status = check_rest_request(base.path(), bytes)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if path
                .parent()
                .and_then(Path::parent)
                .is_some_and(|p| p.ends_with("seeds"))
            {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                answers.push((name, status));
            }
        }
        // The seeds are requests our REST client's encoders write and requests pypaimon 2.1 and
        // Java's `RESTCatalog` sent: the server answers them, except commits, whose snapshots
        // name manifest lists a fresh warehouse does not hold (400, after the body decoded).
        for (name, status) in &answers {
            let expected = if name.ends_with("commit") { 400 } else { 200 };
            assert_eq!(*status, Some(expected), "seed {name}");
        }
        // The commits' 400 is the missing manifest list, not a body the server cannot read.
        for (path, bytes) in inputs.iter().filter(|(p, _)| {
            p.parent()
                .is_some_and(|d| d.ends_with("seeds/rest_request"))
                && p.to_string_lossy().ends_with("commit")
        }) {
            let newline = bytes.iter().position(|b| *b == b'\n').unwrap();
            let line = std::str::from_utf8(&bytes[1..newline]).unwrap();
            let catalog = fresh_warehouse(&base.path().join("commit")).unwrap();
            let service = Service::new(Arc::clone(catalog.catalog()), WAREHOUSE.to_string());
            let body = bytes[newline + 1..].to_vec();
            let e = answer(&service, "POST", &format!("/v1/{line}"), None, body).unwrap_err();
            assert!(
                e.message.contains("manifest list") && e.message.contains("does not hold"),
                "{}: {}",
                path.display(),
                e.message
            );
        }
    }

    /// Every committed input of the `statement_handle` target passes its checks, and the seed
    /// `bound-many-types` decodes to the SQL and the fourteen values it was made with.
    #[test]
    fn committed_statement_handle_inputs_pass() {
        use datafusion::common::ParamValues;
        let inputs = paimon_test_utils::fuzz_inputs("statement_handle");
        assert!(inputs.len() >= 3, "seeds under fuzz/seeds/statement_handle");
        for (path, bytes) in &inputs {
            check_statement_handle(bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        let (_, seed) = inputs
            .iter()
            .find(|(p, _)| p.ends_with("seeds/statement_handle/bound-many-types"))
            .expect("seed bound-many-types");
        let h = handle::decode(seed).unwrap();
        assert_eq!(h.sql, MANY_TYPES_SQL);
        let Some(ParamValues::List(values)) = h.parameters else {
            panic!("no parameters: {:?}", h.parameters)
        };
        let values: Vec<String> = values.iter().map(|v| format!("{:?}", v.value())).collect();
        assert_eq!(
            values,
            [
                "Int64(-9007199254740993)",
                "Float64(2.5)",
                "Utf8(\"名前 'x'\")",
                "Boolean(true)",
                "Date32(\"2024-01-01\")",
                "TimestampMicrosecond(1704067200123456, Some(\"UTC\"))",
                "Decimal128(123.45,10,2)",
                "Binary(\"0,255\")",
                "Utf8(NULL)",
                "Int8(-128)",
                "Int16(300)",
                "Float32(NaN)",
                "List([1, , 3])",
                "Dictionary(Int32, Utf8(\"dt=2024-01-01\"))",
            ]
        );
        let (_, plain) = inputs
            .iter()
            .find(|(p, _)| p.ends_with("seeds/statement_handle/plain-sql"))
            .expect("seed plain-sql");
        assert!(handle::decode(plain).unwrap().parameters.is_none());
    }
}
