//! Helpers the workspace's test suites share, so each fact about the test environment is
//! written once: where the repository and the test data are ([`paths`]), how the Java 1.4.2
//! oracle is run ([`mod@oracle`]), how Java's own REST catalog server is started on loopback
//! ([`java_rest`]), and rows of the `(id INT, v STRING)` tables the catalog tests write, as
//! maps ([`mod@rows`]), and how a test runs the CLI binary ([`cli`]).
//!
//! A dev-dependency only: no library crate depends on it, and it depends on no paimon crate,
//! so every crate's tests can use it.

pub mod cli;
pub mod java_rest;
pub mod oracle;
pub mod paths;
pub mod rows;

pub use java_rest::JavaRestServer;
pub use oracle::{oracle, oracle_output};
pub use paths::{
    assert_same_tree, copy_dir, cpp_testdata, fixtures, fuzz_inputs, java_compat, repo,
    shared_testdata, tree_files,
};
pub use rows::{batch_row_list, batch_rows, id_v_batch, json_row_list, json_rows, row_list, rows};
