//! Java 2.0.0's `SPLIT_V1` frames: its release's `SplitSerializerTest` goldens
//! (`split-v1-<kind>` at apache/paimon's `release-2.0.0` tag). They hold the splits the Java
//! master goldens in `../shared/testdata/java-compat` hold (the test builds the same values;
//! master adds one null DataFileMeta field), written with 2.0's layouts: DataSplit v8
//! (20-field DataFileMeta) inside, ChainSplit body version 2, and an incremental split with no
//! body version at all (Java 2.1 reads only a versioned one). The 2.0.0 bytes stay in
//! apache/paimon; here each is pinned by its length and FNV-1a 64 fingerprint, and our encoder
//! must produce exactly those bytes from the master golden's values, and decode them back.

use paimon_split::frame::{Split, INCREMENTAL_FRAME_JAVA_2_0};
use paimon_split::{decode_any, encode_frame, Error};

use crate::common::read;

/// (kind, length, FNV-1a 64) of Java 2.0.0's `split-v1-<kind>`.
const JAVA_2_0_0: [(&str, usize, u64); 7] = [
    ("chain", 1419, 0x8d02_89c9_077d_4504),
    ("data", 896, 0xf673_1820_c55a_7a45),
    ("fallback", 1436, 0xe086_42af_ffef_4751),
    ("fallback-data", 897, 0x53a2_19d3_f169_fa8b),
    ("incremental", 930, 0x61cd_61cb_b4cd_b128),
    ("indexed", 961, 0x1aa8_389d_88a1_24de),
    ("query-auth", 1011, 0xf583_92f4_e6b2_134b),
];

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The same split in Java 2.0's body versions (chain 2, incremental unversioned).
fn as_java_2_0(split: Split) -> Split {
    match split {
        Split::Chain(mut c) => {
            c.version = 2;
            Split::Chain(c)
        }
        Split::Incremental(mut i) => {
            i.version = INCREMENTAL_FRAME_JAVA_2_0;
            Split::Incremental(i)
        }
        Split::Fallback { is_fallback, split } => Split::Fallback {
            is_fallback,
            split: Box::new(as_java_2_0(*split)),
        },
        Split::QueryAuth { split, auth } => Split::QueryAuth {
            split: Box::new(as_java_2_0(*split)),
            auth,
        },
        other => other,
    }
}

#[test]
fn java_2_0_frames_are_encoded_byte_for_byte_and_read() {
    for (kind, len, fingerprint) in JAVA_2_0_0 {
        let master = decode_any(&read(&format!("java-compat/split-v1-{kind}")))
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        let split = as_java_2_0(master.split);
        let bytes = encode_frame(&split, 8).unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(
            (bytes.len(), fnv1a64(&bytes)),
            (len, fingerprint),
            "{kind}: our Java 2.0 frame differs from Java 2.0.0's golden"
        );
        let back = decode_any(&bytes).unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(back.split, split, "{kind}");
        if kind == "data" {
            assert_eq!(back.version, Some(8));
        }
    }
}

/// Java 2.0's incremental frame carries the values Java's test builds: snapshot 43 (the field
/// Java 2.1 would misread as a body version), and files in the 20-field layout.
#[test]
fn java_2_0_incremental_frame_values() {
    let master = decode_any(&read("java-compat/split-v1-incremental")).unwrap();
    let Split::Incremental(want) = as_java_2_0(master.split) else {
        panic!("expected an incremental split")
    };
    let bytes = encode_frame(&Split::Incremental(want.clone()), 8).unwrap();
    // [magic][frame version 1][type 2][snapshot id 43 as i64]: no body version.
    assert_eq!(&bytes[12..16], &2i32.to_be_bytes());
    assert_eq!(&bytes[16..24], &43i64.to_be_bytes());
    let Split::Incremental(got) = decode_any(&bytes).unwrap().split else {
        panic!("expected an incremental split")
    };
    assert_eq!(got.version, INCREMENTAL_FRAME_JAVA_2_0);
    assert_eq!(got.snapshot_id, 43);
    assert_eq!(got, want);
    assert!(got
        .before_files
        .iter()
        .chain(&got.after_files)
        .all(|f| f.write_cols_sequences.is_none()));
    // Java 2.0's unversioned body exists only in a frame: the object-stream form refuses it.
    let err = paimon_split::encode_decoded(
        &Split::Incremental(got),
        paimon_split::SplitEnvelope::JavaObject,
        8,
    )
    .unwrap_err();
    assert!(
        matches!(err, Error::VersionMismatch { found: 0, .. }),
        "{err}"
    );
}

/// Frame version 2 (`split-v2-*`, on Java master for a few days in July and August 2026 and
/// in no release) is refused by name, not read as version 1.
#[test]
fn split_frame_version_2_is_refused_by_name() {
    let mut bytes = read("java-compat/split-v1-data");
    bytes[8..12].copy_from_slice(&2i32.to_be_bytes());
    let err = decode_any(&bytes).unwrap_err();
    assert!(
        matches!(&err, Error::VersionMismatch { found: 2, supported } if supported.contains("SPLIT_V1 frame version 1")),
        "{err}"
    );
}
