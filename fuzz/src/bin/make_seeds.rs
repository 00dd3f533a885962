//! Writes the committed seed corpus `fuzz/seeds/<target>/` using the crates' own encoders, so
//! the seeds are small, valid inputs of every shape the targets understand.
//!
//! ```sh
//! cargo +nightly run --manifest-path fuzz/Cargo.toml --all-features --bin make_seeds
//! ```
//!
//! Without `--all-features` only the paimon-spec / paimon-split seeds are written. Arguments:
//! `[DIR] [TARGET...]`: the seeds directory (default `fuzz/seeds`) and, when targets are named,
//! only those targets' seeds are written (the others' files are left as they are, so a seed's
//! bytes change only when its target's inputs are meant to), e.g.
//! `-- fuzz/seeds split_ticket rest_request statement_handle`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use paimon_fuzz::{element_type_menu, row_type_menu};
use paimon_spec::binary::{encode_array, encode_map, encode_row, Datum, RowKind};
use paimon_spec::data_file::{DataFileMeta, DeletionFile};
use paimon_spec::schema::TableSchema;
use paimon_spec::stats::SimpleStats;
use paimon_spec::types::{DataField, DataType, TypeKind};
use paimon_split::frame::{ChainSplit, IncrementalSplit, IndexedSplit, QueryAuth};
use paimon_split::{encode_frame, encode_split, DataSplit, Split, SplitEnvelope};

type Res<T = ()> = Result<T, Box<dyn std::error::Error>>;

fn main() -> Res {
    let root = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds"));
    split_seeds(&root.join("split_decode"))?;
    commit_seeds(&root.join("commit_message_decode"))?;
    row_seeds(&root.join("binary_row"))?;
    array_map_seeds(&root.join("binary_array_map"))?;
    schema_seeds(&root.join("schema_json"))?;
    option_seeds(&root.join("core_options"))?;
    #[cfg(feature = "meta")]
    meta::seeds(&root)?;
    #[cfg(feature = "data")]
    dv_seeds(&root.join("deletion_vector"))?;
    #[cfg(all(feature = "meta", feature = "data"))]
    fixture_seeds::seeds(&root)?;
    #[cfg(feature = "catalogs")]
    catalog_seeds::seeds(&root)?;
    #[cfg(feature = "serve")]
    serve_seeds::seeds(&root)?;
    println!("seeds written under {}", root.display());
    Ok(())
}

/// The targets named on the command line (after the directory); empty: every target.
static ONLY: OnceLock<Vec<String>> = OnceLock::new();

fn write(dir: &Path, name: &str, bytes: &[u8]) -> Res {
    let only = ONLY.get_or_init(|| std::env::args().skip(2).collect());
    let target = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    if !only.is_empty() && !only.iter().any(|t| t == target) {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(name), bytes)?;
    Ok(())
}

/// `[arity: i32 BE][row bytes]` of a partition row with one STRING and one INT.
fn partition() -> Res<Vec<u8>> {
    Ok(paimon_spec::stats::serialize_datums(
        &[Datum::String("2024-01-01".into()), Datum::Int(7)],
        &[DataType::string(), DataType::nullable(TypeKind::Int)],
    )?)
}

fn file(name: &str) -> DataFileMeta {
    DataFileMeta {
        file_name: name.into(),
        file_size: 1024,
        row_count: 10,
        min_key: paimon_spec::stats::empty_row_bytes(),
        max_key: paimon_spec::stats::empty_row_bytes(),
        key_stats: SimpleStats::empty(),
        value_stats: SimpleStats::empty(),
        min_sequence_number: 0,
        max_sequence_number: 9,
        schema_id: 0,
        level: 1,
        extra_files: vec!["x.index".into()],
        creation_time: Some(1_700_000_000_000),
        delete_row_count: Some(1),
        embedded_index: None,
        file_source: Some(0),
        value_stats_cols: None,
        external_path: None,
        first_row_id: Some(100),
        write_cols: Some(vec!["a".into()]),
        write_cols_sequences: None,
    }
}

fn data_split(before: bool) -> Res<DataSplit> {
    Ok(DataSplit {
        snapshot_id: 3,
        partition: partition()?,
        bucket: 0,
        bucket_path: "/t/dt=2024-01-01/bucket-0".into(),
        total_buckets: Some(2),
        before_files: if before { vec![file("b.orc")] } else { vec![] },
        before_deletion_files: None,
        data_files: vec![file("data-1.parquet")],
        data_deletion_files: Some(vec![Some(DeletionFile {
            path: "/t/index/dv-0".into(),
            offset: 1,
            length: 22,
            cardinality: Some(3),
        })]),
        is_streaming: false,
        raw_convertible: true,
    })
}

/// Commit messages of every layout: a ManifestCommittable at each committable version, lists at
/// message versions 3, 7, 10, 11 and 13 and one versioned message. (Java's own goldens are added
/// from ../shared at run time by scripts/fuzz.sh.)
fn commit_seeds(dir: &Path) -> Res {
    use paimon_split::commit::{
        encode_commit_message_list, encode_manifest_committable, encode_versioned_commit_message,
        CommitMessage, CompactIncrement, DataIncrement, DeletionVectorMeta, ManifestCommittable,
    };
    let dv = paimon_spec::index_file::IndexFileMeta {
        index_type: "DELETION_VECTORS".into(),
        file_name: "index-1".into(),
        file_size: 31,
        row_count: 1,
        dv_ranges: Some(vec![DeletionVectorMeta {
            data_file_name: "data-1.parquet".into(),
            offset: 1,
            length: 22,
            cardinality: None,
        }]),
        external_path: None,
        global_index: None,
    };
    let mut old = file("data-1.parquet");
    (old.first_row_id, old.write_cols) = (None, None);
    let message = |f: DataFileMeta, total| {
        CommitMessage::new(partition().unwrap_or_default(), 0)
            .with_total_buckets(total)
            .with_data_increment(DataIncrement {
                new_files: vec![f.clone()],
                ..DataIncrement::default()
            })
            .with_compact_increment(CompactIncrement {
                compact_before: vec![f.clone()],
                compact_after: vec![f],
                new_index_files: vec![dv.clone()],
                ..CompactIncrement::default()
            })
    };
    for (v, m) in [
        (3, message(old.clone(), None)),
        (7, message(old.clone(), Some(2))),
        (10, message(file("data-1.parquet"), Some(2))),
        (11, message(file("data-1.parquet"), Some(2))),
        (13, message(file("data-1.parquet"), None)),
    ] {
        write(
            dir,
            &format!("list-v{v}"),
            &encode_commit_message_list(&[m], v)?,
        )?;
    }
    let m = message(file("data-1.parquet"), Some(2));
    write(
        dir,
        "versioned-v11",
        &encode_versioned_commit_message(&m, 11)?,
    )?;
    for mc in 2..=5 {
        let mut c = ManifestCommittable::new(7, vec![message(old.clone(), None)])
            .with_watermark(Some(9))
            .with_message_version(7);
        if mc >= 4 {
            c = c.with_property("k", "v");
        }
        if mc <= 4 {
            c.log_offsets = vec![(0, 5)];
        }
        write(
            dir,
            &format!("committable-v{mc}"),
            &encode_manifest_committable(&c, mc)?,
        )?;
    }
    // Paths a hostile writer may send (issue 39): `../`, absolute and URL file names, external
    // paths outside the table and under another bucket, extra files and index files leaving
    // the bucket directory. The target validates every decoded message against its table.
    let hostile: [(&str, fn(&mut CommitMessage)); 5] = [
        ("paths-dotdot-name", |m| {
            m.data_increment.new_files[0].file_name = "../x".into()
        }),
        ("paths-absolute-name", |m| {
            m.data_increment.new_files[0].file_name = "/elsewhere/important".into()
        }),
        ("paths-url-external", |m| {
            m.data_increment.new_files[0].external_path = Some("s3://other-bucket/x".into())
        }),
        ("paths-extra-file", |m| {
            m.compact_increment.compact_after[0].extra_files = vec!["../../victim".into()]
        }),
        ("paths-index-external", |m| {
            m.compact_increment.new_index_files[0].external_path =
                Some("file:///warehouse/db.db/t/../other/index-1".into())
        }),
    ];
    for (name, change) in hostile {
        let mut m = message(file("data-1.parquet"), Some(2));
        change(&mut m);
        write(
            dir,
            &format!("{name}-v13"),
            &encode_commit_message_list(&[m], 13)?,
        )?;
    }
    Ok(())
}

fn split_seeds(dir: &Path) -> Res {
    let s = data_split(false)?;
    // Hostile path fields (issue 39): `../` and absolute bucket directories, external paths
    // of another bucket and another scheme, deletion files outside the table.
    let hostile: [(&str, fn(&mut DataSplit)); 5] = [
        ("paths-dotdot-bucket", |h| {
            h.bucket_path = "/t/../other/bucket-0".into()
        }),
        ("paths-other-bucket-external", |h| {
            h.data_files[0].external_path =
                Some("s3://other-bucket/t/bucket-0/data-1.parquet".into())
        }),
        ("paths-file-scheme-external", |h| {
            h.data_files[0].external_path = Some("file:///etc/passwd".into())
        }),
        ("paths-absolute-deletion-file", |h| {
            for d in h.data_deletion_files.iter_mut().flatten().flatten() {
                d.path = "/proc/self/environ".into();
            }
        }),
        ("paths-dotdot-file-name", |h| {
            h.data_files[0].file_name = "../../x/data-1.parquet".into()
        }),
    ];
    for (name, edit) in hostile {
        let mut h = s.clone();
        edit(&mut h);
        write(dir, name, &encode_split(&h, 9, SplitEnvelope::Raw)?)?;
    }
    for v in [1, 2, 4, 6, 8, 9] {
        write(
            dir,
            &format!("raw-v{v}"),
            &encode_split(&s, v, SplitEnvelope::Raw)?,
        )?;
    }
    write(
        dir,
        "raw-v8-before",
        &encode_split(&data_split(true)?, 8, SplitEnvelope::Raw)?,
    )?;
    write(
        dir,
        "raw-fallback-v9",
        &encode_split(&s, 9, SplitEnvelope::RawFallback)?,
    )?;
    write(
        dir,
        "java-object-v9",
        &encode_split(&s, 9, SplitEnvelope::JavaObject)?,
    )?;
    write(
        dir,
        "frame-data-v9",
        &encode_split(&s, 9, SplitEnvelope::SplitV1)?,
    )?;
    let indexed = Split::Indexed(IndexedSplit {
        split: s.clone(),
        row_ranges: vec![(0, 4), (7, 9)],
        scores: Some(vec![0.5, 1.0]),
    });
    write(dir, "frame-indexed", &encode_frame(&indexed, 9)?)?;
    let auth = Split::QueryAuth {
        split: Box::new(Split::Data(s.clone())),
        auth: Some(QueryAuth {
            filter: Some(vec!["{\"a\":1}".into()]),
            column_masking: Some(BTreeMap::from([("b".into(), "{}".into())])),
        }),
    };
    write(dir, "frame-query-auth", &encode_frame(&auth, 9)?)?;
    let fallback = Split::Fallback {
        is_fallback: true,
        split: Box::new(Split::FallbackData {
            split: s.clone(),
            is_fallback: false,
        }),
    };
    write(dir, "frame-fallback", &encode_frame(&fallback, 9)?)?;
    let incremental = Split::Incremental(IncrementalSplit {
        version: 2,
        snapshot_id: 4,
        partition: partition()?,
        bucket: 1,
        total_buckets: 2,
        before_files: vec![file("b.parquet")],
        before_deletion_files: None,
        after_files: vec![file("a.parquet")],
        after_deletion_files: Some(vec![None]),
        is_streaming: true,
    });
    write(dir, "frame-incremental", &encode_frame(&incremental, 9)?)?;
    let chain = Split::Chain(ChainSplit {
        version: 3,
        logical_partition: partition()?,
        data_files: vec![file("c.parquet")],
        file_bucket_path_mapping: vec![("c.parquet".into(), "/t/bucket-0".into())],
        file_branch_mapping: vec![("c.parquet".into(), "main".into())],
        deletion_files: None,
    });
    write(dir, "frame-chain", &encode_frame(&chain, 9)?)?;
    for e in std::fs::read_dir(dir)? {
        let path = e?.path();
        paimon_split::decode_any(&std::fs::read(&path)?)
            .map_err(|e| format!("seed {} does not decode: {e}", path.display()))?;
    }
    Ok(())
}

/// A value of each menu type, in menu order (see `paimon_fuzz::row_type_menu`).
fn sample_values() -> Vec<Datum> {
    vec![
        Datum::Int(-42),
        Datum::BigInt(1 << 40),
        Datum::String("a string longer than seven bytes".into()),
        Datum::Decimal {
            unscaled: 12_345,
            precision: 10,
            scale: 2,
        },
        Datum::Decimal {
            unscaled: -123_456_789_012_345_678_901_234,
            precision: 30,
            scale: 4,
        },
        Datum::Timestamp {
            millis: 1_700_000_000_123,
            nanos: 0,
        },
        Datum::Timestamp {
            millis: 1_700_000_000_123,
            nanos: 456_789,
        },
        Datum::Array(vec![
            Datum::String("x".into()),
            Datum::Null,
            Datum::String("a longer element".into()),
        ]),
        Datum::Map(vec![
            (Datum::String("k".into()), Datum::Int(1)),
            (Datum::String("key two".into()), Datum::Null),
        ]),
        Datum::Row(vec![Datum::Int(5), Datum::String("short".into())]),
        Datum::Double(-0.25),
        Datum::Boolean(true),
    ]
}

fn row_seeds(dir: &Path) -> Res {
    let menu = row_type_menu();
    let values = sample_values();
    // One row with every type in menu order.
    let selectors: Vec<u8> = (0..menu.len() as u8).collect();
    write(dir, "all-types", &row_input(&selectors, &values)?)?;
    // The same types with every value null.
    write(
        dir,
        "all-null",
        &row_input(&selectors, &vec![Datum::Null; menu.len()])?,
    )?;
    // Small rows of each single type.
    for (i, v) in values.iter().enumerate() {
        if i % 3 == 0 {
            write(
                dir,
                &format!("one-{i}"),
                &row_input(&[i as u8], std::slice::from_ref(v))?,
            )?;
        }
    }
    write(dir, "empty-row", &row_input(&[], &[])?)?;
    Ok(())
}

fn row_input(selectors: &[u8], values: &[Datum]) -> Res<Vec<u8>> {
    let menu = row_type_menu();
    let types: Vec<DataType> = selectors
        .iter()
        .map(|s| menu[usize::from(*s)].clone())
        .collect();
    let mut out = vec![selectors.len() as u8];
    out.extend_from_slice(selectors);
    out.extend(encode_row(RowKind::Insert, values, &types)?);
    Ok(out)
}

fn array_map_seeds(dir: &Path) -> Res {
    let menu = element_type_menu();
    let pos = |t: &DataType| menu.iter().position(|m| m == t).unwrap_or(0) as u8;
    let string = DataType::string();
    let int = DataType::nullable(TypeKind::Int);
    let small = DataType::nullable(TypeKind::SmallInt);
    let boolean = DataType::nullable(TypeKind::Boolean);
    let dec30 = DataType::nullable(TypeKind::Decimal {
        precision: 30,
        scale: 4,
    });

    let strings = vec![
        Datum::String("a".into()),
        Datum::Null,
        Datum::String("a longer string".into()),
    ];
    let mut arr = vec![pos(&string), 0];
    arr.extend(encode_array(&strings, &string)?);
    write(dir, "array-string", &arr)?;

    let smalls: Vec<Datum> = (0..40).map(|i| Datum::SmallInt(i * 7 - 100)).collect();
    let mut arr = vec![pos(&small), 0];
    arr.extend(encode_array(&smalls, &small)?);
    write(dir, "array-smallint-40", &arr)?;

    let bools = vec![Datum::Boolean(true), Datum::Null, Datum::Boolean(false)];
    let mut arr = vec![pos(&boolean), 0];
    arr.extend(encode_array(&bools, &boolean)?);
    write(dir, "array-boolean", &arr)?;

    let decs = vec![
        Datum::Decimal {
            unscaled: 1,
            precision: 30,
            scale: 4,
        },
        Datum::Null,
    ];
    let mut arr = vec![pos(&dec30), 0];
    arr.extend(encode_array(&decs, &dec30)?);
    write(dir, "array-decimal30", &arr)?;

    let pairs = vec![
        (Datum::String("k1".into()), Datum::Int(1)),
        (Datum::String("a longer key".into()), Datum::Null),
    ];
    let mut map = vec![pos(&string), pos(&int)];
    map.extend(encode_map(&pairs, &string, &int)?);
    write(dir, "map-string-int", &map)?;
    Ok(())
}

fn schema_seeds(dir: &Path) -> Res {
    let n = DataType::nullable;
    let schema = TableSchema {
        version: 3,
        id: 1,
        fields: vec![
            DataField::new(0, "dt", DataType::string().with_nullable(false)),
            DataField::new(1, "id", DataType::not_null(TypeKind::BigInt)),
            DataField::new(
                2,
                "price",
                n(TypeKind::Decimal {
                    precision: 10,
                    scale: 2,
                }),
            ),
            DataField::new(3, "ts", n(TypeKind::LocalZonedTimestamp { precision: 3 })),
            DataField::new(
                4,
                "tags",
                n(TypeKind::Map {
                    key: Box::new(DataType::string().with_nullable(false)),
                    value: Box::new(n(TypeKind::Array(Box::new(n(TypeKind::Int))))),
                }),
            ),
            DataField::new(
                5,
                "nested",
                n(TypeKind::Row(vec![DataField::new(
                    6,
                    "v",
                    n(TypeKind::Vector {
                        element: Box::new(n(TypeKind::Float)),
                        length: 3,
                    }),
                )])),
            ),
        ],
        highest_field_id: 6,
        partition_keys: vec!["dt".into()],
        primary_keys: vec!["dt".into(), "id".into()],
        options: BTreeMap::from([
            ("bucket".into(), "2".into()),
            ("merge-engine".into(), "partial-update".into()),
        ]),
        comment: Some("seed".into()),
        time_millis: 1_700_000_000_000,
    };
    write(dir, "schema-v3", schema.to_json().to_string().as_bytes())?;
    write(
        dir,
        "schema-v1-minimal",
        br#"{"id":0,"fields":[{"id":0,"name":"a","type":"INT"}],"options":{}}"#,
    )?;
    for (name, ty) in [
        (
            "type-atomic",
            r#""TIMESTAMP(9) WITH LOCAL TIME ZONE NOT NULL""#,
        ),
        ("type-decimal", r#""DECIMAL(38, 10)""#),
        (
            "type-multiset",
            r#"{"type":"MULTISET","element":"VARCHAR(10)"}"#,
        ),
        ("type-spatial", r#""GEOMETRY(OGC:CRS84)""#),
    ] {
        write(dir, name, ty.as_bytes())?;
    }
    Ok(())
}

fn option_seeds(dir: &Path) -> Res {
    // Selector indexes follow KNOWN_KEYS in fuzz_targets/core_options.rs.
    let rec = |sel: u8, v: &str| {
        let mut r = vec![sel, v.len() as u8];
        r.extend_from_slice(v.as_bytes());
        r
    };
    let typical: Vec<u8> = [
        rec(0, "4"),
        rec(1, "id, dt"),
        rec(4, "aggregation"),
        rec(13, "true"),
        rec(21, "64 mb"),
        rec(28, "sum"),
        rec(29, "c,d"),
    ]
    .concat();
    write(dir, "typical", &typical)?;
    let raw: Vec<u8> = [
        rec(255, "custom.key=value"),
        rec(3, "ORC"),
        rec(16, "lookup"),
    ]
    .concat();
    write(dir, "raw-and-known", &raw)?;
    write(dir, "bad-bucket", &rec(0, "four"))?;
    Ok(())
}

/// Deletion-vector seeds: index files holding one 32-bit and one 64-bit vector, in the input
/// layout of `fuzz_targets/deletion_vector.rs` (`[flags][offset][file]`).
#[cfg(feature = "data")]
fn dv_seeds(dir: &Path) -> Res {
    use paimon_data::deletion_vector::{MAGIC_32, MAGIC_64};
    use roaring::RoaringBitmap;

    let bitmap: RoaringBitmap = [2u32, 3, 70_000, 70_001].into_iter().collect();
    let mut bm = Vec::new();
    bitmap.serialize_into(&mut bm)?;

    // 32-bit: [len BE][magic BE][bitmap][crc BE], len = 4 + bitmap.
    let mut covered = MAGIC_32.to_be_bytes().to_vec();
    covered.extend_from_slice(&bm);
    let mut file = vec![1u8]; // index file version byte
    file.extend_from_slice(&(covered.len() as i32).to_be_bytes());
    file.extend_from_slice(&covered);
    file.extend_from_slice(&crc32fast::hash(&covered).to_be_bytes());
    let mut input = vec![0u8, 1];
    input.extend_from_slice(&file);
    write(dir, "dv32", &input)?;

    // Same vector reached through a hostile-mode header with the right offset and length.
    let mut input = vec![1u8];
    input.extend_from_slice(&1i64.to_be_bytes());
    input.extend_from_slice(&(covered.len() as i64).to_be_bytes());
    input.extend_from_slice(&file);
    write(dir, "dv32-explicit", &input)?;

    // 64-bit: [len BE][magic LE][count LE][key LE][bitmap]...[crc BE], length = len + 8.
    let mut covered = MAGIC_64.to_le_bytes().to_vec();
    covered.extend_from_slice(&2i64.to_le_bytes());
    for key in [0u32, 5] {
        covered.extend_from_slice(&key.to_le_bytes());
        covered.extend_from_slice(&bm);
    }
    let mut file = vec![1u8];
    file.extend_from_slice(&(covered.len() as i32).to_be_bytes());
    file.extend_from_slice(&covered);
    file.extend_from_slice(&crc32fast::hash(&covered).to_be_bytes());
    let mut input = vec![2u8, 1];
    input.extend_from_slice(&file);
    write(dir, "dv64", &input)?;

    let dv = paimon_data::deletion_vector::DeletionVector::decode_in_file(
        &file,
        1,
        covered.len() as i64 + 8,
        "dv64",
        6 << 32, // the rows of a file covering key 5's positions
    )?;
    if dv.cardinality() != 8 {
        return Err(format!("64-bit seed decodes to {} positions", dv.cardinality()).into());
    }
    Ok(())
}

/// Manifest-family and snapshot seeds: tiny Avro containers written by hand (paimon-meta only
/// reads manifests), with the field names and types Java's serializers use.
#[cfg(feature = "meta")]
mod meta {
    use std::io::Write;
    use std::path::Path;

    use super::{write, Res};

    /// An Avro datum to encode.
    enum Av {
        Null,
        Int(i64),
        Str(&'static str),
        Bytes(Vec<u8>),
        /// Union branch index and value.
        U(i64, Box<Av>),
        Arr(Vec<Av>),
        Rec(Vec<Av>),
    }

    fn zz(v: i64, out: &mut Vec<u8>) {
        let mut u = ((v << 1) ^ (v >> 63)) as u64;
        while u >= 0x80 {
            out.push((u as u8) | 0x80);
            u >>= 7;
        }
        out.push(u as u8);
    }

    fn enc(v: &Av, out: &mut Vec<u8>) {
        match v {
            Av::Null => {}
            Av::Int(i) => zz(*i, out),
            Av::Str(s) => {
                zz(s.len() as i64, out);
                out.extend_from_slice(s.as_bytes());
            }
            Av::Bytes(b) => {
                zz(b.len() as i64, out);
                out.extend_from_slice(b);
            }
            Av::U(i, v) => {
                zz(*i, out);
                enc(v, out);
            }
            Av::Arr(items) => {
                if !items.is_empty() {
                    zz(items.len() as i64, out);
                    items.iter().for_each(|x| enc(x, out));
                }
                zz(0, out);
            }
            Av::Rec(fields) => fields.iter().for_each(|x| enc(x, out)),
        }
    }

    /// An object container with one block holding `records`.
    fn container(schema: &str, codec: &str, records: &[Av]) -> Res<Vec<u8>> {
        let sync = *b"paimon-fuzz-sync";
        let mut out = b"Obj\x01".to_vec();
        zz(2, &mut out);
        for (k, v) in [("avro.schema", schema), ("avro.codec", codec)] {
            zz(k.len() as i64, &mut out);
            out.extend_from_slice(k.as_bytes());
            zz(v.len() as i64, &mut out);
            out.extend_from_slice(v.as_bytes());
        }
        zz(0, &mut out);
        out.extend_from_slice(&sync);
        let mut block = Vec::new();
        records.iter().for_each(|r| enc(r, &mut block));
        let block = match codec {
            "deflate" => {
                let mut e =
                    flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(&block)?;
                e.finish()?
            }
            _ => block,
        };
        zz(records.len() as i64, &mut out);
        zz(block.len() as i64, &mut out);
        out.extend_from_slice(&block);
        out.extend_from_slice(&sync);
        Ok(out)
    }

    const STATS: &str = r#"{"type":"record","name":"stats","fields":[
        {"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},
        {"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}"#;

    fn stats() -> Av {
        let empty = paimon_spec::stats::empty_serialized_row();
        Av::Rec(vec![
            Av::Bytes(empty.clone()),
            Av::Bytes(empty),
            Av::U(1, Box::new(Av::Arr(vec![Av::U(1, Box::new(Av::Int(0)))]))),
        ])
    }

    fn opt_long(v: Option<i64>) -> Av {
        v.map_or(Av::U(0, Box::new(Av::Null)), |x| {
            Av::U(1, Box::new(Av::Int(x)))
        })
    }

    pub fn seeds(root: &Path) -> Res {
        let dir = root.join("manifest_decode");
        let partition = paimon_spec::stats::empty_serialized_row();

        let list_schema = format!(
            r#"{{"type":"record","name":"ManifestFileMeta","fields":[
            {{"name":"_VERSION","type":"int"}},{{"name":"_FILE_NAME","type":"string"}},
            {{"name":"_FILE_SIZE","type":"long"}},{{"name":"_NUM_ADDED_FILES","type":"long"}},
            {{"name":"_NUM_DELETED_FILES","type":"long"}},{{"name":"_PARTITION_STATS","type":{STATS}}},
            {{"name":"_SCHEMA_ID","type":"long"}},
            {{"name":"_MIN_BUCKET","type":["null","int"]}},{{"name":"_MAX_BUCKET","type":["null","int"]}},
            {{"name":"_MIN_LEVEL","type":["null","int"]}},{{"name":"_MAX_LEVEL","type":["null","int"]}},
            {{"name":"_MIN_ROW_ID","type":["null","long"]}},{{"name":"_MAX_ROW_ID","type":["null","long"]}}]}}"#
        );
        let list_record = Av::Rec(vec![
            Av::Int(2),
            Av::Str("manifest-0"),
            Av::Int(2048),
            Av::Int(1),
            Av::Int(0),
            stats(),
            Av::Int(0),
            opt_long(Some(0)),
            opt_long(Some(3)),
            opt_long(Some(0)),
            opt_long(Some(5)),
            opt_long(None),
            opt_long(None),
        ]);
        write(
            &dir,
            "manifest-list",
            &container(&list_schema, "null", &[list_record])?,
        )?;

        let file_schema = format!(
            r#"{{"type":"record","name":"DataFileMeta","fields":[
            {{"name":"_FILE_NAME","type":"string"}},{{"name":"_FILE_SIZE","type":"long"}},
            {{"name":"_ROW_COUNT","type":"long"}},{{"name":"_MIN_KEY","type":"bytes"}},
            {{"name":"_MAX_KEY","type":"bytes"}},{{"name":"_KEY_STATS","type":{STATS}}},
            {{"name":"_VALUE_STATS","type":"stats"}},{{"name":"_MIN_SEQUENCE_NUMBER","type":"long"}},
            {{"name":"_MAX_SEQUENCE_NUMBER","type":"long"}},{{"name":"_SCHEMA_ID","type":"long"}},
            {{"name":"_LEVEL","type":"int"}},{{"name":"_EXTRA_FILES","type":{{"type":"array","items":"string"}}}},
            {{"name":"_CREATION_TIME","type":["null",{{"type":"long","logicalType":"timestamp-millis"}}]}},
            {{"name":"_DELETE_ROW_COUNT","type":["null","long"]}},
            {{"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"]}},
            {{"name":"_FILE_SOURCE","type":["null","int"]}},
            {{"name":"_VALUE_STATS_COLS","type":["null",{{"type":"array","items":"string"}}]}},
            {{"name":"_EXTERNAL_PATH","type":["null","string"]}},
            {{"name":"_FIRST_ROW_ID","type":["null","long"]}},
            {{"name":"_WRITE_COLS","type":["null",{{"type":"array","items":"string"}}]}}]}}"#
        );
        let entry_schema = format!(
            r#"{{"type":"record","name":"ManifestEntry","fields":[
            {{"name":"_VERSION","type":"int"}},{{"name":"_KIND","type":"int"}},
            {{"name":"_PARTITION","type":"bytes"}},{{"name":"_BUCKET","type":"int"}},
            {{"name":"_TOTAL_BUCKETS","type":"int"}},{{"name":"_FILE","type":{file_schema}}}]}}"#
        );
        let entry = |name: &'static str, kind: i64| {
            Av::Rec(vec![
                Av::Int(2),
                Av::Int(kind),
                Av::Bytes(partition.clone()),
                Av::Int(0),
                Av::Int(1),
                Av::Rec(vec![
                    Av::Str(name),
                    Av::Int(1024),
                    Av::Int(10),
                    Av::Bytes(partition.clone()),
                    Av::Bytes(partition.clone()),
                    stats(),
                    stats(),
                    Av::Int(0),
                    Av::Int(9),
                    Av::Int(0),
                    Av::Int(0),
                    Av::Arr(vec![Av::Str("x.index")]),
                    opt_long(Some(1_700_000_000_000)),
                    opt_long(Some(0)),
                    Av::U(0, Box::new(Av::Null)),
                    opt_long(Some(0)),
                    Av::U(1, Box::new(Av::Arr(vec![Av::Str("a")]))),
                    Av::U(0, Box::new(Av::Null)),
                    opt_long(None),
                    Av::U(0, Box::new(Av::Null)),
                ]),
            ])
        };
        let entries = [entry("data-0.parquet", 0), entry("data-1.parquet", 1)];
        write(
            &dir,
            "manifest",
            &container(&entry_schema, "null", &entries)?,
        )?;
        write(
            &dir,
            "manifest-deflate",
            &container(&entry_schema, "deflate", &entries[..1])?,
        )?;

        let index_schema = r#"{"type":"record","name":"IndexManifestEntry","fields":[
            {"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},
            {"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},
            {"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},
            {"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},
            {"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",
              {"type":"record","name":"DeletionVectorMeta","fields":[
                {"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},
                {"name":"_CARDINALITY","type":["null","long"]}]}]}]},
            {"name":"_EXTERNAL_PATH","type":["null","string"]}]}"#;
        let index_entry = Av::Rec(vec![
            Av::Int(1),
            Av::Int(0),
            Av::Bytes(partition.clone()),
            Av::Int(0),
            Av::Str("DELETION_VECTORS"),
            Av::Str("index-0"),
            Av::Int(63),
            Av::Int(1),
            Av::U(
                1,
                Box::new(Av::Arr(vec![Av::U(
                    1,
                    Box::new(Av::Rec(vec![
                        Av::Str("data-0.parquet"),
                        Av::Int(1),
                        Av::Int(24),
                        opt_long(Some(2)),
                    ])),
                )])),
            ),
            Av::U(0, Box::new(Av::Null)),
        ]);
        write(
            &dir,
            "index-manifest",
            &container(index_schema, "null", &[index_entry])?,
        )?;
        verify(&dir)?;

        let dir = root.join("manifest_orc");
        use orc_rust::compression::CompressionType;
        write(&dir, "index-manifest", &orc_index_manifest(None)?)?;
        write(
            &dir,
            "index-manifest-zstd",
            &orc_index_manifest(Some(CompressionType::Zstd))?,
        )?;
        write(
            &dir,
            "index-manifest-zlib",
            &orc_index_manifest(Some(CompressionType::Zlib))?,
        )?;
        for n in [
            "index-manifest",
            "index-manifest-zstd",
            "index-manifest-zlib",
        ] {
            let bytes: bytes::Bytes = std::fs::read(dir.join(n))?.into();
            let got = paimon_meta::manifest::IndexManifestEntry::decode_index_manifest(n, bytes)?;
            if got.len() != 2 {
                return Err(format!("ORC seed {n} decodes to {} entries", got.len()).into());
            }
        }

        let dir = root.join("snapshot_json");
        write(
            &dir,
            "snapshot-v3",
            br#"{"version":3,"id":7,"schemaId":0,"baseManifestList":"manifest-list-a-0","deltaManifestList":"manifest-list-a-1","changelogManifestList":null,"indexManifest":"index-manifest-b-0","commitUser":"u","commitIdentifier":9223372036854775807,"commitKind":"APPEND","timeMillis":1700000000000,"logOffsets":{},"totalRecordCount":10,"deltaRecordCount":10,"changelogRecordCount":0,"watermark":-9223372036854775808,"properties":{"k":"v"},"nextRowId":10}"#,
        )?;
        write(
            &dir,
            "snapshot-minimal",
            br#"{"id":1,"schemaId":0,"baseManifestList":"b","deltaManifestList":"d","timeMillis":0}"#,
        )?;
        Ok(())
    }

    /// A two-entry index manifest in ORC (`manifest.format = orc`), written by orc-rust (whose
    /// writer has flat columns only, hence no manifest list or data manifest here: their stats
    /// are structs; the shared test tables add Java-written ORC manifests at run time).
    fn orc_index_manifest(
        compression: Option<orc_rust::compression::CompressionType>,
    ) -> Res<Vec<u8>> {
        use std::sync::Arc;

        use arrow_array::{
            ArrayRef, BinaryArray, Int32Array, Int64Array, RecordBatch, StringArray,
        };
        use arrow_schema::{DataType as A, Field, Schema};

        let empty = paimon_spec::stats::empty_serialized_row();
        let schema = Arc::new(Schema::new(vec![
            Field::new("_VERSION", A::Int32, false),
            Field::new("_KIND", A::Int32, false),
            Field::new("_PARTITION", A::Binary, false),
            Field::new("_BUCKET", A::Int32, false),
            Field::new("_INDEX_TYPE", A::Utf8, false),
            Field::new("_FILE_NAME", A::Utf8, false),
            Field::new("_FILE_SIZE", A::Int64, false),
            Field::new("_ROW_COUNT", A::Int64, false),
            Field::new("_EXTERNAL_PATH", A::Utf8, true),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![1, 1])),
            Arc::new(Int32Array::from(vec![0, 1])),
            Arc::new(BinaryArray::from_vec(vec![&empty[..], &empty[..]])),
            Arc::new(Int32Array::from(vec![0, 3])),
            Arc::new(StringArray::from(vec!["DELETION_VECTORS", "HASH"])),
            Arc::new(StringArray::from(vec!["index-0", "index-1"])),
            Arc::new(Int64Array::from(vec![63, 128])),
            Arc::new(Int64Array::from(vec![1, 16])),
            Arc::new(StringArray::from(vec![None, Some("s3://b/index-1")])),
        ];
        let batch = RecordBatch::try_new(schema.clone(), columns)?;
        let mut out = Vec::new();
        let mut builder = orc_rust::ArrowWriterBuilder::new(&mut out, schema);
        if let Some(c) = compression {
            builder = builder.with_compression(c).with_compression_block_size(64);
        }
        let mut w = builder.try_build()?;
        w.write(&batch)?;
        w.close()?;
        Ok(out)
    }

    /// Fails unless every manifest seed decodes with the decoder it was written for.
    fn verify(dir: &Path) -> Res {
        use paimon_meta::manifest::{IndexManifestEntry, ManifestEntry, ManifestFileMeta};
        let read = |n: &str| -> Res<bytes::Bytes> { Ok(std::fs::read(dir.join(n))?.into()) };
        let n = ManifestFileMeta::decode_list("manifest-list", read("manifest-list")?)?.len();
        let m = ManifestEntry::decode_manifest("manifest", read("manifest")?)?.len();
        let d = ManifestEntry::decode_manifest("manifest-deflate", read("manifest-deflate")?)?;
        let i =
            IndexManifestEntry::decode_index_manifest("index-manifest", read("index-manifest")?)?;
        if (n, m, d.len(), i.len()) != (1, 2, 1, 1) {
            return Err(format!(
                "manifest seeds decode to {n}/{m}/{}/{} entries",
                d.len(),
                i.len()
            )
            .into());
        }
        Ok(())
    }
}

/// Seeds from the Java-written fixture tables in `fixtures/warehouse/` (this repository's own
/// tables): data files for `data_file`, file indexes for `file_index`, and whole trimmed tables
/// for `table_dir`. Row counts come from the tables' manifests (planned with paimon-meta), and
/// every table seed is checked to read Java's expected row count (`fixtures/expected/`).
#[cfg(all(feature = "meta", feature = "data"))]
mod fixture_seeds {
    use std::io::Read;
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    use paimon_data::format::{decode, DecodeRequest, FileFormat, RowRanges};
    use paimon_format::file_index::FileIndexFile;
    use paimon_meta::manifest::ManifestFileMeta;
    use paimon_meta::Table;

    use super::{write, Res};

    fn warehouse() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/warehouse")
    }

    fn open(db: &str, table: &str) -> Res<(PathBuf, Table, paimon_meta::Plan)> {
        let dir = warehouse()
            .join(format!("{db}.db"))
            .join(table)
            .canonicalize()?;
        let io = Arc::new(paimon_io::LocalFileIO::new());
        let t = Table::open(io, &dir.to_string_lossy())?;
        let plan = t.scan().plan()?;
        Ok((dir, t, plan))
    }

    pub fn seeds(root: &Path) -> Res {
        data_file_seeds(&root.join("data_file"))?;
        file_index_seeds(&root.join("file_index"))?;
        compact_task_seeds(&root.join("compact_task_decode"))?;
        table_dir_seeds(&root.join("table_dir"))
    }

    /// The compaction tasks planned for fixture tables: merge-tree tasks whose inputs carry
    /// deletion files (`pk/dv32`, full) and without (`pk/dedup_uncompacted`, full), an append
    /// task (`append/fmt_parquet_none`, full), and one of dv32's tasks given a lookup part
    /// (its own files as the levels above, its index files), the shape of a minor lookup
    /// compaction.
    fn compact_task_seeds(out: &Path) -> Res {
        for (db, table) in [
            ("pk", "dv32"),
            ("pk", "dedup_uncompacted"),
            ("append", "fmt_parquet_none"),
        ] {
            let (_, t, _) = open(db, table)?;
            let plan = t.compact_planner().with_full(true).plan()?;
            for (i, task) in plan.tasks.iter().take(2).enumerate() {
                write(
                    out,
                    &format!("{table}-{i}"),
                    &paimon_split::encode_compact_task(task)?,
                )?;
                if table == "dv32" && i == 0 {
                    let mut lookup = task.clone();
                    lookup.lookup = Some(paimon_split::CompactLookup {
                        higher_levels: task.split.clone(),
                        index_files: task.deleted_index_files.clone(),
                    });
                    let bytes = paimon_split::encode_compact_task(&lookup)?;
                    write(out, &format!("{table}-lookup-{i}"), &bytes)?;
                    // Hostile path fields (issue 39): a bucket directory in another bucket,
                    // an input's `..` external path, an index file's absolute external path.
                    let mut h = task.clone();
                    h.split.bucket_path = "s3://other-bucket/t/bucket-0".into();
                    write(
                        out,
                        "paths-other-bucket-dir",
                        &paimon_split::encode_compact_task(&h)?,
                    )?;
                    let mut h = task.clone();
                    if let Some(f) = h.split.data_files.first_mut() {
                        f.external_path = Some(format!("{}/../../x.parquet", h.split.bucket_path));
                    }
                    write(
                        out,
                        "paths-dotdot-external",
                        &paimon_split::encode_compact_task(&h)?,
                    )?;
                    let mut h = lookup.clone();
                    for f in &mut h.deleted_index_files {
                        f.external_path = Some("/elsewhere/index-0".into());
                    }
                    write(
                        out,
                        "paths-absolute-index",
                        &paimon_split::encode_compact_task(&h)?,
                    )?;
                }
            }
        }
        Ok(())
    }

    /// `[flags][rows][selection][columns][file]` (see `fuzz_targets/data_file.rs`).
    fn data_file_seeds(out: &Path) -> Res {
        let tables = [
            ("fmt_parquet_none", 0u8),
            ("fmt_parquet_snappy", 0),
            ("fmt_orc_none", 1),
            ("fmt_orc_zstd", 1),
            ("fmt_avro_null", 2),
            ("fmt_avro_deflate", 2),
            ("blob", 3),
        ];
        for (table, format) in tables {
            let (dir, _, plan) = open("append", table)?;
            let file = plan
                .splits
                .iter()
                .flat_map(|s| s.data_files.iter().map(move |f| (s, f)))
                .find(|(_, f)| (format == 3) == f.file_name.ends_with(".blob"))
                .ok_or_else(|| format!("{table}: no data file"))?;
            let (split, meta) = file;
            let path = Path::new(&split.bucket_path).join(&meta.file_name);
            let bytes = std::fs::read(&path)?;
            let rows = u8::try_from(meta.row_count)
                .map_err(|_| format!("{table}: {} rows do not fit the seed", meta.row_count))?;
            let columns = if format == 3 { 1 } else { 0xff };
            let mut variants = vec![(format, 0xffu8, columns, "all")];
            if format != 3 {
                variants.push((format | 4, 0b0110_1101, 0b1000_0011, "selected"));
            } else {
                variants.push((format, 0xff, 0, "count-only"));
            }
            for (flags, selection, columns, what) in variants {
                let mut input = vec![flags, rows, selection, columns];
                input.extend_from_slice(&bytes);
                verify_data_file(table, &input)?;
                write(out, &format!("{table}-{what}"), &input)?;
            }
            let _ = dir;
        }
        Ok(())
    }

    /// Decodes a `data_file` seed as the target does; it must yield its selected rows.
    fn verify_data_file(table: &str, input: &[u8]) -> Res {
        let formats = [
            FileFormat::Parquet,
            FileFormat::Orc,
            FileFormat::Avro,
            FileFormat::Blob,
        ];
        let (flags, rows, selection, mask) = (input[0], input[1], input[2], input[3]);
        let total = u64::from(rows);
        let sel = (flags & 4 != 0).then(|| {
            RowRanges::excluding(
                total,
                (0..total).filter(|p| selection & (1 << (p % 8)) == 0),
            )
        });
        let columns: Vec<String> = if flags & 3 == 3 {
            (mask & 1 != 0)
                .then(|| "blob".to_string())
                .into_iter()
                .collect()
        } else {
            paimon_fuzz::data_file_columns()
                .into_iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, f)| f.name)
                .collect()
        };
        let want = sel.as_ref().map_or(total, RowRanges::selected);
        let req = DecodeRequest {
            columns,
            types: Vec::new(),
            rows: sel,
            batch_size: 7,
            expected_rows: Some(i64::from(rows)),
        };
        let mut n = 0u64;
        for b in decode(
            formats[usize::from(flags & 3)],
            table,
            input[4..].to_vec().into(),
            &req,
        )? {
            n += b?.num_rows() as u64;
        }
        if n != want {
            return Err(format!("{table}: data_file seed yields {n} rows, {want} selected").into());
        }
        Ok(())
    }

    /// `[mode][type][literal][bytes]` (see `fuzz_targets/file_index.rs`); type 2 is INT,
    /// 4 STRING in its menu.
    fn file_index_seeds(out: &Path) -> Res {
        let lit = 7i64.to_le_bytes();
        let seed = |mode: u8, ty: u8, bytes: &[u8]| {
            let mut v = vec![mode, ty];
            v.extend_from_slice(&lit);
            v.extend_from_slice(bytes);
            v
        };
        let (dir, _, _) = open("append", "file_index_sidecar")?;
        let mut sidecars: Vec<PathBuf> = std::fs::read_dir(dir.join("bucket-0"))?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()?;
        sidecars.retain(|p| p.extension().is_some_and(|e| e == "index"));
        sidecars.sort();
        let sidecar = std::fs::read(sidecars.first().ok_or("no sidecar index file")?)?;
        write(out, "sidecar", &seed(0, 0, &sidecar))?;
        let index = FileIndexFile::parse(&sidecar)?;
        for (column, ty) in [("id", 2u8), ("name", 4), ("category", 4)] {
            for (kind, body) in index.indexes(column) {
                let mode = if kind == "bloom-filter" { 1 } else { 2 };
                write(out, &format!("{kind}-{column}"), &seed(mode, ty, body))?;
                write(out, &format!("{kind}-{column}-raw"), &seed(3, ty, body))?;
            }
        }
        let (_, _, plan) = open("append", "file_index_embedded")?;
        let embedded = plan
            .splits
            .iter()
            .flat_map(|s| &s.data_files)
            .find_map(|f| f.embedded_index.clone())
            .ok_or("no embedded file index")?;
        FileIndexFile::parse(&embedded)?;
        write(out, "embedded", &seed(0, 0, &embedded))?;
        Ok(())
    }

    /// The tables `table_dir` starts from: (database, table).
    const TABLES: [(&str, &str); 10] = [
        ("append", "fmt_parquet_none"),
        ("append", "fmt_orc_none"),
        ("append", "fmt_avro_null"),
        ("append", "dv_append"),
        ("append", "file_index_embedded"),
        ("append", "data_evolution"),
        ("append", "blob"),
        ("append", "part_date"),
        ("pk", "dedup_compacted"),
        ("pk", "dv32"),
    ];

    /// Records `[path length][path][length u16 LE][bytes]` holding the files the latest
    /// snapshot of each table needs (see `fuzz_targets/table_dir.rs`).
    fn table_dir_seeds(out: &Path) -> Res {
        for (db, table) in TABLES {
            let (dir, t, plan) = open(db, table)?;
            let rel = |p: &Path| -> Option<String> {
                p.strip_prefix(&dir)
                    .ok()
                    .map(|r| r.to_string_lossy().into_owned())
            };
            let mut files: Vec<String> = Vec::new();
            for e in std::fs::read_dir(dir.join("schema"))? {
                files.push(format!("schema/{}", e?.file_name().to_string_lossy()));
            }
            let snapshot = t
                .snapshot_manager()
                .latest()?
                .ok_or_else(|| format!("{table}: no snapshot"))?;
            files.push("snapshot/LATEST".into());
            files.push(format!("snapshot/snapshot-{}", snapshot.id));
            let mut lists = vec![
                snapshot.base_manifest_list.clone(),
                snapshot.delta_manifest_list.clone(),
            ];
            lists.extend(snapshot.changelog_manifest_list.clone());
            for list in &lists {
                let bytes = std::fs::read(dir.join("manifest").join(list))?;
                for m in ManifestFileMeta::decode_list(list, bytes.into())? {
                    files.push(format!("manifest/{}", m.file_name));
                }
                files.push(format!("manifest/{list}"));
            }
            if let Some(index) = &snapshot.index_manifest {
                files.push(format!("manifest/{index}"));
            }
            for split in &plan.splits {
                let bucket = Path::new(&split.bucket_path);
                for f in &split.data_files {
                    for name in std::iter::once(&f.file_name).chain(&f.extra_files) {
                        files.extend(rel(&bucket.join(name)));
                    }
                }
                for d in split.data_deletion_files.iter().flatten().flatten() {
                    files.extend(rel(Path::new(&d.path)));
                }
            }
            files.sort();
            files.dedup();
            // No filter; see `fuzz_targets/table_dir.rs`.
            let mut input = vec![0u8];
            for f in &files {
                let mut bytes = std::fs::read(dir.join(f))?;
                if f.starts_with("manifest/") {
                    bytes = uncompressed_avro(&bytes)?;
                }
                let len = u16::try_from(bytes.len())
                    .map_err(|_| format!("{table}/{f}: {} bytes", bytes.len()))?;
                input.push(u8::try_from(f.len())?);
                input.extend_from_slice(f.as_bytes());
                input.extend_from_slice(&len.to_le_bytes());
                input.extend_from_slice(&bytes);
            }
            if input.len() > 65_536 {
                return Err(format!("{db}/{table}: seed of {} bytes", input.len()).into());
            }
            verify_table(db, table, &input)?;
            write(out, &format!("{db}-{table}"), &input)?;
            // `id < 5`: pruning by statistics, file indexes and pages runs on the same files.
            input[0] = 4 * 5 + 1;
            write(out, &format!("{db}-{table}-id-lt-5"), &input)?;
        }
        Ok(())
    }

    /// Writes a `table_dir` seed to a temporary directory, plans and reads it; the rows must
    /// be as many as Java's expected rows of the latest snapshot.
    fn verify_table(db: &str, table: &str, input: &[u8]) -> Res {
        let tmp = std::env::temp_dir().join(format!("paimon-make-seeds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let mut rest = &input[1..];
        while let [n, tail @ ..] = rest {
            let (path, tail) = tail.split_at(usize::from(*n));
            let len = usize::from(u16::from_le_bytes([tail[0], tail[1]]));
            let (bytes, tail) = tail[2..].split_at(len);
            let target = tmp.join(std::str::from_utf8(path)?);
            std::fs::create_dir_all(target.parent().ok_or("no parent")?)?;
            std::fs::write(target, bytes)?;
            rest = tail;
        }
        let dir = tmp.to_string_lossy().into_owned();
        let io = Arc::new(paimon_io::LocalFileIO::new());
        let plan = Table::open(io.clone(), &dir)?.scan().plan()?;
        let reader = paimon_data::SplitReader::builder(io).build();
        let mut rows = 0;
        for split in plan.wire_splits() {
            let bytes = paimon_split::encode_frame(&split, paimon_split::CURRENT_VERSION)?;
            for b in reader.read_bytes(&dir, &bytes)? {
                rows += b?.num_rows();
            }
        }
        let _ = std::fs::remove_dir_all(&tmp);
        let expected = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/expected")
            .join(db)
            .join(table)
            .join("latest.jsonl");
        let want = std::fs::read_to_string(&expected)?.lines().count();
        if rows != want {
            return Err(format!("{db}/{table}: seed reads {rows} rows, Java {want}").into());
        }
        Ok(())
    }

    fn zz(v: i64, out: &mut Vec<u8>) {
        let mut u = ((v << 1) ^ (v >> 63)) as u64;
        while u >= 0x80 {
            out.push((u as u8) | 0x80);
            u >>= 7;
        }
        out.push(u as u8);
    }

    fn long(b: &[u8], pos: &mut usize) -> Res<i64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *b.get(*pos).ok_or("truncated varint")?;
            *pos += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(((v >> 1) as i64) ^ -((v & 1) as i64));
            }
        }
        Err("long varint".into())
    }

    fn bytes<'a>(b: &'a [u8], pos: &mut usize) -> Res<&'a [u8]> {
        let n = usize::try_from(long(b, pos)?)?;
        let s = b.get(*pos..*pos + n).ok_or("truncated bytes")?;
        *pos += n;
        Ok(s)
    }

    /// The same Avro object container with its blocks decompressed and `avro.codec` null, so
    /// that fuzzing mutates record fields rather than compressed bytes. ORC files are kept.
    fn uncompressed_avro(b: &[u8]) -> Res<Vec<u8>> {
        if !b.starts_with(b"Obj\x01") {
            return Ok(b.to_vec());
        }
        let mut pos = 4;
        let mut meta = Vec::new();
        loop {
            let n = long(b, &mut pos)?;
            if n == 0 {
                break;
            }
            if n < 0 {
                long(b, &mut pos)?;
            }
            for _ in 0..n.unsigned_abs() {
                let k = String::from_utf8(bytes(b, &mut pos)?.to_vec())?;
                let v = bytes(b, &mut pos)?.to_vec();
                meta.push((k, v));
            }
        }
        let sync = b.get(pos..pos + 16).ok_or("no sync")?.to_vec();
        pos += 16;
        let codec = meta
            .iter()
            .find(|(k, _)| k == "avro.codec")
            .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
            .unwrap_or_else(|| "null".into());
        let mut out = b"Obj\x01".to_vec();
        zz(meta.len() as i64, &mut out);
        for (k, v) in &meta {
            let v: &[u8] = if k == "avro.codec" { b"null" } else { v };
            zz(k.len() as i64, &mut out);
            out.extend_from_slice(k.as_bytes());
            zz(v.len() as i64, &mut out);
            out.extend_from_slice(v);
        }
        zz(0, &mut out);
        out.extend_from_slice(&sync);
        while pos < b.len() {
            let count = long(b, &mut pos)?;
            let data = bytes(b, &mut pos)?;
            pos += 16;
            let plain = match codec.as_str() {
                "null" => data.to_vec(),
                "zstandard" => zstd::decode_all(data)?,
                "deflate" => {
                    let mut v = Vec::new();
                    flate2::read::DeflateDecoder::new(data).read_to_end(&mut v)?;
                    v
                }
                other => return Err(format!("codec {other}").into()),
            };
            zz(count, &mut out);
            zz(plain.len() as i64, &mut out);
            out.extend_from_slice(&plain);
            out.extend_from_slice(&sync);
        }
        Ok(out)
    }
}

/// The catalogs' decoders: Hive Metastore replies written with the catalog's own Thrift writer
/// and registration code; DLF token files as Java's `DLFToken` reads them.
#[cfg(feature = "catalogs")]
mod catalog_seeds {
    use super::{write, Res};
    use std::path::Path;

    pub fn seeds(root: &Path) -> Res {
        for (name, bytes) in paimon_meta::catalog::hive::fuzzing::seed_replies()? {
            write(&root.join("hive_thrift"), name, &bytes)?;
        }
        // The token files of paimon-meta's DLF tests (Java's `DLFToken` fields; the
        // expiring one is the token Java reads as 1744775086000), and the ECS metadata
        // service's answer shape (`Code`, `LastUpdated` beside the token).
        let dir = root.join("dlf_token");
        write(
            &dir,
            "sts-expiring",
            br#"{"AccessKeyId":"a","AccessKeySecret":"s","SecurityToken":"st","Expiration":"2025-04-16T03:44:46Z","Code":"Success"}"#,
        )?;
        write(
            &dir,
            "static",
            br#"{"AccessKeyId":"a","AccessKeySecret":"s"}"#,
        )?;
        write(
            &dir,
            "ecs",
            br#"{"AccessKeyId":"STS.x","AccessKeySecret":"y","Expiration":"2025-04-16T03:44:46Z","SecurityToken":"z","LastUpdated":"2025-04-16T02:44:46Z","Code":"Success"}"#,
        )?;
        Ok(())
    }
}

/// `paimon serve`: split tickets carrying Java's `SPLIT_V1` split bytes and read options
/// written by our encoder; REST requests whose bodies our REST client's encoders write;
/// Flight SQL statement handles as the server's encoder writes them.
#[cfg(feature = "serve")]
mod serve_seeds {
    use super::{write, Res};
    use paimon_rs::meta::catalog::rest::messages;
    use paimon_rs::meta::catalog::Identifier;
    use paimon_rs::meta::commit::SchemaChange;
    use paimon_serve::flight::split_ticket::SplitTicket;
    use paimon_serve::fuzzing::{table_schema, WAREHOUSE};
    use paimon_split::{encode_read_options, SplitReadOptions};
    use serde_json::json;
    use std::path::Path;

    fn shared(rel: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/testdata")
            .join(rel)
    }

    pub fn seeds(root: &Path) -> Res {
        let dir = root.join("split_ticket");
        let schema = table_schema()?;
        let splits = ["split-v1-data", "split-v1-indexed"]
            .iter()
            .map(|f| std::fs::read(shared(&format!("java-compat/{f}"))))
            .collect::<Result<Vec<_>, _>>()?;
        let options = SplitReadOptions {
            schema_id: Some(0),
            projection: Some(vec!["id".into(), "v".into()]),
            limit: Some(10),
            ..SplitReadOptions::default()
        };
        let ticket = SplitTicket {
            database: "db".into(),
            table: "t".into(),
            options: encode_read_options(&options, &schema.fields)?,
            splits,
        };
        write(&dir, "two-java-splits", &ticket.encode()?.ticket)?;
        let plain = SplitTicket {
            splits: Vec::new(),
            options: encode_read_options(&SplitReadOptions::default(), &schema.fields)?,
            ..ticket
        };
        write(&dir, "no-splits", &plain.encode()?.ticket)?;

        let dir = root.join("rest_request");
        let id = Identifier::new("db", "t2");
        let snapshot: serde_json::Value = serde_json::from_slice(&std::fs::read(shared(
            "paimon-cpp/append_table_with_multiple_file_format.db/append_table_with_multiple_file_format/snapshot/snapshot-1",
        ))?)?;
        let table = format!("{WAREHOUSE}/databases/db/tables/t");
        let requests: Vec<(&str, u8, String, serde_json::Value)> = vec![
            ("config", 0, "config?warehouse=wh".into(), json!(null)),
            (
                "list-databases-page",
                0,
                format!(
                    "{WAREHOUSE}/databases?maxResults=1&pageToken=n:6462&databaseNamePattern=d%25"
                ),
                json!(null),
            ),
            (
                "list-tables-pattern",
                0,
                format!("{WAREHOUSE}/databases/db/tables?tableNamePattern=_&maxResults=5"),
                json!(null),
            ),
            (
                "create-database",
                1,
                format!("{WAREHOUSE}/databases"),
                json!({"name": "db2", "options": {}}),
            ),
            (
                "create-table",
                1,
                format!("{WAREHOUSE}/databases/db/tables"),
                json!({"identifier": messages::identifier(&id), "schema": messages::schema(&schema)}),
            ),
            (
                "alter-table",
                1,
                table.clone(),
                json!({"changes": [
                    messages::schema_change(&SchemaChange::SetOption { key: "k".into(), value: "v".into() }),
                    messages::schema_change(&SchemaChange::RemoveOption { key: "k".into() }),
                    messages::schema_change(&SchemaChange::DropColumn { name: "v".into() }),
                ]}),
            ),
            (
                "commit",
                1,
                format!("{table}/commit"),
                json!({"tableId": null, "snapshot": snapshot, "statistics": []}),
            ),
            ("load-table", 0, table.clone(), json!(null)),
            ("drop-table", 2, table.clone(), json!(null)),
        ];
        for (name, method, line, body) in requests {
            let mut bytes = vec![method];
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
            if !body.is_null() {
                bytes.extend_from_slice(body.to_string().as_bytes());
            }
            write(&dir, name, &bytes)?;
        }

        let dir = root.join("statement_handle");
        for (name, bytes) in paimon_serve::fuzzing::statement_handle_seeds()? {
            write(&dir, name, &bytes)?;
        }
        Ok(())
    }
}
