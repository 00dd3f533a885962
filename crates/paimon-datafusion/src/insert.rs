//! `INSERT INTO` / `INSERT OVERWRITE` into a Paimon table: [`PaimonSink`], the DataFusion
//! [`DataSink`] that [`crate::PaimonTableProvider`]'s `insert_into` plans under a
//! [`datafusion::datasource::sink::DataSinkExec`].
//!
//! DataFusion runs the statement's query in its partitions and hands the sink one stream of
//! the rows (DataFusion's `DataSinkExec` takes a single input partition). The rows go to the
//! facade's writer ([`paimon_rs::Table::write`]: the write path of `paimon write`, with the
//! primary-key sequence numbers, buckets, dynamic-bucket index and the lookup compaction Java's
//! writers run after a write), on a blocking thread, batch by batch as they arrive. The
//! statement ends with ONE commit; when the query or the writer fails midway, the files
//! written are deleted and nothing is committed. The statement's result is DataFusion's DML
//! result: one row, `count`, the rows written. A format table's rows go to its
//! [`paimon_rs::FormatWrite`] the same way ([`PaimonSink::format`]).

use std::fmt;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::datasource::sink::DataSink;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::{DisplayAs, DisplayFormatType};
use futures::StreamExt;
use paimon_rs::Overwrite;

/// A batch for the writer, or the word to commit what it was given.
enum ToWriter {
    Batch(RecordBatch),
    Commit,
}

/// Batches in flight between the query and the writer.
const IN_FLIGHT: usize = 2;

/// The table a sink writes into.
#[derive(Clone)]
enum Target {
    /// A Paimon table.
    Paimon(paimon_meta::Table),
    /// A format table, and what an overwrite replaces: `None` the partitions written,
    /// `Some(pairs)` that partition (no pairs: the whole table).
    Format(
        paimon_rs::FormatTable,
        Option<Option<Vec<(String, String)>>>,
    ),
}

/// The writer of one statement.
enum StatementWriter {
    Paimon(Box<paimon_rs::PendingWrite>),
    Format(Box<paimon_rs::FormatWrite>),
}

impl StatementWriter {
    fn write(&mut self, b: &RecordBatch) -> paimon_rs::Result<()> {
        match self {
            StatementWriter::Paimon(w) => w.write(b),
            StatementWriter::Format(w) => w.write(b),
        }
    }

    fn abort(self) {
        match self {
            StatementWriter::Paimon(w) => w.abort(),
            StatementWriter::Format(w) => w.abort(),
        }
    }

    /// Commits; the rows written.
    fn commit(self) -> paimon_rs::Result<u64> {
        Ok(match self {
            StatementWriter::Paimon(w) => w.commit()?.rows as u64,
            StatementWriter::Format(w) => w.commit()?.rows,
        })
    }
}

/// Writes a statement's rows into one Paimon or format table and commits them once.
#[derive(Clone)]
pub struct PaimonSink {
    target: Target,
    path: String,
    schema: SchemaRef,
    overwrite: Option<Overwrite>,
    row_kind_column: Option<String>,
}

impl fmt::Debug for PaimonSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PaimonSink")
            .field("path", &self.path)
            .field("overwrite", &self.overwrite)
            .finish()
    }
}

impl PaimonSink {
    /// A sink into `table` (at `path`) taking rows of `schema` (the table's columns); with
    /// `overwrite` the commit replaces what it says instead of appending.
    pub fn new(
        table: paimon_meta::Table,
        path: &str,
        schema: SchemaRef,
        overwrite: Option<Overwrite>,
    ) -> Self {
        PaimonSink {
            target: Target::Paimon(table),
            path: path.to_string(),
            schema,
            overwrite,
            row_kind_column: None,
        }
    }

    /// A sink into the format table `table` taking rows of `schema` (its columns);
    /// `overwrite`: `None` appends, `Some(None)` replaces the partitions written,
    /// `Some(Some(pairs))` the partition `pairs` names (the whole table for no pairs).
    pub fn format(
        table: paimon_rs::FormatTable,
        schema: SchemaRef,
        overwrite: Option<Option<Vec<(String, String)>>>,
    ) -> Self {
        let replaces = overwrite.as_ref().map(|o| match o {
            None => Overwrite::AsConfigured,
            Some(pairs) => Overwrite::Partition(pairs.clone()),
        });
        PaimonSink {
            path: table.path().to_string(),
            target: Target::Format(table, overwrite),
            schema,
            overwrite: replaces,
            row_kind_column: None,
        }
    }

    /// This sink taking rows of `schema`: the table's columns and `column`, each row's kind
    /// (`+I`, `-U`, `+U`, `-D`), which is not written as a column.
    pub fn with_row_kind_column(mut self, column: &str, schema: SchemaRef) -> Self {
        self.row_kind_column = Some(column.to_string());
        self.schema = schema;
        self
    }

    /// What the commit replaces, `None` for an append.
    pub fn overwrite(&self) -> Option<&Overwrite> {
        self.overwrite.as_ref()
    }

    /// The writer's side, on a blocking thread: writes each batch as it comes, commits on
    /// [`ToWriter::Commit`], and deletes everything written when the channel closes first
    /// (the query failed) or a write fails.
    fn write_blocking(&self, mut rx: tokio::sync::mpsc::Receiver<ToWriter>) -> Result<u64> {
        let path = self.path.as_str();
        let err =
            |e: paimon_rs::Error| DataFusionError::Execution(format!("{path}: {}", e.chain()));
        let mut writer = match &self.target {
            Target::Paimon(table) => {
                let mut builder = paimon_rs::Table::from_meta(table.clone()).write();
                if let Some(o) = &self.overwrite {
                    builder = builder.with_overwrite(o.clone());
                }
                if let Some(c) = &self.row_kind_column {
                    builder = builder.with_row_kind_column(c.clone());
                }
                StatementWriter::Paimon(Box::new(builder.begin().map_err(err)?))
            }
            Target::Format(table, overwrite) => {
                if self.row_kind_column.is_some() {
                    return Err(DataFusionError::Plan(format!(
                        "{path} is a format table: its rows have no kinds"
                    )));
                }
                let mut w = table.write().map_err(err)?;
                if let Some(o) = overwrite {
                    w = w.with_overwrite(o.clone()).map_err(err)?;
                }
                StatementWriter::Format(Box::new(w))
            }
        };
        loop {
            match rx.blocking_recv() {
                Some(ToWriter::Batch(b)) => {
                    if let Err(e) = writer.write(&b) {
                        writer.abort();
                        return Err(err(e));
                    }
                }
                Some(ToWriter::Commit) => return writer.commit().map_err(err),
                None => {
                    writer.abort();
                    return Err(DataFusionError::Execution(format!(
                        "{path}: the statement stopped before its rows were complete; nothing was committed"
                    )));
                }
            }
        }
    }
}

impl DisplayAs for PaimonSink {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.overwrite {
            None => write!(f, "PaimonSink: append to {}", self.path),
            Some(Overwrite::AsConfigured) => write!(f, "PaimonSink: overwrite {}", self.path),
            Some(Overwrite::Partition(p)) => {
                let spec: Vec<String> = p.iter().map(|(k, v)| format!("{k}={v}")).collect();
                write!(
                    f,
                    "PaimonSink: overwrite {} partition ({})",
                    self.path,
                    spec.join(", ")
                )
            }
        }
    }
}

#[async_trait]
impl DataSink for PaimonSink {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    async fn write_all(
        &self,
        mut data: SendableRecordBatchStream,
        _context: &Arc<TaskContext>,
    ) -> Result<u64> {
        let (tx, rx) = tokio::sync::mpsc::channel(IN_FLIGHT);
        let this = self.clone();
        let writer = tokio::task::spawn_blocking(move || this.write_blocking(rx));
        let joined = |r: std::result::Result<Result<u64>, tokio::task::JoinError>| {
            r.map_err(|e| {
                DataFusionError::Execution(format!("{}: writer task failed: {e}", self.path))
            })?
        };
        while let Some(batch) = data.next().await {
            match batch {
                Ok(b) => {
                    if b.num_rows() > 0 && tx.send(ToWriter::Batch(b)).await.is_err() {
                        // The writer stopped: its error is the statement's.
                        break;
                    }
                }
                Err(e) => {
                    drop(tx);
                    // The writer deletes its files once the channel closes.
                    let _ = joined(writer.await);
                    return Err(e);
                }
            }
        }
        let _ = tx.send(ToWriter::Commit).await;
        drop(tx);
        joined(writer.await)
    }
}
