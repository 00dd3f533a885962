//! `predicate_json::predicate_from_json` and `transform_from_json` (the row filters and column
//! masks of a query-auth split) on arbitrary UTF-8: no panic, bounded nesting, no NOT (Java's
//! JSON has none, and the reader's evaluation relies on that), and the parsed rules list their
//! columns.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_spec::predicate::Predicate;
use paimon_spec::predicate_json::{predicate_from_json, transform_from_json};

fn depth(p: &Predicate) -> usize {
    match p {
        Predicate::And(c) | Predicate::Or(c) => 1 + c.iter().map(depth).max().unwrap_or(0),
        Predicate::Not(p) => 1 + depth(p),
        _ => 1,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(p) = predicate_from_json(text) {
        // Java's JSON has no NOT; the parser's depth bound plus BETWEEN's one extra level.
        assert!(depth(&p) <= 67, "predicate nested {} deep", depth(&p));
        assert!(!matches!(p, Predicate::Not(_)), "NOT from Java JSON: {p:?}");
        let _ = p.columns();
    }
    if let Ok(t) = transform_from_json(text) {
        let _ = t.columns();
    }
});
