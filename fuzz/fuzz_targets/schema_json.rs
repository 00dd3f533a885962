//! `TableSchema::from_json_str` and `DataType::from_json_str` on arbitrary UTF-8; whatever parses
//! must print (`to_json`, `Display`), parse back to an equal value and print the same JSON again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_spec::schema::TableSchema;
use paimon_spec::types::DataType;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };

    if let Ok(schema) = TableSchema::from_json_str(text) {
        let json = schema.to_json();
        let back = TableSchema::from_json(&json)
            .unwrap_or_else(|e| panic!("printed schema does not parse: {e}\n{json}"));
        assert_eq!(schema, back, "schema round trip changed the value\n{json}");
        assert_eq!(json, back.to_json(), "schema printing is not stable");
        let _ = schema.row_type().to_string();
        let _ = schema.partition_fields();
        let _ = schema.trimmed_primary_key_fields();
        let _ = schema.bucket_keys();
    }

    if let Ok(ty) = DataType::from_json_str(text) {
        let json = ty.to_json();
        let back = DataType::from_json(&json)
            .unwrap_or_else(|e| panic!("printed type does not parse: {e}\n{json}"));
        assert_eq!(ty, back, "type round trip changed the value\n{json}");
        assert_eq!(json, back.to_json(), "type printing is not stable");
        let _ = ty.to_string();
        let _ = ty.is_fixed_length();
    }
});
