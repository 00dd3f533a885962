//! Building BTree and bitmap global indexes (`Table::create_global_index`) on the table of
//! `fixtures/global-index` rewound to its fourth snapshot (the 200 rows pypaimon 2.1 indexed,
//! before it built anything): our files are pypaimon's bytes, our manifest entries carry its
//! row ranges and metadata, planning on our indexes narrows to the row ranges planning on
//! pypaimon's gives, a second build indexes only rows added since, and a damaged index file is
//! a typed error.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use paimon_rs::arrow_array::{Array, Int32Array, Int64Array, StringArray};
use paimon_rs::io::LocalFileIO;
use paimon_rs::meta::manifest::IndexManifestEntry;
use paimon_rs::split::Split;
use paimon_rs::{RecordBatch, Table};
use paimon_test_utils::copy_dir;

fn fixture_table() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/global-index/db.db/t")
}

/// A copy of the fixture table at snapshot 4: 200 rows (row ids 0..=199), no index.
fn unindexed_copy() -> (tempfile::TempDir, Table) {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    copy_dir(&fixture_table(), &t);
    for n in 5..=7 {
        std::fs::remove_file(t.join(format!("snapshot/snapshot-{n}"))).unwrap();
    }
    std::fs::remove_dir_all(t.join("index")).unwrap();
    std::fs::write(t.join("snapshot/LATEST"), "4").unwrap();
    let table = Table::open(Arc::new(LocalFileIO::new()), t.to_str().unwrap()).unwrap();
    (dir, table)
}

fn open(path: &Path) -> Table {
    Table::open(Arc::new(LocalFileIO::new()), path.to_str().unwrap()).unwrap()
}

/// The index manifest entries of the table's latest snapshot (or snapshot `id`).
fn index_entries(table: &Table, id: Option<i64>) -> Vec<IndexManifestEntry> {
    let meta = table.meta();
    let snap = match id {
        Some(id) => meta.snapshot_manager().snapshot(id).unwrap(),
        None => meta.snapshot_manager().latest().unwrap().unwrap(),
    };
    let path = meta
        .layout()
        .manifest_path(snap.index_manifest.as_ref().unwrap());
    let bytes = meta.file_io().read(&path).unwrap();
    IndexManifestEntry::decode_index_manifest(&path, bytes).unwrap()
}

/// Row ranges of the plan's splits for `filter` (`None` for a split read whole).
fn planned_ranges(
    table: &Table,
    snapshot: Option<i64>,
    filter: &str,
) -> Vec<Option<Vec<(i64, i64)>>> {
    let mut scan = table.scan().with_filter(filter).unwrap();
    if let Some(id) = snapshot {
        scan = scan.with_snapshot(id);
    }
    let mut out: Vec<_> = scan
        .plan()
        .unwrap()
        .splits
        .into_iter()
        .map(|s| match s {
            Split::Indexed(i) => Some(i.row_ranges),
            _ => None,
        })
        .collect();
    out.sort();
    out
}

fn ids_read(table: &Table, filter: &str) -> Vec<i64> {
    let mut ids: Vec<i64> = Vec::new();
    for b in table
        .scan()
        .with_filter(filter)
        .unwrap()
        .to_arrow()
        .unwrap()
    {
        let a = b
            .column_by_name("id")
            .unwrap()
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        ids.extend(a.values().iter().copied());
    }
    ids.sort();
    ids
}

const FILTERS: [&str; 7] = [
    "id = 42",
    "id IN (5, 120, 199)",
    "id >= 190 AND id < 1002",
    "name = 'n3'",
    "name IS NULL OR id = 7",
    "id < 60 AND name = 'n1'",
    "name <> 'n2'",
];

#[test]
fn our_indexes_are_pypaimons_bytes_and_plan_the_same_row_ranges() {
    let started = std::time::Instant::now();
    let (_dir, table) = unindexed_copy();
    let btree = table.create_global_index("id", "btree").run().unwrap();
    assert_eq!(
        (btree.files, btree.rows, btree.row_ranges.clone()),
        (1, 200, vec![(0, 199)])
    );
    assert_eq!(btree.snapshots, vec![5]);
    let bitmap = table.create_global_index("name", "bitmap").run().unwrap();
    assert_eq!(
        (bitmap.files, bitmap.rows, bitmap.row_ranges.clone()),
        (1, 200, vec![(0, 199)])
    );

    // Manifest entries: pypaimon's snapshot 6 against ours, equal but for the file names.
    let fixture = open(&fixture_table());
    let theirs = index_entries(&fixture, Some(6));
    let ours = index_entries(&table, None);
    assert_eq!(ours.len(), 2);
    for kind in ["btree", "bitmap"] {
        let t = theirs
            .iter()
            .find(|e| e.index_file.index_type == kind)
            .unwrap();
        let o = ours
            .iter()
            .find(|e| e.index_file.index_type == kind)
            .unwrap();
        assert_eq!(
            (o.kind, &o.partition, o.bucket),
            (t.kind, &t.partition, t.bucket),
            "{kind}"
        );
        assert_eq!(o.index_file.file_size, t.index_file.file_size, "{kind}");
        assert_eq!(o.index_file.row_count, t.index_file.row_count, "{kind}");
        assert_eq!(
            o.index_file.global_index, t.index_file.global_index,
            "{kind}"
        );
        assert!(o
            .index_file
            .file_name
            .starts_with(&format!("{kind}-global-index-")));
        // The files themselves, byte for byte.
        let ob = std::fs::read(
            Path::new(table.path())
                .join("index")
                .join(&o.index_file.file_name),
        )
        .unwrap();
        let tb =
            std::fs::read(fixture_table().join("index").join(&t.index_file.file_name)).unwrap();
        assert!(ob == tb, "{kind} index file differs from pypaimon's");
    }

    // Planning narrows to the same row ranges on our indexes as on pypaimon's.
    for filter in FILTERS {
        let on_ours = planned_ranges(&table, None, filter);
        let on_theirs = planned_ranges(&fixture, Some(6), filter);
        assert_eq!(on_ours, on_theirs, "{filter}");
    }
    assert_eq!(
        planned_ranges(&table, None, "id = 42"),
        vec![Some(vec![(42, 42)])]
    );
    assert_eq!(ids_read(&table, "id IN (5, 120, 199)"), vec![5, 120, 199]);
    eprintln!("took {:?}", started.elapsed());
}

fn rows_batch(table: &Table, ids: &[i64]) -> RecordBatch {
    let names: Vec<Option<String>> = ids.iter().map(|i| Some(format!("n{}", i % 7))).collect();
    RecordBatch::try_new(
        table.arrow_schema(),
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(names)),
            Arc::new(Int32Array::from(
                ids.iter().map(|i| (i % 5) as i32).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

#[test]
fn a_second_build_indexes_only_the_rows_added_since() {
    let (_dir, table) = unindexed_copy();
    table.create_global_index("id", "btree").run().unwrap();
    // Nothing new: nothing written, nothing committed.
    let again = table.create_global_index("id", "btree").run().unwrap();
    assert_eq!((again.files, again.snapshots.len()), (0, 0));
    table
        .write()
        .batches([rows_batch(&table, &[1000, 1001, 1002])])
        .unwrap();
    let more = table.create_global_index("id", "btree").run().unwrap();
    assert_eq!(
        (more.files, more.rows, more.row_ranges),
        (1, 3, vec![(200, 202)])
    );
    let ranges: Vec<_> = index_entries(&table, None)
        .iter()
        .map(|e| {
            let g = e.index_file.global_index.as_ref().unwrap();
            (g.row_range_start, g.row_range_end)
        })
        .collect();
    assert_eq!(ranges, vec![(0, 199), (200, 202)]);
    assert_eq!(
        planned_ranges(&table, None, "id = 1001"),
        vec![Some(vec![(201, 201)])]
    );
    assert_eq!(ids_read(&table, "id = 1001 OR id = 3"), vec![3, 1001]);
    // Records per file: 2 x 1.2 = 2 rows a file, same range.
    let (_dir2, small) = unindexed_copy();
    let r = small
        .create_global_index("name", "bitmap")
        .with_option("sorted-index.records-per-file", "50")
        .run()
        .unwrap();
    assert_eq!((r.files, r.rows), (4, 200));
    assert_eq!(r.row_ranges, vec![(0, 199); 4]);
    assert_eq!(
        ids_read(&small, "name = 'n3'").len(),
        (0..200).filter(|n| n % 7 == 3 && n % 17 != 0).count()
    );
}

/// Dropping one index leaves the other: plans of its column go back to whole files (the rows
/// the filter keeps unchanged), and a rebuild indexes every row again. pypaimon 2.1 checks the
/// same on our drop (scripts/test-global-index-peers.sh).
#[test]
fn a_dropped_index_is_no_longer_planned_and_can_be_built_again() {
    let (_dir, table) = unindexed_copy();
    table.create_global_index("id", "btree").run().unwrap();
    table.create_global_index("name", "bitmap").run().unwrap();
    let n3: Vec<i64> = (0..200).filter(|n| n % 7 == 3 && n % 17 != 0).collect();
    assert!(planned_ranges(&table, None, "name = 'n3'")
        .iter()
        .all(Option::is_some));

    let dropped = table.drop_global_index("name", "bitmap").run().unwrap();
    assert_eq!((dropped.files, dropped.snapshots.clone()), (1, vec![7]));
    let left: Vec<_> = index_entries(&table, None)
        .iter()
        .map(|e| e.index_file.index_type.clone())
        .collect();
    assert_eq!(left, vec!["btree".to_string()]);
    assert!(planned_ranges(&table, None, "name = 'n3'")
        .iter()
        .all(Option::is_none));
    assert_eq!(ids_read(&table, "name = 'n3'"), n3);
    assert_eq!(
        planned_ranges(&table, None, "id = 42"),
        vec![Some(vec![(42, 42)])]
    );
    // Nothing left to drop: nothing committed.
    let again = table.drop_global_index("name", "bitmap").run().unwrap();
    assert_eq!((again.files, again.snapshots.len()), (0, 0));
    let err = table.drop_global_index("nope", "bitmap").run().unwrap_err();
    assert!(err.to_string().contains("unknown column 'nope'"), "{err}");

    let rebuilt = table.create_global_index("name", "bitmap").run().unwrap();
    assert_eq!((rebuilt.rows, rebuilt.row_ranges), (200, vec![(0, 199)]));
    assert_eq!(ids_read(&table, "name = 'n3'"), n3);
    assert!(planned_ranges(&table, None, "name = 'n3'")
        .iter()
        .all(Option::is_some));
}

#[test]
fn bad_arguments_and_damaged_files_are_typed_errors() {
    let (_dir, table) = unindexed_copy();
    for (col, ty, msg) in [
        ("nope", "btree", "unknown column 'nope'"),
        ("id", "ivf", "index type 'ivf'"),
    ] {
        let err = table.create_global_index(col, ty).run().unwrap_err();
        assert!(err.to_string().contains(msg), "{err}");
    }
    let err = table
        .create_global_index("id", "btree")
        .with_option("btree-index.block-size", "lots")
        .run()
        .unwrap_err();
    assert!(err.to_string().contains("btree-index.block-size"), "{err}");
    table.create_global_index("id", "btree").run().unwrap();
    let e = &index_entries(&table, None)[0];
    let path = Path::new(table.path())
        .join("index")
        .join(&e.index_file.file_name);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[1] ^= 0x01;
    std::fs::write(&path, bytes).unwrap();
    let err = table
        .scan()
        .with_filter("id = 42")
        .unwrap()
        .plan()
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains(&e.index_file.file_name) && text.contains("CRC32"),
        "{text}"
    );
}
