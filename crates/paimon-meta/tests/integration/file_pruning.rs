//! File-index pruning (append tables) and key-stats pruning (primary-key tables) never drop a
//! file that holds a matching row, and do drop files.
//!
//! Ground truth for the append fixtures comes from Java's rows: each commit of
//! `append/file_index_{embedded,sidecar}` writes one file, so the rows of the file added by
//! snapshot N are `expected/snapshot-N.jsonl` minus `snapshot-(N-1).jsonl`.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use paimon_meta::Table;
use paimon_spec::binary::Datum;
use paimon_spec::predicate::{LeafOp, Predicate};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn open(db_table: &str) -> Table {
    let (db, t) = db_table.split_once('/').unwrap();
    let p = fixtures().join(format!("warehouse/{db}.db/{t}"));
    Table::open(Arc::new(paimon_io::LocalFileIO::new()), p.to_str().unwrap()).unwrap()
}

fn planned_files(t: &Table, filter: Option<Predicate>, sidecars: bool) -> BTreeSet<String> {
    let mut scan = t.scan().with_file_index_sidecars(sidecars);
    if let Some(f) = filter {
        scan = scan.with_filter(f);
    }
    scan.plan()
        .unwrap()
        .splits
        .iter()
        .flat_map(|s| s.data_files.iter().map(|f| f.file_name.clone()))
        .collect()
}

/// Each data file of the table with the rows Java reads from it.
fn rows_by_file(db_table: &str) -> HashMap<String, Vec<Value>> {
    let t = open(db_table);
    let dir = fixtures().join("expected").join(db_table);
    let mut before_files = BTreeSet::new();
    let mut before_rows: Vec<String> = Vec::new();
    let mut out = HashMap::new();
    for id in 1..=3 {
        let files: BTreeSet<String> = t
            .scan()
            .with_snapshot(id)
            .plan()
            .unwrap()
            .splits
            .iter()
            .flat_map(|s| s.data_files.iter().map(|f| f.file_name.clone()))
            .collect();
        let added: Vec<&String> = files.difference(&before_files).collect();
        assert_eq!(added.len(), 1, "snapshot {id} of {db_table} adds one file");
        let text = std::fs::read_to_string(dir.join(format!("snapshot-{id}.jsonl"))).unwrap();
        let mut rows: Vec<String> = text.lines().map(str::to_string).collect();
        let mut new_rows = rows.clone();
        for r in &before_rows {
            let i = new_rows.iter().position(|x| x == r).unwrap();
            new_rows.remove(i);
        }
        out.insert(
            added[0].clone(),
            new_rows
                .iter()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect(),
        );
        before_files = files;
        rows.sort();
        before_rows = rows;
    }
    out
}

/// SQL semantics of the predicates used here over one JSON row.
fn matches(p: &Predicate, row: &Value) -> bool {
    match p {
        Predicate::And(c) => c.iter().all(|q| matches(q, row)),
        Predicate::Or(c) => c.iter().any(|q| matches(q, row)),
        Predicate::Leaf {
            column,
            op,
            literals,
        } => {
            let v = &row[column.as_str()];
            let eq = |d: &Datum| match d {
                Datum::Int(x) => v.as_i64() == Some(i64::from(*x)),
                Datum::BigInt(x) => v.as_i64() == Some(*x),
                Datum::String(s) => v.as_str() == Some(s.as_str()),
                _ => panic!("literal {d:?}"),
            };
            match op {
                LeafOp::Eq => eq(&literals[0]),
                LeafOp::In => literals.iter().any(eq),
                LeafOp::IsNull => v.is_null(),
                LeafOp::IsNotNull => !v.is_null(),
                _ => panic!("op {op:?}"),
            }
        }
        _ => panic!("predicate {p:?}"),
    }
}

/// Equality on every value present (and a few absent), IS NULL, IN and OR combinations.
fn predicates(rows: &HashMap<String, Vec<Value>>) -> Vec<Predicate> {
    let s = |x: &str| Datum::String(x.to_string());
    let mut out = vec![
        Predicate::leaf("category", LeafOp::IsNull, vec![]),
        Predicate::leaf("name", LeafOp::Eq, vec![s("absent")]),
        Predicate::leaf("id", LeafOp::Eq, vec![Datum::Int(-5)]),
        Predicate::leaf("category", LeafOp::Eq, vec![s("purple")]),
        Predicate::leaf("id", LeafOp::In, vec![Datum::Int(7), Datum::Int(2007)]),
        Predicate::Or(vec![
            Predicate::leaf("id", LeafOp::Eq, vec![Datum::Int(2007)]),
            Predicate::leaf("category", LeafOp::IsNull, vec![]),
        ]),
        Predicate::And(vec![
            Predicate::leaf("name", LeafOp::Eq, vec![s("n1005")]),
            Predicate::leaf("category", LeafOp::Eq, vec![s("blue")]),
        ]),
    ];
    for r in rows.values().flatten() {
        out.push(Predicate::leaf(
            "id",
            LeafOp::Eq,
            vec![Datum::Int(
                i32::try_from(r["id"].as_i64().unwrap()).unwrap(),
            )],
        ));
        out.push(Predicate::leaf(
            "name",
            LeafOp::Eq,
            vec![s(r["name"].as_str().unwrap())],
        ));
        if let Some(c) = r["category"].as_str() {
            out.push(Predicate::leaf("category", LeafOp::Eq, vec![s(c)]));
        }
    }
    out
}

fn check_never_prunes_a_match(db_table: &str, sidecars: bool) -> usize {
    let t = open(db_table);
    let rows = rows_by_file(db_table);
    let mut pruned_total = 0;
    for p in predicates(&rows) {
        let planned = planned_files(&t, Some(p.clone()), sidecars);
        for (file, rs) in &rows {
            if rs.iter().any(|r| matches(&p, r)) {
                assert!(planned.contains(file), "{db_table}: {p:?} pruned {file}");
            }
        }
        pruned_total += rows.len() - planned.len();
    }
    pruned_total
}

#[test]
fn embedded_index_never_prunes_a_matching_file() {
    let pruned = check_never_prunes_a_match("append/file_index_embedded", false);
    assert!(pruned > 100, "embedded indexes pruned only {pruned} files");
}

#[test]
fn sidecar_index_never_prunes_a_matching_file() {
    let pruned = check_never_prunes_a_match("append/file_index_sidecar", true);
    assert!(pruned > 100, "sidecar indexes pruned only {pruned} files");
}

/// The queries of `fixtures/queries.json` on these tables: the files kept are exactly the ones
/// holding Java's expected rows (the value stats alone cannot prune them: ids interleave).
#[test]
fn fixture_queries() {
    let s = |x: &str| Datum::String(x.to_string());
    let cases = [
        (
            "append/file_index_sidecar",
            Predicate::leaf("name", LeafOp::Eq, vec![s("n1005")]),
            1,
        ),
        (
            "append/file_index_sidecar",
            Predicate::leaf("category", LeafOp::Eq, vec![s("red")]),
            3,
        ),
        (
            "append/file_index_embedded",
            Predicate::Or(vec![
                Predicate::leaf("id", LeafOp::Eq, vec![Datum::Int(2007)]),
                Predicate::leaf("category", LeafOp::IsNull, vec![]),
            ]),
            3,
        ),
        (
            "append/file_index_embedded",
            Predicate::leaf("id", LeafOp::Eq, vec![Datum::Int(2007)]),
            1,
        ),
    ];
    for (table, filter, files) in cases {
        let t = open(table);
        assert_eq!(
            planned_files(&t, Some(filter.clone()), true).len(),
            files,
            "{table}: {filter:?}"
        );
    }
}

#[test]
fn sidecars_are_read_only_when_enabled() {
    let t = open("append/file_index_sidecar");
    let name = Predicate::leaf("name", LeafOp::Eq, vec![Datum::String("n1005".into())]);
    // Without sidecars only value stats prune (names of two files bracket 'n1005').
    let without = planned_files(&t, Some(name.clone()), false).len();
    let with = planned_files(&t, Some(name), true).len();
    assert_eq!(with, 1);
    assert!(without > with, "{without} files without sidecars");
}

/// Primary-key tables prune by key statistics only: for every key of every fixture table,
/// `pk = k` keeps each file whose key range holds k, and a value-column filter prunes nothing.
#[test]
fn pk_key_stats_never_prune_a_file_holding_the_key() {
    for name in [
        "dedup_uncompacted",
        "dedup_mixed_levels",
        "sequence_field",
        "partial_update",
    ] {
        let t = open(&format!("pk/{name}"));
        let pk = t.schema().primary_keys[0].clone();
        let value_col = t
            .schema()
            .fields
            .iter()
            .find(|f| f.name != pk)
            .unwrap()
            .name
            .clone();
        let all = t.scan().plan().unwrap();
        let key = |b: &[u8]| {
            paimon_spec::binary::BinaryRow::from_serialized(b)
                .unwrap()
                .get_int(0)
                .unwrap()
        };
        // (file, bucket, total buckets, min key, max key)
        let ranges: Vec<(String, i32, i32, i32, i32)> = all
            .splits
            .iter()
            .flat_map(|s| {
                s.data_files.iter().map(|f| {
                    (
                        f.file_name.clone(),
                        s.bucket,
                        s.total_buckets.unwrap(),
                        key(&f.min_key),
                        key(&f.max_key),
                    )
                })
            })
            .collect();
        let key_type = t.schema().field(&pk).unwrap().data_type.clone();
        let lo = ranges.iter().map(|r| r.3).min().unwrap();
        let hi = ranges.iter().map(|r| r.4).max().unwrap();
        let mut pruned = 0;
        for k in (lo - 2)..=(hi + 2) {
            let p = Predicate::leaf(pk.as_str(), LeafOp::Eq, vec![Datum::Int(k)]);
            let planned = planned_files(&t, Some(p), true);
            for (f, bucket, total, min, max) in &ranges {
                // Bucket pruning (tested on its own) may drop other buckets of a fixed-bucket table.
                let in_bucket = *total <= 0
                    || paimon_meta::scan::bucket::bucket_id(
                        &[Datum::Int(k)],
                        std::slice::from_ref(&key_type),
                        *total,
                    )
                    .unwrap()
                        == *bucket;
                if in_bucket && (*min..=*max).contains(&k) {
                    assert!(planned.contains(f), "pk/{name}: id = {k} pruned {f}");
                }
            }
            pruned += ranges.len() - planned.len();
        }
        assert!(pruned > 0, "pk/{name}: key stats pruned nothing");
        // A value filter prunes whole buckets only, and only where Java's does
        // (`java-oracle.sh plan pk/<name> --filter "<value column> IS NULL"` planned all files
        // but those of sequence_field, which has no null `v`).
        let value_filter = Predicate::leaf(value_col.as_str(), LeafOp::IsNull, vec![]);
        let java_files = if name == "sequence_field" {
            0
        } else {
            ranges.len()
        };
        assert_eq!(
            planned_files(&t, Some(value_filter), true).len(),
            java_files,
            "pk/{name}: {value_col} IS NULL"
        );
    }
}
