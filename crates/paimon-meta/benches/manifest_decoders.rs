//! Decoding Java-written Avro manifests three ways (issue 4: "measure arrow-avro against
//! apache-avro for manifest decoding"): paimon-meta's own schema-specialized decoder, which
//! builds `ManifestEntry` values straight from the block bytes; `arrow-avro` to Arrow record
//! batches; and `apache-avro` to its generic `Value` tree. The two crates stop at their own
//! representation, so they do less work than ours (no `ManifestEntry` is built).
//!
//! Input: the first 300 data manifests of the planning table (`scripts/bench.sh` writes it to
//! `.cache/bench/planning-100000`; `PAIMON_PLANNING_TABLE` points elsewhere), zstd-compressed
//! as Java writes them. Without the table the bench says so and measures nothing. Run:
//! `cargo bench -p paimon-meta --bench manifest_decoders`.

use std::io::Cursor;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn manifests() -> Vec<(String, bytes::Bytes)> {
    let table = std::env::var_os("PAIMON_PLANNING_TABLE").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.cache/bench/planning-100000"),
        PathBuf::from,
    );
    let Ok(dir) = std::fs::read_dir(table.join("manifest")) else {
        return Vec::new();
    };
    let mut names: Vec<PathBuf> = dir
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("manifest-") && !n.starts_with("manifest-list-"))
        })
        .collect();
    names.sort();
    names.truncate(300);
    names
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).expect("read a manifest");
            (p.to_string_lossy().into_owned(), bytes.into())
        })
        .collect()
}

fn decoders(c: &mut Criterion) {
    let files = manifests();
    if files.is_empty() {
        eprintln!(
            "manifest_decoders bench: no planning table (run scripts/bench.sh, or set \
             PAIMON_PLANNING_TABLE); nothing measured"
        );
        return;
    }
    let entries: usize = files
        .iter()
        .map(|(p, b)| {
            paimon_meta::manifest::ManifestEntry::decode_manifest(p, b.clone())
                .expect("our decoder")
                .len()
        })
        .sum();
    let mut group = c.benchmark_group(format!("manifests_{}_files_{entries}_entries", files.len()));
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8))
        .throughput(Throughput::Elements(entries as u64));
    group.bench_function("paimon_meta_entries", |b| {
        b.iter(|| {
            files
                .iter()
                .map(|(p, bytes)| {
                    paimon_meta::manifest::ManifestEntry::decode_manifest(p, bytes.clone())
                        .expect("our decoder")
                        .len()
                })
                .sum::<usize>()
        })
    });
    group.bench_function("arrow_avro_batches", |b| {
        b.iter(|| {
            files
                .iter()
                .map(|(_, bytes)| {
                    arrow_avro::reader::ReaderBuilder::new()
                        .with_batch_size(8192)
                        .build(Cursor::new(bytes.clone()))
                        .expect("arrow-avro reader")
                        .map(|batch| batch.expect("arrow-avro batch").num_rows())
                        .sum::<usize>()
                })
                .sum::<usize>()
        })
    });
    group.bench_function("apache_avro_values", |b| {
        b.iter(|| {
            files
                .iter()
                .map(|(_, bytes)| {
                    apache_avro::Reader::new(Cursor::new(bytes.clone()))
                        .expect("apache-avro reader")
                        .fold(0usize, |n, value| {
                            value.expect("apache-avro value");
                            n + 1
                        })
                })
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, decoders);
criterion_main!(benches);
