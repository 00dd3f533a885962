//! A tiny HTTP/1.1 server on loopback for tests of the clients that talk to services other
//! than a catalog (the ECS metadata service) or that must control what a server answers
//! over time (data token expiry): `handler` maps a request path to a status and body.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

/// Serves on a free loopback port until the test process ends; returns `http://host:port`.
pub(crate) fn serve(handler: impl Fn(&str) -> (u16, String) + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            // The rest of the request head (the tests' requests have no body).
            let mut h = String::new();
            while reader.read_line(&mut h).is_ok_and(|n| n > 2) {
                h.clear();
            }
            let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
            let (status, body) = handler(&path);
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}
