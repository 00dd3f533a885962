//! Decompression bombs: a small container whose blocks inflate to gigabytes is refused once
//! the file's [`InflateBudget`] is spent, with a typed error naming the file, after inflating
//! at most the budget (64 MiB here) rather than 1 GiB per block and thread.

use std::io::Write;

use paimon_format::avro::*;
use paimon_test_utils::copy_dir;

const MIB: usize = 1 << 20;

fn zz(v: i64) -> Vec<u8> {
    let mut u = ((v << 1) ^ (v >> 63)) as u64;
    let mut out = Vec::new();
    while u >= 0x80 {
        out.push((u as u8) | 0x80);
        u >>= 7;
    }
    out.push(u as u8);
    out
}

/// A zstd frame of `n` MiB of zeros, written by streaming so that the test never holds them.
fn zstd_zeros(n: usize) -> Vec<u8> {
    let zeros = vec![0u8; MIB];
    let mut e = zstd::stream::write::Encoder::new(Vec::new(), 1).unwrap();
    for _ in 0..n {
        e.write_all(&zeros).unwrap();
    }
    e.finish().unwrap()
}

/// A raw-deflate stream of `n` MiB of zeros, streamed the same way.
fn deflate_zeros(n: usize) -> Vec<u8> {
    let zeros = vec![0u8; MIB];
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    for _ in 0..n {
        e.write_all(&zeros).unwrap();
    }
    e.finish().unwrap()
}

/// A container of the manifest-entry schema whose blocks each claim one record.
fn container(codec: &str, blocks: &[&[u8]]) -> Vec<u8> {
    let schema = crate::manifest::encode::manifest_entry_type().schema_json();
    let mut f = MAGIC.to_vec();
    f.extend(zz(2));
    for (k, v) in [
        ("avro.schema", schema.as_bytes()),
        ("avro.codec", codec.as_bytes()),
    ] {
        f.extend(zz(k.len() as i64));
        f.extend(k.as_bytes());
        f.extend(zz(v.len() as i64));
        f.extend(v);
    }
    f.extend(zz(0));
    f.extend([7u8; 16]);
    for block in blocks {
        f.extend(zz(1));
        f.extend(zz(block.len() as i64));
        f.extend(*block);
        f.extend([7u8; 16]);
    }
    f
}

#[test]
fn the_budget_is_64_mib_or_64_times_the_file() {
    assert_eq!(InflateBudget::for_file(0).limit(), 64 * MIB);
    assert_eq!(InflateBudget::for_file(MIB).limit(), 64 * MIB);
    assert_eq!(InflateBudget::for_file(8 * MIB).limit(), 512 * MIB);
    assert_eq!(InflateBudget::for_file(usize::MAX).limit(), usize::MAX);
}

/// Four zstd blocks of 512 MiB of zeros each (2 GiB in a file of a few KiB): each block is
/// under the 1 GiB a block may hold, but together they break the file's budget.
#[test]
fn a_zstd_bomb_is_refused_by_the_file_budget() {
    let block = zstd_zeros(512);
    assert!(block.len() < 64 << 10, "{}", block.len());
    let file = container("zstandard", &[&block, &block, &block, &block]);

    let e = read_container(&file).unwrap_err();
    assert!(e.to_string().contains("budget"), "{e}");
    assert!(e.to_string().contains(&format!("{}", 64 * MIB)), "{e}");

    let path = "/w/t/manifest/manifest-bomb-0";
    let e = crate::manifest::ManifestEntry::decode_manifest(path, file.clone().into()).unwrap_err();
    let crate::Error::Corrupt { path: p, reason } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(p, path);
    assert!(reason.contains("budget"), "{reason}");

    // The blocks decoded in parallel share the file's budget: every one is refused, and
    // together they inflated no more than it (plus one read of each thread).
    let (header, spans) = locate_blocks(&file).unwrap();
    assert_eq!(spans.len(), 4);
    let budget = InflateBudget::for_file(file.len());
    let errors: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = spans
            .iter()
            .map(|span| {
                let (header, file, budget) = (&header, &file, &budget);
                s.spawn(move || decode_block(header, file, *span, budget, |c, _| Ok(c.remaining())))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap().unwrap_err().to_string())
            .collect()
    });
    for e in &errors {
        assert!(e.to_string().contains("budget"), "{e}");
    }
}

/// A deflate block (deflate inflates at most about 1032:1) of 256 MiB of zeros.
#[test]
fn a_deflate_bomb_is_refused_by_the_file_budget() {
    let block = deflate_zeros(256);
    let file = container("deflate", &[&block]);
    let budget = InflateBudget::for_file(file.len()).limit();
    assert!(budget < 256 * MIB, "{budget}");
    let e = read_container(&file).unwrap_err();
    assert!(
        e.to_string().contains("deflate block") && e.to_string().contains("budget"),
        "{e}"
    );
}

/// Snappy names its length up front: a block claiming more than the budget is refused before
/// anything is allocated.
#[test]
fn a_snappy_block_claiming_more_than_the_budget_is_refused() {
    let mut body = Vec::new();
    // The varint length prefix of a snappy raw block: 512 MiB.
    let mut n = 512 * MIB;
    while n >= 0x80 {
        body.push((n as u8) | 0x80);
        n >>= 7;
    }
    body.push(n as u8);
    body.extend([0u8; 4]);
    let file = container("snappy", &[&body]);
    let e = read_container(&file).unwrap_err();
    assert!(e.to_string().contains("budget"), "{e}");
}

/// The manifest readers report the bound as `Corrupt` naming the file.
#[test]
fn zero_width_record_count_error_names_the_manifest() {
    use crate::manifest::{IndexManifestEntry, ManifestEntry, ManifestFileMeta};
    // A record of no fields: each claimed record takes zero bytes.
    let mut file = MAGIC.to_vec();
    file.extend(zz(2));
    for (k, v) in [
        ("avro.schema", r#"{"type":"record","name":"r","fields":[]}"#),
        ("avro.codec", "null"),
    ] {
        file.extend(zz(k.len() as i64));
        file.extend(k.as_bytes());
        file.extend(zz(v.len() as i64));
        file.extend(v.as_bytes());
    }
    file.extend(zz(0));
    file.extend([7u8; 16]);
    file.extend(zz(1 << 40));
    file.extend(zz(0));
    file.extend([7u8; 16]);
    let path = "t/manifest/manifest-empty-record-0";
    let errs = [
        ManifestEntry::decode_manifest(path, file.clone().into()).unwrap_err(),
        ManifestFileMeta::decode_list(path, file.clone().into()).unwrap_err(),
        IndexManifestEntry::decode_index_manifest(path, file.into()).unwrap_err(),
    ];
    for e in errs {
        assert!(
            matches!(&e, crate::Error::Corrupt { path: p, reason } if p == path && reason.contains("zero bytes")),
            "{e}"
        );
    }
}

/// Planning within a memory pool: a table whose data manifests are zstd bombs of three 16 MiB
/// blocks (48 MiB, within the file's own 64 MiB budget) is refused with
/// `ResourcesExhausted` naming the manifest once the blocks inflate beyond the pool's 8 MiB,
/// and leaves the pool as it was; planned without a pool, the same files inflate whole and
/// are refused as corrupt.
#[test]
fn a_bomb_is_refused_within_the_memory_pool() {
    use std::sync::Arc;
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/warehouse/append.db/unaware"
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("unaware");
    copy_dir(std::path::Path::new(fixture), &dir);
    let block = zstd_zeros(16);
    let bomb = container("zstandard", &[&block, &block, &block]);
    assert!(bomb.len() < MIB, "{}", bomb.len());
    assert!(InflateBudget::for_file(bomb.len()).limit() >= 48 * MIB);
    let mut bombs = Vec::new();
    for e in std::fs::read_dir(dir.join("manifest")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if !name.starts_with("manifest-list-") {
            std::fs::write(dir.join("manifest").join(&name), &bomb).unwrap();
            bombs.push(name);
        }
    }
    assert!(!bombs.is_empty());
    let table = crate::Table::open(
        Arc::new(paimon_io::LocalFileIO::new()),
        dir.to_str().unwrap(),
    )
    .unwrap();

    let pool = Arc::new(paimon_memory::GreedyMemoryPool::new(8 * MIB));
    let e = table
        .scan()
        .with_memory_pool(pool.clone())
        .plan()
        .unwrap_err();
    let crate::Error::ResourcesExhausted { limit, what, .. } = &e else {
        panic!("{e:?}")
    };
    assert!(*limit <= 8 * MIB, "{e}");
    assert!(bombs.iter().any(|b| what.contains(b.as_str())), "{e}");
    assert!(what.contains("memory pool"), "{e}");
    assert_eq!(paimon_memory::MemoryPool::reserved(pool.as_ref()), 0);

    let e = table.scan().plan().unwrap_err();
    assert!(matches!(e, crate::Error::Corrupt { .. }), "{e:?}");
}
