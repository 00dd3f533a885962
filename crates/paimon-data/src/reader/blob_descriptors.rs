//! BLOB columns stored as descriptors (table option `blob-descriptor-field`): each value in
//! the data file is a serialized Java `BlobDescriptor` (version, URI, offset, length) naming
//! where the bytes live. A read returns the bytes, as Java's default read does
//! (`BlobRef.toData`), or the descriptors themselves with `blob-as-descriptor`
//! ([`ReadOptions::blob_as_descriptor`], else the table option, default false).
//!
//! A descriptor's URI comes from the data file's bytes, so it is followed only when it lies
//! under the table directory, its `data-file.external-paths`, or a root the reader is given
//! ([`ReadOptions::blob_roots`]); any other URI is [`Error::Spec`] with
//! `paimon_spec::Error::PathNotAllowed` naming it, before anything is read from it.
//!
//! Descriptors written on another machine hold that machine's absolute paths (the paimon-cpp
//! `blob_desc_field` tables name `/home/.../raw_blob/...`). The read option
//! `blob.descriptor-path-rewrite` ([`ReadOptions::blob_descriptor_dirs`]) lists directory
//! names: a URI with a directory of such a name is read from that directory of the table,
//! `<anything>/raw_blob/x.bin` becoming `<table>/raw_blob/x.bin` (the last such directory of
//! the URI counts). The rewritten path is checked like any other.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, BinaryArray, RecordBatch, RecordBatchOptions};
use bytes::Bytes;
use paimon_spec::layout::TableRoots;
use paimon_spec::options::CoreOptions;
use paimon_spec::types::{DataField, TypeKind};

use super::{ReadOptions, SplitContext};
use crate::error::{Error, Result};
use crate::format::{BatchIter, BlobDescriptor};

/// Table option naming the BLOB fields stored as descriptors.
pub const BLOB_DESCRIPTOR_FIELD: &str = "blob-descriptor-field";
/// Table (and Java read) option: return descriptors instead of the bytes they point to.
pub const BLOB_AS_DESCRIPTOR: &str = "blob-as-descriptor";

/// Positions in `read` of the BLOB fields the table stores as descriptors whose bytes the read
/// returns: empty when the read returns the descriptors themselves.
pub(super) fn columns_to_resolve(ctx: &SplitContext, read: &[DataField]) -> Vec<usize> {
    if as_descriptor(&ctx.options, &ctx.table.options) {
        return Vec::new();
    }
    let Some(names) = ctx.table.options.get(BLOB_DESCRIPTOR_FIELD) else {
        return Vec::new();
    };
    let names: Vec<&str> = names.split(',').map(str::trim).collect();
    read.iter()
        .enumerate()
        .filter(|(_, f)| {
            matches!(f.data_type.kind, TypeKind::Blob) && names.contains(&f.name.as_str())
        })
        .map(|(i, _)| i)
        .collect()
}

/// Whether descriptors are returned as they are: the read option when set, else the table's
/// `blob-as-descriptor` (true only when it says `true`, in any case).
fn as_descriptor(
    options: &ReadOptions,
    table: &std::collections::BTreeMap<String, String>,
) -> bool {
    options.blob_as_descriptor.unwrap_or_else(|| {
        table
            .get(BLOB_AS_DESCRIPTOR)
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    })
}

/// `batches` with each descriptor of `columns` replaced by the bytes it points to.
pub(super) fn resolve(
    ctx: Arc<SplitContext>,
    columns: Vec<usize>,
    batches: BatchIter,
) -> BatchIter {
    if columns.is_empty() {
        return batches;
    }
    let external = CoreOptions::try_new(&ctx.table.options)
        .map(|o| o.data_file_external_paths)
        .unwrap_or_default();
    let roots = TableRoots::new(&ctx.table_path)
        .with_external(&[external.as_slice(), ctx.options.blob_roots.as_slice()].concat());
    let resolver = Resolver { ctx, roots };
    Box::new(batches.map(move |b| b.and_then(|b| resolver.batch(b, &columns))))
}

struct Resolver {
    ctx: Arc<SplitContext>,
    roots: TableRoots,
}

impl Resolver {
    fn batch(&self, batch: RecordBatch, columns: &[usize]) -> Result<RecordBatch> {
        let mut cols = batch.columns().to_vec();
        for &i in columns {
            let Some(col) = cols.get(i) else { continue };
            let Some(values) = col.as_binary_opt::<i32>() else {
                return Err(Error::Internal(format!(
                    "blob column {i} is not Binary but {}",
                    col.data_type()
                )));
            };
            let mut out = Vec::with_capacity(values.len());
            for v in values.iter() {
                out.push(v.map(|bytes| self.value(bytes)).transpose()?);
            }
            cols[i] = Arc::new(BinaryArray::from_iter(out.iter().map(|v| v.as_deref())));
        }
        RecordBatch::try_new_with_options(
            batch.schema(),
            cols,
            &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
        )
        .map_err(|e| Error::arrow(&self.ctx.bucket_dir, e))
    }

    /// The bytes `descriptor` points to, once its URI is rewritten and found trusted.
    fn value(&self, descriptor: &[u8]) -> Result<Bytes> {
        let d = BlobDescriptor::parse(&self.ctx.bucket_dir, descriptor)?;
        let uri = rewrite(
            &d.uri,
            &self.ctx.table_path,
            &self.ctx.options.blob_descriptor_dirs,
        );
        self.roots
            .check("blob descriptor uri", &uri)
            .map_err(|e| Error::spec(&self.ctx.bucket_dir, e))?;
        let io = &self.ctx.io;
        match d.length {
            Some(len) => {
                let range = d.offset..d.offset.saturating_add(len);
                let data = io.read_range(&uri, range).map_err(|e| Error::io(&uri, e))?;
                if data.len() as u64 != len {
                    return Err(Error::corrupt(
                        &uri,
                        format!(
                            "blob of {len} bytes at {} is cut short ({} read)",
                            d.offset,
                            data.len()
                        ),
                    ));
                }
                Ok(data)
            }
            None => {
                let all = io.read(&uri).map_err(|e| Error::io(&uri, e))?;
                let start = usize::try_from(d.offset)
                    .ok()
                    .filter(|s| *s <= all.len())
                    .ok_or_else(|| {
                        Error::corrupt(&uri, format!("blob offset {} is past the end", d.offset))
                    })?;
                Ok(all.slice(start..))
            }
        }
    }
}

/// `uri` read from the table's own directory named in `dirs`: the part from the last segment
/// of `uri`'s directories that `dirs` names, joined to `table_path`. `uri` itself when none
/// matches (or `dirs` is empty).
pub(super) fn rewrite(uri: &str, table_path: &str, dirs: &[String]) -> String {
    let segments: Vec<&str> = uri.split('/').collect();
    // The last segment is the file name, never a directory to match.
    let dir_count = segments.len().saturating_sub(1);
    let hit = segments[..dir_count]
        .iter()
        .rposition(|s| !s.is_empty() && dirs.iter().any(|d| d == s));
    match hit {
        Some(i) => format!(
            "{}/{}",
            table_path.trim_end_matches('/'),
            segments[i..].join("/")
        ),
        None => uri.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrite_maps_the_last_named_directory_into_the_table() {
        let dirs = vec!["raw_blob".to_string(), "external_blob".to_string()];
        assert_eq!(
            rewrite("/home/gen/raw_blob/t/raw_blob/b0-row-0.bin", "/w/t/", &dirs),
            "/w/t/raw_blob/b0-row-0.bin"
        );
        assert_eq!(
            rewrite("file:/home/gen/t/external_blob/a/x.blob", "/w/t", &dirs),
            "/w/t/external_blob/a/x.blob"
        );
        // A file named like a directory is not a directory; unnamed directories stay.
        assert_eq!(rewrite("/home/raw_blob", "/w/t", &dirs), "/home/raw_blob");
        assert_eq!(rewrite("/home/other/x", "/w/t", &dirs), "/home/other/x");
        assert_eq!(rewrite("/home/raw_blob/x", "/w/t", &[]), "/home/raw_blob/x");
    }
}
