//! Batches from outside (a file, a Python caller) shaped into a writer's input schema: columns
//! matched by name in any order, cast to the table's types, and an optional row-kind column
//! (`+I`, `-U`, `+U`, `-D`, Java's `RowKind.shortString`) taken out as the rows' kinds.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use paimon_spec::binary::RowKind;

use crate::error::{Error, Result};

/// `batch` as `target`'s columns in `target`'s order (cast where the types differ, nullable so
/// the writer's own NOT NULL check names the column) and, with `kind_column`, the row kinds it
/// holds. `table` names the table in errors.
///
/// # Errors
/// [`Error::SchemaMismatch`] for a column the table does not have, a table column the batch
/// lacks, a value that does not cast, or a row-kind value that is not one of Java's four.
pub fn conform_batch(
    table: &str,
    batch: &RecordBatch,
    target: &SchemaRef,
    kind_column: Option<&str>,
) -> Result<(RecordBatch, Option<Vec<RowKind>>)> {
    let mismatch = |reason: String| Error::SchemaMismatch {
        table: table.to_string(),
        reason,
    };
    let schema = batch.schema();
    for f in schema.fields() {
        if Some(f.name().as_str()) != kind_column && target.field_with_name(f.name()).is_err() {
            return Err(mismatch(format!(
                "column {} is not a column of the table",
                f.name()
            )));
        }
    }
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(target.fields().len());
    let mut fields = Vec::with_capacity(target.fields().len());
    for want in target.fields() {
        let (i, _) = schema
            .column_with_name(want.name())
            .ok_or_else(|| mismatch(format!("the input has no column {}", want.name())))?;
        let col = batch.column(i);
        let col = if col.data_type() == want.data_type() {
            Arc::clone(col)
        } else {
            // `safe: false`: a value that does not fit fails the batch instead of turning
            // into a null.
            let options = arrow_cast::CastOptions {
                safe: false,
                ..Default::default()
            };
            arrow_cast::cast_with_options(col, want.data_type(), &options).map_err(|e| {
                mismatch(format!(
                    "column {}: {} does not cast to {}: {e}",
                    want.name(),
                    col.data_type(),
                    want.data_type()
                ))
            })?
        };
        fields.push(want.as_ref().clone().with_nullable(true));
        columns.push(col);
    }
    let kinds = match kind_column {
        None => None,
        Some(k) => Some(row_kinds(table, batch, k)?),
    };
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
        .map_err(|e| mismatch(e.to_string()))?;
    Ok((batch, kinds))
}

/// The row kinds of column `k` of `batch`.
fn row_kinds(table: &str, batch: &RecordBatch, k: &str) -> Result<Vec<RowKind>> {
    let mismatch = |reason: String| Error::SchemaMismatch {
        table: table.to_string(),
        reason,
    };
    let (i, _) = batch
        .schema()
        .column_with_name(k)
        .ok_or_else(|| mismatch(format!("the input has no row-kind column {k}")))?;
    let col = arrow_cast::cast(batch.column(i), &ArrowType::Utf8)
        .map_err(|e| mismatch(format!("row-kind column {k}: {e}")))?;
    let col = col
        .as_any()
        .downcast_ref::<StringArray>()
        .ok_or_else(|| mismatch(format!("row-kind column {k} is not text")))?;
    (0..col.len())
        .map(|r| {
            let text = if col.is_null(r) { "" } else { col.value(r) };
            RowKind::from_short_string(text).ok_or_else(|| {
                mismatch(format!(
                    "row-kind column {k}: '{text}' is not one of +I, -U, +U, -D"
                ))
            })
        })
        .collect()
}

/// The fields readers of text formats parse into: `target`'s columns (nullable) plus the
/// row-kind column as text, in the order of `names` (a CSV header) when given.
///
/// # Errors
/// [`Error::SchemaMismatch`] for a name that is neither a table column nor the row-kind column.
pub fn text_fields(
    table: &str,
    target: &SchemaRef,
    kind_column: Option<&str>,
    names: Option<&[String]>,
) -> Result<Vec<Field>> {
    let field = |name: &str| -> Result<Field> {
        if Some(name) == kind_column {
            return Ok(Field::new(name, ArrowType::Utf8, true));
        }
        target
            .field_with_name(name)
            .map(|f| f.clone().with_nullable(true))
            .map_err(|_| Error::SchemaMismatch {
                table: table.to_string(),
                reason: format!("column {name} is not a column of the table"),
            })
    };
    match names {
        Some(names) => names.iter().map(|n| field(n)).collect(),
        None => {
            let mut fs: Vec<Field> = target
                .fields()
                .iter()
                .map(|f| f.as_ref().clone().with_nullable(true))
                .collect();
            if let Some(k) = kind_column {
                fs.push(Field::new(k, ArrowType::Utf8, true));
            }
            Ok(fs)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int32Array, Int64Array};

    fn target() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("id", ArrowType::Int64, false),
            Field::new("name", ArrowType::Utf8, true),
        ]))
    }

    #[test]
    fn columns_are_reordered_cast_and_the_kind_column_taken_out() {
        let batch = RecordBatch::try_from_iter(vec![
            (
                "k",
                Arc::new(StringArray::from(vec!["+I", "-D", " +U "])) as ArrayRef,
            ),
            (
                "name",
                Arc::new(StringArray::from(vec![Some("a"), None, Some("c")])) as ArrayRef,
            ),
            ("id", Arc::new(Int32Array::from(vec![1, 2, 3])) as ArrayRef),
        ])
        .unwrap();
        let (out, kinds) = conform_batch("t", &batch, &target(), Some("k")).unwrap();
        assert_eq!(
            kinds.unwrap(),
            vec![RowKind::Insert, RowKind::Delete, RowKind::UpdateAfter]
        );
        let ids = out.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        assert_eq!(ids.values().to_vec(), vec![1i64, 2, 3]);
        assert_eq!(out.schema().field(1).name(), "name");
        assert_eq!(out.column(1).null_count(), 1);
    }

    #[test]
    fn unknown_missing_and_uncastable_columns_are_named() {
        let extra = RecordBatch::try_from_iter(vec![
            ("id", Arc::new(Int64Array::from(vec![1])) as ArrayRef),
            ("name", Arc::new(StringArray::from(vec!["a"])) as ArrayRef),
            ("zzz", Arc::new(Int64Array::from(vec![1])) as ArrayRef),
        ])
        .unwrap();
        let e = conform_batch("t", &extra, &target(), None).unwrap_err();
        assert!(e.to_string().contains("column zzz is not a column"), "{e}");
        let missing = RecordBatch::try_from_iter(vec![(
            "id",
            Arc::new(Int64Array::from(vec![1])) as ArrayRef,
        )])
        .unwrap();
        let e = conform_batch("t", &missing, &target(), None).unwrap_err();
        assert!(e.to_string().contains("no column name"), "{e}");
        let bad_kind = RecordBatch::try_from_iter(vec![
            ("id", Arc::new(Int64Array::from(vec![1])) as ArrayRef),
            ("name", Arc::new(StringArray::from(vec!["a"])) as ArrayRef),
            ("k", Arc::new(StringArray::from(vec!["upsert"])) as ArrayRef),
        ])
        .unwrap();
        let e = conform_batch("t", &bad_kind, &target(), Some("k")).unwrap_err();
        assert!(e.to_string().contains("'upsert' is not one of"), "{e}");
        // A value that does not fit the column's type fails rather than becoming null.
        let narrow = Arc::new(Schema::new(vec![Field::new("id", ArrowType::Int8, true)]));
        let wide = RecordBatch::try_from_iter(vec![(
            "id",
            Arc::new(Int64Array::from(vec![1, 300])) as ArrayRef,
        )])
        .unwrap();
        let e = conform_batch("t", &wide, &narrow, None).unwrap_err();
        assert!(e.to_string().contains("Int64 does not cast to Int8"), "{e}");
    }
}
