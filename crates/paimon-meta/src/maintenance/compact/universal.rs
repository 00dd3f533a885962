//! Primary-key tables, minor compaction of one bucket: Java 1.4's `UniversalCompaction` (after
//! RocksDB's universal compaction) over the bucket's sorted runs, and the unit filter of
//! `MergeTreeCompactManager.triggerCompaction`.
//!
//! ```text
//! runs: each level-0 file alone, newest first (max sequence number descending, then min
//!       sequence number, creation time, name), then each non-empty level 1.. as one run
//! 1. size amplification: runs >= trigger and sum(all but the oldest) * 100 > amp% * oldest
//!    -> every run into the last level
//! 2. size ratio: runs >= trigger; from the newest run, take the next run while
//!    candidate * (100 + ratio) / 100 >= its size; more than one run -> unit
//! 3. run count: runs > trigger -> size ratio starting with runs - trigger + 1 candidates
//! (force-up-level-0: when nothing was picked, every level-0 run, extended by size ratio)
//! unit output level: the last level when every run is in; else the next run's level - 1,
//! never 0 (level-0 runs after it join until a run at a higher level, whose level is used)
//! ```

use super::pick::FileInfo;

/// The options universal compaction reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct UniversalOptions {
    /// `compaction.max-size-amplification-percent`.
    pub max_size_amp: i64,
    /// `compaction.size-ratio`.
    pub size_ratio: i64,
    /// `num-sorted-run.compaction-trigger`.
    pub trigger: usize,
    /// `compaction.force-up-level-0`.
    pub force_up_level0: bool,
}

/// One sorted run: its level, total size and files.
#[derive(Debug, Clone)]
struct Run {
    level: i32,
    size: i64,
    files: Vec<usize>,
}

/// What one bucket's minor compaction rewrites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unit {
    /// Indices of the files taken.
    pub files: Vec<usize>,
    /// The level they are merged into.
    pub output_level: i32,
    /// The bucket's last level (`num-levels` - 1, or deeper where a file already is).
    pub max_level: i32,
    /// Whether retractions are dropped (Java: output above level 0 and at or above the highest
    /// non-empty level).
    pub drop_delete: bool,
}

/// The unit Java's `MergeTreeCompactManager.triggerCompaction(false)` submits for the bucket of
/// `files`, when the table has `num_levels` levels (more if a file sits deeper).
pub(super) fn pick(files: &[FileInfo], num_levels: i32, o: &UniversalOptions) -> Option<Unit> {
    let runs = sorted_runs(files);
    let deepest = files.iter().map(|f| f.level).max()?;
    let max_level = num_levels.max(deepest + 1) - 1;
    let (run_count, output_level) = pick_runs(&runs, max_level, o)?;
    let taken: Vec<usize> = runs[..run_count]
        .iter()
        .flat_map(|r| r.files.iter().copied())
        .collect();
    // Nothing to do: no file, or one file already at the output level.
    if taken.is_empty() || (taken.len() == 1 && files[taken[0]].level == output_level) {
        return None;
    }
    Some(Unit {
        files: taken,
        output_level,
        max_level,
        drop_delete: output_level != 0 && output_level >= deepest,
    })
}

fn sorted_runs(files: &[FileInfo]) -> Vec<Run> {
    let mut level0: Vec<usize> = (0..files.len()).filter(|i| files[*i].level == 0).collect();
    level0.sort_by(|a, b| {
        let (x, y) = (&files[*a], &files[*b]);
        y.max_seq
            .cmp(&x.max_seq)
            .then(x.min_seq.cmp(&y.min_seq))
            .then(x.creation_time.cmp(&y.creation_time))
            .then(x.name.cmp(&y.name))
    });
    let mut runs: Vec<Run> = level0
        .into_iter()
        .map(|i| Run {
            level: 0,
            size: files[i].size,
            files: vec![i],
        })
        .collect();
    let mut levels: Vec<i32> = files.iter().map(|f| f.level).filter(|l| *l > 0).collect();
    levels.sort_unstable();
    levels.dedup();
    for level in levels {
        let members: Vec<usize> = (0..files.len())
            .filter(|i| files[*i].level == level)
            .collect();
        runs.push(Run {
            level,
            size: members
                .iter()
                .fold(0i64, |s, i| s.saturating_add(files[*i].size)),
            files: members,
        });
    }
    runs
}

/// Java `UniversalCompaction.pick` (and `ForceUpLevel0Compaction.pick`): how many of the
/// newest runs to take and the output level.
fn pick_runs(runs: &[Run], max_level: i32, o: &UniversalOptions) -> Option<(usize, i32)> {
    let n = runs.len();
    let picked = if n >= o.trigger && n > 0 {
        let newer: i64 = runs[..n - 1]
            .iter()
            .fold(0i64, |s, r| s.saturating_add(r.size));
        if newer.saturating_mul(100) > o.max_size_amp.saturating_mul(runs[n - 1].size) {
            Some((n, max_level))
        } else {
            size_ratio(runs, max_level, 1, false, o.size_ratio).or_else(|| {
                (n > o.trigger)
                    .then(|| size_ratio(runs, max_level, n - o.trigger + 1, false, o.size_ratio))
                    .flatten()
            })
        }
    } else {
        None
    };
    if picked.is_some() || !o.force_up_level0 {
        return picked;
    }
    let level0 = runs.iter().take_while(|r| r.level == 0).count();
    (level0 > 0)
        .then(|| size_ratio(runs, max_level, level0, true, o.size_ratio))
        .flatten()
}

/// Java `pickForSizeRatio(maxLevel, runs, candidateCount, forcePick)`.
fn size_ratio(
    runs: &[Run],
    max_level: i32,
    mut count: usize,
    force: bool,
    ratio: i64,
) -> Option<(usize, i32)> {
    let mut candidate: i64 = runs[..count.min(runs.len())]
        .iter()
        .fold(0i64, |s, r| s.saturating_add(r.size));
    for next in &runs[count.min(runs.len())..] {
        if candidate as f64 * (100.0 + ratio as f64) / 100.0 < next.size as f64 {
            break;
        }
        candidate = candidate.saturating_add(next.size);
        count += 1;
    }
    (force || count > 1).then(|| create_unit(runs, max_level, count))
}

/// Java `createUnit`: the output level of the `count` newest runs, taking more runs rather
/// than writing level 0.
fn create_unit(runs: &[Run], max_level: i32, mut count: usize) -> (usize, i32) {
    let mut output = if count >= runs.len() {
        max_level
    } else {
        (runs[count].level - 1).max(0)
    };
    if output == 0 {
        while count < runs.len() {
            let next = &runs[count];
            count += 1;
            if next.level != 0 {
                output = next.level;
                break;
            }
        }
    }
    if count >= runs.len() {
        output = max_level;
    }
    (count.min(runs.len()), output)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(level: i32, size: i64, seq: i64) -> FileInfo {
        FileInfo {
            size,
            rows: 10,
            min_seq: seq,
            max_seq: seq,
            creation_time: None,
            name: format!("f{seq}"),
            level,
            dv: None,
            first_row_id: None,
        }
    }

    const DEFAULTS: UniversalOptions = UniversalOptions {
        max_size_amp: 200,
        size_ratio: 1,
        trigger: 5,
        force_up_level0: false,
    };

    #[test]
    fn fewer_runs_than_the_trigger_pick_nothing() {
        let files = vec![file(0, 10, 3), file(0, 10, 2), file(5, 1000, 1)];
        assert_eq!(pick(&files, 6, &DEFAULTS), None);
    }

    #[test]
    fn size_amplification_takes_everything_into_the_last_level() {
        // Five level-0 runs of 10 against a last-level run of 20: 50 * 100 > 200 * 20.
        let mut files: Vec<FileInfo> = (1..=5).map(|s| file(0, 10, s)).collect();
        files.push(file(5, 20, 0));
        let unit = pick(&files, 6, &DEFAULTS).unwrap();
        assert_eq!(unit.output_level, 5);
        assert_eq!(unit.files.len(), 6);
        assert!(unit.drop_delete);
    }

    #[test]
    fn size_ratio_stops_before_the_big_run_and_outputs_just_above_it() {
        // Runs, newest first: 10, 10, 10, 10, 10 (level 0), then 1000 at level 5. Size
        // amplification does not fire (50 * 100 <= 200 * 1000); size ratio takes the five
        // small runs and stops at the big one: output level 4, deletes kept (level 5 is older).
        let mut files: Vec<FileInfo> = (1..=5).map(|s| file(0, 10, s)).collect();
        files.push(file(5, 1000, 0));
        let unit = pick(&files, 6, &DEFAULTS).unwrap();
        assert_eq!(unit.output_level, 4);
        let mut taken = unit.files.clone();
        taken.sort_unstable();
        assert_eq!(taken, vec![0, 1, 2, 3, 4]);
        assert!(!unit.drop_delete);
    }

    #[test]
    fn a_growing_run_stops_the_ratio_then_the_run_count_decides() {
        // Newest first: 10, 100, 100, 100, 100 (level 0), 10000 (level 5): the ratio stops at
        // once (10 * 1.01 < 100), so six runs > trigger 5 start with 2 candidates, which take
        // the other level-0 runs and stop at the big one.
        let mut files = vec![file(0, 10, 9)];
        files.extend((1..=4).map(|s| file(0, 100, s)));
        files.push(file(5, 10_000, 0));
        let unit = pick(&files, 6, &DEFAULTS).unwrap();
        assert_eq!((unit.files.len(), unit.output_level), (5, 4));
    }

    #[test]
    fn level_zero_output_takes_runs_up_to_a_higher_level() {
        // Newest first: 10, 10 (level 0), 100 (level 0), 1000 (level 3), 10000 (level 5),
        // trigger 3: ratio takes the two 10s and stops at 100; the next run is at level 0, so
        // the unit grows through it to the level-3 run and outputs level 3.
        let files = vec![
            file(0, 10, 5),
            file(0, 10, 4),
            file(0, 100, 3),
            file(3, 1000, 2),
            file(5, 10_000, 1),
        ];
        let o = UniversalOptions {
            trigger: 3,
            ..DEFAULTS
        };
        let unit = pick(&files, 6, &o).unwrap();
        assert_eq!(unit.output_level, 3);
        let mut taken = unit.files.clone();
        taken.sort_unstable();
        assert_eq!(taken, vec![0, 1, 2, 3]);
    }

    #[test]
    fn force_up_level_zero_takes_the_level_zero_files() {
        let files = vec![file(0, 10, 3), file(0, 1000, 2), file(5, 100_000, 1)];
        assert_eq!(pick(&files, 6, &DEFAULTS), None);
        let o = UniversalOptions {
            force_up_level0: true,
            ..DEFAULTS
        };
        let unit = pick(&files, 6, &o).unwrap();
        assert_eq!((unit.files.len(), unit.output_level), (2, 4));
    }

    #[test]
    fn one_file_already_at_its_output_level_is_left() {
        let files = vec![file(5, 100, 1)];
        let o = UniversalOptions {
            force_up_level0: true,
            trigger: 1,
            ..DEFAULTS
        };
        assert_eq!(pick(&files, 6, &o), None);
    }
}
