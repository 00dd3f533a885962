//! Building one BinaryRow from typed values (Java `BinaryRowWriter` driven by
//! `InternalRowSerializer.toBinaryRow`), for partitions, keys and statistics rows.

use super::datum::Datum;
use super::writer::{encode_row_into, RowKind};
use crate::error::{Error, Result};
use crate::types::DataType;

/// Builds BinaryRows of a fixed row type: set values, then [`BinaryRowBuilder::build`] (the
/// row bytes) or [`BinaryRowBuilder::build_serialized`] (`[arity: i32 BE][row bytes]`, the form
/// partitions, keys and stats take in DataFileMeta and commit messages). Every field starts
/// null. The bytes are exactly Java's: zeroed padding, strings of up to 7 bytes inline,
/// decimals of precision <= 18 and timestamps of precision <= 3 in the fixed part, space
/// reserved for null non-compact ones.
///
/// ```
/// use paimon_spec::binary::{BinaryRow, BinaryRowBuilder, Datum};
/// use paimon_spec::types::{DataType, TypeKind};
/// let types = vec![DataType::string(), DataType::nullable(TypeKind::Int)];
/// let row = BinaryRowBuilder::new(types.clone())
///     .with_value(0, Datum::String("2024-01-01".into()))
///     .unwrap()
///     .build_serialized()
///     .unwrap();
/// let decoded = BinaryRow::from_serialized(&row).unwrap();
/// assert_eq!(decoded.to_datums(&types).unwrap(), [Datum::String("2024-01-01".into()), Datum::Null]);
/// ```
#[derive(Debug, Clone)]
pub struct BinaryRowBuilder {
    types: Vec<DataType>,
    values: Vec<Datum>,
    kind: RowKind,
}

impl BinaryRowBuilder {
    /// A builder for rows of `types`, all fields null, row kind `+I`.
    pub fn new(types: Vec<DataType>) -> Self {
        let values = vec![Datum::Null; types.len()];
        BinaryRowBuilder {
            types,
            values,
            kind: RowKind::Insert,
        }
    }

    /// Sets the row kind (the first byte; partitions and stats use `+I`).
    pub fn with_row_kind(mut self, kind: RowKind) -> Self {
        self.kind = kind;
        self
    }

    /// Sets field `pos`.
    ///
    /// # Errors
    /// As [`BinaryRowBuilder::set`].
    pub fn with_value(mut self, pos: usize, value: Datum) -> Result<Self> {
        self.set(pos, value)?;
        Ok(self)
    }

    /// Sets field `pos` ([`Datum::Null`] for null). Whether the value fits the field's type is
    /// checked when the row is built.
    ///
    /// # Errors
    /// [`Error::Encode`] when `pos` is out of range.
    pub fn set(&mut self, pos: usize, value: Datum) -> Result<()> {
        let arity = self.types.len();
        let slot = self.values.get_mut(pos).ok_or_else(|| Error::Encode {
            what: "BinaryRow".into(),
            reason: format!("field {pos} out of range for arity {arity}"),
        })?;
        *slot = value;
        Ok(())
    }

    /// Sets every field null again, to build the next row.
    pub fn reset(&mut self) {
        self.values.iter_mut().for_each(|v| *v = Datum::Null);
    }

    /// Number of fields.
    pub fn arity(&self) -> usize {
        self.types.len()
    }

    /// The row bytes.
    ///
    /// # Errors
    /// [`Error::Encode`] when a value does not match its field's type.
    pub fn build(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.build_into(&mut out)?;
        Ok(out)
    }

    /// The row bytes into `out` (cleared first; reuse it across rows).
    ///
    /// # Errors
    /// As [`BinaryRowBuilder::build`].
    pub fn build_into(&self, out: &mut Vec<u8>) -> Result<()> {
        encode_row_into(self.kind, &self.values, &self.types, out)
    }

    /// `[arity: i32 BE][row bytes]` (Java `SerializationUtils.serializeBinaryRow`).
    ///
    /// # Errors
    /// As [`BinaryRowBuilder::build`].
    pub fn build_serialized(&self) -> Result<Vec<u8>> {
        let arity = i32::try_from(self.types.len()).map_err(|_| Error::Encode {
            what: "BinaryRow".into(),
            reason: format!("arity {} exceeds i32", self.types.len()),
        })?;
        let mut row = Vec::new();
        self.build_into(&mut row)?;
        let mut out = Vec::with_capacity(4 + row.len());
        out.extend_from_slice(&arity.to_be_bytes());
        out.extend_from_slice(&row);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binary::BinaryRow;
    use crate::types::{DataField, TypeKind};

    fn every_type() -> Vec<(DataType, Datum)> {
        let n = DataType::nullable;
        vec![
            (n(TypeKind::Boolean), Datum::Boolean(true)),
            (n(TypeKind::TinyInt), Datum::TinyInt(-7)),
            (n(TypeKind::SmallInt), Datum::SmallInt(-300)),
            (n(TypeKind::Int), Datum::Int(123_456)),
            (n(TypeKind::BigInt), Datum::BigInt(-9_000_000_000)),
            (n(TypeKind::Float), Datum::Float(1.5)),
            (n(TypeKind::Double), Datum::Double(-2.25)),
            (
                n(TypeKind::Decimal {
                    precision: 10,
                    scale: 2,
                }),
                Datum::Decimal {
                    unscaled: -12345,
                    precision: 10,
                    scale: 2,
                },
            ),
            (
                n(TypeKind::Decimal {
                    precision: 38,
                    scale: 4,
                }),
                Datum::Decimal {
                    unscaled: 170_141_183_460_469_231_731_687_303_715_884_105_727,
                    precision: 38,
                    scale: 4,
                },
            ),
            (DataType::string(), Datum::String("short".into())),
            (
                DataType::string(),
                Datum::String("longer than seven".into()),
            ),
            (DataType::string(), Datum::String(String::new())),
            (
                DataType::bytes(),
                Datum::Binary(vec![0, 1, 2, 3, 4, 5, 6, 7, 8]),
            ),
            (n(TypeKind::Date), Datum::Date(19_000)),
            (n(TypeKind::Time { precision: 3 }), Datum::Time(3_600_000)),
            (
                n(TypeKind::Timestamp { precision: 3 }),
                Datum::Timestamp {
                    millis: 1_700_000_000_123,
                    nanos: 0,
                },
            ),
            (
                n(TypeKind::Timestamp { precision: 9 }),
                Datum::Timestamp {
                    millis: -1,
                    nanos: 999_999,
                },
            ),
            (
                n(TypeKind::LocalZonedTimestamp { precision: 6 }),
                Datum::LocalZonedTimestamp {
                    millis: 86_400_000,
                    nanos: 1_000,
                },
            ),
            (
                n(TypeKind::Array(Box::new(DataType::string()))),
                Datum::Array(vec![Datum::String("a".into()), Datum::Null]),
            ),
            (
                n(TypeKind::Map {
                    key: Box::new(DataType::string().with_nullable(false)),
                    value: Box::new(n(TypeKind::Int)),
                }),
                Datum::Map(vec![(Datum::String("k".into()), Datum::Int(1))]),
            ),
            (
                n(TypeKind::Row(vec![
                    DataField::new(0, "x", n(TypeKind::Int)),
                    DataField::new(1, "y", DataType::string()),
                ])),
                Datum::Row(vec![Datum::Int(5), Datum::String("nested string".into())]),
            ),
        ]
    }

    #[test]
    fn every_type_round_trips_through_the_decoder() {
        let (types, values): (Vec<_>, Vec<_>) = every_type().into_iter().unzip();
        let mut b = BinaryRowBuilder::new(types.clone());
        for (i, v) in values.iter().enumerate() {
            b.set(i, v.clone()).unwrap();
        }
        let bytes = b.build().unwrap();
        assert_eq!(bytes.len() % 8, 0);
        let row = BinaryRow::new(&bytes, types.len()).unwrap();
        assert_eq!(row.to_datums(&types).unwrap(), values);
        // All null: the same fixed part plus the reserved space of the non-compact decimal and
        // the two precise timestamps (16 + 8 + 8 bytes), as Java reserves it.
        b.reset();
        let nulls = b.build().unwrap();
        assert_eq!(nulls.len(), 8 + 8 * types.len() + 32);
        let row = BinaryRow::new(&nulls, types.len()).unwrap();
        assert!(row.to_datums(&types).unwrap().iter().all(Datum::is_null));
    }

    #[test]
    fn serialized_form_and_errors() {
        let b = BinaryRowBuilder::new(vec![DataType::string()])
            .with_value(0, Datum::String("aaaaa".into()))
            .unwrap();
        // docs/paimon-format.md §4.8: a partition of one STRING "aaaaa".
        assert_eq!(
            b.build_serialized().unwrap(),
            [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0x61, 0x61, 0x61, 0x61, 0x61, 0, 0, 0x85]
        );
        assert!(b.clone().with_value(1, Datum::Int(1)).is_err());
        let wrong = b.with_value(0, Datum::Int(1)).unwrap();
        assert!(matches!(wrong.build(), Err(Error::Encode { .. })));
        let deleted = BinaryRowBuilder::new(vec![])
            .with_row_kind(RowKind::Delete)
            .build()
            .unwrap();
        assert_eq!(deleted, [3, 0, 0, 0, 0, 0, 0, 0]);
    }
}
