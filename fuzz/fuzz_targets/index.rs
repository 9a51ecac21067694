//! Index validation and assembly: any bytes as an `okf-context-index.v1` file. A valid index
//! must assemble every probe question without panicking, and the package must verify.
#![no_main]

use libfuzzer_sys::fuzz_target;
use okf_engine::{Budget, ContextIndex, assemble, verify_package};

const QUESTIONS: [&str; 3] = [
    "Can a prisoner get Universal Credit?",
    "housing costs",
    "x",
];

fuzz_target!(|data: &[u8]| {
    let Ok(index) = ContextIndex::from_json_slice(data) else {
        return;
    };
    for question in QUESTIONS {
        if let Ok(package) = assemble(&index, question, &Budget::default(), None) {
            let value: serde_json::Value =
                serde_json::from_str(&package.json).expect("package is JSON");
            verify_package(&value).expect("a fresh package verifies");
        }
    }
});
