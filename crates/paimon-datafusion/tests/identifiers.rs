//! Database and table names from SQL never leave the warehouse: a quoted identifier with
//! `/`, `..` or NUL in it is refused, naming the identifier, before any file is opened.
//!
//! The warehouse is a temporary directory whose `db.db` sits next to `x`, a symbolic link to
//! a fixture table, so `"db"."../../x"` names a real table outside the warehouse: the
//! query would read its rows if the name were taken as a path.

use std::path::Path;

use paimon_datafusion::{sql, PaimonCatalogProvider};
use paimon_test_utils::repo;

/// `<tmp>/wh/db.db` and `<tmp>/x` (a link to `append.db/unaware`); the warehouse path.
fn warehouse_beside_a_table(tmp: &Path) -> String {
    let wh = tmp.join("wh");
    std::fs::create_dir_all(wh.join("db.db")).unwrap();
    let fixture = repo().join("fixtures/warehouse/append.db/unaware");
    std::os::unix::fs::symlink(fixture.canonicalize().unwrap(), tmp.join("x")).unwrap();
    wh.display().to_string()
}

#[test]
fn names_with_path_segments_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let wh = warehouse_beside_a_table(tmp.path());
    let catalog = PaimonCatalogProvider::new(&wh).unwrap();
    for (db, name) in [
        ("db", "../../x"),
        ("db", ".."),
        ("db", "."),
        ("db", "a/b"),
        ("db", "a\\b"),
        ("db", "a\0b"),
        ("db", "x$branch_../../y"),
        ("db", "x$branch_a/b"),
        ("db", "x@tag=../../../x"),
        ("..", "x"),
        ("../x", "t"),
        ("a/b", "t"),
        ("", "t"),
        ("db", ""),
    ] {
        let e = match catalog.table_provider(db, name) {
            Ok(p) => panic!("{db:?}.{name:?} accepted: {}", p.is_some()),
            Err(e) => e.to_string(),
        };
        assert!(
            e.contains("not allowed") || e.contains("identifier"),
            "{db:?}.{name:?}: {e}"
        );
        assert!(
            e.contains(&format!("{name:?}")) || e.contains(&format!("{db:?}")),
            "{db:?}.{name:?}: the error names the identifier: {e}"
        );
    }
}

#[test]
fn a_quoted_name_does_not_read_outside_the_warehouse() {
    let tmp = tempfile::tempdir().unwrap();
    let wh = warehouse_beside_a_table(tmp.path());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for (query, named) in [
        (r#"SELECT count(*) FROM "db"."../../x""#, "../../x"),
        (r#"SELECT count(*) FROM "../wh/db"."../../x""#, "../wh/db"),
    ] {
        let got = rt.block_on(async {
            let ctx = sql::session(&wh)?;
            let df = sql::query(&ctx, query).await?;
            df.collect().await
        });
        let e = got.map(|b| format!("{b:?}")).unwrap_err().to_string();
        assert!(e.contains(named) && e.contains("not allowed"), "{e}");
    }
}

/// Plain names resolve, under a warehouse spelled with `..` (as this test's is: the crate
/// directory, `../..`) and under the same one spelled without.
#[test]
fn plain_names_branches_and_system_tables_still_resolve() {
    let dotted = repo().join("fixtures/warehouse");
    let plain = dotted.canonicalize().unwrap();
    for wh in [dotted, plain] {
        let catalog = PaimonCatalogProvider::new(&wh.display().to_string()).unwrap();
        for name in ["unaware", "unaware$snapshots", "unaware$audit_log"] {
            assert!(
                catalog.table_provider("append", name).unwrap().is_some(),
                "{name}"
            );
        }
        assert!(catalog.table_provider("append", "nope").unwrap().is_none());
        let e = catalog.table_provider("append", "../pk.db/t").unwrap_err();
        assert!(e.to_string().contains("not allowed"), "{e}");
    }
}
