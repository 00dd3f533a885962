//! Planning with the BTree (`id`) and bitmap (`name`) global indexes pypaimon 2.1 built in
//! `fixtures/global-index` (rows in `scripts/gen-global-index-fixture.py`: row ids 0..199 are
//! indexed, four files of 50 rows; row ids 200..209, one more file, are not).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use paimon_meta::Table;
use paimon_spec::binary::Datum;
use paimon_spec::predicate::{LeafOp, Predicate};
use paimon_test_utils::copy_dir;

fn table_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/global-index/db.db/t")
}

fn open(dir: &Path) -> Table {
    Table::open(
        Arc::new(paimon_io::LocalFileIO::new()),
        dir.to_str().unwrap(),
    )
    .unwrap()
}

fn leaf(c: &str, op: LeafOp, lits: Vec<Datum>) -> Predicate {
    Predicate::leaf(c, op, lits)
}

fn id(v: i64) -> Datum {
    Datum::BigInt(v)
}

fn name(v: &str) -> Datum {
    Datum::String(v.into())
}

/// The row ids the plan reads (None: no row ranges) and the first row ids of its files.
fn planned(t: &Table, filter: Predicate) -> (Option<BTreeSet<i64>>, BTreeSet<i64>) {
    let plan = t.scan().with_filter(filter).plan().unwrap();
    let files = plan
        .splits
        .iter()
        .flat_map(|s| s.data_files.iter().map(|f| f.first_row_id.unwrap()))
        .collect();
    let rows = plan.row_ranges.as_ref().map(|per_split| {
        assert_eq!(per_split.len(), plan.splits.len());
        per_split
            .iter()
            .flatten()
            .flat_map(|(a, z)| *a..=*z)
            .collect()
    });
    (rows, files)
}

const ALL_FILES: [i64; 5] = [0, 50, 100, 150, 200];

fn unindexed() -> impl Iterator<Item = i64> {
    200..210
}

fn name_of(n: i64) -> Option<String> {
    (n % 17 != 0).then(|| format!("n{}", n % 7))
}

#[test]
fn a_point_query_reads_one_file_and_one_row_besides_the_unindexed_file() {
    let t = open(&table_dir());
    let (rows, files) = planned(&t, leaf("id", LeafOp::Eq, vec![id(42)]));
    assert_eq!(rows, Some([42].into_iter().chain(unindexed()).collect()));
    assert_eq!(files, [0, 200].into());
}

#[test]
fn in_ranges_and_or_and_is_null_give_the_matching_rows() {
    let t = open(&table_dir());
    type Matches = Box<dyn Fn(i64) -> bool>;
    let cases: Vec<(Predicate, Matches)> = vec![
        (
            leaf("id", LeafOp::In, vec![id(5), id(120)]),
            Box::new(|n| n == 5 || n == 120),
        ),
        (
            leaf("id", LeafOp::GtEq, vec![id(195)]),
            Box::new(|n| n >= 195),
        ),
        (leaf("id", LeafOp::Lt, vec![id(3)]), Box::new(|n| n < 3)),
        (
            leaf("name", LeafOp::Eq, vec![name("n3")]),
            Box::new(|n| name_of(n).as_deref() == Some("n3")),
        ),
        (
            leaf("name", LeafOp::IsNull, vec![]),
            Box::new(|n| n % 17 == 0),
        ),
        (
            Predicate::And(vec![
                leaf("id", LeafOp::Lt, vec![id(60)]),
                leaf("name", LeafOp::Eq, vec![name("n1")]),
            ]),
            Box::new(|n| n < 60 && name_of(n).as_deref() == Some("n1")),
        ),
        (
            Predicate::Or(vec![
                leaf("id", LeafOp::Eq, vec![id(7)]),
                leaf("name", LeafOp::IsNull, vec![]),
            ]),
            Box::new(|n| n == 7 || n % 17 == 0),
        ),
        (
            // A leaf the indexes cannot answer inside an AND leaves the other leaf's rows.
            Predicate::And(vec![
                leaf("id", LeafOp::Eq, vec![id(101)]),
                leaf("k", LeafOp::Eq, vec![Datum::Int(1)]),
            ]),
            Box::new(|n| n == 101),
        ),
    ];
    for (p, matches) in cases {
        let (rows, files) = planned(&t, p.clone());
        let expected: BTreeSet<i64> = (0..200)
            .filter(|n| matches(*n))
            .chain(unindexed())
            .collect();
        let expected_files: BTreeSet<i64> = expected.iter().map(|r| r / 50 * 50).collect();
        assert_eq!(rows.as_ref(), Some(&expected), "{p:?}");
        assert_eq!(files, expected_files, "{p:?}");
    }
}

#[test]
fn predicates_the_indexes_cannot_answer_plan_every_file_without_row_ranges() {
    let t = open(&table_dir());
    for p in [
        leaf("k", LeafOp::Eq, vec![Datum::Int(3)]),
        Predicate::Not(Box::new(leaf("id", LeafOp::Eq, vec![id(42)]))),
        leaf("name", LeafOp::StartsWith, vec![name("n")]),
        Predicate::Or(vec![
            leaf("id", LeafOp::Eq, vec![id(42)]),
            leaf("k", LeafOp::Eq, vec![Datum::Int(3)]),
        ]),
        // Matches every row: nothing to narrow.
        leaf("id", LeafOp::GtEq, vec![id(0)]),
    ] {
        let (rows, files) = planned(&t, p.clone());
        assert_eq!(rows, None, "{p:?}");
        assert_eq!(files, ALL_FILES.into(), "{p:?}");
    }
}

#[test]
fn a_damaged_index_file_is_an_error_naming_it() {
    let tmp = std::env::temp_dir().join(format!("paimon-gindex-{}", std::process::id()));
    let dir = tmp.join("t");
    copy_dir(&table_dir(), &dir);
    let btree = std::fs::read_dir(dir.join("index"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("btree-")
        })
        .unwrap();
    let mut bytes = std::fs::read(&btree).unwrap();
    bytes[1] ^= 0x01;
    std::fs::write(&btree, bytes).unwrap();
    let t = open(&dir);
    let err = t
        .scan()
        .with_filter(leaf("id", LeafOp::Eq, vec![id(42)]))
        .plan()
        .unwrap_err()
        .to_string();
    // A filter on the bitmap column alone still plans with its index.
    let (rows, _) = planned(&t, leaf("name", LeafOp::IsNull, vec![]));
    std::fs::remove_dir_all(&tmp).unwrap();
    assert!(
        err.contains(btree.file_name().unwrap().to_str().unwrap()),
        "{err}"
    );
    assert!(err.contains("CRC32"), "{err}");
    assert!(rows.is_some());
}

/// The Java-written paimon-cpp table `append_with_global_index` (README: bitmap global indexes
/// on f0, f1, f2 over 8 rows) stores each bitmap index file in an older layout, a
/// `BitmapFileIndex`: planning skips those files (no row ranges, the same files as a filter no
/// index answers) instead of failing the read as corrupt.
#[test]
fn bitmap_files_in_the_older_layout_are_skipped_not_an_error() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../../shared/testdata/paimon-cpp/orc/append_with_global_index.db/append_with_global_index",
    );
    let t = open(&dir);
    let (rows, all) = planned(&t, leaf("f3", LeafOp::Gt, vec![Datum::Double(0.0)]));
    assert_eq!(rows, None);
    assert!(!all.is_empty());
    for filter in [
        leaf("f0", LeafOp::Eq, vec![name("Emily")]),
        leaf("f1", LeafOp::GtEq, vec![Datum::Int(10)]),
        leaf("f2", LeafOp::IsNull, vec![]),
    ] {
        assert_eq!(
            planned(&t, filter.clone()),
            (None, all.clone()),
            "{filter:?}"
        );
    }
}
