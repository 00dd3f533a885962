//! The fast entry decoder against the generic one, whole files and block by block.

use super::*;

fn manifests(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            manifests(&p, out);
        } else if p.parent().is_some_and(|d| d.ends_with("manifest"))
            && p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("manifest-") && !n.starts_with("manifest-list"))
        {
            out.push(p);
        }
    }
}

/// Every Avro data manifest of the shared test tables that the generic decoder reads: its
/// path, bytes and the generic decoder's entries.
fn avro_manifests() -> Vec<(String, Vec<u8>, Vec<ManifestEntry>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata");
    let mut files = Vec::new();
    manifests(&root, &mut files);
    files
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            if !bytes.starts_with(paimon_format::avro::MAGIC) {
                return None;
            }
            let path = p.display().to_string();
            let tree = ManifestEntry::decode_generic_for_tests(&path, bytes.clone().into()).ok()?;
            Some((path, bytes, tree))
        })
        .collect()
}

fn fast(bytes: &[u8], opts: DecodeOptions) -> paimon_format::Result<Vec<ManifestEntry>> {
    let mut out = Vec::new();
    paimon_format::avro::for_each_block(
        bytes,
        |h| EntryPlan::new(&h.schema),
        |plan, c, count| {
            for _ in 0..count {
                out.push(decode_entry(c, plan, opts)?);
            }
            Ok(())
        },
    )?;
    Ok(out)
}

/// The fast decoder gives exactly the generic decoder's entries on every Avro data manifest
/// of the shared test tables (every layout Java has written).
#[test]
fn agrees_with_the_generic_decoder_on_every_test_manifest() {
    let mut checked = 0;
    for (path, bytes, tree) in avro_manifests() {
        let mine = fast(&bytes, DecodeOptions::default())
            .unwrap_or_else(|e| panic!("{path}: fast decoder failed: {e}"));
        assert_eq!(mine, tree, "{path}");
        // Block by block, as planning decodes them in parallel.
        let blocks = ManifestEntry::blocks(path.clone(), bytes.clone().into());
        assert!(blocks.block_count() > 0, "{path}");
        let mut by_block = Vec::new();
        for i in 0..blocks.block_count() {
            assert_eq!(blocks.first_entry(i), by_block.len(), "{path}");
            let entries = blocks.decode_block(i, DecodeOptions::default()).unwrap();
            by_block.extend(entries.unwrap_or_else(|| panic!("{path}: block {i} rejected")));
        }
        assert_eq!(by_block, tree, "{path}: block by block");
        let lean = fast(
            &bytes,
            DecodeOptions {
                keep_value_stats: false,
            },
        )
        .unwrap();
        for (a, b) in lean.iter().zip(&tree) {
            assert_eq!(a.file.value_stats, SimpleStats::empty());
            let mut b = b.clone();
            b.file.value_stats = SimpleStats::empty();
            assert_eq!(*a, b);
        }
        checked += 1;
    }
    assert!(
        checked > 0,
        "no Avro manifests found under ../shared/testdata"
    );
}

/// A block whose bytes do not decode is handed back (`None`) for the generic decoder,
/// which then names the manifest; the other blocks still decode.
#[test]
fn a_bad_block_falls_back_to_the_generic_decoder() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata");
    let mut files = Vec::new();
    manifests(&root, &mut files);
    let mut checked = 0;
    for p in files {
        let bytes = std::fs::read(&p).unwrap();
        let Ok((header, spans)) = paimon_format::avro::locate_blocks(&bytes) else {
            continue;
        };
        if header.codec != "zstandard" || spans.len() != 1 {
            continue;
        }
        let path = p.display().to_string();
        let span = spans[0];
        let mut bad = bytes.clone();
        // Flip the compressed payload past the zstd frame header: the block no longer
        // decompresses.
        for b in &mut bad[span.start + 6..span.end] {
            *b ^= 0x5a;
        }
        let blocks = ManifestEntry::blocks(path.clone(), bad.into());
        assert_eq!(blocks.block_count(), 1, "{path}");
        assert!(
            blocks
                .decode_block(0, DecodeOptions::default())
                .unwrap()
                .is_none(),
            "{path}"
        );
        let e = blocks
            .decode_all(DecodeOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains(&path), "{e}");
        checked += 1;
        if checked == 3 {
            break;
        }
    }
    assert!(
        checked > 0,
        "no one-block zstandard manifests under {}",
        root.display()
    );
}

/// Truncated or flipped bytes give errors (or other entries), never panics.
#[test]
fn bad_bytes_are_errors_not_panics() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata");
    let mut files = Vec::new();
    manifests(&root, &mut files);
    let Some(p) = files.into_iter().find(|p| {
        std::fs::read(p).is_ok_and(|b| b.starts_with(paimon_format::avro::MAGIC) && b.len() < 8192)
    }) else {
        return;
    };
    let good = std::fs::read(&p).unwrap();
    for cut in (0..good.len()).step_by(7) {
        let _ = fast(&good[..cut], DecodeOptions::default());
    }
    for i in (0..good.len()).step_by(3) {
        let mut b = good.clone();
        b[i] ^= 0xff;
        let _ = fast(&b, DecodeOptions::default());
        let _ = ManifestEntry::decode_manifest("x", b.into());
    }
}

/// Keys and stats rows that are the empty row come out shared (no allocation per file), the
/// others as their own bytes, from both decoders; the shared ones are exactly the empty row.
/// The same for null counts that are all zero.
#[test]
fn empty_rows_are_shared_and_other_rows_owned() {
    use std::borrow::Cow;
    let (mut shared, mut owned) = (0, 0);
    let (mut shared_counts, mut owned_counts) = (0, 0);
    for (path, bytes, tree) in avro_manifests() {
        let mine = fast(&bytes, DecodeOptions::default()).unwrap();
        for e in mine.iter().chain(&tree) {
            let f = &e.file;
            for counts in [&f.key_stats.null_counts, &f.value_stats.null_counts] {
                match counts {
                    Some(Cow::Borrowed(c)) => {
                        assert!(c.iter().all(|n| *n == Some(0)), "{path}: {c:?}");
                        shared_counts += 1;
                    }
                    Some(Cow::Owned(c)) => {
                        assert!(c.iter().any(|n| *n != Some(0)), "{path}: {c:?}");
                        owned_counts += 1;
                    }
                    None => {}
                }
            }
            for row in [
                &f.min_key,
                &f.max_key,
                &f.key_stats.min_values,
                &f.key_stats.max_values,
                &f.value_stats.min_values,
                &f.value_stats.max_values,
            ] {
                match row {
                    Cow::Borrowed(b) => {
                        assert_eq!(*b, &[0u8; 12][..], "{path}");
                        shared += 1;
                    }
                    Cow::Owned(v) => {
                        assert_ne!(v.as_slice(), &[0u8; 12][..], "{path}");
                        owned += 1;
                    }
                }
            }
        }
    }
    // Append tables' keys are empty rows; primary-key tables' are not.
    assert!(
        shared > 100 && owned > 100,
        "shared {shared}, owned {owned}"
    );
    // Null counts: shared when every count is zero, owned when a column has nulls.
    assert!(
        shared_counts > 100 && owned_counts > 10,
        "null counts shared {shared_counts}, owned {owned_counts}"
    );
}
