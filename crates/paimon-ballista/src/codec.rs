//! Ballista's extension codecs for Paimon: the logical codec carries a
//! [`PaimonTableProvider`] as its table path and [`ScanSpec`], the physical codec a
//! [`PaimonScanExec`] as its [`ScanNode`] and a [`PaimonSplitReadExec`] as its node without
//! splits (those are its input's rows); every other node goes to Ballista's own codecs.
//!
//! A codec made with a warehouse ([`warehouse_codecs`], what schedulers and executors decode
//! with) refuses, before opening anything, a table or scan node whose table is not strictly
//! below that warehouse or whose branch is not one plain name ([`ScanSpec::check_in_warehouse`],
//! [`ScanNode::check_in_warehouse`]): a plan's bytes come from a client or a scheduler, and
//! opening a table reads its schema files. A codec without one ([`codecs`], the client's)
//! decodes any table.
//!
//! Our bytes start with `0xFF` and a tag. No protobuf message starts with `0xFF` (its first
//! varint would carry wire type 7, which does not exist), so they can never be mistaken for
//! the bytes of Ballista's codecs, and those never for ours.

use std::sync::Arc;

use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::TableReference;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::TableProvider;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Extension, LogicalPlan};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};
use paimon_datafusion::{
    PaimonScanExec, PaimonSplitReadExec, PaimonTableProvider, ScanNode, ScanSpec,
};

/// Prefix of an encoded [`PaimonTableProvider`].
pub const TABLE_TAG: &[u8] = b"\xffpaimon-table:";
/// Prefix of an encoded [`PaimonScanExec`].
pub const SCAN_TAG: &[u8] = b"\xffpaimon-scan:";
/// Prefix of an encoded [`PaimonSplitReadExec`]: its scan's node without splits (they travel
/// in its input, which Ballista's codec encodes).
pub const SPLIT_READ_TAG: &[u8] = b"\xffpaimon-split-read:";

/// [`LogicalExtensionCodec`] for plans over Paimon tables (client to scheduler).
#[derive(Debug, Default)]
pub struct PaimonLogicalCodec {
    inner: BallistaLogicalExtensionCodec,
    /// Tables decoded must lie below it (`None`: any table).
    warehouse: Option<String>,
}

impl PaimonLogicalCodec {
    /// A codec decoding only tables strictly below `warehouse`, spelled as the clients spell
    /// it (the same absolute path or URL): what a scheduler decodes a client's plan with.
    pub fn in_warehouse(warehouse: &str) -> Self {
        PaimonLogicalCodec {
            inner: BallistaLogicalExtensionCodec::default(),
            warehouse: Some(warehouse.to_string()),
        }
    }
}

/// [`PhysicalExtensionCodec`] for plans over Paimon tables (scheduler to executors).
#[derive(Debug, Default)]
pub struct PaimonPhysicalCodec {
    inner: BallistaPhysicalExtensionCodec,
    /// Scan nodes decoded must read a table below it (`None`: any table).
    warehouse: Option<String>,
}

impl PaimonPhysicalCodec {
    /// A codec decoding only scan nodes of tables strictly below `warehouse` (as
    /// [`PaimonLogicalCodec::in_warehouse`]): what schedulers (a client may send a physical
    /// plan) and executors decode with.
    pub fn in_warehouse(warehouse: &str) -> Self {
        PaimonPhysicalCodec {
            inner: BallistaPhysicalExtensionCodec::default(),
            warehouse: Some(warehouse.to_string()),
        }
    }

    /// Decodes a scan node, refused when it reads a table outside the warehouse.
    fn scan_node(&self, body: &[u8]) -> Result<ScanNode> {
        let node = ScanNode::decode(body)?;
        if let Some(w) = &self.warehouse {
            node.check_in_warehouse(w)
                .map_err(|e| outside(w, &node.table_path, e))?;
        }
        Ok(node)
    }
}

/// The refusal of a table at `path` outside `warehouse`.
fn outside(warehouse: &str, path: &str, e: DataFusionError) -> DataFusionError {
    DataFusionError::Plan(format!(
        "a Paimon table outside the warehouse {warehouse} ({path}): {e}"
    ))
}

/// Both codecs, as Ballista's configuration takes them, decoding any table (a client's:
/// it only encodes).
pub fn codecs() -> (
    Arc<dyn LogicalExtensionCodec>,
    Arc<dyn PhysicalExtensionCodec>,
) {
    (
        Arc::new(PaimonLogicalCodec::default()),
        Arc::new(PaimonPhysicalCodec::default()),
    )
}

/// Both codecs decoding only tables strictly below `warehouse`
/// ([`PaimonLogicalCodec::in_warehouse`], [`PaimonPhysicalCodec::in_warehouse`]): what a
/// scheduler and an executor decode the plans they are sent with.
pub fn warehouse_codecs(
    warehouse: &str,
) -> (
    Arc<dyn LogicalExtensionCodec>,
    Arc<dyn PhysicalExtensionCodec>,
) {
    (
        Arc::new(PaimonLogicalCodec::in_warehouse(warehouse)),
        Arc::new(PaimonPhysicalCodec::in_warehouse(warehouse)),
    )
}

impl LogicalExtensionCodec for PaimonLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        let Some(body) = buf.strip_prefix(TABLE_TAG) else {
            return self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx);
        };
        let (path, spec) = ScanSpec::decode_with_path(body)?;
        if let Some(w) = &self.warehouse {
            spec.check_in_warehouse(&path, w)
                .map_err(|e| outside(w, &path, e))?;
        }
        let provider = PaimonTableProvider::open_with(&path, spec)?;
        // The client planned with `schema`; a table altered since then would hand the plan
        // other columns than it names.
        if provider.schema().fields() != schema.fields() {
            return Err(DataFusionError::Plan(format!(
                "table {table_ref} ({path}) changed its schema after the query was planned"
            )));
        }
        Ok(Arc::new(provider))
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        match node.downcast_ref::<PaimonTableProvider>() {
            Some(t) => {
                buf.extend_from_slice(TABLE_TAG);
                buf.extend_from_slice(&t.spec().encode_with_path(t.path()));
                Ok(())
            }
            None => self.inner.try_encode_table_provider(table_ref, node, buf),
        }
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }
}

impl PhysicalExtensionCodec for PaimonPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if let Some(body) = buf.strip_prefix(SPLIT_READ_TAG) {
            let [input] = inputs else {
                return Err(DataFusionError::Internal(format!(
                    "a Paimon split read has one input, the plan gives it {}",
                    inputs.len()
                )));
            };
            let scan = PaimonScanExec::try_new(self.scan_node(body)?)?;
            return Ok(Arc::new(PaimonSplitReadExec::try_new(
                scan,
                Arc::clone(input),
            )?));
        }
        let Some(body) = buf.strip_prefix(SCAN_TAG) else {
            return self.inner.try_decode(buf, inputs, ctx, proto_converter);
        };
        if !inputs.is_empty() {
            return Err(DataFusionError::Internal(format!(
                "a Paimon scan has no inputs, the plan gives it {}",
                inputs.len()
            )));
        }
        Ok(Arc::new(PaimonScanExec::try_new(self.scan_node(body)?)?))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        if let Some(read) = node.downcast_ref::<PaimonSplitReadExec>() {
            buf.extend_from_slice(SPLIT_READ_TAG);
            buf.extend_from_slice(&read.scan().node().encode()?);
            return Ok(());
        }
        match node.downcast_ref::<PaimonScanExec>() {
            Some(scan) => {
                buf.extend_from_slice(SCAN_TAG);
                buf.extend_from_slice(&scan.node().encode()?);
                Ok(())
            }
            None => self.inner.try_encode(node, buf, proto_converter),
        }
    }
}
