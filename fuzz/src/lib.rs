//! Shared pieces of the paimon-rs fuzz targets: the type menus fuzz inputs select from, and
//! equality checks that treat floats by their bits (so a NaN survives a round trip as itself).

use std::sync::OnceLock;

use paimon_spec::binary::Datum;
use paimon_spec::index_file::IndexFileMeta;
use paimon_spec::layout::{check_file_name, TableRoots};
use paimon_spec::types::{DataField, DataType, TypeKind};
use paimon_split::frame::IndexedSplit;
use paimon_split::{CompactTask, DataSplit, Split};

/// The row field types `binary_row` selects from, one per selector byte (`selector % len`).
pub fn row_type_menu() -> Vec<DataType> {
    let n = DataType::nullable;
    vec![
        n(TypeKind::Int),
        n(TypeKind::BigInt),
        DataType::string(),
        n(TypeKind::Decimal {
            precision: 10,
            scale: 2,
        }),
        n(TypeKind::Decimal {
            precision: 30,
            scale: 4,
        }),
        n(TypeKind::Timestamp { precision: 3 }),
        n(TypeKind::Timestamp { precision: 9 }),
        n(TypeKind::Array(Box::new(DataType::string()))),
        n(TypeKind::Map {
            key: Box::new(DataType::string()),
            value: Box::new(n(TypeKind::Int)),
        }),
        n(TypeKind::Row(vec![
            DataField::new(0, "i", n(TypeKind::Int)),
            DataField::new(1, "s", DataType::string()),
        ])),
        n(TypeKind::Double),
        n(TypeKind::Boolean),
    ]
}

/// Element types for `binary_array_map`: the row menu plus the narrow slot widths (1, 2 and 4
/// bytes) that only arrays use, binary and the local-zoned timestamps.
pub fn element_type_menu() -> Vec<DataType> {
    let n = DataType::nullable;
    let mut v = row_type_menu();
    v.extend([
        n(TypeKind::TinyInt),
        n(TypeKind::SmallInt),
        n(TypeKind::Float),
        n(TypeKind::Date),
        n(TypeKind::Time { precision: 0 }),
        DataType::bytes(),
        n(TypeKind::LocalZonedTimestamp { precision: 6 }),
        n(TypeKind::Array(Box::new(n(TypeKind::SmallInt)))),
        n(TypeKind::Multiset(Box::new(DataType::string()))),
        n(TypeKind::Variant),
    ]);
    v
}

/// Value equality with floats compared by bits: encode/decode must preserve every bit, NaN
/// payloads included, and `Datum`'s `PartialEq` would call NaN unequal to itself.
pub fn datum_eq(a: &Datum, b: &Datum) -> bool {
    match (a, b) {
        (Datum::Float(x), Datum::Float(y)) => x.to_bits() == y.to_bits(),
        (Datum::Double(x), Datum::Double(y)) => x.to_bits() == y.to_bits(),
        (Datum::Array(x), Datum::Array(y)) | (Datum::Row(x), Datum::Row(y)) => datums_eq(x, y),
        (Datum::Map(x), Datum::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| datum_eq(ka, kb) && datum_eq(va, vb))
        }
        _ => a == b,
    }
}

/// [`datum_eq`] over two lists.
pub fn datums_eq(a: &[Datum], b: &[Datum]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| datum_eq(x, y))
}

/// Split equality with `IndexedSplit` scores compared by bits (the only floats in a split).
pub fn split_eq(a: &Split, b: &Split) -> bool {
    match (a, b) {
        (Split::Indexed(x), Split::Indexed(y)) => indexed_eq(x, y),
        (
            Split::QueryAuth {
                split: sa,
                auth: aa,
            },
            Split::QueryAuth {
                split: sb,
                auth: ab,
            },
        ) => aa == ab && split_eq(sa, sb),
        (
            Split::Fallback {
                is_fallback: fa,
                split: sa,
            },
            Split::Fallback {
                is_fallback: fb,
                split: sb,
            },
        ) => fa == fb && split_eq(sa, sb),
        _ => a == b,
    }
}

fn indexed_eq(a: &IndexedSplit, b: &IndexedSplit) -> bool {
    let scores_eq = match (&a.scores, &b.scores) {
        (None, None) => true,
        (Some(x), Some(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
        }
        _ => false,
    };
    a.split == b.split && a.row_ranges == b.row_ranges && scores_eq
}

/// The columns `data_file` reads: those of the fixture tables `append.db/fmt_*`, whose data
/// files seed it.
pub fn data_file_columns() -> Vec<DataField> {
    let n = DataType::nullable;
    vec![
        DataField::new(0, "id", n(TypeKind::Int)),
        DataField::new(1, "name", DataType::string()),
        DataField::new(2, "price", n(TypeKind::Double)),
        DataField::new(
            3,
            "amount",
            n(TypeKind::Decimal {
                precision: 12,
                scale: 2,
            }),
        ),
        DataField::new(4, "dt", n(TypeKind::Date)),
        DataField::new(5, "ts", n(TypeKind::Timestamp { precision: 6 })),
        DataField::new(6, "flag", n(TypeKind::Boolean)),
        DataField::new(7, "tags", n(TypeKind::Array(Box::new(DataType::string())))),
    ]
}

/// Asserts that an error, if any, names `path` in its message: a damaged file must be reported
/// by name (issue 7).
pub fn check_error_names<T, E: std::fmt::Display>(r: &Result<T, E>, path: &str) {
    if let Err(e) = r {
        let msg = e.to_string();
        assert!(msg.contains(path), "error does not name {path}: {msg}");
    }
}

/// Whether `FUZZ_SKIP_KNOWN=1` asks targets to skip the input classes of open findings (listed
/// in README.md), so a long run can look for new ones.
pub fn skip_known() -> bool {
    static SKIP: OnceLock<bool> = OnceLock::new();
    *SKIP.get_or_init(|| std::env::var_os("FUZZ_SKIP_KNOWN").is_some_and(|v| v == "1"))
}

/// The last panic seen by the hook of [`run_allowing_caught_panics`], and whether it was raised
/// in paimon-rs's own code. Global rather than per thread: rayon re-raises a worker's panic in
/// the calling thread without calling the hook again.
static LAST_PANIC: std::sync::Mutex<Option<(String, bool)>> = std::sync::Mutex::new(None);

/// Runs `f` for code under test that deliberately catches panics of a dependency
/// (paimon-meta and paimon-data wrap orc-rust and the parquet crate in `catch_unwind` and
/// return `Corrupt`). libfuzzer-sys's panic hook aborts on every panic, caught or not, so it is
/// replaced by one that only remembers the message. A panic that escapes `f`, or one raised in
/// paimon-rs's own crates even if caught, is printed and aborts, which libFuzzer reports as a
/// crash: the guards are for dependencies, not for hiding our own bugs.
pub fn run_allowing_caught_panics(f: impl FnOnce()) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let own = info
                .location()
                .is_some_and(|l| l.file().contains("crates/paimon-"));
            if let Ok(mut last) = LAST_PANIC.lock() {
                // An own panic is kept even if a dependency panics after it.
                match last.as_ref() {
                    Some((_, true)) if !own => {}
                    _ => *last = Some((info.to_string(), own)),
                }
            }
        }))
    });
    if let Ok(mut last) = LAST_PANIC.lock() {
        *last = None;
    }
    let escaped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err();
    let last = LAST_PANIC.lock().ok().and_then(|mut l| l.take());
    match (escaped, last) {
        (true, last) => {
            let msg = last.map(|(m, _)| m).unwrap_or_default();
            eprintln!("panic escaped the code under test: {msg}");
            std::process::abort();
        }
        (false, Some((msg, true))) => {
            eprintln!("paimon-rs code panicked (the panic was caught): {msg}");
            std::process::abort();
        }
        _ => {}
    }
}

/// The table root the path fields of decoded splits and tasks are judged against: that of
/// the splits make_seeds writes (`/t/dt=2024-01-01/bucket-0`), so their own paths pass and
/// the `paths-*` seeds' do not.
pub const JUDGED_TABLE: &str = "/t";
/// The one external root (`data-file.external-paths`) of [`JUDGED_TABLE`].
pub const JUDGED_EXTERNAL: &str = "s3://bucket/external";

/// Judges a path field with the rule of issue 39: the rule answers without panicking, and a
/// refusal is `PathNotAllowed` naming `field`.
fn judged(field: &str, r: paimon_spec::Result<()>) {
    if let Err(e) = r {
        match &e {
            paimon_spec::Error::PathNotAllowed { field: f, .. } => {
                assert_eq!(f, field, "the refusal names another field: {e:?}")
            }
            _ => panic!("path check of {field} failed with {e:?}"),
        }
    }
}

/// Runs the path rule (`paimon_spec::layout`) over every path field of a decoded split, as a
/// worker judges them against [`JUDGED_TABLE`] and [`JUDGED_EXTERNAL`]: the bucket directory,
/// each data file's name, extra files and `_EXTERNAL_PATH`, and each deletion file's path.
pub fn judge_split_paths(s: &DataSplit) {
    let roots = TableRoots::new(JUDGED_TABLE).with_external(&[JUDGED_EXTERNAL]);
    judged(
        "DataSplit.bucket_path",
        roots.check("DataSplit.bucket_path", &s.bucket_path),
    );
    for f in s.data_files.iter().chain(&s.before_files) {
        judged(
            "DataFileMeta.fileName",
            check_file_name("DataFileMeta.fileName", &f.file_name),
        );
        for x in &f.extra_files {
            judged(
                "DataFileMeta.extraFiles",
                check_file_name("DataFileMeta.extraFiles", x),
            );
        }
        if let Some(p) = &f.external_path {
            judged("_EXTERNAL_PATH", roots.check("_EXTERNAL_PATH", p));
        }
    }
    let deletion = s.data_deletion_files.iter().chain(&s.before_deletion_files);
    for d in deletion.flatten().flatten() {
        judged(
            "DeletionFile.path",
            roots.check("DeletionFile.path", &d.path),
        );
    }
}

/// [`judge_split_paths`] over a compaction task: its split, the lookup split of higher
/// levels, and the index files it names (names and external paths).
pub fn judge_task_paths(t: &CompactTask) {
    judge_split_paths(&t.split);
    let roots = TableRoots::new(JUDGED_TABLE).with_external(&[JUDGED_EXTERNAL]);
    let index = |files: &[IndexFileMeta]| {
        for f in files {
            judged(
                "IndexFileMeta.fileName",
                check_file_name("IndexFileMeta.fileName", &f.file_name),
            );
            if let Some(p) = &f.external_path {
                judged(
                    "IndexFileMeta.externalPath",
                    roots.check("IndexFileMeta.externalPath", p),
                );
            }
        }
    };
    index(&t.deleted_index_files);
    if let Some(l) = &t.lookup {
        judge_split_paths(&l.higher_levels);
        index(&l.index_files);
    }
}
