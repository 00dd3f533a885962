//! Stand-in for `paimon_spec::layout` until it is merged: the same signatures, covering only
//! string and integer partition values. Replaced by `paimon_spec::layout` (one place for
//! table paths) as soon as that module is on the branch.

use paimon_spec::binary::Datum;
use paimon_spec::types::DataField;

/// `k1=v1/k2=v2/`, or `None` when a value cannot be named yet.
pub fn partition_path(
    fields: &[DataField],
    values: &[Datum],
    default_name: &str,
    _legacy_name: bool,
) -> Option<String> {
    let mut out = String::new();
    for (f, v) in fields.iter().zip(values) {
        let text = match v {
            Datum::Null => default_name.to_string(),
            Datum::String(s) if s.trim().is_empty() => default_name.to_string(),
            Datum::String(s) => s.clone(),
            other => other.as_i64()?.to_string(),
        };
        if f.name.is_empty()
            || text
                .chars()
                .any(|c| "\"#%'*/:=?\\{}[]^\u{7f}".contains(c) || c < ' ')
        {
            return None;
        }
        out.push_str(&format!("{}={}/", f.name, text));
    }
    Some(out)
}

/// `<root>/<partition path>bucket-N`.
pub fn bucket_dir(root: &str, partition_path: &str, bucket: i32) -> String {
    paimon_io::join(root, &format!("{partition_path}bucket-{bucket}"))
}
