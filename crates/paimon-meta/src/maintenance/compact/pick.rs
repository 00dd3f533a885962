//! Which files of one partition and bucket a compaction takes: pure functions over file sizes,
//! sequence numbers, levels and deletion-vector cardinalities, with Java 1.4's rules.
//!
//! Each returns groups of indices into the files given; one group is one task.

/// What picking needs to know of one file.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct FileInfo {
    /// `fileSize`.
    pub size: i64,
    /// `rowCount`.
    pub rows: i64,
    /// `minSequenceNumber`.
    pub min_seq: i64,
    /// `maxSequenceNumber`.
    pub max_seq: i64,
    /// `creationTime` (millis), where recorded.
    pub creation_time: Option<i64>,
    /// The file name.
    pub name: String,
    /// LSM level.
    pub level: i32,
    /// The deletion-vector index file holding this file's vector (an index into the bucket's
    /// index files) and the vector's cardinality, when the file has one.
    pub dv: Option<(usize, Option<i64>)>,
    /// `firstRowId` (row-tracked tables).
    pub first_row_id: Option<i64>,
}

/// The table options the rules use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PickOptions {
    /// `target-file-size`.
    pub target_file_size: i64,
    /// `compactionFileSize`: 70% of the target.
    pub compaction_file_size: i64,
    /// `compaction.min.file-num`.
    pub min_file_num: usize,
    /// `source.split.open-file-cost`.
    pub open_file_cost: i64,
    /// `compaction.delete-ratio-threshold`.
    pub delete_ratio_threshold: f64,
}

/// Java `BucketedAppendCompactManager.FULL_COMPACT_MIN_FILE`.
const FULL_COMPACT_MIN_FILE: usize = 3;

/// Unaware-bucket append table, one partition (Java `AppendCompactCoordinator`, batch mode, one
/// `run()`): files below the compaction size, or whose deletion vector covers more than the
/// threshold of their rows, are bin-packed by size; a bin closes at two target sizes (counting
/// the open-file cost of each file); the last bin is kept when it has `compaction.min.file-num`
/// files. With deletion vectors, the files of one index file stay together and a bin holding
/// any of them is always compacted.
pub(super) fn unaware(files: &[FileInfo], o: &PickOptions) -> Vec<Vec<usize>> {
    let should = |f: &FileInfo| {
        f.size < o.compaction_file_size
            || f.dv.is_some_and(|(_, card)| {
                card.is_none_or(|c| c as f64 > f.rows as f64 * o.delete_ratio_threshold)
            })
    };
    let to_compact: Vec<usize> = (0..files.len()).filter(|i| should(&files[*i])).collect();
    let mut result = Vec::new();
    let mut bin = Bin::default();
    if files.iter().all(|f| f.dv.is_none()) {
        pack(files, to_compact, o, &mut result);
        return result;
    }
    // Files with a vector, grouped by their index file; groups in size order.
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut rest = Vec::new();
    for i in to_compact {
        match files[i].dv {
            Some((index, _)) => match groups.iter_mut().find(|(x, _)| *x == index) {
                Some((_, g)) => g.push(i),
                None => groups.push((index, vec![i])),
            },
            None => rest.push(i),
        }
    }
    let group_size = |g: &[usize]| g.iter().fold(0i64, |s, i| s.saturating_add(files[*i].size));
    groups.sort_by_key(|(_, g)| group_size(g));
    for (_, g) in groups {
        for i in g {
            bin.add(i, files[i].size.saturating_add(o.open_file_cost));
        }
        if bin.enough_content(o) {
            result.push(bin.drain());
        }
    }
    if !bin.files.is_empty() {
        result.push(bin.drain());
    }
    if rest.len() > 1 {
        pack(files, rest, o, &mut result);
    }
    result
}

/// Java `SubCoordinator.pack`: by size, bins of two target sizes, a last bin of enough files.
fn pack(files: &[FileInfo], mut picked: Vec<usize>, o: &PickOptions, out: &mut Vec<Vec<usize>>) {
    picked.sort_by_key(|i| files[*i].size);
    let mut bin = Bin::default();
    for i in picked {
        bin.add(i, files[i].size.saturating_add(o.open_file_cost));
        if bin.enough_content(o) {
            out.push(bin.drain());
        }
    }
    if bin.files.len() >= o.min_file_num {
        out.push(bin.drain());
    }
}

#[derive(Debug, Default)]
struct Bin {
    files: Vec<usize>,
    size: i64,
}

impl Bin {
    fn add(&mut self, file: usize, cost: i64) {
        self.files.push(file);
        self.size = self.size.saturating_add(cost);
    }

    fn enough_content(&self, o: &PickOptions) -> bool {
        self.files.len() > 1 && self.size >= o.target_file_size.saturating_mul(2)
    }

    fn drain(&mut self) -> Vec<usize> {
        self.size = 0;
        std::mem::take(&mut self.files)
    }
}

/// Indices of `files` by `minSequenceNumber` (Java's priority queue of a bucketed writer).
fn by_sequence(files: &[FileInfo]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|i| files[*i].min_seq);
    order
}

/// Fixed-bucket append table, one bucket (Java `BucketedAppendCompactManager
/// .pickCompactBefore`): in sequence order, the first window of `compaction.min.file-num`
/// files; the window slides on while its files reach two target sizes.
pub(super) fn bucketed(files: &[FileInfo], o: &PickOptions) -> Vec<Vec<usize>> {
    let mut window: std::collections::VecDeque<usize> = Default::default();
    let mut total = 0i64;
    for i in by_sequence(files) {
        window.push_back(i);
        total = total.saturating_add(files[i].size);
        if window.len() >= o.min_file_num {
            return vec![window.into_iter().collect()];
        }
        if total >= o.target_file_size.saturating_mul(2) {
            if let Some(first) = window.pop_front() {
                total -= files[first].size;
            }
        }
    }
    Vec::new()
}

/// Fixed-bucket append table, full compaction of one bucket (Java `BucketedAppendCompactManager
/// .triggerFullCompaction` and `FullCompactTask`): in sequence order, leading files of at
/// least the compaction size without a deletion vector stay; the rest is compacted when the
/// table has deletion vectors, else when it holds more small files than large ones and at least
/// three files.
pub(super) fn bucketed_full(
    files: &[FileInfo],
    o: &PickOptions,
    dv_table: bool,
) -> Vec<Vec<usize>> {
    if files.is_empty() || (!dv_table && files.len() < FULL_COMPACT_MIN_FILE) {
        return Vec::new();
    }
    let order = by_sequence(files);
    let skip = order
        .iter()
        .take_while(|i| files[**i].size >= o.compaction_file_size && files[**i].dv.is_none())
        .count();
    let rest: Vec<usize> = order[skip..].to_vec();
    if rest.is_empty() {
        return Vec::new();
    }
    if dv_table {
        return vec![rest];
    }
    let big = rest
        .iter()
        .filter(|i| files[**i].size >= o.compaction_file_size)
        .count();
    let small = rest.len() - big;
    if small > big && rest.len() >= FULL_COMPACT_MIN_FILE {
        vec![rest]
    } else {
        Vec::new()
    }
}

/// Unaware-bucket append table, full compaction of one partition: every file, in sequence
/// order, when there are two or more or any has a deletion vector.
pub(super) fn unaware_full(files: &[FileInfo]) -> Vec<Vec<usize>> {
    if files.len() > 1 || files.iter().any(|f| f.dv.is_some()) {
        vec![by_sequence(files)]
    } else {
        Vec::new()
    }
}

/// Row-tracked append table: each group cut where the row ids of its files, in first-row-id
/// order, do not run on, so that every compacted file holds consecutive row ids and gets a
/// `firstRowId` (without one pypaimon 2.1 reads its row ids as null and paimon-rust 0.4
/// refuses it). A file without a first row id is a piece of its own; a piece of one file is
/// kept only when it has a deletion vector (its deleted rows are dropped).
pub(super) fn row_id_runs(files: &[FileInfo], groups: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    for mut group in groups {
        group.sort_by_key(|i| (files[*i].first_row_id.is_none(), files[*i].first_row_id));
        let mut run: Vec<usize> = Vec::new();
        let mut next: Option<i64> = None;
        for i in group {
            let f = &files[i];
            let follows = f.first_row_id.is_some() && f.first_row_id == next;
            if !follows {
                keep_run(files, std::mem::take(&mut run), &mut out);
            }
            run.push(i);
            next = f.first_row_id.map(|first| first.saturating_add(f.rows));
        }
        keep_run(files, run, &mut out);
    }
    out
}

fn keep_run(files: &[FileInfo], run: Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if run.len() > 1 || run.iter().any(|i| files[*i].dv.is_some()) {
        out.push(run);
    }
}

/// Primary-key table, full compaction of one bucket (Java `CompactStrategy
/// .pickFullCompaction`): every file, unless the bucket is a single sorted run already at the
/// last level; then only its files with a deletion vector, which are rewritten without the
/// deleted rows. Level-0 files are a sorted run each, every other level one.
pub(super) fn merge_tree_full(files: &[FileInfo], max_level: i32) -> Vec<Vec<usize>> {
    if files.is_empty() {
        return Vec::new();
    }
    let only_max_level = files.iter().all(|f| f.level == max_level);
    if only_max_level && max_level > 0 {
        let with_dv: Vec<usize> = (0..files.len())
            .filter(|i| files[*i].dv.is_some())
            .collect();
        return if with_dv.is_empty() {
            Vec::new()
        } else {
            vec![with_dv]
        };
    }
    vec![(0..files.len()).collect()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: i64 = 1 << 20;

    fn file(size: i64, min_seq: i64) -> FileInfo {
        FileInfo {
            size,
            rows: 100,
            min_seq,
            max_seq: min_seq,
            creation_time: None,
            name: format!("f{min_seq}"),
            level: 0,
            dv: None,
            first_row_id: None,
        }
    }

    /// Java 1.4 defaults for an append table: target 256 MiB, compaction size 70% of it,
    /// min file num 5, open-file cost 4 MiB, delete ratio 0.2.
    fn defaults() -> PickOptions {
        PickOptions {
            target_file_size: 256 * MB,
            compaction_file_size: 256 * MB / 10 * 7,
            min_file_num: 5,
            open_file_cost: 4 * MB,
            delete_ratio_threshold: 0.2,
        }
    }

    #[test]
    fn unaware_needs_min_file_num_small_files() {
        let four: Vec<FileInfo> = (0..4).map(|i| file(MB, i)).collect();
        assert!(unaware(&four, &defaults()).is_empty());
        let five: Vec<FileInfo> = (0..5).map(|i| file(MB, i)).collect();
        assert_eq!(unaware(&five, &defaults()), vec![vec![0, 1, 2, 3, 4]]);
    }

    #[test]
    fn unaware_leaves_large_files_and_closes_bins_at_twice_the_target() {
        // 200 MiB files: above 70% of 256 MiB? 179.2 MiB is the limit, so they stay.
        let mut files = vec![file(200 * MB, 0), file(200 * MB, 1)];
        files.extend((0..3).map(|i| file(MB, 10 + i)));
        assert!(unaware(&files, &defaults()).is_empty());
        // Three 170 MiB files (+4 MiB cost each) reach 512 MiB with the third file.
        let files: Vec<FileInfo> = (0..4).map(|i| file(170 * MB, i)).collect();
        assert_eq!(unaware(&files, &defaults()), vec![vec![0, 1, 2]]);
    }

    #[test]
    fn unaware_with_deletion_vectors_always_compacts_their_files() {
        let mut files: Vec<FileInfo> = (0..2).map(|i| file(MB, i)).collect();
        files[0].dv = Some((0, Some(3)));
        files[1].dv = Some((0, Some(1)));
        assert_eq!(unaware(&files, &defaults()), vec![vec![0, 1]]);
        // A large file with a vector over 20% of its rows is compacted too.
        let mut big = file(300 * MB, 5);
        big.dv = Some((1, Some(30)));
        assert_eq!(unaware(&[big.clone()], &defaults()), vec![vec![0]]);
        big.dv = Some((1, Some(20)));
        assert!(unaware(&[big], &defaults()).is_empty());
    }

    #[test]
    fn bucketed_window_slides_past_large_files() {
        let o = PickOptions {
            target_file_size: 10 * MB,
            compaction_file_size: 7 * MB,
            min_file_num: 3,
            ..defaults()
        };
        // In sequence order: 25 MiB (alone reaches 2 x 10 MiB, slides out), then three small.
        let files = vec![file(MB, 3), file(25 * MB, 1), file(MB, 2), file(MB, 4)];
        assert_eq!(bucketed(&files, &o), vec![vec![2, 0, 3]]);
        assert!(bucketed(&files[..3], &o).is_empty());
    }

    #[test]
    fn row_id_runs_cut_groups_where_row_ids_do_not_run_on() {
        let tracked = |first: Option<i64>, rows: i64| FileInfo {
            rows,
            first_row_id: first,
            ..file(MB, 0)
        };
        // Row ids 0..2, 2..5, 9..10, 5..9, then a file without a first row id.
        let files = [
            tracked(Some(0), 2),
            tracked(Some(2), 3),
            tracked(Some(9), 1),
            tracked(Some(5), 4),
            tracked(None, 7),
        ];
        assert_eq!(
            row_id_runs(&files, vec![vec![4, 3, 2, 1, 0]]),
            vec![vec![0, 1, 3, 2]]
        );
        // 0..2 and 5..9 are not adjacent: two pieces of one file, neither kept.
        assert!(row_id_runs(&files, vec![vec![3, 0]]).is_empty());
        // Unless the file has a deletion vector.
        let mut with_dv = files.clone();
        with_dv[3].dv = Some((0, Some(1)));
        assert_eq!(row_id_runs(&with_dv, vec![vec![3, 0]]), vec![vec![3]]);
    }

    #[test]
    fn bucketed_full_rules() {
        let o = defaults();
        // Two files: below FULL_COMPACT_MIN_FILE.
        assert!(bucketed_full(&[file(MB, 0), file(MB, 1)], &o, false).is_empty());
        // A leading large file stays; then 2 small vs 1 large compacts the three.
        let files = vec![
            file(200 * MB, 0),
            file(MB, 1),
            file(200 * MB, 2),
            file(MB, 3),
        ];
        assert_eq!(bucketed_full(&files, &o, false), vec![vec![1, 2, 3]]);
        // One small, one large after the skip: not more small than large.
        assert!(bucketed_full(&files[..3], &o, false).is_empty());
        // With deletion vectors, whatever is left after the skip.
        assert_eq!(bucketed_full(&files[..2], &o, true), vec![vec![1]]);
    }

    #[test]
    fn merge_tree_full_skips_a_bucket_already_at_the_last_level() {
        let mut files = vec![file(MB, 0), file(MB, 5)];
        files[0].level = 5;
        files[1].level = 5;
        assert!(merge_tree_full(&files, 5).is_empty());
        files[1].level = 0;
        assert_eq!(merge_tree_full(&files, 5), vec![vec![0, 1]]);
        // A lone level-0 file still moves to the last level.
        assert_eq!(merge_tree_full(&files[1..], 5), vec![vec![0]]);
        // At the last level, the files with a deletion vector are rewritten.
        files[1].level = 5;
        files[1].dv = Some((0, Some(2)));
        assert_eq!(merge_tree_full(&files, 5), vec![vec![1]]);
    }
}
