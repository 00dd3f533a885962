//! `paimon serve`'s REST catalog server (paimon-serve `rest::answer`: the path segments and
//! query decoded, page tokens, `LIKE` patterns, JSON bodies of create/alter/commit/rollback/
//! tag/branch requests) on arbitrary requests against a fresh filesystem warehouse holding
//! database `db` with a primary-key table `t`. Input: `[method][path?query]\n[body]` (the
//! method byte modulo 4 picks GET, POST, DELETE, PUT; the path follows `/v1/`). No panic,
//! every refusal an HTTP error status, and nothing written outside the warehouse.
#![no_main]

use std::path::PathBuf;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use paimon_fuzz::rest::{fresh_warehouse, WAREHOUSE};
use paimon_serve::rest::{answer, Service};

fuzz_target!(|data: &[u8]| {
    let Some((&m, rest)) = data.split_first() else {
        return;
    };
    let method = ["GET", "POST", "DELETE", "PUT"][usize::from(m % 4)];
    let (line, body) = match rest.iter().position(|b| *b == b'\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let Ok(line) = std::str::from_utf8(line) else {
        return;
    };
    let (path, query) = match line.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (line, None),
    };
    let (root, catalog): (PathBuf, _) = fresh_warehouse();
    let service = Service::new(Arc::clone(catalog.catalog()), WAREHOUSE.to_string());
    if let Err(e) = answer(
        &service,
        method,
        &format!("/v1/{path}"),
        query,
        body.to_vec(),
    ) {
        assert!((400..600).contains(&e.status), "status {}", e.status);
    }
    let outside: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "wh")
        .collect();
    assert!(
        outside.is_empty(),
        "written beside the warehouse: {outside:?}"
    );
});
