//! Integration tests of paimon-ballista: the codecs on plans over fixture tables, and a
//! scheduler with executors as separate processes.

mod cluster;
mod codec;
