//! Reading with `scan.fallback-branch` (Java `FallbackReadFileStoreTable`): partitions this
//! branch does not hold are planned on the fallback branch, time-travelled as Java rewrites the
//! scan options for it, and refused when the two branches' row types differ.

use std::collections::HashSet;

use paimon_spec::predicate::Predicate;
use paimon_spec::schema::{TableSchema, TableSchemaRef};

use super::{Plan, ScanBuilder, SnapshotSelection};
use crate::error::{Error, Result};
use crate::table::Table;

impl ScanBuilder {
    pub(super) fn plan_all(&self) -> Result<Plan> {
        let mut plan = self.plan_branch()?;
        // Java `FallbackReadFileStoreTable`: partitions absent from this branch are read from
        // `scan.fallback-branch` (batch scans), time-travelled as Java rewrites the options.
        if let (Some(fallback), None) = (
            &self.table.options().scan_fallback_branch,
            &self.incremental,
        ) {
            if fallback != self.table.branch() {
                let other = self.table.with_branch(fallback)?;
                let mut scan = ScanBuilder::new(other);
                scan.pool = self.pool.clone();
                scan.memory = self.memory.clone();
                scan.selection = self.fallback_selection(&scan.table)?;
                scan.filter = self.filter.clone();
                scan.drop_stats = self.drop_stats;
                scan.all_levels = self.all_levels;
                self.check_fallback_row_type(&scan)?;
                let own = self.own_partitions(&plan)?;
                let extra = scan.plan_branch()?;
                let mut flags = vec![false; plan.splits.len()];
                for s in extra.splits {
                    if !own.contains(&s.partition) {
                        plan.splits.push(s);
                        flags.push(true);
                    }
                }
                plan.fallback = Some(flags);
                if plan.snapshot_id.is_none() {
                    plan.snapshot_id = extra.snapshot_id;
                }
            }
        }
        Ok(plan)
    }

    /// The snapshot of the fallback branch `other` read with this scan's (Java
    /// `FallbackReadFileStoreTable.rewriteFallbackOptions`): a snapshot id of this branch
    /// becomes the fallback's latest snapshot committed at or before it (the branches number
    /// their snapshots apart), or its first snapshot when none is that old; tags, times and
    /// watermarks are resolved by the fallback branch itself.
    fn fallback_selection(&self, other: &Table) -> Result<SnapshotSelection> {
        Ok(match &self.selection {
            SnapshotSelection::Id(id) => {
                let millis = self.table.snapshot_manager().snapshot(*id)?.time_millis;
                let earlier = other
                    .snapshot_manager()
                    .earlier_or_equal_time_millis(millis)?;
                SnapshotSelection::Id(earlier.map_or(1, |s| s.id))
            }
            s => s.clone(),
        })
    }

    /// The schema of the snapshot this scan reads (the latest schema without one).
    fn read_schema(&self) -> Result<TableSchemaRef> {
        match self.snapshot()? {
            Some(s) => self.table.schema_manager().schema(s.schema_id),
            None => Ok(self.table.schema().clone()),
        }
    }

    /// Java `FallbackReadFileStoreTable.validateSchema`: both branches, as read, have the same
    /// row type up to nullability, and the fallback the same primary keys when this branch has
    /// any.
    fn check_fallback_row_type(&self, fallback: &ScanBuilder) -> Result<()> {
        let (main, other) = (self.read_schema()?, fallback.read_schema()?);
        let row = |s: &TableSchema| {
            let fields: Vec<String> = s
                .fields
                .iter()
                .map(|f| format!("{} {}", f.name, f.data_type))
                .collect();
            format!("ROW<{}>", fields.join(", "))
        };
        let same_row = main.fields.len() == other.fields.len()
            && main
                .fields
                .iter()
                .zip(&other.fields)
                .all(|(a, b)| a.data_type.eq_ignore_nullable(&b.data_type));
        let (a, b) = (self.table.branch(), fallback.table.branch());
        if !same_row {
            return Err(Error::unsupported(format!(
                "reading branch {a} with fallback branch {b}: their row types differ ({a}: {}, \
                 {b}: {}), which Java refuses too",
                row(&main),
                row(&other)
            )));
        }
        if !main.primary_keys.is_empty() && main.primary_keys != other.primary_keys {
            return Err(Error::unsupported(format!(
                "reading branch {a} with fallback branch {b}: primary keys {:?} and {:?} differ, \
                 which Java refuses too",
                main.primary_keys, other.primary_keys
            )));
        }
        Ok(())
    }

    /// The partitions this branch holds under the filter's partition conjuncts only (Java
    /// `FallbackReadScan`'s complete partitions): a partition whose files the data conjuncts
    /// prune away is still this branch's, never the fallback's. `plan` is this branch's plan
    /// with the whole filter; without data conjuncts its partitions are the answer.
    fn own_partitions(&self, plan: &Plan) -> Result<HashSet<Vec<u8>>> {
        let keys = &self.table.schema().partition_keys;
        let is_partition_only =
            |p: &Predicate| p.columns().iter().all(|c| keys.iter().any(|k| k == c));
        let Some(filter) = self
            .filter
            .as_ref()
            .filter(|f| !f.conjuncts().into_iter().all(is_partition_only))
        else {
            return Ok(plan.splits.iter().map(|s| s.partition.clone()).collect());
        };
        let partition_only: Vec<Predicate> = filter
            .conjuncts()
            .into_iter()
            .filter(|p| is_partition_only(p))
            .cloned()
            .collect();
        let mut scan = ScanBuilder::new(self.table.clone());
        scan.selection = self.selection.clone();
        scan.filter = (!partition_only.is_empty()).then(|| Predicate::and(partition_only));
        scan.drop_stats = true;
        scan.pool = self.pool.clone();
        scan.memory = self.memory.clone();
        let memory = scan.memory();
        Ok(match scan.collect(&memory)? {
            Some((_, buckets, _)) => {
                memory.shrink(super::memory::buckets_heap(&buckets));
                buckets.into_iter().map(|b| b.partition).collect()
            }
            None => HashSet::new(),
        })
    }
}
