//! Merging only some value columns (Java `MergeFunctionFactory.adjustReadType` and
//! `MergeFunctionFactory.create(readType)`).
//!
//! A [`MergeEngineSpec`] is resolved against all value columns of the table, so that the
//! options are checked as Java checks them; [`MergeEngineSpec::required_value_columns`] then
//! says which columns a merge of the wanted ones must read, and [`MergeEngineSpec::project`]
//! gives the spec for merging just those.
//!
//! Every engine merges a column from that column alone and the records' row kinds, except
//! partial update with sequence groups, where a column of a group is ordered by the group's
//! sequence fields:
//!
//! ```text
//!  wanted  a, e            group g1 = (a, b) ordered by g1; e in no group
//!  read    a, e, g1        (b is not needed: a's updates depend on g1 only)
//! ```
//!
//! The sequence fields named by `partial-update.remove-record-on-sequence-group` are always
//! read: a `-D` on them removes the whole row, whichever columns are output.

use super::engine::{AggregationSpec, MergeEngineSpec, PartialUpdateSpec, SequenceGroup};
use super::error::{invalid_option, Result};

impl MergeEngineSpec {
    /// The value columns a merge that outputs `wanted` reads, ascending; all indices are
    /// positions among the value columns the spec was resolved against.
    pub fn required_value_columns(&self, wanted: &[usize]) -> Vec<usize> {
        let mut out = wanted.to_vec();
        if let MergeEngineSpec::PartialUpdate(spec) = self {
            for group in &spec.sequence_groups {
                let touched = group
                    .fields
                    .iter()
                    .chain(&group.sequence_fields)
                    .any(|f| wanted.contains(f));
                if touched {
                    out.extend(&group.sequence_fields);
                }
            }
            out.extend(&spec.remove_record_on_sequence_group);
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The spec for merging only the value columns `kept` (ascending positions among the value
    /// columns the spec was resolved against), which become columns `0..kept.len()`.
    ///
    /// # Errors
    /// [`super::MergeError::InvalidOption`] when `kept` lacks a column the merge of the others
    /// needs (see [`MergeEngineSpec::required_value_columns`]) or names a column out of range.
    pub fn project(&self, kept: &[usize]) -> Result<Self> {
        let position = |old: usize| kept.iter().position(|&k| k == old);
        Ok(match self {
            MergeEngineSpec::Deduplicate { .. } | MergeEngineSpec::FirstRow { .. } => self.clone(),
            MergeEngineSpec::Aggregation(spec) => MergeEngineSpec::Aggregation(AggregationSpec {
                fields: pick(&spec.fields, kept)?,
                remove_record_on_delete: spec.remove_record_on_delete,
            }),
            MergeEngineSpec::PartialUpdate(spec) => {
                let mut sequence_groups = Vec::with_capacity(spec.sequence_groups.len());
                for group in &spec.sequence_groups {
                    let fields: Vec<usize> =
                        group.fields.iter().filter_map(|&f| position(f)).collect();
                    let any_sequence = group.sequence_fields.iter().any(|&f| position(f).is_some());
                    // A group none of whose columns is read stays, empty: with sequence groups
                    // at all, deletes and updates take the sequence-group paths (Java keeps
                    // `fieldSequenceEnabled` from the whole table).
                    let sequence_fields = if fields.is_empty() && !any_sequence {
                        Vec::new()
                    } else {
                        group
                            .sequence_fields
                            .iter()
                            .map(|&f| {
                                position(f).ok_or_else(|| {
                                    invalid_option(format!(
                                        "sequence field (value column {f}) of a sequence group is \
                                         not among the merged columns {kept:?}"
                                    ))
                                })
                            })
                            .collect::<Result<Vec<_>>>()?
                    };
                    sequence_groups.push(SequenceGroup {
                        sequence_fields,
                        fields,
                    });
                }
                let remove_record_on_sequence_group = spec
                    .remove_record_on_sequence_group
                    .iter()
                    .map(|&f| {
                        position(f).ok_or_else(|| {
                            invalid_option(format!(
                                "partial-update.remove-record-on-sequence-group field (value \
                                 column {f}) is not among the merged columns {kept:?}"
                            ))
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                MergeEngineSpec::PartialUpdate(PartialUpdateSpec {
                    ignore_delete: spec.ignore_delete,
                    remove_record_on_delete: spec.remove_record_on_delete,
                    sequence_groups,
                    aggregates: pick(&spec.aggregates, kept)?,
                    remove_record_on_sequence_group,
                })
            }
        })
    }
}

/// `items` at positions `kept`.
fn pick<T: Clone>(items: &[T], kept: &[usize]) -> Result<Vec<T>> {
    kept.iter()
        .map(|&i| {
            items.get(i).cloned().ok_or_else(|| {
                invalid_option(format!(
                    "value column {i} is out of range for {} columns",
                    items.len()
                ))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use arrow_schema::{DataType, Field, Fields};
    use paimon_spec::options::CoreOptions;

    use super::*;

    fn spec(options: &[(&str, &str)], names: &[&str]) -> MergeEngineSpec {
        let raw: BTreeMap<String, String> = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let core = CoreOptions::try_new(&raw).unwrap();
        let fields: Fields = names
            .iter()
            .map(|n| Field::new(*n, DataType::Int32, true))
            .collect();
        MergeEngineSpec::try_new(&core, &["k".to_string()], &fields).unwrap()
    }

    // Columns: 0 k, 1 a, 2 b, 3 g1, 4 c, 5 g2, 6 e; groups g1 = (a, b) and g2 = (c).
    const COLUMNS: [&str; 7] = ["k", "a", "b", "g1", "c", "g2", "e"];
    const GROUPS: [(&str, &str); 3] = [
        ("merge-engine", "partial-update"),
        ("fields.g1.sequence-group", "a,b"),
        ("fields.g2.sequence-group", "c"),
    ];

    #[test]
    fn a_group_column_brings_its_sequence_field_only() {
        let s = spec(&GROUPS, &COLUMNS);
        // a → g1 (not b, not g2); e is in no group.
        assert_eq!(s.required_value_columns(&[0, 1, 6]), vec![0, 1, 3, 6]);
        // A sequence field alone needs nothing more.
        assert_eq!(s.required_value_columns(&[0, 5]), vec![0, 5]);
        assert_eq!(s.required_value_columns(&[0, 6]), vec![0, 6]);
    }

    #[test]
    fn projected_groups_are_renumbered_and_unread_groups_kept_empty() {
        let s = spec(&GROUPS, &COLUMNS);
        let MergeEngineSpec::PartialUpdate(p) = s.project(&[0, 1, 3, 6]).unwrap() else {
            panic!("partial update expected");
        };
        // g1 → columns (a=1) ordered by (g1=2); g2 (c, g2) is not read at all.
        assert_eq!(
            p.sequence_groups,
            vec![
                SequenceGroup {
                    sequence_fields: vec![2],
                    fields: vec![1],
                },
                SequenceGroup {
                    sequence_fields: vec![],
                    fields: vec![],
                },
            ]
        );
        assert_eq!(p.aggregates.len(), 4);
    }

    #[test]
    fn a_group_column_without_its_sequence_field_is_refused() {
        let s = spec(&GROUPS, &COLUMNS);
        assert!(s.project(&[0, 1, 6]).is_err());
    }

    #[test]
    fn remove_record_on_sequence_group_fields_are_always_read() {
        let mut options = GROUPS.to_vec();
        options.push(("partial-update.remove-record-on-sequence-group", "g2"));
        let s = spec(&options, &COLUMNS);
        assert_eq!(s.required_value_columns(&[0, 6]), vec![0, 5, 6]);
        let MergeEngineSpec::PartialUpdate(p) = s.project(&[0, 5, 6]).unwrap() else {
            panic!("partial update expected");
        };
        assert_eq!(p.remove_record_on_sequence_group, vec![1]);
    }

    /// Key 1: `+I`, then a `-D` whose group sequence `g` (2) is not older, on a
    /// `remove-record-on-sequence-group` field: the row goes. Key 2: one `+I`. Reading only
    /// `id, e` still reads `g`, so the projected merge removes key 1 as the full one does.
    #[test]
    fn remove_record_on_sequence_group_applies_when_only_other_columns_are_read() {
        use super::super::tests::{batch, col_i32, ints, options, run, D, I};
        use super::super::{merge_sorted_runs, MergeOptions, RunLayout};

        let pk = ["id".to_string()];
        let merged_ids = |cols: Vec<(&str, arrow_array::ArrayRef)>, spec: &MergeEngineSpec| {
            let b = batch(&[Some(1), Some(1), Some(2)], &[1, 2, 3], &[I, D, I], cols);
            let schema = b.schema();
            let layout = RunLayout::from_schema(&schema, &pk, &[], false).unwrap();
            let out = merge_sorted_runs(
                vec![run(vec![b])],
                &schema,
                layout,
                spec,
                MergeOptions::default(),
            )
            .unwrap()
            .collect::<std::result::Result<Vec<_>, _>>()
            .unwrap();
            out.iter()
                .flat_map(|b| col_i32(b, "id"))
                .collect::<Vec<_>>()
        };
        let full_cols = vec![
            ("a", ints(&[Some(1), Some(1), Some(5)])),
            ("g", ints(&[Some(1), Some(2), Some(1)])),
            ("e", ints(&[Some(10), None, Some(20)])),
        ];
        let schema = batch(
            &[Some(1), Some(1), Some(2)],
            &[1, 2, 3],
            &[I, D, I],
            full_cols.clone(),
        )
        .schema();
        let layout = RunLayout::from_schema(&schema, &pk, &[], false).unwrap();
        let o = options(&[
            ("merge-engine", "partial-update"),
            ("fields.g.sequence-group", "a"),
        ]);
        let mut full =
            MergeEngineSpec::try_new(&o, &pk, &layout.value_fields(&schema).unwrap()).unwrap();
        // CoreOptions does not parse this option's field list; set it as Java resolves it.
        if let MergeEngineSpec::PartialUpdate(p) = &mut full {
            p.remove_record_on_sequence_group = vec![2];
        }
        assert_eq!(merged_ids(full_cols, &full), vec![Some(2)]);
        // Value columns: id 0, a 1, g 2, e 3; wanting id and e reads g too.
        let kept = full.required_value_columns(&[0, 3]);
        assert_eq!(kept, vec![0, 2, 3]);
        let projected = full.project(&kept).unwrap();
        let cols = vec![
            ("g", ints(&[Some(1), Some(2), Some(1)])),
            ("e", ints(&[Some(10), None, Some(20)])),
        ];
        assert_eq!(merged_ids(cols, &projected), vec![Some(2)]);
    }

    #[test]
    fn aggregation_keeps_each_columns_function() {
        let s = spec(
            &[
                ("merge-engine", "aggregation"),
                ("fields.a.aggregate-function", "sum"),
                ("fields.e.aggregate-function", "max"),
            ],
            &COLUMNS,
        );
        assert_eq!(s.required_value_columns(&[6, 0]), vec![0, 6]);
        let MergeEngineSpec::Aggregation(full) = &s else {
            panic!("aggregation expected");
        };
        let MergeEngineSpec::Aggregation(p) = s.project(&[0, 6]).unwrap() else {
            panic!("aggregation expected");
        };
        assert_eq!(
            p.fields,
            vec![full.fields[0].clone(), full.fields[6].clone()]
        );
    }
}
