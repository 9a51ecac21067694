//! The registry file (TOML): any text, resolved against a folder holding the example index.
//! Loading never panics; a loaded registry refuses or serves each version, and no refusal
//! reason names a file-system path.
#![no_main]

use libfuzzer_sys::fuzz_target;
use okf_server::Registry;
use std::path::PathBuf;
use std::sync::LazyLock;

static DIR: LazyLock<PathBuf> = LazyLock::new(|| {
    let dir = std::env::temp_dir().join(format!("okf-fuzz-registry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(
        dir.join("index.json"),
        include_str!("../../crates/okf/example/index.json"),
    )
    .expect("write index");
    dir
});

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(registry) = Registry::from_toml(text, &DIR.join("registry.toml")) {
        for (_, _, reason) in registry.refusals() {
            assert!(!reason.contains(DIR.to_string_lossy().as_ref()), "{reason}");
            assert!(!reason.contains("os error"), "{reason}");
        }
    }
});
