//! paimon-meta
