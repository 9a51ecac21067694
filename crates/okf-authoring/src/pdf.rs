//! `okf capture` of a PDF: one capture page per PDF page, as the DWP captures were made. The
//! text is what Debian's poppler `pdftotext -layout -enc UTF-8` writes for the file: pages
//! separated by form feeds, the trailing form feed dropped. This module is pure: the caller
//! runs the tool on the bytes it hashed and passes its output and its `-v` line in, so the
//! capture names the exact extractor that made it.

use crate::sha256_hex;
use serde_json::json;

/// The name and version of this page splitter, written into every PDF capture it makes.
pub const PDF_EXTRACTOR: &str = "okf-authoring pdf-pages/1";

/// The extraction command, exactly as the DWP captures name it (`extraction.method`); the
/// caller runs it as `pdftotext -layout -enc UTF-8 - -` on the file's bytes.
pub const PDFTOTEXT_METHOD: &str = "pdftotext -layout -enc UTF-8";

/// The arguments the caller passes to `pdftotext`: the fixed options, then standard input
/// and standard output.
pub const PDFTOTEXT_ARGS: [&str; 5] = ["-layout", "-enc", "UTF-8", "-", "-"];

/// The pages of a `pdftotext` output: the text between form feeds, one-based, the trailing
/// form feed dropped (every page ends with one). Empty pages are kept, so page N is PDF page N.
pub fn pdf_pages(extracted: &str) -> Vec<String> {
    let body = extracted.strip_suffix('\u{c}').unwrap_or(extracted);
    if body.is_empty() {
        return Vec::new();
    }
    body.split('\u{c}').map(str::to_owned).collect()
}

/// A captured page file (`okf build`'s input) for a PDF published at `url`: one page per PDF
/// page of `extracted` (the output of `pdftotext` named by `tool`, its `-v` line, run on
/// `bytes`; `warnings` is what it wrote to standard error, kept as the DWP captures keep it), each page's `url` the file's with `#page=N`, `source_sha256` over the PDF's
/// bytes and `literal_sha256` over each page's text. `None` when no page has any text (a
/// scanned PDF: no OCR is performed).
pub fn capture_pdf(
    bytes: &[u8],
    extracted: &str,
    tool: &str,
    warnings: &str,
    url: &str,
    document_id: &str,
) -> Option<serde_json::Value> {
    let base = url.split('#').next().unwrap_or(url);
    let texts = pdf_pages(extracted);
    if texts.iter().all(|t| t.trim().is_empty()) {
        return None;
    }
    let pages: Vec<serde_json::Value> = texts
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            json!({"page": i + 1, "url": format!("{base}#page={}", i + 1), "literal_sha256": sha256_hex(&text), "text": text})
        })
        .collect();
    Some(json!({
        "document_id": document_id,
        "source_url": base,
        "source_sha256": okf_engine::canonical::sha256_hex(bytes),
        "extraction": {
            "method": PDFTOTEXT_METHOD,
            "tool": tool,
            "extractor": PDF_EXTRACTOR,
            "unit": "a page is one PDF page (one-based, not the printed page label): the text between form feeds, the trailing one dropped",
            "review_status": "unreviewed-machine-extraction",
            "limitations": "Unreviewed machine text extraction. Reading order, footnotes, tables and characters require comparison with the PDF. Empty or sparse text is not proof of a blank page. No OCR or automatic word repair was performed.",
            "ocr_performed": false,
            "warnings": warnings,
        },
        "pages": pages,
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_the_text_between_form_feeds_without_the_trailing_one() {
        assert_eq!(
            pdf_pages("  One\n\x0c\x0cThree\n\x0c"),
            ["  One\n", "", "Three\n"]
        );
        assert!(pdf_pages("").is_empty());
        assert_eq!(pdf_pages("no feed"), ["no feed"]);
    }

    #[test]
    fn a_pdf_is_one_page_per_pdf_page_with_page_urls_and_digests() {
        let bytes = b"%PDF-1.4 not parsed here";
        let capture = capture_pdf(
            bytes,
            "First page\n\x0cSecond page\n\x0c",
            "pdftotext version 22.12.0",
            "",
            "https://council.example/leaflet.pdf#page=9",
            "leaflet",
        )
        .unwrap();
        let pages = capture["pages"].as_array().unwrap();
        assert_eq!(pages.len(), 2);
        assert_eq!(pages[1]["page"], 2);
        assert_eq!(
            pages[1]["url"],
            "https://council.example/leaflet.pdf#page=2"
        );
        assert_eq!(pages[1]["text"], "Second page\n");
        for p in pages {
            assert_eq!(p["literal_sha256"], sha256_hex(p["text"].as_str().unwrap()));
        }
        assert_eq!(capture["source_url"], "https://council.example/leaflet.pdf");
        assert_eq!(
            capture["source_sha256"],
            okf_engine::canonical::sha256_hex(bytes)
        );
        assert_eq!(capture["extraction"]["method"], PDFTOTEXT_METHOD);
        assert_eq!(capture["extraction"]["tool"], "pdftotext version 22.12.0");
        assert_eq!(capture["extraction"]["extractor"], PDF_EXTRACTOR);
    }

    #[test]
    fn a_pdf_without_text_gives_no_capture() {
        assert!(
            capture_pdf(
                b"%PDF",
                "\x0c  \n\x0c",
                "t",
                "",
                "https://x.example/a.pdf",
                "a"
            )
            .is_none()
        );
    }
}
