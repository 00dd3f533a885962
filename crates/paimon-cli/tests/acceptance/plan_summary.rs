//! `paimon plan TABLE`'s text summary, one line per split, against Java's plan of the same
//! snapshot (`fixtures/plans/pk/<table>.jsonl`, recorded by `scripts/gen-plans.sh`): the
//! split count, and each split's partition, bucket, row count, raw-convertible flag and file
//! count, in Java's order.

use std::process::Command;

use serde_json::Value;

/// The fields of one summary line `  split I: partition P bucket B rows R raw X files N`.
fn parse_line(line: &str) -> Option<(Value, i64, i64, bool, usize)> {
    let rest = line.trim_start().strip_prefix("split ")?;
    let (_, rest) = rest.split_once(": partition ")?;
    let (partition, rest) = rest.split_once(" bucket ")?;
    let words: Vec<&str> = rest.split(' ').collect();
    match words.as_slice() {
        [bucket, "rows", rows, "raw", raw, "files", files] => Some((
            serde_json::from_str(partition).ok()?,
            bucket.parse().ok()?,
            rows.parse().ok()?,
            raw.parse().ok()?,
            files.parse().ok()?,
        )),
        _ => None,
    }
}

#[test]
fn the_text_summary_lists_javas_splits() {
    let plans = crate::paths::repo().join("fixtures/plans/pk");
    let bin = env!("CARGO_BIN_EXE_paimon");
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&plans)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for plan in entries {
        let name = plan.file_stem().unwrap().to_string_lossy().into_owned();
        let java: Vec<Value> = std::fs::read_to_string(&plan)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let table = crate::paths::repo()
            .join("fixtures/warehouse/pk.db")
            .join(&name);
        let out = Command::new(bin).arg("plan").arg(&table).output().unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let mut lines = text.lines();
        let head = lines.next().unwrap_or_default();
        // Java's lines carry the snapshot; a plan of no splits has none to compare.
        match java.first().and_then(|s| s["snapshot"].as_i64()) {
            Some(id) => assert_eq!(
                head,
                format!("snapshot Some({id}): {} splits", java.len()),
                "{name}"
            ),
            None => assert!(head.ends_with(": 0 splits"), "{name}: {head}"),
        }
        let ours: Vec<_> = lines
            .map(|l| parse_line(l).unwrap_or_else(|| panic!("{name}: unparsed line {l:?}")))
            .collect();
        let theirs: Vec<_> = java
            .iter()
            .map(|s| {
                (
                    s["partition"].clone(),
                    s["bucket"].as_i64().unwrap(),
                    s["rowCount"].as_i64().unwrap(),
                    s["rawConvertible"].as_bool().unwrap(),
                    s["files"].as_array().unwrap().len(),
                )
            })
            .collect();
        assert_eq!(ours, theirs, "{name}");
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} Java plans compared");
}
