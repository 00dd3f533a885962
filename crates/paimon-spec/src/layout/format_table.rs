//! Paths of a format table (Java `FormatTable`): data files directly in the table directory or
//! in Hive-style partition directories (`k=v/`, or `v/` with
//! `format-table.partition-path-only-value`), written first under `_temporary/` and renamed
//! into place at commit (Java `RenamingTwoPhaseOutputStream`).

use super::partition::escape_path_name;

/// The option naming partition directories by value only (`2024-01-01/` for `dt=2024-01-01/`).
pub const PARTITION_PATH_ONLY_VALUE: &str = "format-table.partition-path-only-value";

/// The directory, inside the partition directory of the file, a file is written into before
/// its commit renames it into place (Java `RenamingTwoPhaseOutputStream`'s `_temporary`).
pub const FORMAT_TABLE_TEMP_DIR: &str = "_temporary";

/// Whether a listed file is a data file of the table: hidden (`.`) and reserved (`_`) names,
/// such as Hadoop's `_SUCCESS` or in-flight `.tmp.` files, are not (Java and pypaimon skip them).
pub fn is_format_data_file(name: &str) -> bool {
    !name.is_empty() && !name.starts_with(['.', '_'])
}

/// Whether a listed directory of the table may hold partitions or data: not hidden, not
/// reserved (`_temporary`) and not the schema directory.
pub fn is_format_data_dir(name: &str) -> bool {
    is_format_data_file(name) && name != super::SCHEMA_DIR
}

/// The directory name of one partition level: `k=v` (both escaped as Java's
/// `PartitionPathUtils.escapePathName` does), or the escaped value alone with `only_value`.
pub fn format_partition_dir(key: &str, value: &str, only_value: bool) -> String {
    if only_value {
        escape_path_name(value)
    } else {
        format!("{}={}", escape_path_name(key), escape_path_name(value))
    }
}

/// The value a partition directory names for `key` (Java `PartitionPathUtils.unescapePathName`
/// of the text after `k=`, or of the whole name with `only_value`): `None` when the name is
/// `k2=...` for another key, has no `=` where one is expected, or escapes a `%XX` that is not
/// hexadecimal.
pub fn parse_format_partition_dir(name: &str, key: &str, only_value: bool) -> Option<String> {
    let value = if only_value {
        name
    } else {
        let (k, v) = name.split_once('=')?;
        if unescape_path_name(k)? != key {
            return None;
        }
        v
    };
    unescape_path_name(value)
}

/// Java `PartitionPathUtils.unescapePathName`: `%XX` (hexadecimal) becomes that character.
fn unescape_path_name(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let hex: String = chars.by_ref().take(2).collect();
        let code = u32::from_str_radix(&hex, 16)
            .ok()
            .filter(|_| hex.len() == 2)?;
        out.push(char::from_u32(code)?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_dirs_round_trip_escaped_values() {
        let name = format_partition_dir("dt", "2024/01:01", false);
        assert_eq!(name, "dt=2024%2F01%3A01");
        assert_eq!(
            parse_format_partition_dir(&name, "dt", false).as_deref(),
            Some("2024/01:01")
        );
        assert_eq!(format_partition_dir("dt", "a=b", true), "a%3Db");
        assert_eq!(
            parse_format_partition_dir("a%3Db", "dt", true).as_deref(),
            Some("a=b")
        );
        assert_eq!(parse_format_partition_dir("hr=1", "dt", false), None);
        assert_eq!(parse_format_partition_dir("dt=%zz", "dt", false), None);
        assert_eq!(parse_format_partition_dir("dt", "dt", false), None);
    }

    #[test]
    fn hidden_and_reserved_names_are_not_data() {
        assert!(is_format_data_file("data-1.parquet"));
        assert!(!is_format_data_file("_SUCCESS"));
        assert!(!is_format_data_file(".tmp.abc"));
        assert!(!is_format_data_dir(FORMAT_TABLE_TEMP_DIR));
        assert!(!is_format_data_dir("schema"));
        assert!(is_format_data_dir("dt=1"));
    }
}
