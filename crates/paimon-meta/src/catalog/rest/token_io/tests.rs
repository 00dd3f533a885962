//! The data token's refresh against a server whose token expiry the test controls (a tiny
//! loopback HTTP server answering `GET .../token` as the REST API defines it), over a local
//! table directory (the storage a token would configure is not available in unit tests, so
//! the FileIO is made for the local path; what is checked is when the token is fetched and
//! what storage options a worker is handed).

use std::sync::{Arc, Mutex};

use super::*;
use crate::catalog::rest::test_http::serve;

const TOKEN_PATH: &str = "/v1/paimon/databases/db/tables/t/token";

struct TokenServer {
    url: String,
    /// Each fetch's token is `key-<n>`, expiring `expires_in` millis after the fetch.
    expires_in: Arc<Mutex<i64>>,
    fetches: Arc<Mutex<u32>>,
}

fn token_server() -> TokenServer {
    let expires_in = Arc::new(Mutex::new(0));
    let fetches = Arc::new(Mutex::new(0u32));
    let (e, f) = (expires_in.clone(), fetches.clone());
    let url = serve(move |path| {
        if path != TOKEN_PATH {
            return (404, r#"{"message":"no such path","code":404}"#.to_string());
        }
        let mut n = f.lock().unwrap();
        *n += 1;
        let at = chrono::Utc::now().timestamp_millis() + *e.lock().unwrap();
        (
            200,
            format!(r#"{{"token":{{"fs.oss.accessKeyId":"key-{n}"}},"expiresAtMillis":{at}}}"#),
        )
    });
    TokenServer {
        url,
        expires_in,
        fetches,
    }
}

fn local_io(path: &str, _: &BTreeMap<String, String>) -> paimon_io::Result<FileIORef> {
    paimon_io::file_io_for(path)
}

fn token_io(
    server: &TokenServer,
    dir: &str,
    token_path: &str,
) -> crate::error::Result<RestTokenFileIO> {
    let client = RestClient::new(&server.url, BTreeMap::new(), None).unwrap();
    RestTokenFileIO::new(
        client,
        token_path.to_string(),
        Identifier::parse("db.t").unwrap(),
        dir,
        BTreeMap::from([("fs.oss.endpoint".to_string(), "oss-x".to_string())]),
        local_io,
    )
}

/// A token good for more than the hour is used until it is within the hour of expiring
/// (Java `RESTTokenFileIO.shouldRefresh`), then the next file access fetches a new one;
/// workers are handed the catalog's storage options with the current token over them.
#[test]
fn data_token_is_fetched_again_within_the_hour_before_expiry() {
    let server = token_server();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), b"abc").unwrap();
    let d = dir.path().to_str().unwrap();
    let f = format!("{d}/f");

    *server.expires_in.lock().unwrap() = 2 * 3_600_000;
    let io = token_io(&server, d, TOKEN_PATH).unwrap();
    assert_eq!(
        *server.fetches.lock().unwrap(),
        1,
        "first token fetched on open"
    );
    assert_eq!(&io.read(&f).unwrap()[..], b"abc");
    assert_eq!(io.size(&f).unwrap(), 3);
    let opts = io.storage_options().unwrap().unwrap();
    assert_eq!(opts["fs.oss.accessKeyId"], "key-1");
    assert_eq!(opts["fs.oss.endpoint"], "oss-x");
    assert_eq!(
        *server.fetches.lock().unwrap(),
        1,
        "two hours left: not fetched again"
    );

    // The next token expires in 30 minutes: inside the window, so every access asks again.
    *server.expires_in.lock().unwrap() = 1_800_000;
    let io = token_io(&server, d, TOKEN_PATH).unwrap();
    assert_eq!(*server.fetches.lock().unwrap(), 2);
    assert!(io.exists(&f).unwrap());
    assert_eq!(*server.fetches.lock().unwrap(), 3);
    *server.expires_in.lock().unwrap() = 5 * 3_600_000;
    assert_eq!(
        io.storage_options().unwrap().unwrap()["fs.oss.accessKeyId"],
        "key-4"
    );
    // That one is good for five hours: kept.
    assert_eq!(&io.read(&f).unwrap()[..], b"abc");
    assert_eq!(*server.fetches.lock().unwrap(), 4);
}

/// A token the server refuses is an error naming the table, on open and on a refresh.
#[test]
fn a_refused_data_token_names_the_table() {
    let server = token_server();
    let dir = tempfile::tempdir().unwrap();
    let e = token_io(&server, dir.path().to_str().unwrap(), "/v1/nope")
        .unwrap_err()
        .to_string();
    assert!(e.contains("data token of table db.t"), "{e}");
}
