//! `paimon sql` `CALL sys.create_global_index(..)` / `CALL sys.drop_global_index(..)` (issue
//! 46) with Java Paimon's Spark argument names (`table, index_column, index_type, options`),
//! named and positional, on a row-tracked table written by `paimon sql`: after the build
//! `paimon plan --json` of a filter on the indexed column shows indexed splits with exactly
//! the row ranges of the rows kept here, the rows read (by us, and for the BTree by Java
//! Paimon 1.4.2's `dump`) are those rows; after the drop the plan has no row ranges; an unknown column or
//! index type is a one-line error that commits nothing.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::maintenance::java_dump;
use crate::write_cmd::{canonical, ok, paimon, s, snapshot_count};

/// The rows kept: `id` 1..=20, `name` `'n{id % 3}'` but NULL for 5 and 10. The first INSERT
/// writes ids 1..=12, the second 13..=20, so row id = id - 1.
fn name_of(id: i64) -> Option<String> {
    (id % 5 != 0 || id > 10).then(|| format!("n{}", id % 3))
}

/// Which of the kept rows (by id) a filter selects.
type Keep = fn(i64) -> bool;

fn row(id: i64) -> Value {
    json!({"id": id, "name": name_of(id)})
}

fn sql(warehouse: &Path, sql: &str) -> String {
    ok(&["sql", s(warehouse), sql, "--format", "csv"])
}

/// `db.t` (`id BIGINT, name STRING`, row tracking on) holding the rows kept.
fn table(warehouse: &Path) -> PathBuf {
    sql(warehouse, "CREATE DATABASE db");
    sql(
        warehouse,
        "CREATE TABLE db.t (id BIGINT, name STRING) \
         WITH ('row-tracking.enabled' = 'true', 'data-evolution.enabled' = 'true')",
    );
    for ids in [1..=12, 13..=20] {
        let values: Vec<String> = ids
            .map(|i| match name_of(i) {
                Some(n) => format!("({i}, '{n}')"),
                None => format!("({i}, NULL)"),
            })
            .collect();
        sql(
            warehouse,
            &format!("INSERT INTO db.t VALUES {}", values.join(", ")),
        );
    }
    warehouse.join("db.db").join("t")
}

/// The row ranges (`[from, to]`, row id = id - 1) of the kept rows `keep` selects.
fn ranges_of(keep: impl Fn(i64) -> bool) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::new();
    for id in (1..=20).filter(|i| keep(*i)) {
        match out.last_mut() {
            Some((_, last)) if *last + 1 == id - 1 => *last = id - 1,
            _ => out.push((id - 1, id - 1)),
        }
    }
    out
}

/// `paimon plan --json --filter FILTER`: each split's `rowRanges` (`None` for a split
/// read whole), sorted.
fn planned(t: &Path, filter: &str) -> Vec<Option<Vec<(i64, i64)>>> {
    let out = ok(&["plan", s(t), "--filter", filter, "--json"]);
    let plan: Value = serde_json::from_str(&out).unwrap();
    let mut splits: Vec<Option<Vec<(i64, i64)>>> = plan["splits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|sp| {
            sp.get("rowRanges").map(|r| {
                r.as_array()
                    .unwrap()
                    .iter()
                    .map(|p| (p[0].as_i64().unwrap(), p[1].as_i64().unwrap()))
                    .collect()
            })
        })
        .collect();
    splits.sort();
    splits
}

/// The indexed row ranges of a plan, all splits together, sorted.
fn indexed(plan: &[Option<Vec<(i64, i64)>>]) -> Vec<(i64, i64)> {
    let mut all: Vec<(i64, i64)> = plan.iter().flatten().flatten().copied().collect();
    all.sort();
    all
}

/// JSON lines, canonical, sorted.
fn parse(text: &str) -> Vec<String> {
    canonical(
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    )
}

/// Our rows (`paimon read --filter`).
fn ours(t: &Path, filter: &str) -> Vec<String> {
    parse(&ok(&[
        "read",
        s(t),
        "--filter",
        filter,
        "--format",
        "jsonl",
    ]))
}

/// Java's rows (`dump --filter`; all of them for `None`).
fn java(t: &Path, filter: Option<&str>) -> Vec<String> {
    let scan = filter.map_or_else(Vec::new, |f| vec!["--filter", f]);
    parse(&java_dump(t, &scan).join("\n"))
}

fn kept(keep: impl Fn(i64) -> bool) -> Vec<String> {
    canonical((1..=20).filter(|i| keep(*i)).map(row).collect())
}

/// Index files in the table's `index/` directory.
fn index_files(t: &Path) -> usize {
    std::fs::read_dir(t.join("index")).map_or(0, |d| d.count())
}

#[test]
fn call_builds_and_drops_global_indexes() {
    let started = std::time::Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = table(wh);
    assert_eq!(snapshot_count(&t), 2);

    // Named, Spark's argument names: one BTree file over both inserts' rows (0..=19).
    assert_eq!(
        sql(
            wh,
            "CALL sys.create_global_index(table => 'db.t', index_column => 'id', \
             index_type => 'btree', options => 'btree-index.block-size=4kb')"
        ),
        "result,files,rows,row_ranges,snapshot\ntrue,1,20,\"[0, 19]\",3\n"
    );
    // Positional (table, index_column, index_type); Java lowercases the type.
    assert_eq!(
        sql(wh, "CALL sys.create_global_index('db.t', 'name', 'BITMAP')"),
        "result,files,rows,row_ranges,snapshot\ntrue,1,20,\"[0, 19]\",4\n"
    );
    // Everything indexed already: nothing committed.
    assert_eq!(
        sql(wh, "CALL sys.create_global_index('db.t', 'id', 'btree')"),
        "result,files,rows,row_ranges,snapshot\ntrue,0,0,,\n"
    );
    assert_eq!(snapshot_count(&t), 4);

    let cases: [(&str, Keep); 5] = [
        ("id = 15", |i| i == 15),
        ("id IN (2, 9, 20)", |i| [2, 9, 20].contains(&i)),
        ("id >= 18 OR id < 3", |i| !(3..18).contains(&i)),
        ("name = 'n1'", |i| name_of(i).as_deref() == Some("n1")),
        ("name IS NULL", |i| name_of(i).is_none()),
    ];
    for (filter, keep) in cases {
        let plan = planned(&t, filter);
        assert!(
            plan.iter().all(Option::is_some),
            "{filter}: every split indexed: {plan:?}"
        );
        assert_eq!(indexed(&plan), ranges_of(keep), "{filter}");
        assert_eq!(ours(&t, filter), kept(keep), "{filter}: our rows");
        // Java 1.4.2 reads a bitmap global index in its older layout (a `BitmapFileIndex`),
        // not the one pypaimon 2.1 and we write: its `name` filters return no rows on this
        // table (as on fixtures/global-index's snapshot 6, pypaimon's own), so only the
        // BTree's filters are checked against Java; pypaimon checks the bitmap
        // (scripts/test-global-index-peers.sh).
        if filter.starts_with("id ") {
            assert_eq!(java(&t, Some(filter)), kept(keep), "{filter}: Java's rows");
        }
    }

    // Drop the BTree index: `id` filters plan whole splits, `name` ones still use the bitmap.
    assert_eq!(
        sql(
            wh,
            "CALL sys.drop_global_index(table => 'db.t', index_column => 'id', index_type => 'btree')"
        ),
        "result,files,snapshot\ntrue,1,5\n"
    );
    let plan = planned(&t, "id = 15");
    assert!(
        !plan.is_empty() && plan.iter().all(Option::is_none),
        "no row ranges after the drop: {plan:?}"
    );
    assert_eq!(ours(&t, "id = 15"), kept(|i| i == 15));
    assert_eq!(java(&t, Some("id = 15")), kept(|i| i == 15));
    assert_eq!(
        indexed(&planned(&t, "name = 'n1'")),
        ranges_of(|i| name_of(i).as_deref() == Some("n1"))
    );
    // Positional drop of the bitmap; a second drop finds nothing and commits nothing.
    assert_eq!(
        sql(wh, "CALL sys.drop_global_index('db.t', 'name', 'bitmap')"),
        "result,files,snapshot\ntrue,1,6\n"
    );
    assert_eq!(
        sql(wh, "CALL sys.drop_global_index('db.t', 'name', 'bitmap')"),
        "result,files,snapshot\ntrue,0,\n"
    );
    assert_eq!(snapshot_count(&t), 6);
    let plan = planned(&t, "name = 'n1'");
    assert!(plan.iter().all(Option::is_none), "{plan:?}");
    // Java reads every row of the table whose index manifest our drops rewrote.
    assert_eq!(java(&t, None), kept(|_| true));
    eprintln!("took {:?}", started.elapsed());
}

#[test]
fn bad_global_index_calls_fail_in_one_line_and_commit_nothing() {
    let started = std::time::Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = table(wh);
    let cases = [
        (
            "CALL sys.create_global_index(table => 'db.t', index_column => 'nope', index_type => 'btree')",
            "unknown column 'nope'",
        ),
        (
            "CALL sys.create_global_index('db.t', 'id', 'hnsw')",
            "index type 'hnsw'",
        ),
        (
            "CALL sys.create_global_index('db.t', 'id,name', 'btree')",
            "one column is indexed",
        ),
        (
            "CALL sys.create_global_index('db.t', 'id', 'btree', 'k=1')",
            "partitions is not supported",
        ),
        (
            "CALL sys.create_global_index('db.t', 'id', 'btree', '', 'sorted-index.records-per-file=0')",
            "is not a positive count",
        ),
        (
            "CALL sys.create_global_index(table => 'db.t', column => 'id', index_type => 'btree')",
            "no argument 'column'",
        ),
        (
            "CALL sys.drop_global_index(table => 'db.t', index_column => 'nope', index_type => 'btree')",
            "unknown column 'nope'",
        ),
    ];
    for (call, want) in cases {
        let out = paimon(&["sql", s(wh), call, "--format", "csv"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{call}: should fail");
        assert!(err.contains(want), "{call}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{call}: one line: {err}");
    }
    assert_eq!(snapshot_count(&t), 2, "nothing committed");
    assert_eq!(index_files(&t), 0, "no index file left");
    assert!(planned(&t, "id = 15").iter().all(Option::is_none));
    eprintln!("took {:?}", started.elapsed());
}
