//! Parquet manifests (tables written with `manifest.format=parquet`), read through the `parquet`
//! crate's Arrow reader and converted to the same [`Value`] records as Avro and ORC manifests.

use crate::error::{Error, Result};
use bytes::Bytes;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::value::Value;

/// The Parquet file magic (at both ends of the file).
pub const MAGIC: &[u8; 4] = b"PAR1";

/// Decodes every row of a Parquet file into records named by the file's columns.
///
/// # Errors
/// A reason string when the file cannot be decoded; callers add the path.
pub fn read_parquet(bytes: Bytes) -> Result<Vec<Value>> {
    // The parquet crate asserts on some damaged footers; a damaged manifest must be an error.
    std::panic::catch_unwind(move || read_parquet_inner(bytes))
        .unwrap_or_else(|_| Err(bad("the decoder failed on corrupt data")))
}

fn read_parquet_inner(bytes: Bytes) -> Result<Vec<Value>> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
        .map_err(|e| bad(e.to_string()))?
        .build()
        .map_err(|e| bad(e.to_string()))?;
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| bad(e.to_string()))?;
        crate::orc::records::batch_to_records(&batch, &mut out)?;
    }
    Ok(out)
}

/// An [`Error`] of Parquet file: `reason` says what is wrong.
fn bad(reason: impl Into<String>) -> Error {
    Error::corrupt("Parquet file", reason)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;

    use super::read_parquet;
    use crate::value::{Record, Value};

    fn decode_records(bytes: bytes::Bytes) -> Vec<Record> {
        read_parquet(bytes)
            .unwrap()
            .into_iter()
            .map(|v| match v {
                Value::Record(r) => r,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    fn file() -> Vec<u8> {
        let batch = RecordBatch::try_from_iter([
            (
                "_FILE_NAME",
                Arc::new(StringArray::from(vec!["a", "b"])) as ArrayRef,
            ),
            (
                "_FILE_SIZE",
                Arc::new(Int64Array::from(vec![Some(7), None])) as ArrayRef,
            ),
        ])
        .unwrap();
        let mut out = Vec::new();
        let mut w = ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        out
    }

    #[test]
    fn parquet_rows_become_records_by_column_name() {
        let records = decode_records(file().into());
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].get("_FILE_NAME"), &Value::String("a".into()));
        assert_eq!(records[0].get("_FILE_SIZE"), &Value::Long(7));
        assert_eq!(records[1].get("_FILE_SIZE"), &Value::Null);
    }

    #[test]
    fn damaged_parquet_is_an_error_naming_parquet() {
        let bytes = file();
        for cut in [bytes.len() / 2, bytes.len() - 1, 4] {
            let err = read_parquet(bytes[..cut].to_vec().into()).unwrap_err();
            assert!(err.to_string().contains("Parquet"), "{err}");
        }
    }
}
