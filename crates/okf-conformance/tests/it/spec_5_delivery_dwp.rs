//! Spec engine.md §5 on real data: the two DWP reference packages and our own replay of the
//! imprisonment question, delivered as catalogue pages, exact reads and retained parts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use okf_delivery::{Context, ReadRequest, Section, catalogue, read, reconstruct, retain};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// A stored reference package (the file ends with one newline, which is not part of it).
fn reference(name: &str) -> Context {
    let text = std::fs::read_to_string(shared().join("dwp/reference").join(name)).unwrap();
    Context::from_stored(text.trim_end_matches('\n').to_owned(), None).unwrap()
}

fn ours() -> Context {
    let bytes = std::fs::read(shared().join("dwp/full-dmg/context/assembly-index.json")).unwrap();
    let index = okf_engine::ContextIndex::from_json_slice(&bytes).unwrap();
    let question = "A claimant is imprisoned. Explain the effect on JSA, IS, State Pension Credit and ESA, distinguishing loss of payment from loss of entitlement, and trace each conclusion to the relevant DMG guidance.";
    let package =
        okf_engine::assemble(&index, question, &okf_engine::Budget::default(), None).unwrap();
    Context::from_stored(package.json, None).unwrap()
}

#[test]
fn reference_and_own_packages_retain_as_parts_that_reconstruct_exactly() {
    for ctx in [
        reference("imprisonment-package.json"),
        reference("hospital-package.json"),
        ours(),
    ] {
        let parts = retain(&ctx).unwrap();
        assert!(parts.len() > 10, "a ~0.5 MB package needs many parts");
        assert!(parts.iter().all(|p| p.bytes <= 32_768));
        let texts: Vec<&str> = parts.iter().map(|p| p.json.as_str()).collect();
        let sha = okf_engine::canonical::sha256_hex(ctx.text().as_bytes());
        let rebuilt = reconstruct(&texts, Some(&sha)).unwrap();
        assert_eq!(rebuilt.text(), ctx.text());
        assert_eq!(rebuilt.context_id(), ctx.context_id());
    }
}

#[test]
fn catalogue_pages_list_every_selected_record_once_in_package_order() {
    let ctx = reference("imprisonment-package.json");
    for max in [8_192, 65_536] {
        let mut ids = Vec::new();
        let mut offset = 0;
        loop {
            let page = catalogue(&ctx, offset, max).unwrap();
            assert!(page.len() as u64 <= max);
            let v: Value = serde_json::from_str(&page).unwrap();
            ids.extend(
                v["records"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["id"].as_str().unwrap().to_owned()),
            );
            match v["delivery"]["next_offset"].as_u64() {
                Some(n) => offset = n,
                None => break,
            }
        }
        let expected: Vec<String> = ctx
            .selected()
            .unwrap()
            .iter()
            .map(|s| s["record"]["id"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(ids.len(), 52);
        assert_eq!(ids, expected);
    }
}

#[test]
fn package_slices_at_8192_and_65536_rebuild_the_reference_package() {
    let ctx = reference("imprisonment-package.json");
    for max in [8_192, 65_536] {
        let mut joined = String::new();
        let mut offset = Some(0);
        while let Some(at) = offset {
            let request = ReadRequest {
                context_id: ctx.context_id().to_owned(),
                section: Section::Package,
                record_id: None,
                offset: at,
                max_bytes: max,
            };
            let text = read(&ctx, &request).unwrap();
            assert!(text.len() as u64 <= max);
            let v: Value = serde_json::from_str(&text).unwrap();
            joined.push_str(v["data"].as_str().unwrap());
            offset = v["next_offset"].as_u64();
        }
        assert_eq!(joined, ctx.text());
    }
}
