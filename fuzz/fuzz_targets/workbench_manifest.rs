//! Workbench manifest admission (`okf-evidence-workbench.v1`): any bytes. Admission never
//! panics; an admitted manifest is the same when admitted again, is bound to the digest of its
//! bytes, and every package or part path it admits decodes to a file name inside the
//! manifest's folder.
#![no_main]

use libfuzzer_sys::fuzz_target;
use okf_engine::canonical::{is_hex64, sha256_hex};
use okf_workbench::manifest::{MAX_PARTS, admit, decode_path};

/// A decoded path names a file below the manifest's folder: relative, no empty, `.` or `..`
/// segment, no backslash. A path that does not decode is refused when served, not a breach.
fn stays_inside(url: &str) {
    let Ok(decoded) = decode_path(url) else {
        return;
    };
    assert!(!decoded.starts_with('/'), "{url} -> {decoded}");
    assert!(!decoded.contains('\\'), "{url} -> {decoded}");
    for segment in decoded.split('/') {
        assert!(
            !segment.is_empty() && segment != "." && segment != "..",
            "{url} -> {decoded}"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(manifest) = admit(data) else {
        return;
    };
    assert_eq!(
        admit(data).ok().as_ref(),
        Some(&manifest),
        "admission is deterministic"
    );
    assert_eq!(manifest.snapshot_id, format!("sha256:{}", sha256_hex(data)));
    let mut ids: Vec<&str> = manifest.cases.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), manifest.cases.len(), "case ids are unique");
    for case in &manifest.cases {
        assert!(is_hex64(&case.package.sha256), "{}", case.package.sha256);
        assert!(case.package.parts.len() <= MAX_PARTS);
        if case.package.parts.is_empty() {
            stays_inside(&case.package.url);
        }
        for part in &case.package.parts {
            assert!(is_hex64(&part.sha256), "{}", part.sha256);
            stays_inside(&part.url);
        }
    }
});
