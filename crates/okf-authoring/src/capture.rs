//! Captured page files: `{document_id, source_url, source_sha256, extraction, pages: [{page,
//! url, text, literal_sha256?}]}`. The format is open: other keys are kept out of the index.

use crate::error::{Error, Rule};
use crate::sha256_hex;
use serde::Deserialize;
use std::collections::BTreeMap;

/// One capture file as the caller read it.
#[derive(Debug, Clone)]
pub struct CaptureFile {
    /// Name used in error messages (normally the path).
    pub name: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Capture {
    pub document_id: String,
    pub source_url: String,
    pub source_sha256: String,
    pub pages: Vec<CapturePage>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct CapturePage {
    pub page: u32,
    pub url: String,
    pub text: String,
    pub literal_sha256: Option<String>,
}

impl Capture {
    pub fn page(&self, page: u32) -> Option<&CapturePage> {
        self.pages.iter().find(|p| p.page == page)
    }
}

/// Parses every capture and indexes it by document id. A page that carries its own
/// `literal_sha256` must hash to it, so a corrupted capture never reaches an index.
pub(crate) fn load(files: &[CaptureFile]) -> Result<BTreeMap<String, (String, Capture)>, Error> {
    let mut out: BTreeMap<String, (String, Capture)> = BTreeMap::new();
    for file in files {
        let at = |line: usize, rule: Rule| Error {
            file: file.name.clone(),
            line,
            rule,
        };
        let capture: Capture = serde_json::from_slice(&file.bytes)
            .map_err(|e| at(e.line().max(1), Rule::Capture(e.to_string())))?;
        for p in &capture.pages {
            if let Some(declared) = &p.literal_sha256 {
                let actual = sha256_hex(&p.text);
                if *declared != actual {
                    return Err(at(
                        1,
                        Rule::Capture(format!(
                            "page {} text hashes to {actual}, not its literal_sha256 {declared}",
                            p.page
                        )),
                    ));
                }
            }
        }
        if out.contains_key(&capture.document_id) {
            return Err(at(1, Rule::DuplicateDocument(capture.document_id)));
        }
        out.insert(capture.document_id.clone(), (file.name.clone(), capture));
    }
    Ok(out)
}

/// Every page of every capture, checked as a build checks it, as `("document_id pN", text)`
/// in document-id then page order (for `okf lint --sources`).
pub fn captured_pages(files: &[CaptureFile]) -> Result<Vec<(String, String)>, Error> {
    let mut pages = Vec::new();
    for (id, (_, capture)) in load(files)? {
        let mut own: Vec<&CapturePage> = capture.pages.iter().collect();
        own.sort_by_key(|p| p.page);
        pages.extend(
            own.into_iter()
                .map(|p| (format!("{id} p{}", p.page), p.text.clone())),
        );
    }
    Ok(pages)
}
