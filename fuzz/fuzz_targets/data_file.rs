//! paimon-data's format decoders (`paimon_data::format::decode`) on data files built from fuzzed
//! bytes: Parquet (`parquet` crate), ORC (`orc-rust`), Avro (`arrow-avro`) and Paimon `.blob`
//! files, read with the columns of the fixture tables `append.db/fmt_*` (id INT, name STRING,
//! price DOUBLE, amount DECIMAL(12,2), dt DATE, ts TIMESTAMP(6), flag BOOLEAN, tags
//! ARRAY<STRING>) as paimon-data's reader asks for them.
//!
//! Input: `[flags][rows][selection][columns][file bytes...]`
//! * flags & 3: the format (Parquet, ORC, Avro, blob);
//! * rows: the row count the file's metadata claims (`DecodeRequest::expected_rows`, as the
//!   reader always passes it);
//! * flags bit 2: keep only the positions `p` of `0..rows` with bit `p % 8` of `selection` set
//!   (a deletion vector or row range);
//! * columns: bit i asks for column i (with the rest, or none at all: a row count).
//!
//! Checks: no panic (orc-rust panics that paimon-data catches are allowed), every error names
//! the file, bounded work; a decode that ends without error yielded exactly the selected rows,
//! and only columns that were asked for.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_data::format::{decode, DecodeRequest, FileFormat, RowRanges};
use paimon_fuzz::{check_error_names, data_file_columns, run_allowing_caught_panics};

const FORMATS: [(FileFormat, &str); 4] = [
    (FileFormat::Parquet, "t/bucket-0/data-fuzz-0.parquet"),
    (FileFormat::Orc, "t/bucket-0/data-fuzz-0.orc"),
    (FileFormat::Avro, "t/bucket-0/data-fuzz-0.avro"),
    (FileFormat::Blob, "t/bucket-0/data-fuzz-0.blob"),
];

fuzz_target!(|data: &[u8]| {
    let [flags, rows, selection, column_mask, ref file @ ..] = *data else {
        return;
    };
    let (format, path) = FORMATS[usize::from(flags & 3)];
    let total = u64::from(rows);
    let selected = (flags & 4 != 0).then(|| {
        RowRanges::excluding(
            total,
            (0..total).filter(|p| selection & (1 << (p % 8)) == 0),
        )
    });
    let (columns, types): (Vec<String>, Vec<_>) = if format == FileFormat::Blob {
        // A blob file holds one column.
        let c: Vec<String> = (column_mask & 1 != 0)
            .then(|| "blob".to_string())
            .into_iter()
            .collect();
        (c, Vec::new())
    } else {
        let all = data_file_columns();
        let picked: Vec<_> = all
            .iter()
            .enumerate()
            .filter(|(i, _)| column_mask & (1 << i) != 0)
            .map(|(_, f)| f)
            .collect();
        (
            picked.iter().map(|f| f.name.clone()).collect(),
            picked
                .iter()
                .map(|f| {
                    (
                        f.name.clone(),
                        paimon_data::arrow_schema::to_arrow_type(&f.data_type),
                    )
                })
                .collect(),
        )
    };
    let req = DecodeRequest {
        columns: columns.clone(),
        types,
        rows: selected.clone(),
        batch_size: 7,
        expected_rows: Some(i64::from(rows)),
    };
    let want = selected.as_ref().map_or(total, RowRanges::selected);
    let bytes = bytes::Bytes::copy_from_slice(file);
    run_allowing_caught_panics(|| {
        let batches = decode(format, path, bytes, &req);
        check_error_names(&batches, path);
        let Ok(batches) = batches else {
            return;
        };
        let mut seen = 0u64;
        for b in batches {
            check_error_names(&b, path);
            let Ok(b) = b else {
                return;
            };
            seen += b.num_rows() as u64;
            assert!(seen <= want, "{seen} rows decoded, {want} selected");
            for f in b.schema().fields() {
                assert!(
                    columns.contains(f.name()),
                    "column {} not asked for",
                    f.name()
                );
            }
        }
        assert_eq!(
            seen, want,
            "a decode without error yields the selected rows"
        );
    });
});
