//! `paimon read` and `paimon write` of a format table (`type = format-table`): the facade's
//! [`paimon_rs::FormatTable`], no snapshot or manifest read or written.

use anyhow::{anyhow, bail, Result};
use paimon_rs::FormatTable;

use crate::filter::parse_filter;
use crate::input::{read_input, InputFormat};
use crate::read_cmd::{output_fields, write_output, Format, ReadArgs};
use crate::scan_args::table_location;
use crate::write_cmd::{partition_pairs, WriteArgs};

/// The format table at the path `table`, or `None` when `table` is not a path of one (a
/// catalog's `db.table`, a Paimon table, or no table: the ordinary path reports those).
pub fn open(table: &str) -> Result<Option<FormatTable>> {
    if crate::catalog_cmd::catalog_for(table)?.is_some() {
        return Ok(None);
    }
    Ok(FormatTable::open_path(&table_location(table)).unwrap_or(None))
}

/// `paimon read` of a format table: `--select`, `--filter` (partitions pruned by its
/// conjuncts over partition columns), `--limit` and the output options.
pub fn read(a: &ReadArgs, t: &FormatTable) -> Result<()> {
    let s = &a.scan;
    let versioned = s.snapshot.is_some()
        || s.tag.is_some()
        || s.timestamp_ms.is_some()
        || s.incremental.is_some()
        || s.changes_since.is_some()
        || s.branch.is_some()
        || s.with_kind
        || a.consumer_id.is_some();
    if versioned {
        bail!(
            "{} is a format table (type = format-table): it has no snapshots, tags, branches, \
             changes or row kinds to read",
            t.path()
        );
    }
    let filter = s
        .filter
        .as_deref()
        .map(|f| parse_filter(f, t.schema()))
        .transpose()?;
    let select: Option<Vec<String>> = s.select.as_ref().map(|text| {
        text.split(',')
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty())
            .collect()
    });
    let fields = output_fields(t.schema(), select.as_deref())?;
    let batches = t
        .read(filter.as_ref(), select.as_deref(), a.output.limit)
        .map_err(|e| anyhow!("read {}: {}", t.path(), e.chain()))?;
    if a.output.format == Format::Null {
        println!("{}", batches.iter().map(|b| b.num_rows()).sum::<usize>());
        return Ok(());
    }
    let schema = match batches.first() {
        Some(b) => b.schema(),
        None => std::sync::Arc::new(paimon_rs::data::arrow_schema::to_arrow_schema(&fields)),
    };
    write_output(&a.output, &schema, &batches, &fields)
}

/// `paimon write` of a format table: the rows of `--from` appended as new files, or with
/// `--overwrite` replacing the partition of `--partition` (else the partitions written).
pub fn write(a: &WriteArgs, t: &FormatTable) -> Result<()> {
    if a.prepare_only || a.context.is_some() || a.row_kind_column.is_some() {
        bail!(
            "{} is a format table (type = format-table): it is written in one step, with no \
             commit messages, write context or row kinds",
            t.path()
        );
    }
    let format = match a.input_format {
        Some(f) => f,
        None => InputFormat::of_path(&a.from)?,
    };
    let chain = |e: paimon_rs::Error| anyhow!("write {}: {}", t.path(), e.chain());
    let mut w = t.write().map_err(chain)?;
    if a.overwrite {
        let partition = a.partition.as_deref().map(partition_pairs).transpose()?;
        w = w.with_overwrite(partition).map_err(chain)?;
    }
    let input = w.input_schema().clone();
    let result = read_input(&a.from, format, &input, None, &mut |batch| {
        w.write(&batch).map_err(chain)
    });
    let rows = match result {
        Ok(r) => r,
        Err(e) => {
            w.abort();
            return Err(e);
        }
    };
    let report = w.commit().map_err(chain)?;
    crate::outln!(
        "wrote {rows} rows into {} files of format table {}{}",
        report.files.len(),
        t.path(),
        if a.overwrite {
            format!(", replacing {} files", report.deleted.len())
        } else {
            String::new()
        }
    );
    Ok(())
}
