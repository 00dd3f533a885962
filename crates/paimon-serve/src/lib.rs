//! `paimon serve`: one process that serves the tables of any catalog paimon-rs opens to the
//! clients people already use: Paimon's REST catalog protocol (Java's `RESTCatalog`, pypaimon)
//! and Arrow Flight SQL (ADBC, JDBC), with splits as the unit of work.
//!
//! Like the other engines (paimon-datafusion, paimon-ballista) this crate sits on the facade and
//! may use both planes. [`auth`] holds who may do what (`--auth FILE`), shared by both protocols;
//! [`policy`] the row filters and column masks per user and table (`--policies FILE`);
//! [`rest`] is the REST catalog server, [`flight`] serves Arrow Flight SQL; [`tls`] puts either
//! behind TLS.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod auth;
pub mod flight;
#[doc(hidden)]
pub mod fuzzing;
pub mod policy;
pub mod rest;
pub mod tls;
