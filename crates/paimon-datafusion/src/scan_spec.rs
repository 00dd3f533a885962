//! What a provider reads ([`ScanSpec`]) and how a table name in SQL selects it ([`TableName`]).
//!
//! A table name is `table`, optionally followed by Java's `$branch_<name>`, then optionally
//! by a system table (`$snapshots`, `$files`, ..., `$audit_log`), then optionally by one
//! time-travel suffix of ours: `@snapshot=<id>`, `@tag=<name>`, `@timestamp-ms=<millis>`,
//! `@incremental=<a>,<b>[,<mode>]` (mode `auto`, `delta`, `changelog` or `diff`: Java's
//! `incremental-between-scan-mode`) or `@changes-since=<id>` (what a streaming read restored
//! after snapshot `id` reads, snapshot by snapshot). [`crate::sql`] turns `VERSION AS OF` / `TIMESTAMP AS OF` into that
//! suffix; it can also be written directly, quoted: `SELECT * FROM pk."orders@snapshot=3"`.

use datafusion::error::{DataFusionError, Result};
use paimon_meta::scan::IncrementalScanMode;
use paimon_meta::{ScanBuilder, ScanChoice};
use paimon_spec::layout::check_file_name;

/// Which snapshot of which branch a provider reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanSpec {
    /// A snapshot id (Java `scan.snapshot-id`).
    pub snapshot: Option<i64>,
    /// A tag (Java `scan.tag-name`).
    pub tag: Option<String>,
    /// The latest snapshot committed at or before this time, epoch millis (Java
    /// `scan.timestamp-millis`).
    pub timestamp_ms: Option<i64>,
    /// A branch (Java `branch`); `None` is the table's main branch.
    pub branch: Option<String>,
    /// What changed between two snapshot ids or tags (Java `incremental-between`).
    pub incremental: Option<(String, String)>,
    /// How `incremental` reads two snapshot ids; `None` is the table's option.
    pub incremental_mode: Option<IncrementalScanMode>,
    /// The changes after this snapshot, as a streaming read restored there.
    pub changes_since: Option<i64>,
    /// Rows with a leading `rowkind` column, all kinds kept (Java `AuditLogTable`).
    pub with_row_kind: bool,
    /// Rows with `_ROW_ID` and `_SEQUENCE_NUMBER` after the table's columns (Java
    /// `RowTrackingTable`, `t$row_tracking`; row-tracking tables only).
    pub with_row_tracking: bool,
}

impl ScanSpec {
    /// `scan` reading what this spec selects.
    ///
    /// # Errors
    /// When more than one snapshot selection is set ([`ScanChoice::check`]).
    pub fn apply(&self, scan: ScanBuilder) -> Result<ScanBuilder> {
        self.choice()
            .apply(scan)
            .map_err(|e| DataFusionError::Plan(e.to_string()))
    }

    /// Checks the names the spec puts into paths: the branch (`branch/branch-<name>`) and
    /// the tags (`tag/tag-<name>`, and either end of `incremental`) must each be one plain
    /// name ([`check_file_name`]), so a name from SQL or from plan bytes cannot lead out of
    /// the table's directory.
    ///
    /// # Errors
    /// [`paimon_spec::Error::PathNotAllowed`] naming the branch or tag.
    pub fn check_names(&self) -> paimon_spec::Result<()> {
        if let Some(b) = &self.branch {
            check_file_name("branch name", b)?;
        }
        if let Some(t) = &self.tag {
            check_file_name("tag name", t)?;
        }
        if let Some((a, b)) = &self.incremental {
            check_file_name("incremental start", a)?;
            check_file_name("incremental end", b)?;
        }
        Ok(())
    }

    /// The snapshot selection part of the spec.
    pub fn choice(&self) -> ScanChoice {
        ScanChoice {
            snapshot: self.snapshot,
            tag: self.tag.clone(),
            timestamp_ms: self.timestamp_ms,
            incremental: self.incremental.clone(),
            incremental_mode: self.incremental_mode,
            changes_since: self.changes_since,
        }
    }
}

/// A table name as written in SQL, split into its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableName {
    /// The table's directory name.
    pub table: String,
    /// The system table after `$` (`snapshots`, `audit_log`, ...), lower-case.
    pub system: Option<String>,
    /// Branch and time travel.
    pub spec: ScanSpec,
}

impl TableName {
    /// Splits `name`.
    ///
    /// # Errors
    /// A malformed time-travel suffix, or an unknown `$...` part.
    pub fn parse(name: &str) -> Result<TableName> {
        let bad = |why: String| DataFusionError::Plan(format!("table name '{name}': {why}"));
        let (head, travel) = match name.split_once('@') {
            Some((h, t)) => (h, Some(t)),
            None => (name, None),
        };
        let mut parts = head.split('$');
        let table = parts.next().unwrap_or_default().to_string();
        if table.is_empty() {
            return Err(bad("no table before '$' or '@'".into()));
        }
        let mut spec = ScanSpec::default();
        let mut system = None;
        for part in parts {
            if let Some(branch) = part.strip_prefix("branch_") {
                if spec.branch.is_some() || system.is_some() || branch.is_empty() {
                    return Err(bad(format!("unexpected '${part}'")));
                }
                spec.branch = Some(branch.to_string());
            } else if system.is_none() && !part.is_empty() {
                system = Some(part.to_ascii_lowercase());
            } else {
                return Err(bad(format!("unexpected '${part}'")));
            }
        }
        if let Some(t) = travel {
            let (key, value) = t
                .split_once('=')
                .ok_or_else(|| bad(format!("'@{t}' is not '@key=value'")))?;
            match key {
                "snapshot" => {
                    spec.snapshot =
                        Some(value.parse().map_err(|_| {
                            bad(format!("snapshot '{value}' is not a snapshot id"))
                        })?);
                }
                "tag" if !value.is_empty() => spec.tag = Some(value.to_string()),
                "timestamp-ms" => {
                    spec.timestamp_ms =
                        Some(value.parse().map_err(|_| {
                            bad(format!("timestamp-ms '{value}' is not epoch millis"))
                        })?);
                }
                "incremental" => {
                    let parts: Vec<&str> = value.split(',').collect();
                    let (a, b, mode) = match parts[..] {
                        [a, b] => (a, b, None),
                        [a, b, m] => (a, b, Some(m)),
                        _ => ("", "", None),
                    };
                    if a.is_empty() || b.is_empty() {
                        return Err(bad(format!("incremental '{value}' is not 'a,b[,mode]'")));
                    }
                    spec.incremental = Some((a.to_string(), b.to_string()));
                    spec.incremental_mode = mode
                        .map(|m| m.parse::<IncrementalScanMode>())
                        .transpose()
                        .map_err(|e| bad(e.to_string()))?;
                }
                "changes-since" => {
                    spec.changes_since = Some(value.parse().map_err(|_| {
                        bad(format!("changes-since '{value}' is not a snapshot id"))
                    })?);
                }
                _ => return Err(bad(format!("unknown suffix '@{key}'"))),
            }
        }
        match system.as_deref() {
            Some("audit_log") => spec.with_row_kind = true,
            Some("row_tracking") => spec.with_row_tracking = true,
            _ => {}
        }
        Ok(TableName {
            table,
            system,
            spec,
        })
    }

    /// `table` with `suffix` (`snapshot=3`, `tag=t1`, ...) appended as this module spells it.
    pub fn with_travel(table: &str, suffix: &str) -> String {
        format!("{table}@{suffix}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_branch_system_and_travel() {
        let t = TableName::parse("orders").unwrap();
        assert_eq!(
            (t.table.as_str(), t.system, t.spec),
            ("orders", None, ScanSpec::default())
        );
        let t = TableName::parse("orders$branch_b1$Snapshots").unwrap();
        assert_eq!(t.spec.branch.as_deref(), Some("b1"));
        assert_eq!(t.system.as_deref(), Some("snapshots"));
        let t = TableName::parse("orders$audit_log").unwrap();
        assert!(t.spec.with_row_kind);
        let t = TableName::parse("orders@snapshot=3").unwrap();
        assert_eq!(t.spec.snapshot, Some(3));
        let t = TableName::parse("orders$branch_x@tag=t-1").unwrap();
        assert_eq!(
            (t.spec.branch.as_deref(), t.spec.tag.as_deref()),
            (Some("x"), Some("t-1"))
        );
        let t = TableName::parse("orders@incremental=1,4").unwrap();
        assert_eq!(t.spec.incremental, Some(("1".into(), "4".into())));
        let t = TableName::parse("orders@incremental=t1,t2,diff").unwrap();
        assert_eq!(t.spec.incremental_mode, Some(IncrementalScanMode::Diff));
        let t = TableName::parse("orders@changes-since=0").unwrap();
        assert_eq!(t.spec.changes_since, Some(0));
    }

    #[test]
    fn malformed_names_are_refused() {
        for n in [
            "$snapshots",
            "t@snapshot=x",
            "t@nope=1",
            "t@snapshot",
            "t$files$snapshots",
            "t$branch_",
            "t@incremental=1",
            "t@incremental=1,2,sideways",
            "t@changes-since=x",
        ] {
            let e = TableName::parse(n).unwrap_err().to_string();
            assert!(e.contains(n), "{n}: {e}");
        }
    }
}
