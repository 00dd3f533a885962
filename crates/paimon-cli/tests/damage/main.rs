//! Robustness suite: the real `paimon` binary on damaged tables, hostile splits and malformed
//! options. Every run must end in exactly one of two ways: exit 1 with one `error:` line that
//! names the offending file (or option) and no rows, or exit 0 with exactly Java's rows. Never
//! a panic, an abort, a timeout or silently wrong rows. `docs/robustness.md` lists the cases.
//!
//! Set `PAIMON_DAMAGE_REPORT=FILE` to write the case table as Markdown.

mod harness;
mod options;
mod splits;
mod tables;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use harness::Outcome;

#[test]
fn damaged_tables_fail_naming_the_file_or_read_exactly() {
    let cases = tables::cases();
    assert!(cases.len() > 300, "only {} cases", cases.len());
    let scratch = tempfile::tempdir().expect("tempdir");
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Option<Outcome>)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for w in 0..2 {
            let (cases, next, results) = (&cases, &next, &results);
            let dir = scratch.path().join(format!("w{w}"));
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(case) = cases.get(i) else { break };
                let o = tables::run_case(case, &dir);
                results.lock().expect("results").push((i, o));
            });
        }
    });
    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|(i, _)| *i);

    let mut report = String::from(
        "| table | file | layer | damage | outcome | message |\n|---|---|---|---|---|---|\n",
    );
    let (mut errors, mut exact, mut skipped) = (0, 0, 0);
    let mut bad = Vec::new();
    for (i, o) in &results {
        let c = &cases[*i];
        let Some(o) = o else {
            skipped += 1;
            continue;
        };
        match o {
            Outcome::Error(_) => errors += 1,
            Outcome::Exact => exact += 1,
            Outcome::Bad(m) => bad.push(format!("{}: {m}", c.name())),
        }
        eprintln!("{:<10} {}  {}", o.label(), c.name(), o.detail());
        report.push_str(&format!(
            "| {}/{} | `{}` | {} | {} | {} | {} |\n",
            c.db,
            c.table,
            c.file.display(),
            c.layer.name(),
            c.damage.label().replace('|', "\\|"),
            o.label(),
            short_message(o.detail()).replace('|', "\\|"),
        ));
    }
    let summary = format!(
        "damage: {} cases run ({skipped} not applicable): {errors} clean errors, {exact} exact rows, {} bad",
        results.len() - skipped,
        bad.len()
    );
    eprintln!("{summary}");
    if let Ok(p) = std::env::var("PAIMON_DAMAGE_REPORT") {
        std::fs::write(p, format!("{summary}\n\n{report}")).expect("write report");
    }
    for b in &bad {
        eprintln!("BAD {b}");
    }
    assert!(bad.is_empty(), "{} damage cases misbehaved", bad.len());
}

/// The message without the scratch directory prefix, for the report.
fn short_message(m: &str) -> String {
    let re_tmp = m
        .split_whitespace()
        .map(|w| match w.find("/w0/").or_else(|| w.find("/w1/")) {
            Some(i) => format!("…{}", &w[i + 3..]),
            None => w.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ");
    if re_tmp.chars().count() > 160 {
        format!("{}…", re_tmp.chars().take(160).collect::<String>())
    } else {
        re_tmp
    }
}

/// Prints each case and fails on any `Bad` outcome.
fn report(what: &str, results: &[(String, Outcome)]) {
    let mut bad = 0;
    for (name, o) in results {
        eprintln!(
            "{:<10} {what}: {name}  {}",
            o.label(),
            short_message(o.detail())
        );
        bad += usize::from(matches!(o, Outcome::Bad(_)));
    }
    eprintln!("{what}: {} cases, {bad} bad", results.len());
    assert_eq!(bad, 0, "{bad} {what} cases misbehaved");
}

#[test]
fn hostile_splits_are_typed_errors_within_bounds() {
    report("hostile split", &splits::run_all());
}

#[test]
fn unknown_options_are_ignored_malformed_known_ones_name_the_option() {
    report("options", &options::run_all());
}
