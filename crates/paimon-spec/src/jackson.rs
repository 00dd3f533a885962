//! JSON text as Java Paimon writes it (Jackson's `DefaultPrettyPrinter`, used by
//! `JsonSerdeUtil.toJson` for snapshots, schemas and tags): objects one key per line indented by
//! two spaces with `" : "` between key and value, arrays inline as `[ a, b ]`, empty containers
//! as `{ }` and `[ ]`.

use serde_json::Value;

/// `v` in Jackson's pretty-printed form (keys in the map's insertion order).
pub fn to_pretty_string(v: &Value) -> String {
    let mut out = String::new();
    write(v, 0, &mut out);
    out
}

fn write(v: &Value, depth: usize, out: &mut String) {
    match v {
        Value::Object(m) if m.is_empty() => out.push_str("{ }"),
        Value::Object(m) => {
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                out.push_str(&"  ".repeat(depth + 1));
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(" : ");
                write(x, depth + 1, out);
            }
            out.push('\n');
            out.push_str(&"  ".repeat(depth));
            out.push('}');
        }
        Value::Array(a) if a.is_empty() => out.push_str("[ ]"),
        Value::Array(a) => {
            out.push_str("[ ");
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(x, depth, out);
            }
            out.push_str(" ]");
        }
        other => out.push_str(&other.to_string()),
    }
}
