//! `listagg`, `collect` and `merge_map` (Java `FieldListaggAgg`, `FieldCollectAgg`,
//! `FieldMergeMapAgg`).
//!
//! Java builds `collect(distinct)` and `merge_map` results through a `HashSet` / `HashMap`, so
//! their element order is Java's hash iteration order, which [`super::java_hash`] reproduces
//! (a map key that reappears keeps its place and takes the newer value, as in a `HashMap`).
//! Where Java's order is not reproducible (BINARY or nested elements, hashed by identity or
//! compared with an equaliser list), elements keep their first-occurrence order.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, LargeListArray, ListArray, MapArray, StringArray, StructArray};
use arrow_buffer::OffsetBuffer;
use arrow_cast::cast;
use arrow_ord::ord::{make_comparator, DynComparator};
use arrow_schema::{DataType, SortOptions};
use arrow_select::interleave::interleave;

use super::aggregate::{AggOut, FieldAgg};
use super::cell::Cell;
use super::error::{merge_failed, Result};
use super::java_hash::{hash_codes, iteration_order};

/// Java `Character.isWhitespace`.
fn java_whitespace(c: char) -> bool {
    matches!(c, '\u{1C}'..='\u{1F}')
        || (c.is_whitespace() && !matches!(c, '\u{00A0}' | '\u{2007}' | '\u{202F}'))
}

/// Java `StringUtils.isBlank`.
fn is_blank(s: &str) -> bool {
    s.chars().all(java_whitespace)
}

fn str_at(c: Cell<'_>) -> Result<&str> {
    let (a, row) = c.at()?;
    Ok(match a.data_type() {
        DataType::Utf8 => a.as_string::<i32>().value(row),
        DataType::LargeUtf8 => a.as_string::<i64>().value(row),
        DataType::Utf8View => a.as_string_view().value(row),
        other => return Err(merge_failed(format!("listagg over {other}"))),
    })
}

/// Java `FieldListaggAgg`: joins non-blank strings with the delimiter; `distinct` drops tokens
/// of the input already present in the accumulator. No retraction.
#[derive(Debug)]
pub(crate) struct ListAggAgg {
    delimiter: String,
    distinct: bool,
    data_type: DataType,
}

impl ListAggAgg {
    pub(crate) fn new(delimiter: String, distinct: bool, data_type: DataType) -> Self {
        ListAggAgg {
            delimiter,
            distinct,
            data_type,
        }
    }

    fn tokens<'s>(&self, s: &'s str) -> Vec<&'s str> {
        if self.delimiter.is_empty() {
            vec![s]
        } else {
            s.split(self.delimiter.as_str()).collect()
        }
    }
}

impl FieldAgg for ListAggAgg {
    fn agg(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        let input_str = match input {
            None => return Ok(AggOut::KeepAcc),
            Some(i) => str_at(i)?,
        };
        if is_blank(input_str) {
            return Ok(AggOut::KeepAcc);
        }
        let acc_str = match acc {
            None => return Ok(AggOut::TakeInput),
            Some(a) => str_at(a)?,
        };
        if is_blank(acc_str) {
            return Ok(AggOut::TakeInput);
        }
        let mut out = String::with_capacity(acc_str.len() + self.delimiter.len() + input_str.len());
        out.push_str(acc_str);
        if self.distinct {
            let mut seen: std::collections::HashSet<&str> =
                self.tokens(acc_str).into_iter().collect();
            let mut added = false;
            for token in self.tokens(input_str) {
                if is_blank(token) || !seen.insert(token) {
                    continue;
                }
                out.push_str(&self.delimiter);
                out.push_str(token);
                added = true;
            }
            if !added {
                return Ok(AggOut::KeepAcc);
            }
        } else {
            out.push_str(&self.delimiter);
            out.push_str(input_str);
        }
        let array: ArrayRef = Arc::new(StringArray::from(vec![out]));
        Ok(AggOut::Value(if self.data_type == DataType::Utf8 {
            array
        } else {
            cast(&array, &self.data_type)?
        }))
    }
    fn name(&self) -> &'static str {
        "listagg"
    }
}

/// The elements of a list cell.
fn list_values(c: Cell<'_>) -> Result<ArrayRef> {
    let (array, row) = c.at()?;
    match array.data_type() {
        DataType::List(_) => Ok(array.as_list::<i32>().value(row)),
        DataType::LargeList(_) => Ok(array.as_list::<i64>().value(row)),
        other => Err(merge_failed(format!("collect over {other}"))),
    }
}

/// Reorders `picks` (distinct elements `sources[s][j]`, in insertion order) into the order a
/// Java `HashSet` / `HashMap` filled in that order iterates them; unchanged when the element
/// type has no reproducible Java hash.
fn java_hash_order(sources: &[&dyn Array], picks: &mut Vec<(usize, usize)>) {
    let Some(codes) = sources
        .iter()
        .map(|a| hash_codes(*a))
        .collect::<Option<Vec<_>>>()
    else {
        return;
    };
    let hashes: Vec<i32> = picks.iter().map(|&(s, j)| codes[s][j]).collect();
    *picks = iteration_order(&hashes)
        .into_iter()
        .map(|i| picks[i])
        .collect();
}

/// Equality of elements drawn from two arrays (`sources[i][j]`), nulls equal to nulls.
struct ElementEq {
    cmps: Vec<Vec<DynComparator>>,
}

impl ElementEq {
    fn new(sources: &[&dyn Array]) -> Result<Self> {
        let opts = SortOptions::default();
        let mut cmps = Vec::with_capacity(sources.len());
        for a in sources {
            let mut row = Vec::with_capacity(sources.len());
            for b in sources {
                row.push(make_comparator(*a, *b, opts)?);
            }
            cmps.push(row);
        }
        Ok(ElementEq { cmps })
    }

    fn eq(&self, a: (usize, usize), b: (usize, usize)) -> bool {
        (self.cmps[a.0][b.0])(a.1, b.1).is_eq()
    }
}

/// Java `FieldCollectAgg`: concatenates arrays (deduplicated with `distinct`); retraction
/// removes one matching element per retracted element.
#[derive(Debug)]
pub(crate) struct CollectAgg {
    distinct: bool,
    data_type: DataType,
}

impl CollectAgg {
    pub(crate) fn new(distinct: bool, data_type: DataType) -> Self {
        CollectAgg {
            distinct,
            data_type,
        }
    }

    fn build(&self, sources: &[&dyn Array], picks: &[(usize, usize)]) -> Result<AggOut> {
        let values = if picks.is_empty() {
            sources
                .first()
                .map(|a| a.slice(0, 0))
                .ok_or_else(|| merge_failed("collect without values"))?
        } else {
            interleave(sources, picks)?
        };
        let array: ArrayRef = match &self.data_type {
            DataType::List(f) => Arc::new(ListArray::try_new(
                f.clone(),
                OffsetBuffer::from_lengths([picks.len()]),
                values,
                None,
            )?),
            DataType::LargeList(f) => Arc::new(LargeListArray::try_new(
                f.clone(),
                OffsetBuffer::from_lengths([picks.len()]),
                values,
                None,
            )?),
            other => return Err(merge_failed(format!("collect over {other}"))),
        };
        Ok(AggOut::Value(array))
    }
}

impl FieldAgg for CollectAgg {
    fn agg(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        if acc.is_none() && input.is_none() {
            return Ok(AggOut::Null);
        }
        if (acc.is_none() || input.is_none()) && !self.distinct {
            return Ok(if acc.is_none() {
                AggOut::TakeInput
            } else {
                AggOut::KeepAcc
            });
        }
        let parts: Vec<ArrayRef> = [acc, input]
            .into_iter()
            .flatten()
            .map(list_values)
            .collect::<Result<_>>()?;
        let sources: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
        let mut picks: Vec<(usize, usize)> = Vec::new();
        if self.distinct {
            let eq = ElementEq::new(&sources)?;
            for (s, part) in parts.iter().enumerate() {
                for j in 0..part.len() {
                    if !picks.iter().any(|&p| eq.eq(p, (s, j))) {
                        picks.push((s, j));
                    }
                }
            }
            java_hash_order(&sources, &mut picks);
        } else {
            for (s, part) in parts.iter().enumerate() {
                picks.extend((0..part.len()).map(|j| (s, j)));
            }
        }
        self.build(&sources, &picks)
    }
    fn agg_reversed(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        self.agg(acc, input)
    }
    fn retract(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        let Some(acc) = acc else {
            return Ok(AggOut::Null);
        };
        let Some(input) = input else {
            return Ok(AggOut::KeepAcc);
        };
        let (acc_values, retract_values) = (list_values(acc)?, list_values(input)?);
        if retract_values.is_empty() {
            return Ok(AggOut::KeepAcc);
        }
        let sources: Vec<&dyn Array> = vec![acc_values.as_ref(), retract_values.as_ref()];
        let eq = ElementEq::new(&sources)?;
        let mut remaining: Vec<usize> = (0..retract_values.len()).collect();
        let mut picks = Vec::with_capacity(acc_values.len());
        for j in 0..acc_values.len() {
            match remaining.iter().position(|&r| eq.eq((1, r), (0, j))) {
                Some(k) => {
                    remaining.remove(k);
                }
                None => picks.push((0, j)),
            }
        }
        self.build(&sources, &picks)
    }
    fn name(&self) -> &'static str {
        "collect"
    }
}

/// Java `FieldMergeMapAgg`: the union of two maps, the input winning on equal keys; retraction
/// removes the retracted keys.
#[derive(Debug)]
pub(crate) struct MergeMapAgg {
    data_type: DataType,
}

impl MergeMapAgg {
    pub(crate) fn new(data_type: DataType) -> Self {
        MergeMapAgg { data_type }
    }

    /// Builds a one-row map from `(source, entry)` picks over `entries`.
    fn build(&self, entries: &[StructArray], picks: &[(usize, usize)]) -> Result<AggOut> {
        let DataType::Map(field, sorted) = &self.data_type else {
            return Err(merge_failed(format!("merge_map over {}", self.data_type)));
        };
        let sources: Vec<&dyn Array> = entries.iter().map(|e| e as &dyn Array).collect();
        let merged = if picks.is_empty() {
            entries
                .first()
                .map(|e| e.slice(0, 0))
                .ok_or_else(|| merge_failed("merge_map without entries"))?
        } else {
            interleave(&sources, picks)?.as_struct().clone()
        };
        let map = MapArray::try_new(
            field.clone(),
            OffsetBuffer::from_lengths([picks.len()]),
            merged,
            None,
            *sorted,
        )?;
        Ok(AggOut::Value(Arc::new(map)))
    }
}

fn map_entries(c: Cell<'_>) -> Result<StructArray> {
    let (array, row) = c.at()?;
    match array.data_type() {
        DataType::Map(_, _) => Ok(array.as_map().value(row)),
        other => Err(merge_failed(format!("merge_map over {other}"))),
    }
}

impl FieldAgg for MergeMapAgg {
    fn agg(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        let (Some(a), Some(i)) = (acc, input) else {
            return Ok(if acc.is_none() {
                AggOut::TakeInput
            } else {
                AggOut::KeepAcc
            });
        };
        let entries = [map_entries(a)?, map_entries(i)?];
        let keys: Vec<&dyn Array> = entries.iter().map(|e| e.column(0).as_ref()).collect();
        let eq = ElementEq::new(&keys)?;
        let mut picks: Vec<(usize, usize)> = Vec::new();
        for (s, e) in entries.iter().enumerate() {
            for j in 0..e.len() {
                match picks.iter().position(|&p| eq.eq(p, (s, j))) {
                    Some(k) => picks[k] = (s, j),
                    None => picks.push((s, j)),
                }
            }
        }
        java_hash_order(&keys, &mut picks);
        self.build(&entries, &picks)
    }
    fn retract(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        let Some(a) = acc else {
            return Ok(AggOut::Null);
        };
        let Some(i) = input else {
            return Ok(AggOut::KeepAcc);
        };
        let entries = [map_entries(a)?, map_entries(i)?];
        if entries[1].is_empty() {
            return Ok(AggOut::KeepAcc);
        }
        let keys: Vec<&dyn Array> = entries.iter().map(|e| e.column(0).as_ref()).collect();
        let eq = ElementEq::new(&keys)?;
        let mut picks: Vec<(usize, usize)> = Vec::new();
        for j in 0..entries[0].len() {
            let retracted = (0..entries[1].len()).any(|r| eq.eq((1, r), (0, j)));
            // A key repeated in the accumulator keeps its last value, as a Java map would.
            if !retracted {
                match picks.iter().position(|&p| eq.eq(p, (0, j))) {
                    Some(k) => picks[k] = (0, j),
                    None => picks.push((0, j)),
                }
            }
        }
        java_hash_order(&keys, &mut picks);
        self.build(&entries, &picks)
    }
    fn name(&self) -> &'static str {
        "merge_map"
    }
}
