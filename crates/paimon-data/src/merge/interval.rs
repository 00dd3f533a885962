//! Splitting a split's files into sections and sorted runs (Java `IntervalPartition`).
//!
//! ```text
//!  key:   0    10    20    30    40    50
//!  f0     [=====]                              section 0: run 0 = [f0, f2]
//!  f1        [=====]                                      run 1 = [f1]
//!  f2              [==]
//!  f3                         [=====]          section 1: run 0 = [f3]
//! ```
//! Files are sorted by (min key, max key); a new section starts when a file's min key is above
//! every max key seen in the section (ranges are inclusive, so equal keys overlap). Inside a
//! section each file joins the run whose last max key is smallest, when it starts above it.

use std::cmp::Ordering;

use paimon_spec::binary::{BinaryRow, Datum};
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::predicate::compare_datums;
use paimon_spec::types::DataType;

use super::error::{invalid_input, Result};

/// Groups `files` into sections (key-disjoint, in key order), each a list of sorted runs, each
/// a list of indices into `files` in key order.
///
/// `key_types` are the trimmed primary-key types, in key order.
///
/// # Errors
/// [`super::MergeError::InvalidInput`] when a file's `min_key` / `max_key` does not decode with
/// `key_types`.
pub fn interval_partition(
    files: &[DataFileMeta],
    key_types: &[DataType],
) -> Result<Vec<Vec<Vec<usize>>>> {
    let decode = |bytes: &[u8], file: &str| -> Result<Vec<Datum>> {
        BinaryRow::from_serialized(bytes)
            .and_then(|r| r.to_datums(key_types))
            .map_err(|e| invalid_input(format!("key range of data file {file}: {e}")))
    };
    let mut ranges = Vec::with_capacity(files.len());
    for f in files {
        ranges.push((
            decode(&f.min_key, &f.file_name)?,
            decode(&f.max_key, &f.file_name)?,
        ));
    }
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| {
        compare_keys(&ranges[a].0, &ranges[b].0)
            .then_with(|| compare_keys(&ranges[a].1, &ranges[b].1))
    });

    let mut sections = Vec::new();
    let mut section: Vec<usize> = Vec::new();
    let mut bound: Option<usize> = None;
    for &i in &order {
        if let Some(b) = bound {
            if !section.is_empty() && compare_keys(&ranges[i].0, &ranges[b].1) == Ordering::Greater
            {
                sections.push(runs_of(&section, &ranges));
                section.clear();
                bound = None;
            }
        }
        section.push(i);
        bound = match bound {
            Some(b) if compare_keys(&ranges[i].1, &ranges[b].1) != Ordering::Greater => Some(b),
            _ => Some(i),
        };
    }
    if !section.is_empty() {
        sections.push(runs_of(&section, &ranges));
    }
    Ok(sections)
}

type Range = (Vec<Datum>, Vec<Datum>);

fn runs_of(section: &[usize], ranges: &[Range]) -> Vec<Vec<usize>> {
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for &i in section {
        // The run whose last file ends lowest.
        let lowest = runs
            .iter()
            .enumerate()
            .filter_map(|(r, run)| run.last().map(|&last| (r, last)))
            .min_by(|a, b| compare_keys(&ranges[a.1].1, &ranges[b.1].1));
        match lowest {
            Some((r, last)) if compare_keys(&ranges[i].0, &ranges[last].1) == Ordering::Greater => {
                runs[r].push(i);
            }
            _ => runs.push(vec![i]),
        }
    }
    runs
}

/// Field-by-field comparison, nulls first (Java's generated key comparator).
fn compare_keys(a: &[Datum], b: &[Datum]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let ord = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => compare_datums(x, y).unwrap_or(Ordering::Equal),
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    a.len().cmp(&b.len())
}
