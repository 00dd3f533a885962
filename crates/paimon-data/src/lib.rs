//! paimon-data
