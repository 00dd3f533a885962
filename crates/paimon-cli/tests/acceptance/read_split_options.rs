//! `paimon read-split --options FILE` reads a Flight split ticket's split bytes with its read
//! options and prints the rows `paimon read` prints for the same scan (and Java wrote); a
//! worker (`paimon serve --worker-bind 127.0.0.1:0`) prints its URL and stops on SIGTERM.

use std::collections::BTreeSet;
use std::io::{BufRead as _, BufReader, Read as _};
use std::process::{Command, Stdio};

use paimon_serve::flight::split_ticket::SplitTicket;
use paimon_test_utils::repo;

fn paimon(args: &[&str]) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn read_split_reads_a_tickets_splits_with_its_read_options() {
    let wh = repo().join("fixtures/warehouse");
    let table = paimon_rs::Catalog::filesystem(wh.to_str().unwrap())
        .unwrap()
        .table("pk.dedup_compacted")
        .unwrap();
    let scan = table
        .scan()
        .with_projection(["id", "v"])
        .with_filter("id < 12")
        .unwrap();
    let ticket = SplitTicket {
        database: "pk".into(),
        table: "dedup_compacted".into(),
        options: scan.read_options_bytes().unwrap(),
        splits: scan.plan().unwrap().split_bytes().unwrap(),
    };
    // What a client holds: the ticket's bytes.
    let ticket = SplitTicket::decode(&ticket.encode().unwrap().ticket).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let options = dir.path().join("options.json");
    std::fs::write(&options, &ticket.options).unwrap();
    let mut args = vec!["read-split".to_string(), "--format".into(), "jsonl".into()];
    args.push("--options".into());
    args.push(options.display().to_string());
    let path = wh.join("pk.db/dedup_compacted").display().to_string();
    args.push(path.clone());
    for (i, s) in ticket.splits.iter().enumerate() {
        let f = dir.path().join(format!("split-{i}"));
        std::fs::write(&f, s).unwrap();
        args.push(f.display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let got = paimon(&args);
    let read = paimon(&[
        "read", &path, "--select", "id,v", "--filter", "id < 12", "--format", "jsonl",
    ]);
    assert_eq!(got, read);
    // Java's rows (fixtures/expected) with id < 12: ids 3 and 5..=11.
    let ids: BTreeSet<i64> = got
        .iter()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(ids, BTreeSet::from([3, 5, 6, 7, 8, 9, 10, 11]));

    // Options that do not decode are refused, naming the key.
    std::fs::write(&options, br#"{"version":1,"with_kind":true}"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(["read-split", "--options", options.to_str().unwrap(), &path])
        .arg(dir.path().join("split-0"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown key 'with_kind'"), "{err}");
}

#[test]
fn a_worker_prints_its_url_and_stops_on_sigterm() {
    let wh = repo().join("fixtures/warehouse");
    let mut child = Command::new(env!("CARGO_BIN_EXE_paimon"))
        .arg("serve")
        .arg(&wh)
        .args(["--worker-bind", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.trim().starts_with("grpc://127.0.0.1:"), "{line:?}");
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "{status}: {err}");
}
