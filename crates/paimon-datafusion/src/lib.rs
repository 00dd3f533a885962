//! # paimon-datafusion: Paimon tables in DataFusion
