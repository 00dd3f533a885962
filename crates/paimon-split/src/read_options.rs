//! [`SplitReadOptions`]: how a worker reads the splits a planner hands it (schema, branch,
//! columns, filter, limit, batch size, row kinds), as bytes, so that a worker in another
//! process (a Flight worker, a Python or DataFusion task, `paimon read-split`) reads exactly
//! what the planner's scan asked for without being wired by hand.
//!
//! Java has no such message (its `ReadBuilder` travels as Java objects), so the layout is
//! paimon-rs's own: one JSON object, versioned, every key optional except `version`:
//!
//! ```text
//! {"version":1,"schema_id":0,"branch":null,"projection":["id","v"],
//!  "filter":"{\"kind\":\"LEAF\",...}","limit":100,"batch_size":4096,"with_row_kind":false}
//! ```
//!
//! | key | meaning | default |
//! |---|---|---|
//! | `version` | layout version; only [`READ_OPTIONS_VERSION`] is read | required |
//! | `schema_id` | read with this schema (a time-travel plan's) | the table's latest |
//! | `branch` | the branch whose schema files describe the table | main |
//! | `projection` | output columns by name, in order (`_ROW_ID`, `_SEQUENCE_NUMBER` allowed) | all |
//! | `filter` | Java Paimon's predicate JSON ([`paimon_spec::predicate_json`]) in a JSON string, applied exactly | none |
//! | `limit` | at most this many rows | none |
//! | `batch_size` | rows per batch, 1..=[`MAX_BATCH_SIZE`] | the reader's |
//! | `with_row_kind` | a leading `_ROW_KIND` column | false |
//!
//! The bytes come from elsewhere, so [`decode_read_options`] reads them as untrusted: at most
//! [`MAX_READ_OPTIONS_BYTES`], an object with no key it does not know (a newer planner's option
//! is refused, never silently dropped), each value of its type and in its range, the branch a
//! plain name, the filter a predicate. Errors are [`Error::Corrupt`] naming the key.

use paimon_spec::layout::check_file_name;
use paimon_spec::predicate::Predicate;
use paimon_spec::predicate_json::{predicate_from_json_all_types, predicate_to_json};
use paimon_spec::types::DataField;
use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// The layout version written and the only one read.
pub const READ_OPTIONS_VERSION: u64 = 1;
/// Read options longer than this are refused (a filter of thousands of terms fits well).
pub const MAX_READ_OPTIONS_BYTES: usize = 1 << 20;
/// The largest `batch_size` accepted.
pub const MAX_BATCH_SIZE: usize = 1 << 20;
/// The most columns a `projection` may name.
pub const MAX_PROJECTED_COLUMNS: usize = 1 << 16;

/// The keys of the layout, in the order they are written.
const KEYS: [&str; 8] = [
    "version",
    "schema_id",
    "branch",
    "projection",
    "filter",
    "limit",
    "batch_size",
    "with_row_kind",
];

/// How a worker reads its splits; every field's default reads a split as Java's plain
/// `ReadBuilder` does.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SplitReadOptions {
    /// Read with this schema id (a time-travel plan's); `None`: the table's latest.
    pub schema_id: Option<i64>,
    /// The branch whose schema files describe the table; `None`: main.
    pub branch: Option<String>,
    /// Output columns by name, in order; `None`: every column. May be empty (row counts).
    pub projection: Option<Vec<String>>,
    /// Rows must satisfy this predicate (columns by name).
    pub filter: Option<Predicate>,
    /// At most this many rows.
    pub limit: Option<u64>,
    /// Rows per batch; `None`: the reader's default.
    pub batch_size: Option<usize>,
    /// A leading `_ROW_KIND` column (`+I`, `-U`, `+U`, `-D`).
    pub with_row_kind: bool,
}

/// Encodes `options`; `fields` are the columns of the schema read, which Java's predicate
/// JSON names each filtered column with (index and type).
///
/// # Errors
/// [`Error::Encode`] when the filter has no Java JSON form
/// ([`paimon_spec::predicate_json::predicate_to_json`]) or a value is out of range.
pub fn encode_read_options(options: &SplitReadOptions, fields: &[DataField]) -> Result<Vec<u8>> {
    if let Some(n) = options.batch_size {
        if n == 0 || n > MAX_BATCH_SIZE {
            return Err(Error::Encode {
                reason: format!("read options: batch_size {n} is not in 1..={MAX_BATCH_SIZE}"),
            });
        }
    }
    let filter = match &options.filter {
        None => Value::Null,
        Some(p) => Value::String(predicate_to_json(p, fields).map_err(|e| Error::Encode {
            reason: format!("read options: filter: {e}"),
        })?),
    };
    let mut o = Map::new();
    o.insert("version".into(), READ_OPTIONS_VERSION.into());
    o.insert("schema_id".into(), options.schema_id.into());
    o.insert("branch".into(), options.branch.clone().into());
    o.insert("projection".into(), options.projection.clone().into());
    o.insert("filter".into(), filter);
    o.insert("limit".into(), options.limit.into());
    o.insert("batch_size".into(), options.batch_size.into());
    o.insert("with_row_kind".into(), options.with_row_kind.into());
    Ok(Value::Object(o).to_string().into_bytes())
}

/// Decodes the bytes of [`encode_read_options`], as untrusted input.
///
/// # Errors
/// [`Error::Corrupt`] naming the key for bytes that are not such an object (too long, not
/// JSON, an unknown key, a value of the wrong type or out of range, a branch that is not a
/// plain name, a filter that is not a predicate); [`Error::UnsupportedVersion`] for another
/// version.
pub fn decode_read_options(bytes: &[u8]) -> Result<SplitReadOptions> {
    if bytes.len() > MAX_READ_OPTIONS_BYTES {
        return Err(bad(format!(
            "{} bytes, more than the {MAX_READ_OPTIONS_BYTES} read options may take",
            bytes.len()
        )));
    }
    let v: Value = serde_json::from_slice(bytes).map_err(|e| bad(format!("not JSON: {e}")))?;
    let Value::Object(o) = v else {
        return Err(bad("not a JSON object"));
    };
    if let Some(k) = o.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(bad(format!(
            "unknown key '{}' (this build reads {})",
            k.chars().take(100).collect::<String>(),
            KEYS.join(", ")
        )));
    }
    match o.get("version") {
        Some(Value::Number(n)) if n.as_u64() == Some(READ_OPTIONS_VERSION) => {}
        Some(Value::Number(n)) => {
            return Err(Error::UnsupportedVersion {
                what: "read options",
                found: n.as_i64().and_then(|v| i32::try_from(v).ok()).unwrap_or(-1),
                supported: READ_OPTIONS_VERSION.to_string(),
            })
        }
        _ => return Err(bad("version is missing or not a number")),
    }
    let get = |k: &str| o.get(k).filter(|v| !v.is_null());
    let schema_id = get("schema_id")
        .map(|v| {
            v.as_i64()
                .filter(|id| *id >= 0)
                .ok_or_else(|| bad("schema_id is not a schema id (an integer >= 0)"))
        })
        .transpose()?;
    let branch = get("branch")
        .map(|v| {
            let b = v.as_str().ok_or_else(|| bad("branch is not a string"))?;
            check_file_name("read options branch", &format!("branch-{b}"))
                .map_err(|e| bad(format!("branch: {e}")))?;
            Ok::<_, Error>(b.to_string())
        })
        .transpose()?;
    let projection = get("projection")
        .map(|v| {
            let cols = v
                .as_array()
                .ok_or_else(|| bad("projection is not a list"))?;
            if cols.len() > MAX_PROJECTED_COLUMNS {
                return Err(bad(format!(
                    "projection names {} columns, more than {MAX_PROJECTED_COLUMNS}",
                    cols.len()
                )));
            }
            cols.iter()
                .map(|c| {
                    c.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| bad("a projected column is not a string"))
                })
                .collect::<Result<Vec<_>>>()
        })
        .transpose()?;
    let filter = get("filter")
        .map(|v| {
            let text = v
                .as_str()
                .ok_or_else(|| bad("filter is not a string (of predicate JSON)"))?;
            predicate_from_json_all_types(text).map_err(|e| bad(format!("filter: {e}")))
        })
        .transpose()?;
    let limit = get("limit")
        .map(|v| {
            v.as_u64()
                .ok_or_else(|| bad("limit is not a row count (an integer >= 0)"))
        })
        .transpose()?;
    let batch_size = get("batch_size")
        .map(|v| {
            v.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .filter(|n| (1..=MAX_BATCH_SIZE).contains(n))
                .ok_or_else(|| {
                    bad(format!(
                        "batch_size is not an integer in 1..={MAX_BATCH_SIZE}"
                    ))
                })
        })
        .transpose()?;
    let with_row_kind = get("with_row_kind")
        .map(|v| {
            v.as_bool()
                .ok_or_else(|| bad("with_row_kind is not a bool"))
        })
        .transpose()?
        .unwrap_or(false);
    Ok(SplitReadOptions {
        schema_id,
        branch,
        projection,
        filter,
        limit,
        batch_size,
        with_row_kind,
    })
}

fn bad(reason: impl Into<String>) -> Error {
    Error::Corrupt {
        offset: 0,
        reason: format!("read options: {}", reason.into()),
    }
}

#[cfg(test)]
mod tests {
    use paimon_spec::binary::Datum;
    use paimon_spec::predicate::LeafOp;
    use paimon_spec::types::{DataType, TypeKind};

    use proptest::prelude::*;

    use super::*;

    fn fields() -> Vec<DataField> {
        vec![
            DataField::new(0, "id", DataType::nullable(TypeKind::Int)),
            DataField::new(1, "name", DataType::string()),
        ]
    }

    fn full() -> SplitReadOptions {
        SplitReadOptions {
            schema_id: Some(3),
            branch: Some("b1".into()),
            projection: Some(vec!["name".into(), "id".into()]),
            filter: Some(Predicate::leaf("id", LeafOp::Gt, vec![Datum::Int(5)])),
            limit: Some(7),
            batch_size: Some(100),
            with_row_kind: true,
        }
    }

    #[test]
    fn every_field_round_trips() {
        let o = full();
        let bytes = encode_read_options(&o, &fields()).unwrap();
        assert_eq!(decode_read_options(&bytes).unwrap(), o);
        let d = SplitReadOptions::default();
        let bytes = encode_read_options(&d, &fields()).unwrap();
        assert_eq!(
            String::from_utf8(bytes.clone()).unwrap(),
            r#"{"version":1,"schema_id":null,"branch":null,"projection":null,"filter":null,"limit":null,"batch_size":null,"with_row_kind":false}"#
        );
        assert_eq!(decode_read_options(&bytes).unwrap(), d);
        assert_eq!(decode_read_options(br#"{"version":1}"#).unwrap(), d);
    }

    #[test]
    fn hostile_options_are_typed_errors_naming_the_key() {
        let cases: [(&[u8], &str); 12] = [
            (b"", "not JSON"),
            (b"[1]", "not a JSON object"),
            (br#"{"schema_id":1}"#, "version"),
            (
                br#"{"version":1,"predicate":"x"}"#,
                "unknown key 'predicate'",
            ),
            (br#"{"version":1,"branch":"../x"}"#, "branch"),
            (br#"{"version":1,"branch":"a/b"}"#, "branch"),
            (
                br#"{"version":1,"projection":"id"}"#,
                "projection is not a list",
            ),
            (br#"{"version":1,"projection":[1]}"#, "projected column"),
            (br#"{"version":1,"filter":"{}"}"#, "filter"),
            (br#"{"version":1,"limit":-1}"#, "limit"),
            (br#"{"version":1,"batch_size":0}"#, "batch_size"),
            (br#"{"version":1,"with_row_kind":"yes"}"#, "with_row_kind"),
        ];
        for (bytes, what) in cases {
            let e = decode_read_options(bytes).unwrap_err().to_string();
            assert!(e.contains(what), "{}: {e}", String::from_utf8_lossy(bytes));
        }
        assert!(matches!(
            decode_read_options(br#"{"version":2}"#),
            Err(Error::UnsupportedVersion { found: 2, .. })
        ));
        let long = vec![b' '; MAX_READ_OPTIONS_BYTES + 1];
        assert!(decode_read_options(&long)
            .unwrap_err()
            .to_string()
            .contains("more than"));
    }

    proptest! {
        /// Any bytes decode to options or a typed error, never a panic.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = decode_read_options(&bytes);
        }

        /// Valid options with one byte flipped decode or fail, never panic.
        #[test]
        fn mutated_options_never_panic(at in 0usize..400, to in any::<u8>()) {
            let mut bytes = encode_read_options(&full(), &fields()).unwrap();
            let i = at % bytes.len();
            bytes[i] = to;
            let _ = decode_read_options(&bytes);
        }
    }
}
