//! # paimon-datafusion: Paimon tables in DataFusion

pub mod system;
