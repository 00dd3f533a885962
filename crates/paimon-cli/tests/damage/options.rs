//! Table options: unknown ones are ignored (as Java ignores them), malformed known ones are
//! errors naming the option.

use crate::harness::{
    copy_dir, expected_latest, judge_error, judge_read, latest_schema, run_paimon, Outcome,
};
use crate::tables::fixture;

/// (case, option text replacing `"bucket" : "-1"` in schema-0, must fail naming this).
const CASES: &[(&str, &str, Option<&str>)] = &[
    (
        "unknown option is ignored",
        r#""bucket" : "-1", "no.such.option" : "whatever", "x" : """#,
        None,
    ),
    ("bucket = abc", r#""bucket" : "abc""#, Some("bucket")),
    ("bucket = empty", r#""bucket" : """#, Some("bucket")),
    (
        "bucket = 99999999999",
        r#""bucket" : "99999999999""#,
        Some("bucket"),
    ),
];

pub fn run_all() -> Vec<(String, Outcome)> {
    let root = tempfile::tempdir().expect("tempdir");
    let src = fixture("append", "unaware");
    let schema = latest_schema(&src);
    let expected = expected_latest("append", "unaware");
    let mut out = Vec::new();
    for (i, (name, option, fails_naming)) in CASES.iter().enumerate() {
        let dir = root.path().join(format!("t{i}"));
        copy_dir(&src, &dir);
        let schema_file = dir.join("schema/schema-0");
        let text = std::fs::read_to_string(&schema_file).expect("schema");
        assert!(text.contains(r#""bucket" : "-1""#));
        std::fs::write(&schema_file, text.replace(r#""bucket" : "-1""#, option)).unwrap();
        let run = run_paimon(&[
            "read".into(),
            dir.to_string_lossy().into_owned(),
            "--format".into(),
            "jsonl".into(),
        ]);
        let o = match fails_naming {
            None => judge_read(&run, &expected, &schema.fields, &[], false),
            Some(opt) => judge_error(&run, &[&format!("option '{opt}'")]),
        };
        out.push((name.to_string(), o));
    }
    out
}
