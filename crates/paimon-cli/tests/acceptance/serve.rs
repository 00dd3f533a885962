//! `paimon serve`: prints the bound URL when ready (port 0), answers the REST API under the
//! warehouse's name, refuses a wrong token, and exits 0 on SIGTERM.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::process::{Command, Stdio};

fn get(url: &str, path: &str, token: &str) -> (u16, String) {
    let addr = url.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status = text.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (status, body)
}

#[test]
fn serve_prints_its_url_answers_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("my_wh");
    std::fs::create_dir_all(wh.join("sales.db")).unwrap();
    let auth = dir.path().join("users");
    std::fs::write(&auth, "tok-a alice admin\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_paimon"))
        .arg("serve")
        .arg(&wh)
        .args(["--rest-bind", "127.0.0.1:0", "--auth"])
        .arg(&auth)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url:?}");

    // The default warehouse name is the directory's last component.
    let (status, body) = get(&url, "/v1/config?warehouse=my_wh", "tok-a");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"prefix\":\"my_wh\""), "{body}");
    let (status, body) = get(&url, "/v1/my_wh/databases", "tok-a");
    assert_eq!(
        (status, body.as_str()),
        (200, r#"{"databases":["sales"],"nextPageToken":null}"#)
    );
    let (status, _) = get(&url, "/v1/my_wh/databases", "tok-b");
    assert_eq!(status, 401);

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

/// A policies file that cannot be used stops `serve` before it binds, naming the file and
/// what is wrong: malformed JSON, a misspelt key, a filter naming a column the table lacks.
#[test]
fn serve_refuses_a_malformed_policies_file_at_startup() {
    let dir = tempfile::tempdir().unwrap();
    let auth = dir.path().join("users");
    std::fs::write(&auth, "tok-a alice read\n").unwrap();
    let warehouse =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/warehouse");
    for (text, needle) in [
        ("{\"policies\": [", "not JSON"),
        (
            r#"{"policies": [{"user": "alice", "table": "append.unaware", "row_filter": "id > 1"}]}"#,
            "unknown key \"row_filter\"",
        ),
        (
            r#"{"policies": [{"user": "alice", "table": "append.unaware", "rowFilter": "nope > 1"}]}"#,
            "the policy of user alice on append.unaware",
        ),
    ] {
        let policies = dir.path().join("policies.json");
        std::fs::write(&policies, text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_paimon"))
            .arg("serve")
            .arg(&warehouse)
            .args(["--rest-bind", "127.0.0.1:0", "--auth"])
            .arg(&auth)
            .arg("--policies")
            .arg(&policies)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{text}: started");
        assert!(out.stdout.is_empty(), "{text}: printed a URL");
        assert!(
            err.contains("policies.json") && err.contains(needle),
            "{needle}: {err}"
        );
    }
}
