//! A catalog's own record of a table's partitions (Java `PartitionModification`): the Hive
//! catalog registers a table under `metastore.partitioned-table` as partitioned in the
//! metastore and attaches one to the tables it opens; commits then add the partitions they
//! write to ([`crate::commit::TableCommit`], Java `AddPartitionCommitCallback`) and dropping
//! partitions (partition expiry included) removes them there first.

use std::fmt::Debug;

use crate::error::Result;

/// A partition as a catalog names it: `(key, value text)` pairs in partition-key order
/// ([`paimon_spec::layout::partition_spec_text`]).
pub type PartitionValues = Vec<(String, String)>;

/// Keeps a catalog's partitions of one table in step with its commits.
pub trait PartitionModification: Debug + Send + Sync {
    /// Adds `partitions` to the catalog, skipping those it has.
    ///
    /// # Errors
    /// The catalog's, naming it.
    fn create_partitions(&self, partitions: &[PartitionValues]) -> Result<()>;

    /// Removes `partitions` from the catalog (not the table's files), skipping those it
    /// does not have.
    ///
    /// # Errors
    /// The catalog's, naming it.
    fn drop_partitions(&self, partitions: &[PartitionValues]) -> Result<()>;
}
