//! Encoding the columns of a Parquet row group on several threads.
//!
//! Each column writer keeps large state between batches (its dictionary and hash table, the
//! pages of the row group). The columns are therefore split into fixed groups, one per thread:
//! the calling thread encodes the first group and each pool thread one other, so that a
//! column's state stays in one core's cache. The groups are balanced by the time each column
//! took so far (longest first onto the least loaded group), and rebalanced every
//! [`REBALANCE_DISPATCHES`] dispatches. A dispatch hands the threads several batches at once
//! (the caller gathers them), so that each wake-up carries milliseconds of work.

use std::sync::{Arc, Mutex};

use crate::threads::run_groups;
use std::time::Instant;

use parquet::arrow::arrow_writer::{ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn};
use parquet::errors::ParquetError;

type Result<T> = std::result::Result<T, ParquetError>;

/// Dispatches (calls of [`ColumnGroups::write`]) between two rebalancings of the groups.
const REBALANCE_DISPATCHES: usize = 4;

/// Which thread encodes each column, and what each column cost so far.
#[derive(Debug)]
pub(crate) struct ColumnGroups {
    /// The threads besides the caller's; `None`: the caller encodes every column.
    pool: Option<Arc<rayon::ThreadPool>>,
    /// The group (thread) of each column.
    group: Vec<usize>,
    /// Nanoseconds each column took.
    cost: Vec<u64>,
    dispatches: usize,
}

impl ColumnGroups {
    pub(crate) fn new(pool: Option<Arc<rayon::ThreadPool>>) -> Self {
        ColumnGroups {
            pool,
            group: Vec::new(),
            cost: Vec::new(),
            dispatches: 0,
        }
    }

    fn groups(&self) -> usize {
        self.pool
            .as_ref()
            .map_or(1, |p| p.current_num_threads() + 1)
    }

    /// Whether columns are encoded on more than one thread.
    pub(crate) fn is_parallel(&self) -> bool {
        self.pool.is_some()
    }

    /// Writes each batch's `leaves[i]`, batch after batch, into `columns[i]`, each group of
    /// columns on its thread.
    pub(crate) fn write(
        &mut self,
        columns: &mut [ArrowColumnWriter],
        batches: &[Vec<ArrowLeafColumn>],
    ) -> Result<()> {
        let Some(pool) = self.pool.clone() else {
            for leaves in batches {
                for (w, leaf) in columns.iter_mut().zip(leaves) {
                    w.write(leaf)?;
                }
            }
            return Ok(());
        };
        let groups = self.groups();
        if self.group.len() != columns.len() {
            self.group = (0..columns.len()).map(|i| i % groups).collect();
            self.cost = vec![0; columns.len()];
        } else if self.dispatches.is_multiple_of(REBALANCE_DISPATCHES) {
            self.rebalance(groups);
        }
        self.dispatches += 1;
        let mut work: Vec<Vec<_>> = (0..groups).map(|_| Vec::new()).collect();
        let items = columns.iter_mut().enumerate().zip(self.cost.iter_mut());
        for (((i, w), cost), &g) in items.zip(&self.group) {
            if let Some(list) = work.get_mut(g) {
                list.push((i, w, cost));
            }
        }
        run_groups(&pool, work, |(i, w, cost)| {
            let start = Instant::now();
            for leaves in batches {
                if let Some(leaf) = leaves.get(i) {
                    w.write(leaf)?;
                }
            }
            *cost += u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
            Ok(())
        })
    }

    /// Closes every column, each group on its thread; the chunks in column order.
    pub(crate) fn close(
        &mut self,
        columns: Vec<ArrowColumnWriter>,
    ) -> Result<Vec<ArrowColumnChunk>> {
        let Some(pool) = self.pool.clone() else {
            return columns.into_iter().map(ArrowColumnWriter::close).collect();
        };
        let groups = self.groups();
        let slots: Vec<Mutex<Option<ArrowColumnChunk>>> =
            columns.iter().map(|_| Mutex::new(None)).collect();
        let mut work: Vec<Vec<_>> = (0..groups).map(|_| Vec::new()).collect();
        for (i, w) in columns.into_iter().enumerate() {
            let g = self.group.get(i).copied().unwrap_or(i % groups);
            if let Some(list) = work.get_mut(g) {
                list.push((i, w));
            }
        }
        run_groups(&pool, work, |(i, w)| {
            let chunk = w.close()?;
            if let Some(Ok(mut slot)) = slots.get(i).map(Mutex::lock) {
                *slot = Some(chunk);
            }
            Ok(())
        })?;
        slots
            .into_iter()
            .map(|s| {
                s.into_inner().ok().flatten().ok_or_else(|| {
                    ParquetError::General("a column chunk of the row group was lost".into())
                })
            })
            .collect()
    }

    /// Longest-first onto the least loaded group, by the cost so far.
    fn rebalance(&mut self, groups: usize) {
        let mut order: Vec<usize> = (0..self.cost.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.cost.get(i).copied().unwrap_or(0)));
        let mut load = vec![0u64; groups];
        for i in order {
            let (g, _) = load
                .iter()
                .enumerate()
                .min_by_key(|(_, l)| **l)
                .unwrap_or((0, &0));
            if let (Some(slot), Some(l)) = (self.group.get_mut(i), load.get_mut(g)) {
                *slot = g;
                *l += self.cost.get(i).copied().unwrap_or(0);
            }
        }
    }
}
