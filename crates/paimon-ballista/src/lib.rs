//! # paimon-ballista
