//! Ranged reads of Parquet files: a read fetches the footer and then only the column chunks
//! of the projected columns in the row groups that survive pruning. Bytes fetched are counted
//! by `CountingFileIO` and bounded by the file's own layout, read from its footer here.
//!
//! Table: an append table written here, one Parquet file of 10 BIGINT columns `c0..c9` and
//! 100,000 rows in 10 row groups of 10,000 (uncompressed, no dictionary, so every column
//! chunk holds about 80 KB); `c0` is the row's position, the others pseudo-random.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use paimon_data::{ReadOptions, SplitReader};
use paimon_io::{CountingFileIO, FileIORef, LocalFileIO};
use paimon_spec::binary::Datum;
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::predicate::{LeafOp, Predicate};
use paimon_spec::stats::SimpleStats;
use paimon_split::DataSplit;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::ParquetMetaDataReader;
use parquet::file::properties::WriterProperties;

pub(crate) const ROWS: i64 = 100_000;
const GROUP_ROWS: usize = 10_000;
pub(crate) const COLUMNS: usize = 10;

/// Bytes of the file's end a read fetches for the footer (`format::ranged::TAIL_BYTES`).
pub(crate) const TAIL: u64 = 64 << 10;

pub(crate) struct Table {
    pub(crate) dir: PathBuf,
    pub(crate) split: DataSplit,
    pub(crate) file: PathBuf,
}

impl Drop for Table {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The value of column `c` (1..) at row `i`: a hash, so chunks do not compress or repeat.
pub(crate) fn value(c: usize, i: i64) -> i64 {
    let x = (i as u64 ^ ((c as u64) << 40)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (x ^ (x >> 29)) as i64
}

fn schema_json(format: &str) -> String {
    let fields: Vec<String> = (0..COLUMNS)
        .map(|c| format!(r#"{{ "id" : {c}, "name" : "c{c}", "type" : "BIGINT NOT NULL" }}"#))
        .collect();
    format!(
        r#"{{ "version" : 3, "id" : 0, "fields" : [ {} ], "highestFieldId" : {},
  "partitionKeys" : [ ], "primaryKeys" : [ ], "options" : {{ "file.format" : "{format}" }},
  "timeMillis" : 0 }}"#,
        fields.join(", "),
        COLUMNS - 1
    )
}

/// The rows of every test file: `c0` is the row's position, the other columns [`value`]s.
pub(crate) fn rows() -> RecordBatch {
    let columns: Vec<(String, ArrayRef)> = (0..COLUMNS)
        .map(|c| {
            let values: Int64Array = (0..ROWS)
                .map(|i| if c == 0 { i } else { value(c, i) })
                .collect();
            (format!("c{c}"), Arc::new(values) as ArrayRef)
        })
        .collect();
    RecordBatch::try_from_iter(columns).unwrap()
}

/// The writer properties of the test file: no compression or dictionary, row groups of
/// [`GROUP_ROWS`] rows.
pub(crate) fn properties() -> parquet::file::properties::WriterPropertiesBuilder {
    WriterProperties::builder()
        .set_compression(Compression::UNCOMPRESSED)
        .set_dictionary_enabled(false)
        .set_max_row_group_row_count(Some(GROUP_ROWS))
}

/// [`rows`] as a Parquet file written with `props`.
pub(crate) fn parquet_file(props: WriterProperties) -> Vec<u8> {
    let batch = rows();
    let mut file = Vec::new();
    let mut w = ArrowWriter::try_new(&mut file, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    file
}

fn table(tag: &str) -> Table {
    table_of(tag, "parquet", &parquet_file(properties().build()))
}

/// A table of one bucket holding `file`, a data file of format `format` with [`rows`].
pub(crate) fn table_of(tag: &str, format: &str, file: &[u8]) -> Table {
    let dir = std::env::temp_dir().join(format!("paimon-ranged-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let bucket = dir.join("bucket-0");
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    std::fs::create_dir_all(&bucket).unwrap();
    std::fs::write(dir.join("schema/schema-0"), schema_json(format)).unwrap();
    let name = format!("data-0.{format}");
    let path = bucket.join(&name);
    std::fs::write(&path, file).unwrap();
    let size = file.len() as i64;
    let empty = paimon_spec::stats::empty_serialized_row();
    let meta = DataFileMeta {
        file_name: name,
        file_size: size,
        row_count: ROWS,
        min_key: empty.clone().into(),
        max_key: empty.clone().into(),
        key_stats: SimpleStats::empty(),
        value_stats: SimpleStats::empty(),
        min_sequence_number: 0,
        max_sequence_number: 0,
        schema_id: 0,
        level: 0,
        extra_files: Vec::new(),
        creation_time: None,
        delete_row_count: Some(0),
        embedded_index: None,
        file_source: Some(0),
        value_stats_cols: None,
        external_path: None,
        first_row_id: None,
        write_cols: None,
        write_cols_sequences: None,
    };
    let split = DataSplit {
        snapshot_id: 1,
        partition: empty,
        bucket: 0,
        bucket_path: bucket.display().to_string(),
        total_buckets: Some(-1),
        before_files: Vec::new(),
        before_deletion_files: None,
        data_files: vec![meta],
        data_deletion_files: None,
        is_streaming: false,
        raw_convertible: true,
    };
    Table {
        dir,
        split,
        file: path,
    }
}

/// The file's layout from its own footer: each row group's column chunk byte ranges, and the
/// footer's size (metadata, length and magic).
struct Layout {
    chunks: Vec<Vec<Range<u64>>>,
    footer: u64,
    size: u64,
}

fn layout(path: &PathBuf) -> Layout {
    let data = bytes::Bytes::from(std::fs::read(path).unwrap());
    let meta = ParquetMetaDataReader::new()
        .parse_and_finish(&data)
        .unwrap();
    let n = data.len();
    let footer_len = u32::from_le_bytes(data[n - 8..n - 4].try_into().unwrap()) as u64;
    let chunks = meta
        .row_groups()
        .iter()
        .map(|rg| {
            rg.columns()
                .iter()
                .map(|c| {
                    let (s, l) = c.byte_range();
                    s..s + l
                })
                .collect()
        })
        .collect();
    Layout {
        chunks,
        footer: footer_len + 8,
        size: n as u64,
    }
}

impl Layout {
    /// Bytes of the chunks of `columns` in row groups `groups`.
    fn chunk_bytes(&self, groups: Range<usize>, columns: &[usize]) -> u64 {
        self.chunks[groups]
            .iter()
            .flat_map(|rg| columns.iter().map(|&c| rg[c].end - rg[c].start))
            .sum()
    }

    /// Bytes of those chunks when neighbours at most `gap` apart are fetched as one.
    fn coalesced_bytes(&self, groups: Range<usize>, columns: &[usize], gap: u64) -> u64 {
        let mut total = 0;
        for rg in &self.chunks[groups] {
            let mut ranges: Vec<Range<u64>> = columns.iter().map(|&c| rg[c].clone()).collect();
            ranges.sort_by_key(|r| r.start);
            let mut cur: Option<Range<u64>> = None;
            for r in ranges {
                cur = match cur {
                    Some(c) if r.start <= c.end + gap => Some(c.start..c.end.max(r.end)),
                    Some(c) => {
                        total += c.end - c.start;
                        Some(r)
                    }
                    None => Some(r),
                };
            }
            total += cur.map_or(0, |c| c.end - c.start);
        }
        total
    }

    /// What a read may fetch besides the chunks: the tail window and the footer.
    fn overhead(&self) -> u64 {
        TAIL.max(self.footer)
    }
}

/// Reads the table through a counting I/O; returns the bytes fetched and the batches.
fn read(t: &Table, options: ReadOptions) -> (u64, Vec<RecordBatch>) {
    let counting = Arc::new(CountingFileIO::new(Arc::new(LocalFileIO::new())));
    let io: FileIORef = counting.clone();
    let reader = SplitReader::builder(io).with_options(options).build();
    let batches = reader
        .read(&t.dir.display().to_string(), &t.split)
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let file = t.file.display().to_string();
    let bytes = counting
        .reads()
        .iter()
        .filter(|r| r.path == file)
        .map(|r| r.range.end - r.range.start)
        .sum();
    (bytes, batches)
}

pub(crate) fn column_sum(batches: &[RecordBatch], name: &str) -> i64 {
    batches
        .iter()
        .map(|b| {
            let col = b.column_by_name(name).unwrap().as_primitive::<Int64Type>();
            col.values().iter().fold(0i64, |a, v| a.wrapping_add(*v))
        })
        .fold(0i64, |a, v| a.wrapping_add(v))
}

pub(crate) fn expected_sum(c: usize, rows: Range<i64>) -> i64 {
    rows.map(|i| if c == 0 { i } else { value(c, i) })
        .fold(0i64, |a, v| a.wrapping_add(v))
}

#[test]
fn a_projection_reads_its_columns_share_of_the_bytes() {
    let t = table("projection");
    let l = layout(&t.file);
    let projected = [2usize, 5, 8];
    let names: Vec<String> = projected.iter().map(|c| format!("c{c}")).collect();
    let chunks = l.chunk_bytes(0..10, &projected);

    // Each chunk on its own.
    let options = ReadOptions {
        projection: Some(names.clone()),
        coalesce_gap: 0,
        ..ReadOptions::default()
    };
    let (bytes, batches) = read(&t, options);
    for (c, name) in projected.iter().zip(&names) {
        assert_eq!(
            column_sum(&batches, name),
            expected_sum(*c, 0..ROWS),
            "{name}"
        );
    }
    eprintln!(
        "3 of 10 columns, chunks alone: fetched {bytes} of {} bytes ({:.3}), chunks {chunks}",
        l.size,
        bytes as f64 / l.size as f64
    );
    assert!(
        bytes >= chunks,
        "fetched {bytes} < the columns' chunks {chunks}"
    );
    assert!(
        bytes <= chunks + l.overhead(),
        "fetched {bytes}, above the chunks {chunks} + footer {}",
        l.overhead()
    );

    // The default gap (1 MiB) joins the chunks of a row group and the ones between them.
    let options = ReadOptions {
        projection: Some(names.clone()),
        ..ReadOptions::default()
    };
    let (bytes, batches) = read(&t, options);
    assert_eq!(column_sum(&batches, "c5"), expected_sum(5, 0..ROWS));
    let coalesced = l.coalesced_bytes(0..10, &projected, paimon_data::format::DEFAULT_COALESCE_GAP);
    assert!(
        coalesced > chunks,
        "the test's chunks should lie close enough to coalesce"
    );
    eprintln!("3 of 10 columns, 1 MiB gap: fetched {bytes}, coalesced ranges {coalesced}");
    assert!(
        bytes >= coalesced && bytes <= coalesced + l.overhead(),
        "fetched {bytes}"
    );
}

#[test]
fn a_filter_pruning_nine_row_groups_reads_a_tenth() {
    let t = table("filter");
    let l = layout(&t.file);
    let all: Vec<usize> = (0..COLUMNS).collect();
    let options = ReadOptions {
        predicate: Some(Predicate::leaf(
            "c0",
            LeafOp::GtEq,
            vec![Datum::BigInt(90_000)],
        )),
        coalesce_gap: 0,
        ..ReadOptions::default()
    };
    let (bytes, batches) = read(&t, options);
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 10_000);
    for c in [0, 3, 9] {
        let name = format!("c{c}");
        assert_eq!(
            column_sum(&batches, &name),
            expected_sum(c, 90_000..ROWS),
            "{name}"
        );
    }
    let last_group = l.chunk_bytes(9..10, &all);
    eprintln!(
        "filter keeping row group 9 of 10: fetched {bytes} of {} bytes ({:.3}), its chunks \
         {last_group}",
        l.size,
        bytes as f64 / l.size as f64
    );
    assert!(
        bytes >= last_group,
        "fetched {bytes} < row group 9's chunks {last_group}"
    );
    assert!(
        bytes <= last_group + l.overhead(),
        "fetched {bytes}, above row group 9's chunks {last_group} + footer {}",
        l.overhead()
    );
}

/// Local files, counting the calls made through the sync methods and the bytes read through
/// the async ones.
#[derive(Debug, Default)]
struct AsyncOnly {
    inner: LocalFileIO,
    sync_reads: std::sync::atomic::AtomicUsize,
    async_bytes: std::sync::atomic::AtomicU64,
}

impl paimon_io::FileIO for AsyncOnly {
    fn read(&self, path: &str) -> paimon_io::Result<bytes::Bytes> {
        self.sync_reads
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.read(path)
    }

    fn read_range(&self, path: &str, range: Range<u64>) -> paimon_io::Result<bytes::Bytes> {
        self.sync_reads
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.read_range(path, range)
    }

    fn read_range_async<'a>(
        &'a self,
        path: &'a str,
        range: Range<u64>,
    ) -> paimon_io::BoxFuture<'a, paimon_io::Result<bytes::Bytes>> {
        self.async_bytes
            .fetch_add(range.end - range.start, std::sync::atomic::Ordering::SeqCst);
        Box::pin(async move { self.inner.read_range(path, range) })
    }

    fn read_async<'a>(
        &'a self,
        path: &'a str,
    ) -> paimon_io::BoxFuture<'a, paimon_io::Result<bytes::Bytes>> {
        Box::pin(async move {
            let b = self.inner.read(path)?;
            self.async_bytes
                .fetch_add(b.len() as u64, std::sync::atomic::Ordering::SeqCst);
            Ok(b)
        })
    }

    fn size(&self, path: &str) -> paimon_io::Result<u64> {
        self.sync_reads
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.size(path)
    }

    fn size_async<'a>(&'a self, path: &'a str) -> paimon_io::BoxFuture<'a, paimon_io::Result<u64>> {
        Box::pin(async move { self.inner.size(path) })
    }

    fn list_async<'a>(
        &'a self,
        dir: &'a str,
    ) -> paimon_io::BoxFuture<'a, paimon_io::Result<Vec<paimon_io::FileStatus>>> {
        Box::pin(async move { self.inner.list(dir) })
    }

    fn exists(&self, path: &str) -> paimon_io::Result<bool> {
        self.sync_reads
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.exists(path)
    }

    fn list(&self, dir: &str) -> paimon_io::Result<Vec<paimon_io::FileStatus>> {
        self.sync_reads
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.list(dir)
    }
}

/// Reads the table's split with `SplitReader::read_async` on a current-thread runtime through
/// an [`AsyncOnly`] I/O: the batches, the blocking calls made and the bytes fetched by the
/// async ones.
pub(crate) fn read_async_counted(
    t: &Table,
    options: ReadOptions,
) -> (Vec<RecordBatch>, usize, u64) {
    use futures::StreamExt;

    let io = Arc::new(AsyncOnly::default());
    let reader = SplitReader::builder(io.clone())
        .with_options(options)
        .build();
    let split = paimon_split::Split::Data(t.split.clone());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let dir = t.dir.display().to_string();
    let batches = rt
        .block_on(reader.read_async(&dir, &split).collect::<Vec<_>>())
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let sync = io.sync_reads.load(std::sync::atomic::Ordering::SeqCst);
    let fetched = io.async_bytes.load(std::sync::atomic::Ordering::SeqCst);
    (batches, sync, fetched)
}

#[test]
fn the_async_stream_reads_only_through_read_range_async() {
    use futures::StreamExt;

    let t = table("async");
    let l = layout(&t.file);
    let io = Arc::new(AsyncOnly::default());
    let projected = [1usize, 4, 7];
    let req = paimon_data::format::DecodeRequest {
        columns: projected.iter().map(|c| format!("c{c}")).collect(),
        types: Vec::new(),
        rows: None,
        batch_size: 4096,
        expected_rows: Some(ROWS),
    };
    let stream = paimon_data::format::decode_parquet_stream(
        io.clone(),
        t.file.display().to_string(),
        l.size,
        req,
        0,
    );
    let batches: Vec<RecordBatch> = futures::executor::block_on(stream.collect::<Vec<_>>())
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    for c in projected {
        let name = format!("c{c}");
        assert_eq!(
            column_sum(&batches, &name),
            expected_sum(c, 0..ROWS),
            "{name}"
        );
    }
    let sync = io.sync_reads.load(std::sync::atomic::Ordering::SeqCst);
    let fetched = io.async_bytes.load(std::sync::atomic::Ordering::SeqCst);
    let chunks = l.chunk_bytes(0..10, &projected);
    eprintln!("async stream, 3 of 10 columns: {sync} sync reads, {fetched} bytes async");
    assert_eq!(sync, 0, "the stream read through the sync FileIO methods");
    assert!(
        fetched >= chunks && fetched <= chunks + l.overhead(),
        "fetched {fetched}"
    );
}

/// A split read through `SplitReader::read_async` on a current-thread runtime: the schema
/// listing and file, the data file's size and footer and the projected column chunks of all
/// ten row groups are fetched through the async calls, not one blocking call is made, and
/// the bytes are those of the chunks (coalesced as the reader plans them), the footer tail
/// and the schema file.
#[test]
fn an_async_split_read_makes_no_blocking_call() {
    let t = table("async-split");
    let l = layout(&t.file);
    let projected = [1usize, 4, 7];
    let options = ReadOptions {
        projection: Some(projected.iter().map(|c| format!("c{c}")).collect()),
        batch_size: 4096,
        ..ReadOptions::default()
    };
    let (batches, sync, fetched) = read_async_counted(&t, options);
    for c in projected {
        let name = format!("c{c}");
        assert_eq!(
            column_sum(&batches, &name),
            expected_sum(c, 0..ROWS),
            "{name}"
        );
    }
    let schema = std::fs::metadata(t.dir.join("schema/schema-0"))
        .unwrap()
        .len();
    let chunks = l.chunk_bytes(0..10, &projected);
    let coalesced = l.coalesced_bytes(0..10, &projected, paimon_data::format::DEFAULT_COALESCE_GAP);
    eprintln!(
        "async split read, 3 of 10 columns: {sync} blocking calls, {fetched} bytes async \
         (chunks {chunks}, coalesced {coalesced}, schema {schema}, file {})",
        l.size
    );
    assert_eq!(sync, 0, "the split read made blocking calls");
    assert!(fetched >= chunks + schema, "fetched {fetched}");
    assert!(
        fetched <= coalesced + l.overhead() + schema,
        "fetched {fetched}"
    );
}
