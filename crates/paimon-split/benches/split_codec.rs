//! Encode and decode a DataSplit of 1,000 files at v9, raw and in a Java object stream.
//!
//! Run: `cargo bench -p paimon-split --bench split_codec`. To compare against a saved baseline:
//! `cargo bench -p paimon-split --bench split_codec -- --save-baseline before`, change the code,
//! then `... -- --baseline before`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use paimon_spec::binary::Datum;
use paimon_spec::data_file::{DataFileMeta, DeletionFile};
use paimon_spec::stats::{serialize_datums, SimpleStats};
use paimon_spec::types::{DataType, TypeKind};
use paimon_split::{decode_split, encode_split, DataSplit, SplitEnvelope};

fn split_of(n: usize) -> DataSplit {
    let int = DataType::nullable(TypeKind::Int);
    let key = |v: i32| serialize_datums(&[Datum::Int(v)], std::slice::from_ref(&int)).unwrap();
    let stats_types = vec![
        int.clone(),
        DataType::string(),
        DataType::nullable(TypeKind::Double),
    ];
    let row = |i: i32| {
        serialize_datums(
            &[
                Datum::Int(i),
                Datum::String(format!("value-{i:08}")),
                Datum::Double(f64::from(i)),
            ],
            &stats_types,
        )
        .unwrap()
    };
    let files = (0..n as i32)
        .map(|i| DataFileMeta {
            file_name: format!("data-4f0c2d1e-8a7b-4c1d-9e2f-{i:012}-0.parquet"),
            file_size: 128 << 20,
            row_count: 1_000_000,
            min_key: key(i * 10).into(),
            max_key: key(i * 10 + 9).into(),
            key_stats: SimpleStats {
                min_values: key(i * 10).into(),
                max_values: key(i * 10 + 9).into(),
                null_counts: Some(vec![Some(0)].into()),
            },
            value_stats: SimpleStats {
                min_values: row(i).into(),
                max_values: row(i + 1).into(),
                null_counts: Some(vec![Some(0), Some(3), None].into()),
            },
            min_sequence_number: i64::from(i) * 1000,
            max_sequence_number: i64::from(i) * 1000 + 999,
            schema_id: 0,
            level: 5,
            extra_files: vec![],
            creation_time: Some(1_700_000_000_000),
            delete_row_count: Some(0),
            embedded_index: None,
            file_source: Some(1),
            value_stats_cols: None,
            external_path: None,
            first_row_id: None,
            write_cols: None,
            write_cols_sequences: None,
        })
        .collect::<Vec<_>>();
    let dvs = (0..n)
        .map(|i| {
            (i % 3 == 0).then(|| DeletionFile {
                path: "/warehouse/db.db/t/index/index-abc-0".into(),
                offset: i as i64 * 40 + 1,
                length: 36,
                cardinality: Some(3),
            })
        })
        .collect();
    DataSplit {
        snapshot_id: 42,
        partition: serialize_datums(&[Datum::String("2026-11-29".into())], &[DataType::string()])
            .unwrap(),
        bucket: 3,
        bucket_path: "/warehouse/db.db/t/dt=2026-11-29/bucket-3".into(),
        total_buckets: Some(8),
        before_files: vec![],
        before_deletion_files: None,
        data_files: files,
        data_deletion_files: Some(dvs),
        is_streaming: false,
        raw_convertible: true,
    }
}

fn bench(c: &mut Criterion) {
    let split = split_of(1000);
    let raw = encode_split(&split, 9, SplitEnvelope::Raw).unwrap();
    let java = encode_split(&split, 9, SplitEnvelope::JavaObject).unwrap();
    let mut g = c.benchmark_group("split_1000_files");
    g.throughput(Throughput::Bytes(raw.len() as u64));
    g.bench_function("encode_v9_raw", |b| {
        b.iter(|| encode_split(&split, 9, SplitEnvelope::Raw).unwrap())
    });
    g.bench_function("decode_v9_raw", |b| b.iter(|| decode_split(&raw).unwrap()));
    g.bench_function("decode_v9_java_object", |b| {
        b.iter(|| decode_split(&java).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
