//! paimon-split
