//! Comparing rows in the JSON row encoding as multisets, with float values compared by the
//! column's own width (Java's `Float.toString` and ours may print different digits for the
//! same float).

use std::collections::BTreeMap;

use paimon_spec::binary::json::{java_double_string, java_float_string};
use paimon_spec::types::{DataField, DataType, TypeKind};
use serde_json::{Map, Value};

/// `v` with every float re-printed from its parsed value, recursively by type.
pub fn canonical(v: &Value, ty: &DataType) -> Value {
    match (v, &ty.kind) {
        (Value::Number(n), TypeKind::Float) => match n.as_f64() {
            Some(f) => Value::String(java_float_string(f as f32)),
            None => v.clone(),
        },
        (Value::Number(n), TypeKind::Double) => match n.as_f64() {
            Some(f) => Value::String(java_double_string(f)),
            None => v.clone(),
        },
        (Value::Array(items), TypeKind::Array(e) | TypeKind::Vector { element: e, .. }) => {
            Value::Array(items.iter().map(|i| canonical(i, e)).collect())
        }
        (Value::Array(pairs), TypeKind::Map { key, value }) => Value::Array(
            pairs
                .iter()
                .map(|p| match p.as_array().map(Vec::as_slice) {
                    Some([k, val]) => Value::Array(vec![canonical(k, key), canonical(val, value)]),
                    _ => p.clone(),
                })
                .collect(),
        ),
        (Value::Object(m), TypeKind::Row(fields)) => {
            let mut out = Map::new();
            for f in fields {
                if let Some(x) = m.get(&f.name) {
                    out.insert(f.name.clone(), canonical(x, &f.data_type));
                }
            }
            for (k, x) in m {
                if !out.contains_key(k) {
                    out.insert(k.clone(), x.clone());
                }
            }
            Value::Object(out)
        }
        _ => v.clone(),
    }
}

/// The canonical text of one JSON row whose columns are `fields` (extra keys kept as they are).
pub fn canonical_line(line: &str, fields: &[DataField]) -> String {
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(m)) => {
            let mut out = Map::new();
            for (k, v) in &m {
                let c = match fields.iter().find(|f| &f.name == k) {
                    Some(f) => canonical(v, &f.data_type),
                    None => v.clone(),
                };
                out.insert(k.clone(), c);
            }
            Value::Object(out).to_string()
        }
        _ => line.to_string(),
    }
}

/// `None` when the two line multisets are equal, else a short report of what differs.
pub fn diff_rows(expected: &[String], actual: &[String], fields: &[DataField]) -> Option<String> {
    let mut counts: BTreeMap<String, i64> = BTreeMap::new();
    for l in expected.iter().filter(|l| !l.trim().is_empty()) {
        *counts.entry(canonical_line(l, fields)).or_default() += 1;
    }
    for l in actual.iter().filter(|l| !l.trim().is_empty()) {
        *counts.entry(canonical_line(l, fields)).or_default() -= 1;
    }
    let missing: Vec<&String> = counts
        .iter()
        .filter(|(_, c)| **c > 0)
        .map(|(l, _)| l)
        .collect();
    let extra: Vec<&String> = counts
        .iter()
        .filter(|(_, c)| **c < 0)
        .map(|(l, _)| l)
        .collect();
    if missing.is_empty() && extra.is_empty() {
        return None;
    }
    let show = |v: &[&String]| {
        v.iter()
            .take(3)
            .map(|s| format!("\n      {}", truncate(s)))
            .collect::<String>()
    };
    Some(format!(
        "{} expected rows missing, {} unexpected rows (expected {}, got {}){}{}",
        missing.len(),
        extra.len(),
        expected.len(),
        actual.len(),
        if missing.is_empty() {
            String::new()
        } else {
            format!("\n    missing:{}", show(&missing))
        },
        if extra.is_empty() {
            String::new()
        } else {
            format!("\n    unexpected:{}", show(&extra))
        },
    ))
}

fn truncate(s: &str) -> String {
    if s.len() > 300 {
        let mut end = 300;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &s[..end])
    } else {
        s.to_string()
    }
}
