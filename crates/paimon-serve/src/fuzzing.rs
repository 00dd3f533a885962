//! What the fuzz crate's `split_ticket` and `rest_request` targets drive, with the checks they
//! make on every input, so the targets and this crate's tests (which replay the committed
//! `fuzz/seeds/` and `fuzz/regressions/` inputs) check the same things. Not an API: hidden
//! from the docs. Each check answers `Err` naming what broke: a defect, never a refusal of
//! the input (refusals are what hostile input should get).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use paimon_rs::meta::catalog::Identifier;
use paimon_rs::spec::layout::check_file_name;
use paimon_rs::spec::schema::TableSchema;

use crate::flight::split_ticket::SplitTicket;
use crate::flight::ticket;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every committed input of the `split_ticket` target passes its checks; the seeds that
    /// carry Java's golden `SPLIT_V1` frames decode to tickets whose frames are those
    /// files' bytes.
    #[test]
    #[ignore = "fuzz/seeds/split_ticket and rest_request are not written yet: run make_seeds with the fuzz crate's serve feature, commit them, then drop this ignore"]
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
    }

    /// Every committed input of the `rest_request` target passes its checks, each against a
    /// fresh warehouse, and the server answers every seed with a 200.
    #[test]
    #[ignore = "fuzz/seeds/split_ticket and rest_request are not written yet: run make_seeds with the fuzz crate's serve feature, commit them, then drop this ignore"]
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
        // The seeds are requests our REST client's encoders write: the server answers them.
        for (name, status) in &answers {
            assert_eq!(*status, Some(200), "seed {name}");
        }
    }
}
