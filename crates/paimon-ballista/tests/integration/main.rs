//! Integration tests of paimon-ballista: a scheduler and executors as separate processes.

mod cluster;
