//! Request counters per endpoint, served as `GET /metrics` in Prometheus' text exposition
//! format: requests, errors (answers of 400 and above) and the sum of latencies in seconds.
//!
//! An endpoint is the method and the path with its names replaced by placeholders
//! (`GET /v1/{prefix}/databases/{database}/tables/{table}`), so the series stay few and name
//! no database, table, tag or branch.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

/// One metric: its name, type, help text and value per endpoint.
type Series = (
    &'static str,
    &'static str,
    &'static str,
    fn(&Counters) -> String,
);

#[derive(Debug, Default, Clone, Copy)]
struct Counters {
    requests: u64,
    errors: u64,
    seconds: f64,
}

/// Counters per endpoint.
#[derive(Debug, Default)]
pub struct Metrics {
    by_endpoint: Mutex<BTreeMap<String, Counters>>,
}

impl Metrics {
    /// Counts one answered request.
    pub fn record(&self, method: &str, path: &str, status: u16, took: Duration) {
        let key = endpoint(method, path);
        // A poisoned lock only means another request panicked mid-update: keep counting.
        let mut map = self
            .by_endpoint
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let c = map.entry(key).or_default();
        c.requests += 1;
        if status >= 400 {
            c.errors += 1;
        }
        c.seconds += took.as_secs_f64();
    }

    /// The counters in Prometheus' text format.
    pub fn render(&self) -> String {
        let map = self
            .by_endpoint
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let mut out = String::new();
        let series: [Series; 3] = [
            (
                "paimon_rest_requests_total",
                "counter",
                "Requests answered, by endpoint.",
                |c| c.requests.to_string(),
            ),
            (
                "paimon_rest_errors_total",
                "counter",
                "Requests answered with a status of 400 or above, by endpoint.",
                |c| c.errors.to_string(),
            ),
            (
                "paimon_rest_request_seconds_sum",
                "counter",
                "Seconds spent answering requests, by endpoint.",
                |c| format!("{:.6}", c.seconds),
            ),
        ];
        for (name, kind, help, value) in series {
            out.push_str(&format!("# HELP {name} {help}\n# TYPE {name} {kind}\n"));
            for (endpoint, c) in &map {
                let (method, path) = endpoint.split_once(' ').unwrap_or(("", endpoint));
                out.push_str(&format!(
                    "{name}{{method=\"{}\",path=\"{}\"}} {}\n",
                    label(method),
                    label(path),
                    value(c)
                ));
            }
        }
        out
    }
}

/// Escapes a label value (Prometheus: backslash, double quote, newline).
fn label(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// `METHOD /v1/{prefix}/...` with the names of the path replaced by placeholders.
fn endpoint(method: &str, path: &str) -> String {
    let Some(rest) = path.strip_prefix("/v1/") else {
        return format!(
            "{method} {}",
            if path == "/metrics" { path } else { "(other)" }
        );
    };
    let segments: Vec<&str> = rest.split('/').collect();
    if segments == ["config"] {
        return format!("{method} /v1/config");
    }
    let mut out = String::from("/v1/{prefix}");
    let mut previous = "";
    for s in segments.iter().skip(1) {
        let shown = match previous {
            "databases" => "{database}",
            "tables" if *s != "rename" => "{table}",
            "snapshots" => "{version}",
            "tags" => "{tag}",
            "branches" => "{branch}",
            _ => *s,
        };
        out.push('/');
        out.push_str(shown);
        previous = *s;
    }
    format!("{method} {out}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_name_no_objects() {
        assert_eq!(
            endpoint("GET", "/v1/wh/databases/db/tables/t/tags/v1"),
            "GET /v1/{prefix}/databases/{database}/tables/{table}/tags/{tag}"
        );
        assert_eq!(
            endpoint("POST", "/v1/wh/tables/rename"),
            "POST /v1/{prefix}/tables/rename"
        );
        assert_eq!(endpoint("GET", "/v1/config"), "GET /v1/config");
        assert_eq!(endpoint("GET", "/x/y"), "GET (other)");
    }

    #[test]
    fn renders_prometheus_text() {
        let m = Metrics::default();
        m.record("GET", "/v1/wh/databases", 200, Duration::from_millis(250));
        m.record("GET", "/v1/wh/databases", 404, Duration::from_millis(250));
        let text = m.render();
        assert!(text.contains(
            "paimon_rest_requests_total{method=\"GET\",path=\"/v1/{prefix}/databases\"} 2\n"
        ));
        assert!(text.contains(
            "paimon_rest_errors_total{method=\"GET\",path=\"/v1/{prefix}/databases\"} 1\n"
        ));
        assert!(text.contains(
            "paimon_rest_request_seconds_sum{method=\"GET\",path=\"/v1/{prefix}/databases\"} 0.500000\n"
        ));
        assert!(text.contains("# TYPE paimon_rest_requests_total counter\n"));
    }
}
