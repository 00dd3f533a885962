//! The partial-update engine (Java `PartialUpdateMergeFunction`).
//!
//! Without sequence groups, every non-null field of a newer record overwrites the merged row.
//! With sequence groups, each group's fields are updated (nulls included) only by records whose
//! group sequence is not older, and may carry aggregate functions. Deletes fail the read unless
//! `ignore-delete`, `partial-update.remove-record-on-delete` or sequence groups say otherwise.

use std::cmp::Ordering;

use arrow_schema::Fields;
use paimon_spec::options::CoreOptions;

use super::aggregate::{AggFunction, AggSpec, FieldAgg};
use super::cell::{compare_nullable, Acc};
use super::cursor::{is_add, BatchStore};
use super::engine::{
    apply, index_of, init_row, Entry, GroupMerge, PartialUpdateSpec, SequenceGroup, DELETE, INSERT,
};
use super::error::{invalid_option, merge_failed, Result};
use super::output::OutputSink;

const DELETE_REJECTED: &str = "by default, partial-update cannot accept delete records; \
     configure 'ignore-delete', 'partial-update.remove-record-on-delete', or sequence groups \
     (optionally with 'partial-update.remove-record-on-sequence-group')";

/// Java `PartialUpdateMergeFunction.Factory`: resolves sequence groups and aggregates.
pub(crate) fn spec_from_options(
    options: &CoreOptions,
    primary_keys: &[String],
    value_fields: &Fields,
) -> Result<PartialUpdateSpec> {
    let is_pk = |name: &str| primary_keys.iter().any(|k| k == name);
    let mut sequence_groups = Vec::new();
    let mut protected_by: Vec<Option<usize>> = vec![None; value_fields.len()];
    let mut all_sequence_fields: Vec<usize> = Vec::new();
    let mut groups = options.sequence_groups();
    groups.sort();
    for (seq_names, field_names) in groups {
        let group_label = seq_names.join(",");
        let mut group = SequenceGroup {
            sequence_fields: Vec::new(),
            fields: Vec::new(),
        };
        for name in &field_names {
            let idx = index_of(value_fields, name, "sequence-group field")?;
            if is_pk(name) {
                return Err(invalid_option(format!(
                    "sequence-group '{group_label}' contains primary key field '{name}'"
                )));
            }
            if protected_by[idx].is_some() {
                return Err(invalid_option(format!(
                    "field {name} is defined repeatedly by multiple sequence groups: {group_label}"
                )));
            }
            protected_by[idx] = Some(sequence_groups.len());
            group.fields.push(idx);
        }
        for name in &seq_names {
            let idx = index_of(value_fields, name, "sequence-group sequence field")?;
            if is_pk(name) {
                return Err(invalid_option(format!(
                    "sequence-group '{group_label}' contains primary key field '{name}'"
                )));
            }
            all_sequence_fields.push(idx);
            group.sequence_fields.push(idx);
        }
        sequence_groups.push(group);
    }

    let per_field = options.aggregate_functions();
    let mut aggregates = Vec::with_capacity(value_fields.len());
    for (i, f) in value_fields.iter().enumerate() {
        let name = f.name().as_str();
        let function = if all_sequence_fields.contains(&i) {
            None
        } else if is_pk(name) {
            Some(AggFunction::PrimaryKey)
        } else {
            match per_field
                .get(name)
                .or(options.default_aggregate_function.as_ref())
            {
                None => None,
                Some(n) => {
                    let function = AggFunction::parse(n.trim())?;
                    if function != AggFunction::LastNonNullValue && protected_by[i].is_none() {
                        return Err(invalid_option(format!(
                            "must use a sequence group for aggregation functions but not found \
                             for field {name}"
                        )));
                    }
                    Some(function)
                }
            }
        };
        aggregates.push(match function {
            None => None,
            Some(func) => Some(AggSpec::from_options(func, name, options)?),
        });
    }

    let ignore_delete = options.ignore_delete;
    let remove_record_on_delete = options.partial_update_remove_record_on_delete;
    let on_group = options
        .raw
        .get("partial-update.remove-record-on-sequence-group")
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    if remove_record_on_delete && ignore_delete {
        return Err(invalid_option(
            "ignore-delete and partial-update.remove-record-on-delete conflict",
        ));
    }
    if on_group.is_some() && ignore_delete {
        return Err(invalid_option(
            "ignore-delete and partial-update.remove-record-on-sequence-group conflict",
        ));
    }
    if remove_record_on_delete && !sequence_groups.is_empty() {
        return Err(invalid_option(
            "sequence-group and partial-update.remove-record-on-delete conflict",
        ));
    }
    let mut remove_record_on_sequence_group = Vec::new();
    if let Some(names) = on_group {
        for name in names.split(',').map(str::trim) {
            let idx = value_fields.iter().position(|f| f.name() == name);
            match idx {
                Some(i) if all_sequence_fields.contains(&i) => {
                    remove_record_on_sequence_group.push(i)
                }
                _ => {
                    return Err(invalid_option(format!(
                        "field '{name}' of partial-update.remove-record-on-sequence-group must be \
                         a sequence field of a sequence group"
                    )))
                }
            }
        }
    }
    Ok(PartialUpdateSpec {
        ignore_delete,
        remove_record_on_delete,
        sequence_groups,
        aggregates,
        remove_record_on_sequence_group,
    })
}

/// Per-merge state of the partial-update engine.
#[derive(Debug)]
pub(crate) struct PartialUpdateMerge {
    ignore_delete: bool,
    remove_record_on_delete: bool,
    /// Per column: the sequence group ordering it (protected fields and sequence fields).
    comparator: Vec<Option<usize>>,
    /// Per group: its sequence fields.
    group_sequence: Vec<Vec<usize>>,
    aggs: Vec<Option<Box<dyn FieldAgg>>>,
    /// Whether the table has sequence groups at all.
    field_sequence_enabled: bool,
    partial_delete: Vec<bool>,
    nullable: Vec<bool>,
    row: Vec<Acc>,
    processed: Vec<bool>,
    updated: Vec<bool>,
    current_delete: bool,
    meet_insert: bool,
    not_null_filled: bool,
    /// Java `latestSequenceNumber`: the last record added that was not an ignored retraction.
    latest_sequence: i64,
}

impl PartialUpdateMerge {
    pub(crate) fn try_new(spec: &PartialUpdateSpec, value_fields: &Fields) -> Result<Self> {
        let n = value_fields.len();
        if spec.aggregates.len() != n {
            return Err(invalid_option(format!(
                "{} aggregate specs for {n} value columns",
                spec.aggregates.len()
            )));
        }
        let mut comparator = vec![None; n];
        let mut group_sequence = Vec::with_capacity(spec.sequence_groups.len());
        for (g, group) in spec.sequence_groups.iter().enumerate() {
            for &f in group.fields.iter().chain(&group.sequence_fields) {
                if f >= n {
                    return Err(invalid_option(format!(
                        "sequence group column {f} out of range"
                    )));
                }
                comparator[f] = Some(g);
            }
            group_sequence.push(group.sequence_fields.clone());
        }
        let aggs = spec
            .aggregates
            .iter()
            .zip(value_fields.iter())
            .map(|(s, f)| {
                s.as_ref()
                    .map(|s| s.create(f.name(), f.data_type()))
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
        let mut partial_delete = vec![false; n];
        for &f in &spec.remove_record_on_sequence_group {
            if let Some(p) = partial_delete.get_mut(f) {
                *p = true;
            }
        }
        Ok(PartialUpdateMerge {
            ignore_delete: spec.ignore_delete,
            remove_record_on_delete: spec.remove_record_on_delete,
            comparator,
            group_sequence,
            aggs,
            field_sequence_enabled: !spec.sequence_groups.is_empty(),
            partial_delete,
            nullable: value_fields.iter().map(|f| f.is_nullable()).collect(),
            row: vec![Acc::Null; n],
            processed: vec![false; n],
            updated: vec![false; n],
            current_delete: false,
            latest_sequence: 0,
            meet_insert: false,
            not_null_filled: false,
        })
    }

    fn add(&mut self, e: &Entry, store: &BatchStore) -> Result<()> {
        self.current_delete = false;
        if !is_add(e.kind) {
            if !self.not_null_filled {
                init_row(&mut self.row, e, &self.nullable, store)?;
                self.not_null_filled = true;
            }
            if self.ignore_delete {
                return Ok(());
            }
            self.latest_sequence = e.seq;
            if self.field_sequence_enabled {
                return self.retract_with_sequence_group(e, store);
            }
            if self.remove_record_on_delete {
                if e.kind == DELETE {
                    self.current_delete = true;
                    init_row(&mut self.row, e, &self.nullable, store)?;
                }
                return Ok(());
            }
            return Err(merge_failed(DELETE_REJECTED));
        }
        self.latest_sequence = e.seq;
        if self.field_sequence_enabled {
            self.update_with_sequence_group(e, store)?;
        } else {
            self.update_non_null_fields(e, store)?;
        }
        self.meet_insert = true;
        self.not_null_filled = true;
        Ok(())
    }

    fn update_non_null_fields(&mut self, e: &Entry, store: &BatchStore) -> Result<()> {
        for (c, acc) in self.row.iter_mut().enumerate() {
            if store.column(e.slot, c).is_valid(e.row as usize) {
                *acc = e.cell();
            } else if !self.nullable[c] {
                return Err(merge_failed(format!("field {c} can not be null")));
            }
        }
        Ok(())
    }

    /// Java `isEmptySequenceGroup`: a record whose group sequence is all null leaves the group
    /// alone (and marks its sequence fields processed).
    fn is_empty_group(&mut self, e: &Entry, g: usize, store: &BatchStore) -> bool {
        let seq = &self.group_sequence[g];
        if seq
            .iter()
            .any(|&f| store.column(e.slot, f).is_valid(e.row as usize))
        {
            return false;
        }
        for &f in seq {
            self.processed[f] = true;
        }
        true
    }

    /// Compares the record's group sequence with the merged row's, nulls first.
    fn compare_group(&self, e: &Entry, g: usize, store: &BatchStore) -> Result<Ordering> {
        let input = e.cell();
        for &f in &self.group_sequence[g] {
            let ord = compare_nullable(input.view(store, f), self.row[f].view(store, f))?;
            if ord != Ordering::Equal {
                return Ok(ord);
            }
        }
        Ok(Ordering::Equal)
    }

    fn update_with_sequence_group(&mut self, e: &Entry, store: &BatchStore) -> Result<()> {
        self.processed.iter_mut().for_each(|p| *p = false);
        let input = e.cell();
        for i in 0..self.row.len() {
            let Some(g) = self.comparator[i] else {
                match &mut self.aggs[i] {
                    Some(agg) => {
                        let step = agg.agg(self.row[i].view(store, i), input.view(store, i))?;
                        apply(step, &mut self.row[i], e);
                    }
                    None => {
                        if store.column(e.slot, i).is_valid(e.row as usize) {
                            self.row[i] = input.clone();
                        }
                    }
                }
                continue;
            };
            if self.processed[i] || self.is_empty_group(e, g, store) {
                continue;
            }
            if self.compare_group(e, g, store)? != Ordering::Less {
                if self.group_sequence[g].contains(&i) {
                    // The group's sequence fields move together.
                    for k in 0..self.group_sequence[g].len() {
                        let f = self.group_sequence[g][k];
                        self.row[f] = input.clone();
                        self.processed[f] = true;
                    }
                    continue;
                }
                match &mut self.aggs[i] {
                    None => self.row[i] = input.clone(),
                    Some(agg) => {
                        let step = agg.agg(self.row[i].view(store, i), input.view(store, i))?;
                        apply(step, &mut self.row[i], e);
                    }
                }
            } else if let Some(agg) = &mut self.aggs[i] {
                let step = agg.agg_reversed(self.row[i].view(store, i), input.view(store, i))?;
                apply(step, &mut self.row[i], e);
            }
        }
        Ok(())
    }

    fn retract_with_sequence_group(&mut self, e: &Entry, store: &BatchStore) -> Result<()> {
        self.processed.iter_mut().for_each(|p| *p = false);
        self.updated.iter_mut().for_each(|p| *p = false);
        let input = e.cell();
        for i in 0..self.row.len() {
            let Some(g) = self.comparator[i] else {
                continue;
            };
            if self.processed[i] || self.is_empty_group(e, g, store) {
                continue;
            }
            if self.compare_group(e, g, store)? != Ordering::Less {
                if self.group_sequence[g].contains(&i) {
                    for k in 0..self.group_sequence[g].len() {
                        let f = self.group_sequence[g][k];
                        if !self.updated[f] {
                            if e.kind == DELETE && self.partial_delete[f] {
                                self.current_delete = true;
                                return init_row(&mut self.row, e, &self.nullable, store);
                            }
                            self.row[f] = input.clone();
                            self.updated[f] = true;
                        }
                        self.processed[f] = true;
                    }
                } else {
                    match &mut self.aggs[i] {
                        None => self.row[i] = Acc::Null,
                        Some(agg) => {
                            let step =
                                agg.retract(self.row[i].view(store, i), input.view(store, i))?;
                            apply(step, &mut self.row[i], e);
                        }
                    }
                }
            } else if let Some(agg) = &mut self.aggs[i] {
                let step = agg.retract(self.row[i].view(store, i), input.view(store, i))?;
                apply(step, &mut self.row[i], e);
            }
        }
        Ok(())
    }
}

impl GroupMerge for PartialUpdateMerge {
    fn merge(&mut self, group: &[Entry], store: &BatchStore, out: &mut OutputSink) -> Result<()> {
        self.row.iter_mut().for_each(|a| *a = Acc::Null);
        self.aggs.iter_mut().flatten().for_each(|a| a.reset());
        self.meet_insert = false;
        self.not_null_filled = false;
        self.current_delete = false;
        self.latest_sequence = 0;
        for e in group {
            self.add(e, store)?;
        }
        let kind = if self.current_delete || !self.meet_insert {
            DELETE
        } else {
            INSERT
        };
        out.push_computed(&mut self.row, kind, self.latest_sequence);
        Ok(())
    }
}
