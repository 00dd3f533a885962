//! The HDFS backend against the one-node HDFS `scripts/test-hdfs.sh` starts
//! (`PAIMON_TEST_HDFS_URL=hdfs://127.0.0.1:PORT`); each test works below its own directory.
#![cfg(feature = "hdfs-native")]

use std::collections::BTreeMap;
use std::sync::Arc;

use paimon_io::{file_io_for, Error, FileIORef};

/// `hdfs://host:port/<name>`, emptied, and the FileIO for it, or `None` when no HDFS was
/// started.
fn scratch(name: &str) -> Option<(FileIORef, String)> {
    let url = std::env::var("PAIMON_TEST_HDFS_URL").ok()?;
    let dir = format!("{}/{name}", url.trim_end_matches('/'));
    let io = file_io_for(&dir).unwrap();
    io.delete_dir(&dir).unwrap();
    Some((io, dir))
}

fn skip(test: &str) {
    eprintln!("{test}: PAIMON_TEST_HDFS_URL not set (run scripts/test-hdfs.sh); nothing to check");
}

/// Deterministic bytes that differ at every offset.
fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[2] ^ seed)
        .collect()
}

#[test]
fn hdfs_files_round_trip_across_blocks() {
    let Some((io, dir)) = scratch("round-trip") else {
        return skip("hdfs_files_round_trip_across_blocks");
    };
    // 9 MiB: more than one write part (8 MiB) and nine 1 MiB blocks of the test cluster.
    let data = pattern(9 << 20, 7);
    let path = format!("{dir}/bucket-0/data-1.parquet");
    let mut w = io.create(&path).unwrap();
    for chunk in data.chunks(300_001) {
        std::io::Write::write_all(&mut w, chunk).unwrap();
    }
    assert_eq!(w.position(), data.len() as u64);
    assert_eq!(w.close().unwrap(), data.len() as u64);

    assert_eq!(io.size(&path).unwrap(), data.len() as u64);
    assert_eq!(&io.read(&path).unwrap()[..], &data[..]);
    let r = (1 << 20) - 5..(3 << 20) + 11;
    assert_eq!(
        &io.read_range(&path, r.start as u64..r.end as u64).unwrap()[..],
        &data[r]
    );
    assert!(matches!(
        io.read_range(&path, 0..data.len() as u64 + 1),
        Err(Error::InvalidRange { .. })
    ));
    let listed = io.list(&format!("{dir}/bucket-0")).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].path, path);
    assert_eq!(listed[0].size, data.len() as u64);
    assert!(!listed[0].is_dir);
    assert!(io.status(&format!("{dir}/bucket-0")).unwrap().is_dir);

    // A second create of the same path is refused by the name node, whatever the content.
    assert!(matches!(io.create(&path), Err(Error::AlreadyExists { .. })));
    assert!(matches!(
        io.write_new(&path, b"x"),
        Err(Error::AlreadyExists { .. })
    ));
    assert_eq!(io.size(&path).unwrap(), data.len() as u64);

    // Overwrite replaces; delete answers whether something was there.
    io.overwrite(&path, b"small").unwrap();
    assert_eq!(&io.read(&path).unwrap()[..], b"small");
    assert!(io.delete(&path).unwrap());
    assert!(!io.delete(&path).unwrap());
    assert!(matches!(io.read(&path), Err(Error::NotFound { .. })));
    assert!(io.delete_dir(&dir).unwrap());
    assert!(!io.exists(&dir).unwrap());
}

#[test]
fn hdfs_abort_removes_the_partial_file() {
    let Some((io, dir)) = scratch("abort") else {
        return skip("hdfs_abort_removes_the_partial_file");
    };
    let path = format!("{dir}/data-2.orc");
    let mut w = io.create(&path).unwrap();
    std::io::Write::write_all(&mut w, &pattern(9 << 20, 3)).unwrap();
    w.abort().unwrap();
    assert!(!io.exists(&path).unwrap());
    // The path is free again.
    io.write_new(&path, b"after").unwrap();
    assert_eq!(&io.read(&path).unwrap()[..], b"after");
}

#[test]
fn hdfs_publish_if_absent_keeps_the_first_file() {
    let Some((io, dir)) = scratch("publish") else {
        return skip("hdfs_publish_if_absent_keeps_the_first_file");
    };
    let path = format!("{dir}/snapshot/snapshot-1");
    assert!(io
        .publish_if_absent(&path, b"{\"id\":1,\"by\":\"a\"}")
        .unwrap());
    assert!(!io
        .publish_if_absent(&path, b"{\"id\":1,\"by\":\"b\"}")
        .unwrap());
    assert_eq!(&io.read(&path).unwrap()[..], b"{\"id\":1,\"by\":\"a\"}");
    // The refused publisher's temporary file is gone: only the snapshot is listed.
    let names: Vec<_> = io
        .list(&format!("{dir}/snapshot"))
        .unwrap()
        .into_iter()
        .map(|s| s.path)
        .collect();
    assert_eq!(names, vec![path]);
}

/// Eight committers race for snapshot ids as a commit does: each tries the next id and moves
/// on when it lost. Every id must have exactly one winner, whose bytes are the file's.
#[test]
fn hdfs_racing_publishers_get_one_winner_per_id() {
    let Some((io, dir)) = scratch("race") else {
        return skip("hdfs_racing_publishers_get_one_winner_per_id");
    };
    const WRITERS: usize = 8;
    const COMMITS: usize = 5;
    let io: FileIORef = Arc::clone(&io);
    let handles: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (io, dir) = (Arc::clone(&io), dir.clone());
            std::thread::spawn(move || {
                let mut won = Vec::new();
                let mut id = 1;
                while won.len() < COMMITS {
                    let body = format!("writer {w} commit {}", won.len());
                    if io
                        .publish_if_absent(&format!("{dir}/snapshot-{id}"), body.as_bytes())
                        .unwrap()
                    {
                        won.push((id, body));
                    }
                    id += 1;
                }
                won
            })
        })
        .collect();
    let mut winners = BTreeMap::new();
    for h in handles {
        for (id, body) in h.join().unwrap() {
            assert!(
                winners.insert(id, body).is_none(),
                "two publishers won snapshot-{id}"
            );
        }
    }
    // Dense ids: 40 commits are snapshots 1..=40, each holding its one winner's bytes.
    assert_eq!(
        winners.keys().copied().collect::<Vec<_>>(),
        (1..=WRITERS * COMMITS).collect::<Vec<_>>()
    );
    for (id, body) in &winners {
        assert_eq!(
            &io.read(&format!("{dir}/snapshot-{id}")).unwrap()[..],
            body.as_bytes()
        );
    }
    assert_eq!(io.list(&dir).unwrap().len(), WRITERS * COMMITS);
}

/// `delete_empty_dir` (what expiry removes an emptied bucket or partition directory with)
/// removes an empty directory, and leaves a directory holding a file, and the file, in place;
/// an absent directory answers `false`, and a file is not a directory.
#[test]
fn hdfs_delete_empty_dir_keeps_a_directory_with_a_file() {
    let Some((io, dir)) = scratch("delete-empty-dir") else {
        return skip("hdfs_delete_empty_dir_keeps_a_directory_with_a_file");
    };
    let empty = format!("{dir}/p=1/bucket-0");
    io.mkdirs(&empty).unwrap();
    assert!(io.status(&empty).unwrap().is_dir);
    assert!(io.delete_empty_dir(&empty).unwrap());
    assert!(!io.exists(&empty).unwrap());
    assert!(!io.delete_empty_dir(&empty).unwrap());

    let full = format!("{dir}/p=2/bucket-0");
    let file = format!("{full}/data-0.parquet");
    io.write_new(&file, b"rows").unwrap();
    assert!(!io.delete_empty_dir(&full).unwrap());
    assert!(io.status(&full).unwrap().is_dir);
    assert_eq!(&io.read(&file).unwrap()[..], b"rows");
    // The parent holds the directory: not empty either.
    assert!(!io.delete_empty_dir(&format!("{dir}/p=2")).unwrap());
    assert!(io.exists(&file).unwrap());
    assert!(io.delete_empty_dir(&file).is_err());
    assert!(io.exists(&file).unwrap());
}
