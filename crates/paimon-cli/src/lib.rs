//! paimon-cli
