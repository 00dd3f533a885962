//! Integration tests of paimon-io against real storage servers.
//!
//! `s3` runs only when `scripts/test-s3.sh` has started an S3-protocol server and uploaded the
//! fixture tables (it sets `PAIMON_TEST_S3_TABLES`); without that variable it does nothing.
//! `s3_write` writes below scratch prefixes of the same bucket. `hdfs` runs only when
//! `scripts/test-hdfs.sh` has started a one-node HDFS (it sets `PAIMON_TEST_HDFS_URL`).

mod hdfs;
mod s3;
mod s3_write;
