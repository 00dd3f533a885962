//! Split generators: how one bucket's files become splits (Java `SplitGenerator` family,
//! `BinPacking`, `IntervalPartition`).

use std::cmp::Ordering;

use paimon_spec::binary::Datum;
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::predicate::compare_datums;

/// A group of files that becomes one split.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitGroup {
    /// Files in read order.
    pub files: Vec<DataFileMeta>,
    /// Whether the files can be read independently (Java `SplitGroup.rawConvertible`).
    pub raw_convertible: bool,
}

/// Java `BinPacking.packForOrdered`: greedy, order-preserving packing. Each bin is allocated
/// at its exact size (bins of data files are what plans hold).
pub fn pack_ordered<T>(items: Vec<T>, weight: impl Fn(&T) -> i64, target: i64) -> Vec<Vec<T>> {
    let mut lens = Vec::new();
    let mut current: usize = 0;
    let mut current_weight: i64 = 0;
    for item in &items {
        let w = weight(item);
        if current_weight.saturating_add(w) > target && current > 0 {
            lens.push(current);
            current = 0;
            current_weight = 0;
        }
        current_weight = current_weight.saturating_add(w);
        current += 1;
    }
    if current > 0 {
        lens.push(current);
    }
    let mut items = items.into_iter();
    lens.into_iter()
        .map(|n| {
            let mut bin = Vec::with_capacity(n);
            bin.extend(items.by_ref().take(n));
            bin
        })
        .collect()
}

/// Sizes that drive packing (`source.split.target-size`, `source.split.open-file-cost`).
#[derive(Debug, Clone, Copy)]
pub struct SplitSizes {
    /// Target bytes per split.
    pub target: i64,
    /// Minimum weight of one file.
    pub open_file_cost: i64,
}

impl SplitSizes {
    fn file_weight(&self, f: &DataFileMeta) -> i64 {
        f.file_size.max(self.open_file_cost)
    }
}

/// Java `AppendOnlySplitGenerator.splitForBatch`: sort by min sequence number, then pack.
pub fn append_batch(mut files: Vec<DataFileMeta>, sizes: SplitSizes) -> Vec<SplitGroup> {
    files.sort_by_key(|f| f.min_sequence_number);
    pack_ordered(files, |f| sizes.file_weight(f), sizes.target)
        .into_iter()
        .map(|files| SplitGroup {
            files,
            raw_convertible: true,
        })
        .collect()
}

/// A data file with its decoded min/max key, for key-range algorithms.
#[derive(Debug, Clone)]
pub struct KeyedFile {
    /// The file.
    pub file: DataFileMeta,
    /// Decoded min key.
    pub min_key: Vec<Datum>,
    /// Decoded max key.
    pub max_key: Vec<Datum>,
}

/// Compares typed key rows as Java's generated key comparator: field by field, nulls first.
pub fn compare_keys(a: &[Datum], b: &[Datum]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            (Datum::Null, Datum::Null) => Ordering::Equal,
            (Datum::Null, _) => Ordering::Less,
            (_, Datum::Null) => Ordering::Greater,
            (Datum::Float(p), Datum::Float(q)) => p.total_cmp(q),
            (Datum::Double(p), Datum::Double(q)) => p.total_cmp(q),
            (Datum::Row(p), Datum::Row(q)) => compare_keys(p, q),
            _ => compare_datums(x, y).unwrap_or(Ordering::Equal),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// Java `MergeTreeSplitGenerator.splitForBatch`.
pub fn merge_tree_batch(
    files: Vec<KeyedFile>,
    sizes: SplitSizes,
    always_raw_convertible: bool,
) -> Vec<SplitGroup> {
    let raw_all = files
        .iter()
        .all(|f| f.file.level != 0 && !f.file.has_deletes());
    let one_level = files.windows(2).all(|w| w[0].file.level == w[1].file.level);
    if raw_all && (always_raw_convertible || one_level) {
        let plain: Vec<DataFileMeta> = files.into_iter().map(|f| f.file).collect();
        return pack_ordered(plain, |f| sizes.file_weight(f), sizes.target)
            .into_iter()
            .map(|files| SplitGroup {
                files,
                raw_convertible: true,
            })
            .collect();
    }
    let sections: Vec<Vec<DataFileMeta>> = interval_partition(files)
        .into_iter()
        .map(|runs| runs.into_iter().flatten().map(|k| k.file).collect())
        .collect();
    pack_ordered(
        sections,
        |s| {
            s.iter()
                .map(|f| f.file_size)
                .fold(0i64, i64::saturating_add)
                .max(sizes.open_file_cost)
        },
        sizes.target,
    )
    .into_iter()
    .map(|bin| {
        let files: Vec<DataFileMeta> = bin.into_iter().flatten().collect();
        let raw_convertible = files.len() == 1 && !files[0].has_deletes();
        SplitGroup {
            files,
            raw_convertible,
        }
    })
    .collect()
}

/// Java `IntervalPartition.partition`: sections of overlapping key ranges, each a list of
/// sorted runs in the order Java's priority queue iterates them (its heap array order).
pub fn interval_partition(mut files: Vec<KeyedFile>) -> Vec<Vec<Vec<KeyedFile>>> {
    files.sort_by(|a, b| {
        compare_keys(&a.min_key, &b.min_key).then_with(|| compare_keys(&a.max_key, &b.max_key))
    });
    let mut result = Vec::new();
    let mut section: Vec<KeyedFile> = Vec::new();
    let mut bound: Option<Vec<Datum>> = None;
    for f in files {
        if let Some(b) = &bound {
            if !section.is_empty() && compare_keys(&f.min_key, b) == Ordering::Greater {
                result.push(partition_section(std::mem::take(&mut section)));
                bound = None;
            }
        }
        let extend = match &bound {
            None => true,
            Some(b) => compare_keys(&f.max_key, b) == Ordering::Greater,
        };
        if extend {
            bound = Some(f.max_key.clone());
        }
        section.push(f);
    }
    if !section.is_empty() {
        result.push(partition_section(section));
    }
    result
}

fn partition_section(section: Vec<KeyedFile>) -> Vec<Vec<KeyedFile>> {
    let last_max = |run: &Vec<KeyedFile>| -> Vec<Datum> {
        run.last().map(|f| f.max_key.clone()).unwrap_or_default()
    };
    let mut queue = JavaPriorityQueue::new(|a: &Vec<KeyedFile>, b: &Vec<KeyedFile>| {
        compare_keys(&last_max(a), &last_max(b))
    });
    for f in section {
        match queue.poll() {
            None => queue.offer(vec![f]),
            Some(mut top) => {
                if compare_keys(&f.min_key, &last_max(&top)) == Ordering::Greater {
                    top.push(f);
                } else {
                    queue.offer(vec![f]);
                }
                queue.offer(top);
            }
        }
    }
    // Java returns `queue.stream()`: the heap's backing array in index order, not poll order.
    queue.into_items()
}

/// A binary heap with `java.util.PriorityQueue`'s exact sift rules, so ties come out in the
/// same order as in Java.
struct JavaPriorityQueue<T, F: Fn(&T, &T) -> Ordering> {
    items: Vec<T>,
    cmp: F,
}

impl<T, F: Fn(&T, &T) -> Ordering> JavaPriorityQueue<T, F> {
    fn new(cmp: F) -> Self {
        JavaPriorityQueue {
            items: Vec::new(),
            cmp,
        }
    }

    fn offer(&mut self, x: T) {
        self.items.push(x);
        let mut k = self.items.len() - 1;
        while k > 0 {
            let parent = (k - 1) >> 1;
            if (self.cmp)(&self.items[k], &self.items[parent]) != Ordering::Less {
                break;
            }
            self.items.swap(k, parent);
            k = parent;
        }
    }

    /// The elements in backing-array order, as `PriorityQueue.iterator()` / `stream()` yields them.
    fn into_items(self) -> Vec<T> {
        self.items
    }

    fn poll(&mut self) -> Option<T> {
        if self.items.is_empty() {
            return None;
        }
        let last = self.items.len() - 1;
        self.items.swap(0, last);
        let result = self.items.pop();
        let n = self.items.len();
        let mut k = 0;
        let half = n >> 1;
        while k < half {
            let mut child = 2 * k + 1;
            let right = child + 1;
            if right < n && (self.cmp)(&self.items[child], &self.items[right]) == Ordering::Greater
            {
                child = right;
            }
            if (self.cmp)(&self.items[k], &self.items[child]) != Ordering::Greater {
                break;
            }
            self.items.swap(k, child);
            k = child;
        }
        result
    }
}

/// Java `DataEvolutionSplitGenerator.splitForBatch`: group files with overlapping row-id
/// ranges (Java 1.4 `RangeHelper.mergeOverlappingRanges`: sorted by range start, then end;
/// within a group the files keep their input order), then pack the groups.
pub fn data_evolution_batch(
    files: Vec<DataFileMeta>,
    sizes: SplitSizes,
    count_blob_size: bool,
) -> Vec<SplitGroup> {
    let mut indexed: Vec<(usize, DataFileMeta)> = files.into_iter().enumerate().collect();
    indexed.sort_by_key(|(_, f)| f.row_id_range().unwrap_or((i64::MAX, i64::MAX)));
    let mut groups: Vec<Vec<(usize, DataFileMeta)>> = Vec::new();
    let mut group_end: Option<i64> = None;
    for (i, f) in indexed {
        match (f.row_id_range(), group_end) {
            (Some((start, end)), Some(ge)) if start <= ge => {
                group_end = Some(ge.max(end));
                if let Some(g) = groups.last_mut() {
                    g.push((i, f));
                }
            }
            (range, _) => {
                group_end = range.map(|r| r.1);
                groups.push(vec![(i, f)]);
            }
        }
    }
    let groups: Vec<Vec<DataFileMeta>> = groups
        .into_iter()
        .map(|mut g| {
            g.sort_by_key(|(i, _)| *i);
            g.into_iter().map(|(_, f)| f).collect()
        })
        .collect();
    let weight = |g: &Vec<DataFileMeta>| {
        g.iter()
            .map(|f| {
                if f.is_blob_file() && !count_blob_size {
                    sizes.open_file_cost
                } else {
                    f.file_size
                }
            })
            .fold(0i64, i64::saturating_add)
            .max(sizes.open_file_cost)
    };
    pack_ordered(groups, weight, sizes.target)
        .into_iter()
        .map(|bin| {
            let raw_convertible = bin.iter().all(|g| g.len() == 1);
            SplitGroup {
                files: bin.into_iter().flatten().collect(),
                raw_convertible,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use paimon_spec::stats::{empty_row_bytes, SimpleStats};

    fn file(name: &str, size: i64, seq: i64, level: i32) -> DataFileMeta {
        DataFileMeta {
            file_name: name.into(),
            file_size: size,
            row_count: 1,
            min_key: empty_row_bytes(),
            max_key: empty_row_bytes(),
            key_stats: SimpleStats::empty(),
            value_stats: SimpleStats::empty(),
            min_sequence_number: seq,
            max_sequence_number: seq,
            schema_id: 0,
            level,
            extra_files: vec![],
            creation_time: None,
            delete_row_count: Some(0),
            embedded_index: None,
            file_source: None,
            value_stats_cols: None,
            external_path: None,
            first_row_id: None,
            write_cols: None,
            write_cols_sequences: None,
        }
    }

    fn keyed(name: &str, min: i32, max: i32, level: i32) -> KeyedFile {
        KeyedFile {
            file: file(name, 10, 0, level),
            min_key: vec![Datum::Int(min)],
            max_key: vec![Datum::Int(max)],
        }
    }

    #[test]
    fn packs_in_order() {
        let bins = pack_ordered(vec![5, 5, 5, 20, 1], |x| *x, 10);
        assert_eq!(bins, vec![vec![5, 5], vec![5], vec![20], vec![1]]);
    }

    #[test]
    fn java_example_sections() {
        // [1,2] [3,4] [5,180] [5,190] [200,600] [210,700] -> four sections.
        let files = vec![
            keyed("a", 1, 2, 0),
            keyed("b", 3, 4, 0),
            keyed("c", 5, 180, 0),
            keyed("d", 5, 190, 0),
            keyed("e", 200, 600, 0),
            keyed("f", 210, 700, 0),
        ];
        let sections = interval_partition(files.clone());
        assert_eq!(sections.len(), 4);
        assert_eq!(sections[2].len(), 2);
        let groups = merge_tree_batch(
            files,
            SplitSizes {
                target: 25,
                open_file_cost: 1,
            },
            false,
        );
        let names: Vec<Vec<&str>> = groups
            .iter()
            .map(|g| g.files.iter().map(|f| f.file_name.as_str()).collect())
            .collect();
        assert_eq!(names, vec![vec!["a", "b"], vec!["c", "d"], vec!["e", "f"]]);
        assert!(groups.iter().all(|g| !g.raw_convertible));
    }

    #[test]
    fn raw_convertible_rules() {
        let files = vec![keyed("a", 1, 5, 1), keyed("b", 2, 6, 2)];
        let sizes = SplitSizes {
            target: 100,
            open_file_cost: 1,
        };
        let g = merge_tree_batch(files.clone(), sizes, true);
        assert_eq!(g.len(), 1);
        assert!(g[0].raw_convertible);
        let g = merge_tree_batch(files, sizes, false);
        assert!(!g[0].raw_convertible);
        let g = merge_tree_batch(vec![keyed("a", 1, 5, 0)], sizes, false);
        assert!(g[0].raw_convertible);
    }

    #[test]
    fn append_sorts_by_sequence() {
        let g = append_batch(
            vec![file("b", 1, 5, 0), file("a", 1, 1, 0)],
            SplitSizes {
                target: 100,
                open_file_cost: 10,
            },
        );
        assert_eq!(g[0].files[0].file_name, "a");
    }

    #[test]
    fn data_evolution_groups_overlaps() {
        let mut a = file("a", 10, 0, 0);
        a.first_row_id = Some(0);
        a.row_count = 10;
        let mut b = file("b", 10, 0, 0);
        b.first_row_id = Some(0);
        b.row_count = 10;
        let mut c = file("c", 10, 0, 0);
        c.first_row_id = Some(10);
        c.row_count = 5;
        let sizes = SplitSizes {
            target: 15,
            open_file_cost: 1,
        };
        let g = data_evolution_batch(vec![c, a, b], sizes, true);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].files.len(), 2);
        assert!(!g[0].raw_convertible);
        assert!(g[1].raw_convertible);
    }

    /// The layout of fixture `append/vector_store`, files in manifest order: Java 1.4.2 plans
    /// them as `data`, `vec-1`, `vec-2`, `rewrite` (one range, input order kept), then `tail`,
    /// `tail-vec` (the interop round trip compares the plans file for file).
    #[test]
    fn data_evolution_groups_keep_the_input_order() {
        let f = |name: &str, first: i64, rows: i64| {
            let mut m = file(name, 10, 0, 0);
            m.first_row_id = Some(first);
            m.row_count = rows;
            m
        };
        let input = vec![
            f("data", 0, 1100),
            f("vec-1", 0, 1000),
            f("vec-2", 1000, 100),
            f("tail", 1100, 10),
            f("tail-vec", 1100, 10),
            f("rewrite", 0, 1100),
        ];
        let sizes = SplitSizes {
            target: 1 << 30,
            open_file_cost: 1,
        };
        let g = data_evolution_batch(input, sizes, true);
        let names: Vec<&str> = g[0].files.iter().map(|f| f.file_name.as_str()).collect();
        assert_eq!(
            names,
            ["data", "vec-1", "vec-2", "rewrite", "tail", "tail-vec"]
        );
    }
}
