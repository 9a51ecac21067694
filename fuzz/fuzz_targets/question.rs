//! Question text over the example bundle: any UTF-8 string, any length the engine accepts.
#![no_main]

use libfuzzer_sys::fuzz_target;
use okf_engine::{Budget, ContextIndex, assemble};
use std::sync::LazyLock;

static INDEX: LazyLock<ContextIndex> = LazyLock::new(|| {
    ContextIndex::from_json_str(include_str!("../../crates/okf/example/index.json"))
        .expect("example index is valid")
});

fuzz_target!(|data: &[u8]| {
    let Ok(question) = std::str::from_utf8(data) else {
        return;
    };
    let first = assemble(&INDEX, question, &Budget::default(), None);
    if let Ok(package) = &first {
        // Determinism: the same question gives the same bytes.
        let again = assemble(&INDEX, question, &Budget::default(), None).expect("same outcome");
        assert_eq!(package.json, again.json);
    }
});
