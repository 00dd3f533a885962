//! Time travel on a table with `scan.fallback-branch`: Java (`FallbackReadFileStoreTable`)
//! reads the fallback branch at its latest snapshot committed at or before the main snapshot
//! read (its first snapshot when none is that old), and refuses branches whose row types, as
//! read, differ. Expected values are `scripts/java-oracle.sh dump TABLE --snapshot N` on the
//! paimon-cpp tables (README: main writes (1, 110), branch `test` writes (2, 210), both add
//! `value2`, then main writes (1, 120, 1200) and the branch (2, 220, 2200)).

use std::path::PathBuf;

use paimon_cli::read_cmd::read_to_json_lines;
use paimon_cli::scan_args::ScanArgs;

fn table(format: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/testdata/paimon-cpp")
        .join(format)
        .join("append_table_with_append_pt_branch.db/append_table_with_append_pt_branch")
        .to_string_lossy()
        .into_owned()
}

fn read_snapshot(format: &str, id: i64) -> anyhow::Result<Vec<String>> {
    let scan = ScanArgs {
        snapshot: Some(id),
        ..ScanArgs::default()
    };
    let mut rows = read_to_json_lines(&table(format), &scan)?;
    rows.sort();
    Ok(rows)
}

#[test]
fn fallback_branch_is_time_travelled_as_java_does() {
    for format in ["orc", "parquet"] {
        // Main snapshot 1 predates every branch snapshot: Java reads the branch's first.
        assert_eq!(
            read_snapshot(format, 1).unwrap(),
            [r#"{"pt":1,"value":110}"#, r#"{"pt":2,"value":210}"#],
            "{format}"
        );
        // Main snapshot 2 has `value2`; the branch snapshot before it does not. Java: "Branch
        // main and test does not have the same row type."
        let err = read_snapshot(format, 2).unwrap_err().to_string();
        assert!(err.contains("row types differ"), "{format}: {err}");
    }
}
