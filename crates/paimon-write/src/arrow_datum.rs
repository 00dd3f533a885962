//! One Arrow cell as a Paimon [`Datum`](paimon_spec::binary::Datum), for the columns a writer
//! must see row by row: partition values, bucket keys and primary keys. The conversion is
//! paimon-data's, the inverse of its `datum_to_array`.

pub use paimon_data::datum::datum_at;
