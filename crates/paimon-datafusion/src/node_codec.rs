//! The wire form of a [`ScanNode`] and of a table provider's path and [`ScanSpec`], for engines
//! that ship plans to other processes (a distributed engine's scheduler and executors).
//!
//! Both are JSON objects carrying a `version` (now [`NODE_FORMAT_VERSION`]); a reader refuses
//! versions it does not know. Split bytes travel as standard base64. The predicate travels as
//! Java Paimon's predicate JSON ([`paimon_spec::predicate_json`]) inside a JSON string, so that
//! its decimal and instant literals are read from their text and never through a double.
//!
//! ```text
//! {"version":1,"table_path":"/w/db.db/t","branch":null,"schema_id":0,
//!  "projection":["id","v"],"predicate":"{\"kind\":\"LEAF\",...}","limit":null,
//!  "with_row_kind":false,"partitions":[["U1BMSVRfVjEA..."],[]]}
//! {"version":1,"table_path":"/w/db.db/t","snapshot":3,"tag":null,"timestamp_ms":null,
//!  "branch":null,"incremental":null,"incremental_mode":null,"changes_since":null,
//!  "with_row_kind":false,"with_row_tracking":false}
//! ```
//!
//! Decoding never panics: bytes that are not such an object give
//! [`DataFusionError::Execution`] saying which field is wrong.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use datafusion::error::{DataFusionError, Result};
use paimon_io::file_io_for;
use paimon_meta::scan::IncrementalScanMode;
use paimon_meta::schema_manager::SchemaManager;
use paimon_spec::layout::{branch_root, check_file_name, TableRoots};
use paimon_spec::predicate_json::{predicate_from_json_all_types, predicate_to_json};
use serde_json::{json, Map, Value};

use crate::error::df_err;
use crate::exec::ScanNode;
use crate::scan_spec::ScanSpec;

/// The version this module writes and the only one it reads.
pub const NODE_FORMAT_VERSION: u64 = 1;

/// A decoded node never holds more splits than this (a hostile count cannot make the decoder
/// allocate more than the input's size anyway; this names the bound in the error).
const MAX_SPLITS: usize = 1 << 20;

impl ScanNode {
    /// The node's wire form.
    ///
    /// Writing the predicate needs the row type it was planned against (Java's JSON names each
    /// column with its index and type), so this reads the node's schema file.
    ///
    /// # Errors
    /// When the schema file cannot be read, or the predicate has no Java JSON form
    /// ([`predicate_to_json`]: a NOT over `LIKE 'x%'`, binary or nested literals, NaN).
    pub fn encode(&self) -> Result<Vec<u8>> {
        let predicate = match &self.predicate {
            None => Value::Null,
            Some(p) => {
                let io = file_io_for(&self.table_path).map_err(|e| df_err(&self.table_path, e))?;
                let root = match &self.branch {
                    Some(b) => branch_root(&self.table_path, b),
                    None => self.table_path.clone(),
                };
                let schema = SchemaManager::new(io, &root)
                    .schema(self.schema_id)
                    .map_err(|e| df_err(&self.table_path, e))?;
                Value::String(
                    predicate_to_json(p, &schema.fields)
                        .map_err(|e| df_err(&self.table_path, e))?,
                )
            }
        };
        let partitions: Vec<Vec<String>> = self
            .partitions
            .iter()
            .map(|splits| splits.iter().map(|s| STANDARD.encode(s)).collect())
            .collect();
        Ok(json!({
            "version": NODE_FORMAT_VERSION,
            "table_path": self.table_path,
            "branch": self.branch,
            "schema_id": self.schema_id,
            "projection": self.projection,
            "predicate": predicate,
            "limit": self.limit,
            "with_row_kind": self.with_row_kind,
            "partitions": partitions,
        })
        .to_string()
        .into_bytes())
    }

    /// Reads [`ScanNode::encode`]'s bytes.
    ///
    /// # Errors
    /// [`DataFusionError::Execution`] naming what is wrong: not JSON, an unknown version, a
    /// missing or ill-typed field, split bytes that are not base64, a predicate that does not
    /// parse.
    pub fn decode(bytes: &[u8]) -> Result<ScanNode> {
        let o = object(bytes, "scan node")?;
        let f = Fields(&o, "scan node");
        let table_path = f.string("table_path")?;
        let predicate = match f.opt_string("predicate")? {
            None => None,
            Some(text) => Some(
                predicate_from_json_all_types(&text)
                    .map_err(|e| bad("scan node", &format!("predicate of {table_path}: {e}")))?,
            ),
        };
        let projection = match o.get("projection") {
            None | Some(Value::Null) => None,
            Some(Value::Array(cols)) => Some(
                cols.iter()
                    .map(|c| {
                        c.as_str()
                            .map(str::to_string)
                            .ok_or_else(|| bad("scan node", "a projected column is not a string"))
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
            Some(_) => return Err(bad("scan node", "projection is not a list")),
        };
        let limit = match o.get("limit") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_u64()
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or_else(|| bad("scan node", "limit is not a row count"))?,
            ),
        };
        let Some(Value::Array(parts)) = o.get("partitions") else {
            return Err(bad("scan node", "partitions is not a list"));
        };
        let mut partitions = Vec::with_capacity(parts.len());
        let mut total = 0usize;
        for part in parts {
            let Value::Array(splits) = part else {
                return Err(bad("scan node", "a partition is not a list of splits"));
            };
            total = total.saturating_add(splits.len());
            if total > MAX_SPLITS {
                return Err(bad("scan node", &format!("more than {MAX_SPLITS} splits")));
            }
            let splits = splits
                .iter()
                .map(|s| {
                    s.as_str()
                        .and_then(|s| STANDARD.decode(s).ok())
                        .ok_or_else(|| bad("scan node", "a split is not base64 text"))
                })
                .collect::<Result<Vec<_>>>()?;
            partitions.push(splits);
        }
        let branch = f.opt_string("branch")?;
        if let Some(b) = &branch {
            check_file_name("branch", b).map_err(|e| bad("scan node", &e.to_string()))?;
        }
        Ok(ScanNode {
            branch,
            schema_id: f.i64("schema_id")?,
            projection,
            predicate,
            limit,
            with_row_kind: f.bool("with_row_kind")?,
            partitions,
            table_path,
        })
    }
}

impl ScanNode {
    /// Checks that the node reads a table strictly below `warehouse` and names its branch
    /// with one plain name: what an executor checks before it runs a node it was sent.
    ///
    /// # Errors
    /// [`DataFusionError::Plan`] with the [`paimon_spec::Error::PathNotAllowed`] refusal.
    pub fn check_in_warehouse(&self, warehouse: &str) -> Result<()> {
        check_table_in_warehouse(warehouse, &self.table_path, self.branch.as_deref())
    }
}

impl ScanSpec {
    /// Checks that a provider of the table at `path` reading this spec reads a table strictly
    /// below `warehouse` and names its branch with one plain name: what a scheduler checks
    /// before it opens a table a client's plan names.
    ///
    /// # Errors
    /// As [`ScanNode::check_in_warehouse`].
    pub fn check_in_warehouse(&self, path: &str, warehouse: &str) -> Result<()> {
        check_table_in_warehouse(warehouse, path, self.branch.as_deref())
    }
}

/// The one warehouse rule of [`ScanNode::check_in_warehouse`] and
/// [`ScanSpec::check_in_warehouse`].
fn check_table_in_warehouse(warehouse: &str, table_path: &str, branch: Option<&str>) -> Result<()> {
    TableRoots::new(warehouse.trim_end_matches('/'))
        .check_in_table("table_path", table_path)
        .and_then(|()| match branch {
            Some(b) => check_file_name("branch", b),
            None => Ok(()),
        })
        .map_err(|e| DataFusionError::Plan(e.to_string()))
}

impl ScanSpec {
    /// The wire form of a provider of the table at `path` reading what this spec selects.
    pub fn encode_with_path(&self, path: &str) -> Vec<u8> {
        json!({
            "version": NODE_FORMAT_VERSION,
            "table_path": path,
            "snapshot": self.snapshot,
            "tag": self.tag,
            "timestamp_ms": self.timestamp_ms,
            "branch": self.branch,
            "incremental": self.incremental.as_ref().map(|(a, b)| [a, b]),
            "incremental_mode": self.incremental_mode.map(mode_name),
            "changes_since": self.changes_since,
            "with_row_kind": self.with_row_kind,
            "with_row_tracking": self.with_row_tracking,
        })
        .to_string()
        .into_bytes()
    }

    /// Reads [`ScanSpec::encode_with_path`]'s bytes: the table path and the spec.
    ///
    /// # Errors
    /// [`DataFusionError::Execution`] naming what is wrong, as [`ScanNode::decode`].
    pub fn decode_with_path(bytes: &[u8]) -> Result<(String, ScanSpec)> {
        const WHAT: &str = "table provider";
        let o = object(bytes, WHAT)?;
        let f = Fields(&o, WHAT);
        let incremental = match o.get("incremental") {
            None | Some(Value::Null) => None,
            Some(Value::Array(ab)) => match ab.as_slice() {
                [Value::String(a), Value::String(b)] => Some((a.clone(), b.clone())),
                _ => return Err(bad(WHAT, "incremental is not two strings")),
            },
            Some(_) => return Err(bad(WHAT, "incremental is not two strings")),
        };
        let incremental_mode = f
            .opt_string("incremental_mode")?
            .map(|m| {
                m.parse::<IncrementalScanMode>()
                    .map_err(|e| bad(WHAT, &format!("incremental_mode: {e}")))
            })
            .transpose()?;
        let spec = ScanSpec {
            snapshot: f.opt_i64("snapshot")?,
            tag: f.opt_string("tag")?,
            timestamp_ms: f.opt_i64("timestamp_ms")?,
            branch: f.opt_string("branch")?,
            incremental,
            incremental_mode,
            changes_since: f.opt_i64("changes_since")?,
            with_row_kind: f.bool("with_row_kind")?,
            with_row_tracking: f.bool("with_row_tracking")?,
        };
        spec.check_names().map_err(|e| bad(WHAT, &e.to_string()))?;
        Ok((f.string("table_path")?, spec))
    }
}

/// Java's `incremental-between-scan-mode` value, as [`IncrementalScanMode`] parses it.
fn mode_name(m: IncrementalScanMode) -> &'static str {
    match m {
        IncrementalScanMode::Auto => "auto",
        IncrementalScanMode::Delta => "delta",
        IncrementalScanMode::Changelog => "changelog",
        IncrementalScanMode::Diff => "diff",
    }
}

fn bad(what: &str, why: &str) -> DataFusionError {
    DataFusionError::Execution(format!("corrupt Paimon {what} bytes: {why}"))
}

/// The top-level object, its version checked.
fn object(bytes: &[u8], what: &str) -> Result<Map<String, Value>> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| bad(what, &e.to_string()))?;
    let Value::Object(o) = v else {
        return Err(bad(what, "not a JSON object"));
    };
    match o.get("version").and_then(Value::as_u64) {
        Some(NODE_FORMAT_VERSION) => Ok(o),
        Some(v) => Err(bad(
            what,
            &format!("version {v}, this build reads version {NODE_FORMAT_VERSION}"),
        )),
        None => Err(bad(what, "no version")),
    }
}

/// Typed access to an object's fields, errors naming the field.
struct Fields<'a>(&'a Map<String, Value>, &'a str);

impl Fields<'_> {
    fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    fn err(&self, key: &str, ty: &str) -> DataFusionError {
        bad(self.1, &format!("{key} is not {ty}"))
    }

    fn string(&self, key: &str) -> Result<String> {
        self.opt_string(key)?
            .ok_or_else(|| self.err(key, "a string"))
    }

    fn opt_string(&self, key: &str) -> Result<Option<String>> {
        self.get(key)
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| self.err(key, "a string"))
            })
            .transpose()
    }

    fn i64(&self, key: &str) -> Result<i64> {
        self.opt_i64(key)?
            .ok_or_else(|| self.err(key, "an integer"))
    }

    fn opt_i64(&self, key: &str) -> Result<Option<i64>> {
        self.get(key)
            .map(|v| v.as_i64().ok_or_else(|| self.err(key, "an integer")))
            .transpose()
    }

    fn bool(&self, key: &str) -> Result<bool> {
        self.get(key)
            .and_then(Value::as_bool)
            .ok_or_else(|| self.err(key, "a boolean"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_round_trips() {
        let specs = [
            ScanSpec::default(),
            ScanSpec {
                snapshot: Some(3),
                branch: Some("b1".into()),
                with_row_kind: true,
                ..ScanSpec::default()
            },
            ScanSpec {
                tag: Some("t\"1".into()),
                timestamp_ms: Some(-5),
                incremental: Some(("1".into(), "tag-9".into())),
                incremental_mode: Some(IncrementalScanMode::Diff),
                ..ScanSpec::default()
            },
            ScanSpec {
                changes_since: Some(4),
                incremental_mode: Some(IncrementalScanMode::Changelog),
                with_row_tracking: true,
                ..ScanSpec::default()
            },
        ];
        for spec in specs {
            let bytes = spec.encode_with_path("/w/db.db/t");
            let (path, back) = ScanSpec::decode_with_path(&bytes).unwrap();
            assert_eq!((path.as_str(), back), ("/w/db.db/t", spec));
        }
    }

    #[test]
    fn node_without_predicate_round_trips() {
        let node = ScanNode {
            table_path: "/w/db.db/t".into(),
            branch: Some("b".into()),
            schema_id: 2,
            projection: Some(vec![]),
            predicate: None,
            limit: Some(7),
            with_row_kind: true,
            partitions: vec![vec![vec![0, 1, 255], vec![]], vec![]],
        };
        let bytes = node.encode().unwrap();
        assert_eq!(ScanNode::decode(&bytes).unwrap(), node);
    }

    #[test]
    fn nodes_outside_the_warehouse_are_refused() {
        let node = |path: &str, branch: Option<&str>| ScanNode {
            table_path: path.into(),
            branch: branch.map(str::to_string),
            schema_id: 0,
            projection: None,
            predicate: None,
            limit: None,
            with_row_kind: false,
            partitions: vec![],
        };
        node("/w/db.db/t", None).check_in_warehouse("/w/").unwrap();
        node("/w/db.db/t", Some("b1"))
            .check_in_warehouse("/w")
            .unwrap();
        for (path, branch) in [
            ("/etc", None),
            ("/w", None),
            ("/w/db.db/../../etc", None),
            ("/w2/db.db/t", None),
            ("s3://w/db.db/t", None),
            ("/w/db.db/t", Some("../../x")),
        ] {
            let e = node(path, branch)
                .check_in_warehouse("/w")
                .unwrap_err()
                .to_string();
            assert!(e.contains("not allowed"), "{path} {branch:?}: {e}");
        }
    }

    #[test]
    fn refuses_bad_bytes() {
        let good =
            r#"{"version":1,"table_path":"t","schema_id":0,"with_row_kind":false,"partitions":[]}"#;
        assert!(ScanNode::decode(good.as_bytes()).is_ok());
        for (bytes, needle) in [
            ("", "EOF"),
            ("[1]", "not a JSON object"),
            (r#"{"table_path":"t"}"#, "no version"),
            (r#"{"version":2}"#, "version 2"),
            (
                r#"{"version":1,"schema_id":0,"with_row_kind":false,"partitions":[]}"#,
                "table_path",
            ),
            (
                r#"{"version":1,"table_path":"t","schema_id":"0","with_row_kind":false,"partitions":[]}"#,
                "schema_id",
            ),
            (
                r#"{"version":1,"table_path":"t","schema_id":0,"with_row_kind":false,"partitions":[["!"]]}"#,
                "base64",
            ),
            (
                r#"{"version":1,"table_path":"t","schema_id":0,"with_row_kind":false,"partitions":[1]}"#,
                "partition",
            ),
            (
                r#"{"version":1,"table_path":"t","schema_id":0,"with_row_kind":false,"partitions":[],"limit":-1}"#,
                "limit",
            ),
            (
                r#"{"version":1,"table_path":"t","schema_id":0,"with_row_kind":false,"partitions":[],"predicate":"{}"}"#,
                "predicate",
            ),
            (
                r#"{"version":1,"table_path":"t","schema_id":0,"with_row_kind":false,"partitions":[],"projection":[1]}"#,
                "projected",
            ),
            (
                r#"{"version":1,"table_path":"t","branch":"../x","schema_id":0,"with_row_kind":false,"partitions":[]}"#,
                "branch",
            ),
        ] {
            let e = ScanNode::decode(bytes.as_bytes()).unwrap_err().to_string();
            assert!(e.contains(needle), "{bytes}: {e}");
        }
        let spec = |extra: &str| {
            format!(
                r#"{{"version":1,"table_path":"t","with_row_kind":false,"with_row_tracking":false{extra}}}"#
            )
        };
        assert!(ScanSpec::decode_with_path(spec("").as_bytes()).is_ok());
        for extra in [
            r#","branch":"../../x""#,
            r#","tag":"a/b""#,
            r#","incremental":["1","../t"]"#,
            r#","incremental":["1"]"#,
            r#","incremental_mode":"sideways""#,
            r#","changes_since":"4""#,
        ] {
            assert!(
                ScanSpec::decode_with_path(spec(extra).as_bytes()).is_err(),
                "{extra}"
            );
        }
    }
}
