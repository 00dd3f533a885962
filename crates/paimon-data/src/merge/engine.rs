//! Merge engines: which record (or merged row) a key's records become.
//!
//! [`MergeEngineSpec`] is the typed form of the table options, resolved against the value
//! columns once; [`GroupMerge`] is the per-merge state that folds one key's records.

use arrow_schema::Fields;
use paimon_spec::options::{CoreOptions, MergeEngine};

use super::aggregate::{AggFunction, AggSpec, FieldAgg};
use super::cell::Acc;
use super::cursor::{is_add, BatchStore};
use super::error::{invalid_option, merge_failed, Result};
use super::output::OutputSink;
use super::partial_update::PartialUpdateMerge;

/// `_VALUE_KIND` of `-D`.
pub(crate) const DELETE: i8 = 3;
/// `_VALUE_KIND` of `+I`.
pub(crate) const INSERT: i8 = 0;

/// How records with the same key are merged (Java `MergeFunction` and its options).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MergeEngineSpec {
    /// Java `DeduplicateMergeFunction`: the last record wins.
    Deduplicate {
        /// `ignore-delete`: `-U`/`-D` records are skipped.
        ignore_delete: bool,
    },
    /// Java `FirstRowMergeFunction`: the first record wins.
    FirstRow {
        /// `ignore-delete`: `-U`/`-D` records are skipped instead of failing the read.
        ignore_delete: bool,
    },
    /// Java `PartialUpdateMergeFunction`.
    PartialUpdate(PartialUpdateSpec),
    /// Java `AggregateMergeFunction`.
    Aggregation(AggregationSpec),
}

/// Options of the partial-update engine, resolved to value-column indices.
#[derive(Debug, Clone, PartialEq)]
pub struct PartialUpdateSpec {
    /// `ignore-delete`.
    pub ignore_delete: bool,
    /// `partial-update.remove-record-on-delete`.
    pub remove_record_on_delete: bool,
    /// `fields.<seq,...>.sequence-group=<fields>`.
    pub sequence_groups: Vec<SequenceGroup>,
    /// Per value column, its aggregate function (only used with sequence groups, as in Java).
    pub aggregates: Vec<Option<AggSpec>>,
    /// `partial-update.remove-record-on-sequence-group`: sequence fields whose `-D` removes
    /// the whole row.
    pub remove_record_on_sequence_group: Vec<usize>,
}

/// One sequence group: `sequence_fields` order the updates of `fields`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SequenceGroup {
    /// Value-column indices of the group's sequence fields.
    pub sequence_fields: Vec<usize>,
    /// Value-column indices of the fields the group protects.
    pub fields: Vec<usize>,
}

/// Options of the aggregation engine, one aggregate per value column.
#[derive(Debug, Clone, PartialEq)]
pub struct AggregationSpec {
    /// The aggregate of each value column.
    pub fields: Vec<AggSpec>,
    /// `aggregation.remove-record-on-delete`.
    pub remove_record_on_delete: bool,
}

impl MergeEngineSpec {
    /// Resolves the table's merge engine options against the value columns being merged.
    ///
    /// `value_fields` are the value columns (named as the table's columns); every column an
    /// option names (sequence fields, sequence groups) must be among them.
    ///
    /// # Errors
    /// [`super::MergeError::InvalidOption`] where Java rejects the configuration, and
    /// [`super::MergeError::Unsupported`] for aggregate functions not implemented here.
    pub fn try_new(
        options: &CoreOptions,
        primary_keys: &[String],
        value_fields: &Fields,
    ) -> Result<Self> {
        Ok(match options.merge_engine {
            MergeEngine::Deduplicate => MergeEngineSpec::Deduplicate {
                ignore_delete: options.ignore_delete,
            },
            MergeEngine::FirstRow => MergeEngineSpec::FirstRow {
                ignore_delete: options.ignore_delete,
            },
            MergeEngine::Aggregation => {
                MergeEngineSpec::Aggregation(aggregation_spec(options, primary_keys, value_fields)?)
            }
            MergeEngine::PartialUpdate => MergeEngineSpec::PartialUpdate(
                super::partial_update::spec_from_options(options, primary_keys, value_fields)?,
            ),
        })
    }

    /// Instantiates the merge state for value columns `value_fields`.
    pub(crate) fn create(&self, value_fields: &Fields) -> Result<Box<dyn GroupMerge>> {
        Ok(match self {
            MergeEngineSpec::Deduplicate { ignore_delete } => Box::new(Deduplicate {
                ignore_delete: *ignore_delete,
            }),
            MergeEngineSpec::FirstRow { ignore_delete } => Box::new(FirstRow {
                ignore_delete: *ignore_delete,
            }),
            MergeEngineSpec::PartialUpdate(spec) => {
                Box::new(PartialUpdateMerge::try_new(spec, value_fields)?)
            }
            MergeEngineSpec::Aggregation(spec) => {
                Box::new(AggregateMerge::try_new(spec, value_fields)?)
            }
        })
    }
}

pub(crate) fn index_of(value_fields: &Fields, name: &str, what: &str) -> Result<usize> {
    value_fields
        .iter()
        .position(|f| f.name() == name)
        .ok_or_else(|| {
            invalid_option(format!(
                "{what} '{name}' is not among the merged value columns; read it for the merge"
            ))
        })
}

/// Java `AggregateMergeFunction.getAggFuncName` for every value column.
fn aggregation_spec(
    options: &CoreOptions,
    primary_keys: &[String],
    value_fields: &Fields,
) -> Result<AggregationSpec> {
    let remove_record_on_delete = options
        .raw
        .get("aggregation.remove-record-on-delete")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let per_field = options.aggregate_functions();
    let mut fields = Vec::with_capacity(value_fields.len());
    for f in value_fields.iter() {
        let name = f.name().as_str();
        let function = if options.sequence_fields.iter().any(|s| s == name) {
            AggFunction::LastValue
        } else if primary_keys.iter().any(|k| k == name) {
            AggFunction::PrimaryKey
        } else {
            match per_field
                .get(name)
                .or(options.default_aggregate_function.as_ref())
            {
                Some(n) => AggFunction::parse(n.trim())?,
                None => AggFunction::LastNonNullValue,
            }
        };
        let spec = AggSpec::from_options(function, name, options)?;
        if remove_record_on_delete && spec.ignore_retract {
            return Err(invalid_option(format!(
                "aggregation.remove-record-on-delete and fields.{name}.ignore-retract conflict"
            )));
        }
        fields.push(spec);
    }
    Ok(AggregationSpec {
        fields,
        remove_record_on_delete,
    })
}

/// One record of a key group: where it is, its row kind, sequence number and level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) slot: u32,
    pub(crate) row: u32,
    pub(crate) kind: i8,
    pub(crate) seq: i64,
    /// The record's level, when the batches carry `_LEVEL` (otherwise 0).
    pub(crate) level: i32,
}

impl Entry {
    pub(crate) fn cell(&self) -> Acc {
        Acc::Ref {
            slot: self.slot,
            row: self.row,
        }
    }
}

/// Folds the records of one key (at least two, in merge order) into at most one output row.
pub(crate) trait GroupMerge: Send + std::fmt::Debug {
    fn merge(&mut self, group: &[Entry], store: &BatchStore, out: &mut OutputSink) -> Result<()>;
}

#[derive(Debug)]
struct Deduplicate {
    ignore_delete: bool,
}

impl GroupMerge for Deduplicate {
    #[inline]
    fn merge(&mut self, group: &[Entry], _store: &BatchStore, out: &mut OutputSink) -> Result<()> {
        let last = if self.ignore_delete {
            group.iter().rev().find(|e| is_add(e.kind))
        } else {
            group.last()
        };
        if let Some(e) = last {
            out.push_whole(e.slot, e.row, e.kind, e.seq);
        }
        Ok(())
    }
}

#[derive(Debug)]
struct FirstRow {
    ignore_delete: bool,
}

impl GroupMerge for FirstRow {
    #[inline]
    fn merge(&mut self, group: &[Entry], _store: &BatchStore, out: &mut OutputSink) -> Result<()> {
        let mut first = None;
        for e in group {
            if !is_add(e.kind) {
                if self.ignore_delete {
                    continue;
                }
                return Err(merge_failed(
                    "the first-row merge engine cannot accept DELETE/UPDATE_BEFORE records; \
                     set 'ignore-delete' to ignore them",
                ));
            }
            if first.is_none() {
                first = Some(*e);
            }
        }
        if let Some(e) = first {
            out.push_whole(e.slot, e.row, e.kind, e.seq);
        }
        Ok(())
    }
}

/// Java `AggregateMergeFunction`.
#[derive(Debug)]
struct AggregateMerge {
    aggs: Vec<Box<dyn FieldAgg>>,
    nullable: Vec<bool>,
    remove_record_on_delete: bool,
    row: Vec<Acc>,
}

impl AggregateMerge {
    fn try_new(spec: &AggregationSpec, value_fields: &Fields) -> Result<Self> {
        if spec.fields.len() != value_fields.len() {
            return Err(invalid_option(format!(
                "{} aggregate specs for {} value columns",
                spec.fields.len(),
                value_fields.len()
            )));
        }
        let aggs = spec
            .fields
            .iter()
            .zip(value_fields.iter())
            .map(|(s, f)| s.create(f.name(), f.data_type()))
            .collect::<Result<Vec<_>>>()?;
        Ok(AggregateMerge {
            aggs,
            nullable: value_fields.iter().map(|f| f.is_nullable()).collect(),
            remove_record_on_delete: spec.remove_record_on_delete,
            row: vec![Acc::Null; value_fields.len()],
        })
    }
}

/// Java `initRow`: the whole row becomes `e`'s values; a null in a NOT NULL column fails.
pub(crate) fn init_row(
    row: &mut [Acc],
    e: &Entry,
    nullable: &[bool],
    store: &BatchStore,
) -> Result<()> {
    for (c, acc) in row.iter_mut().enumerate() {
        *acc = e.cell();
        if !nullable[c] && store.column(e.slot, c).is_null(e.row as usize) {
            return Err(merge_failed(format!("field {c} can not be null")));
        }
    }
    Ok(())
}

/// Applies an aggregation step's result to the accumulator cell.
#[inline]
pub(crate) fn apply(out: super::aggregate::AggOut, acc: &mut Acc, input: &Entry) {
    use super::aggregate::AggOut;
    match out {
        AggOut::KeepAcc => {}
        AggOut::TakeInput => *acc = input.cell(),
        AggOut::Null => *acc = Acc::Null,
        AggOut::Value(a) => *acc = Acc::Owned(a),
        AggOut::Num(n) => *acc = Acc::Num(n),
    }
}

impl GroupMerge for AggregateMerge {
    fn merge(&mut self, group: &[Entry], store: &BatchStore, out: &mut OutputSink) -> Result<()> {
        self.row.iter_mut().for_each(|a| *a = Acc::Null);
        self.aggs.iter_mut().for_each(|a| a.reset());
        let mut delete_row = false;
        for e in group {
            delete_row = self.remove_record_on_delete && e.kind == DELETE;
            if delete_row {
                init_row(&mut self.row, e, &self.nullable, store)?;
                continue;
            }
            let retract = !is_add(e.kind);
            let input = e.cell();
            for (c, agg) in self.aggs.iter_mut().enumerate() {
                let step = {
                    let acc = self.row[c].view(store, c);
                    let inp = input.view(store, c);
                    if retract {
                        agg.retract(acc, inp)?
                    } else {
                        agg.agg(acc, inp)?
                    }
                };
                apply(step, &mut self.row[c], e);
            }
        }
        // Java `AggregateMergeFunction.getResult`: the sequence number of the last record added.
        let seq = group.last().map_or(0, |e| e.seq);
        out.push_computed(&mut self.row, if delete_row { DELETE } else { INSERT }, seq);
        Ok(())
    }
}
