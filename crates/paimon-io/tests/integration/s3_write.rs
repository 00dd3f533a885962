//! The write side and async ranged reads of the S3 backend, against the server
//! `scripts/test-s3.sh` starts (`PAIMON_TEST_S3_TABLES` set); each test writes below its own
//! prefix of the fixtures' bucket.
#![cfg(feature = "s3")]

use std::sync::Arc;

use paimon_io::{Error, FileIO, FileIORef, ObjectStoreFileIO, S3Options};

/// `s3://bucket/<name>` in the fixtures' bucket, or `None` when no server was started.
fn scratch(name: &str) -> Option<(FileIORef, String)> {
    let spec = std::env::var("PAIMON_TEST_S3_TABLES").ok()?;
    let url = spec.split('=').next().unwrap_or_default();
    let bucket = url
        .strip_prefix("s3://")
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("bad PAIMON_TEST_S3_TABLES {spec}"));
    let io: FileIORef = Arc::new(ObjectStoreFileIO::s3(S3Options::from_env()));
    Some((io, format!("s3://{bucket}/{name}")))
}

fn skip(test: &str) {
    eprintln!("{test}: PAIMON_TEST_S3_TABLES not set (run scripts/test-s3.sh); nothing to check");
}

/// Deterministic bytes that differ at every offset of a part.
fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[1] ^ seed)
        .collect()
}

/// Whether the server refuses a PUT with `If-None-Match: *` on an existing key; printed, so
/// the output says which checks of the one-winner property ran.
fn honours_if_none_match(io: &dyn FileIO, dir: &str) -> bool {
    let probe = format!("{dir}/probe");
    io.overwrite(&probe, b"first").unwrap();
    let refused = !io.publish_if_absent(&probe, b"second").unwrap();
    let kept = io.read(&probe).unwrap();
    assert_eq!(
        &kept[..],
        if refused {
            &b"first"[..]
        } else {
            &b"second"[..]
        },
        "the probe's content disagrees with publish_if_absent's answer"
    );
    if !refused {
        eprintln!(
            "NOTE: this S3 server ignores If-None-Match: * on PUT (moto_server does, depending \
             on its version); publish_if_absent's one-winner property is NOT checked here"
        );
    }
    refused
}

#[test]
fn s3_write_read_delete_round_trips() {
    let Some((io, dir)) = scratch("scratch-round-trip") else {
        return skip("s3_write_read_delete_round_trips");
    };
    let small = format!("{dir}/small");
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    io.write_new(&small, b"hello").unwrap();
    assert_eq!(&io.read(&small).unwrap()[..], b"hello");
    let st = io.status(&small).unwrap();
    assert_eq!((st.size, st.is_dir), (5, false));
    // S3 reports seconds: allow the second boundary and some clock skew.
    let modified = st.modified_ms.expect("S3 reports a last-modified time");
    assert!(
        (modified - before).abs() < 60_000,
        "modified {modified}, now {before}"
    );
    if honours_if_none_match(io.as_ref(), &dir) {
        let err = io.write_new(&small, b"again").unwrap_err();
        assert!(matches!(err, Error::AlreadyExists { .. }), "{err}");
        assert_eq!(&io.read(&small).unwrap()[..], b"hello");
    }

    // 20 MiB and a bit: a multipart upload of three parts, the last one short.
    let big = format!("{dir}/sub/big");
    let want = pattern((20 << 20) + 12_345, 7);
    let mut w = io.create(&big).unwrap();
    for chunk in want.chunks(1 << 20) {
        std::io::Write::write_all(&mut w, chunk).unwrap();
    }
    assert_eq!(w.position(), want.len() as u64);
    assert_eq!(w.close().unwrap(), want.len() as u64);
    assert_eq!(io.size(&big).unwrap(), want.len() as u64);
    assert!(io.read(&big).unwrap() == want[..], "multipart content");

    // An aborted multipart upload leaves nothing.
    let aborted = format!("{dir}/aborted");
    let mut w = io.create(&aborted).unwrap();
    std::io::Write::write_all(&mut w, &pattern(9 << 20, 1)).unwrap();
    w.abort().unwrap();
    assert!(!io.exists(&aborted).unwrap());

    io.overwrite(&small, b"replaced").unwrap();
    assert_eq!(&io.read(&small).unwrap()[..], b"replaced");

    let listing = io.list(&dir).unwrap();
    let names: Vec<_> = listing.iter().map(|s| s.name().to_string()).collect();
    assert!(names.contains(&"small".to_string()) && names.contains(&"sub".to_string()));
    let small_entry = listing.iter().find(|s| s.name() == "small").unwrap();
    assert_eq!(small_entry.size, 8);
    assert!(small_entry.modified_ms.is_some(), "{small_entry:?}");
    let sub = io.status(&format!("{dir}/sub")).unwrap();
    assert!(sub.is_dir, "{sub:?}");
    io.mkdirs(&format!("{dir}/empty")).unwrap();

    assert!(io.delete(&small).unwrap());
    assert!(!io.delete(&small).unwrap());
    assert!(io.status(&small).unwrap_err().is_not_found());
    assert!(io.delete_dir(&dir).unwrap());
    assert!(!io.exists(&big).unwrap());
    assert!(!io.exists(&dir).unwrap());
    assert!(!io.delete_dir(&dir).unwrap());
}

#[test]
fn s3_publish_if_absent_has_one_winner() {
    let Some((io, dir)) = scratch("scratch-publish") else {
        return skip("s3_publish_if_absent_has_one_winner");
    };
    if !honours_if_none_match(io.as_ref(), &dir) {
        // The server cannot judge the race; what is still checked is that a free name is
        // taken with the caller's bytes.
        let path = format!("{dir}/snapshot-free");
        assert!(io.publish_if_absent(&path, b"only").unwrap());
        assert_eq!(&io.read(&path).unwrap()[..], b"only");
        io.delete_dir(&dir).unwrap();
        return;
    }
    for round in 0..5 {
        let path = format!("{dir}/snapshot-{round}");
        let wins: Vec<(usize, bool)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|t| {
                    let (io, path) = (&io, &path);
                    s.spawn(move || {
                        let body = format!("writer {t}");
                        (t, io.publish_if_absent(path, body.as_bytes()).unwrap())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let winners: Vec<usize> = wins.iter().filter(|w| w.1).map(|w| w.0).collect();
        assert_eq!(winners.len(), 1, "round {round}: winners {winners:?}");
        let body = io.read(&path).unwrap();
        assert_eq!(body, format!("writer {}", winners[0]).as_bytes());
    }
    io.delete_dir(&dir).unwrap();
}

#[test]
fn s3_async_reads_from_another_runtime_and_executor() {
    let Some((io, dir)) = scratch("scratch-async") else {
        return skip("s3_async_reads_from_another_runtime_and_executor");
    };
    let path = format!("{dir}/data");
    let want = pattern(3 << 20, 3);
    io.overwrite(&path, &want).unwrap();
    let ranges: Vec<_> = (0..16u64)
        .map(|i| i * 190_000..i * 190_000 + 70_001)
        .collect();
    // A single-threaded tokio runtime: a blocking wait here would deadlock it, a nested
    // block_on would panic.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let got = rt.block_on(futures::future::join_all(
        ranges.iter().map(|r| io.read_range_async(&path, r.clone())),
    ));
    for (r, g) in ranges.iter().zip(got) {
        assert!(
            g.unwrap() == want[r.start as usize..r.end as usize],
            "{r:?}"
        );
    }
    // No tokio at all.
    let tail = futures::executor::block_on(io.read_range_async(&path, 3_000_000..3 << 20));
    assert!(tail.unwrap() == want[3_000_000..]);
    let err = futures::executor::block_on(io.read_range_async(&path, 0..(3 << 20) + 1));
    assert!(
        matches!(err, Err(Error::InvalidRange { size, .. }) if size == 3 << 20),
        "{err:?}"
    );
    let missing = futures::executor::block_on(io.read_range_async(&format!("{dir}/no"), 0..1));
    assert!(missing.unwrap_err().is_not_found());
    // The whole file, its size and the directory, from the single-threaded runtime.
    let (whole, size, list) = rt.block_on(async {
        futures::join!(
            io.read_async(&path),
            io.size_async(&path),
            io.list_async(&dir)
        )
    });
    assert!(whole.unwrap() == want);
    assert_eq!(size.unwrap(), 3 << 20);
    let names: Vec<String> = list.unwrap().iter().map(|s| s.name().to_string()).collect();
    assert_eq!(names, ["data"]);
    let missing = rt.block_on(io.read_async(&format!("{dir}/no")));
    assert!(missing.unwrap_err().is_not_found());
    let missing = rt.block_on(io.size_async(&format!("{dir}/no")));
    assert!(missing.unwrap_err().is_not_found());
    io.delete_dir(&dir).unwrap();
}
