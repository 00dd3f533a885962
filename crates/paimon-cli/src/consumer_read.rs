//! `paimon read TABLE --consumer-id ID`: a streaming consumer's read. It continues from the
//! snapshot saved in `consumer/consumer-ID` (Java `ConsumerManager`), writes each snapshot's
//! changes ([`paimon_meta::ChangeScan`]) and saves the next snapshot only after that
//! snapshot's rows are written, so an interrupted read delivers them again rather than losing
//! them. It stops when it has caught up with the latest snapshot.

use std::sync::Arc;

use anyhow::{anyhow, bail, Result};
use paimon_split::Split;

use crate::read_cmd::{
    output_fields, read_all, reader_builder, tune, with_kind_field, write_output, ReadArgs,
};

pub fn read_as_consumer(a: &ReadArgs, id: &str) -> Result<()> {
    if a.output.out.is_some() {
        bail!("--consumer-id writes each snapshot's rows to stdout as it goes; drop --out");
    }
    if a.scan.snapshot.is_some() || a.scan.tag.is_some() || a.scan.incremental.is_some() {
        bail!("--consumer-id reads changes: give no --snapshot, --tag or --incremental");
    }
    let opened = a.scan.open(&a.table)?;
    let consumers = opened.table.consumer_manager();
    let saved = consumers.consumer(id).map_err(|e| anyhow!("{e}"))?;
    let builder = tune(
        reader_builder(Arc::clone(&opened.io), &opened),
        &a.output,
        opened.pool.as_ref(),
    )?;
    let reader = builder.build();
    let fields = with_kind_field(
        output_fields(&opened.schema, opened.select.as_deref())?,
        a.scan.with_kind,
    );
    let after = match (saved, a.scan.changes_since) {
        (Some(next), _) => next - 1,
        (None, Some(since)) => since,
        (None, None) => {
            // A new consumer without a start reads the latest snapshot whole first.
            let plan = opened.scan.plan().map_err(|e| anyhow!("{e}"))?;
            let Some(latest) = plan.snapshot_id else {
                return Ok(());
            };
            let (schema, batches) = read_all(&reader, &opened.path, &plan.wire_splits(), None)?;
            write_output(&a.output, &schema, &batches, &fields)?;
            consumers
                .reset_consumer(id, latest + 1)
                .map_err(|e| anyhow!("{e}"))?;
            latest
        }
    };
    let mut changes = opened.scan.change_scan(after);
    while let Some(p) = changes.next_plan().map_err(|e| anyhow!("{e}"))? {
        if !p.splits.is_empty() {
            let splits: Vec<Split> = p.splits.into_iter().map(Split::Data).collect();
            let (schema, batches) = read_all(&reader, &opened.path, &splits, None)?;
            write_output(&a.output, &schema, &batches, &fields)?;
        }
        consumers
            .reset_consumer(id, p.snapshot_id + 1)
            .map_err(|e| anyhow!("{e}"))?;
    }
    Ok(())
}
