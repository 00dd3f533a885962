//! paimon-datafusion `ScanNode::decode` and `ScanSpec::decode_with_path` (the scan node and
//! table provider as paimon-ballista ships them between processes) on arbitrary bytes: no
//! panic; a node without a predicate re-encodes (no schema file needed then) and decodes to
//! an equal node; a decoded spec re-encodes and decodes to the same path and spec.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_datafusion::{ScanNode, ScanSpec};

fuzz_target!(|data: &[u8]| {
    if let Ok(node) = ScanNode::decode(data) {
        if node.predicate.is_none() {
            let bytes = node.encode().expect("a node without a predicate encodes");
            assert_eq!(ScanNode::decode(&bytes).expect("re-decodes"), node);
        }
    }
    if let Ok((path, spec)) = ScanSpec::decode_with_path(data) {
        let bytes = spec.encode_with_path(&path);
        assert_eq!(
            ScanSpec::decode_with_path(&bytes).expect("re-decodes"),
            (path, spec)
        );
    }
});
