//! Building a system table's record batch column by column, with the Paimon types Java's
//! `*Table.TABLE_TYPE` declares, and Java's local wall-clock timestamps.

use std::sync::Arc;

use arrow::array::{Array, TimestampMillisecondArray};
use arrow::array::{ArrayRef, Int32Array, Int64Array, ListBuilder, StringArray, StringBuilder};
use arrow::datatypes::{Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use datafusion::error::{DataFusionError, Result};
use paimon_data::arrow_schema::to_arrow_field;
use paimon_spec::types::{DataField, DataType, TypeKind};

/// The columns of one system table, added in Java's field order.
#[derive(Debug, Default)]
pub struct Columns {
    fields: Vec<DataField>,
    arrays: Vec<ArrayRef>,
}

fn field_type(kind: TypeKind, nullable: bool) -> DataType {
    DataType::nullable(kind).with_nullable(nullable)
}

impl Columns {
    /// No columns yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn push(&mut self, name: &str, ty: DataType, array: ArrayRef) {
        let id = i32::try_from(self.fields.len()).unwrap_or(i32::MAX);
        self.fields.push(DataField::new(id, name, ty));
        self.arrays.push(array);
    }

    /// A `BIGINT` column.
    pub fn bigint(
        mut self,
        name: &str,
        nullable: bool,
        values: impl IntoIterator<Item = Option<i64>>,
    ) -> Self {
        let a: Int64Array = values.into_iter().collect();
        self.push(name, field_type(TypeKind::BigInt, nullable), Arc::new(a));
        self
    }

    /// An `INT` column.
    pub fn int(
        mut self,
        name: &str,
        nullable: bool,
        values: impl IntoIterator<Item = Option<i32>>,
    ) -> Self {
        let a: Int32Array = values.into_iter().collect();
        self.push(name, field_type(TypeKind::Int, nullable), Arc::new(a));
        self
    }

    /// A `STRING` column.
    pub fn string<S: AsRef<str>>(
        mut self,
        name: &str,
        nullable: bool,
        values: impl IntoIterator<Item = Option<S>>,
    ) -> Self {
        let a: StringArray = values.into_iter().collect();
        self.push(
            name,
            DataType::string().with_nullable(nullable),
            Arc::new(a),
        );
        self
    }

    /// A `TIMESTAMP(3)` column of wall-clock millis (Java `Timestamp.fromLocalDateTime`).
    pub fn timestamp(
        mut self,
        name: &str,
        nullable: bool,
        values: impl IntoIterator<Item = Option<i64>>,
    ) -> Self {
        let a: TimestampMillisecondArray = values.into_iter().collect();
        self.push(
            name,
            field_type(TypeKind::Timestamp { precision: 3 }, nullable),
            Arc::new(a),
        );
        self
    }

    /// An `ARRAY<STRING>` column.
    pub fn string_array(
        mut self,
        name: &str,
        values: impl IntoIterator<Item = Option<Vec<String>>>,
    ) -> Self {
        let ty = DataType::nullable(TypeKind::Array(Box::new(DataType::string())));
        let mut b = ListBuilder::new(StringBuilder::new());
        for v in values {
            match v {
                Some(items) => {
                    for s in items {
                        b.values().append_value(s);
                    }
                    b.append(true);
                }
                None => b.append(false),
            }
        }
        // The element field as paimon-data names it, so the array matches the schema.
        let item = match paimon_data::arrow_schema::to_arrow_type(&ty) {
            arrow::datatypes::DataType::List(f) => f,
            _ => Arc::new(Field::new(
                "element",
                arrow::datatypes::DataType::Utf8,
                true,
            )),
        };
        let list = b.finish();
        let (_, offsets, values, nulls) = list.into_parts();
        let array = arrow::array::ListArray::new(item, offsets, values, nulls);
        self.push(name, ty, Arc::new(array));
        self
    }

    /// The Paimon fields and the batch.
    ///
    /// # Errors
    /// When the columns have different lengths (a bug here, not bad input).
    pub fn finish(self) -> Result<(Vec<DataField>, RecordBatch)> {
        let schema: SchemaRef = Arc::new(Schema::new(
            self.fields.iter().map(to_arrow_field).collect::<Vec<_>>(),
        ));
        let rows = self.arrays.first().map_or(0, |a| a.len());
        let batch = RecordBatch::try_new_with_options(
            schema,
            self.arrays,
            &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map_err(|e| DataFusionError::ArrowError(Box::new(e), None))?;
        Ok((self.fields, batch))
    }
}

/// Epoch millis as the wall-clock millis of this machine's time zone (Java
/// `LocalDateTime.ofInstant(Instant.ofEpochMilli(ms), ZoneId.systemDefault())`).
pub use paimon_meta::java_time::local_millis_of_epoch as local_millis;

/// Wall-clock millis back to epoch millis in this machine's time zone (paimon-meta's).
pub use paimon_meta::java_time::epoch_millis_of_local;
