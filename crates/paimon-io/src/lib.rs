//! paimon-io
