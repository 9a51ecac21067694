//! A small, valid PDF written at test time (no PDF library): one Helvetica text line per
//! string, each page its own content stream, and a cross-reference table with the exact byte
//! offset of every object, so poppler's `pdftotext` reads it without a repair warning.

/// The PDF bytes of `pages`, each a list of lines (ASCII; `(`, `)` and `\` are escaped).
pub fn small_pdf(pages: &[&[&str]]) -> Vec<u8> {
    let n = pages.len();
    // 1: catalog, 2: page tree, 3: font, then each page's page object and content stream.
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_owned(),
    ];
    for (i, lines) in pages.iter().enumerate() {
        let shown: Vec<String> = lines
            .iter()
            .map(|l| {
                let escaped = l
                    .replace('\\', "\\\\")
                    .replace('(', "\\(")
                    .replace(')', "\\)");
                format!("({escaped}) Tj T*")
            })
            .collect();
        let stream = format!("BT /F1 11 Tf 16 TL 72 740 Td {} ET", shown.join(" "));
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
            5 + 2 * i
        ));
        objects.push(format!(
            "<< /Length {} >>\nstream\n{stream}\nendstream",
            stream.len()
        ));
    }
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// Fails the test, saying what to install, when poppler's `pdftotext` cannot be run: the PDF
/// capture tests need it and are never skipped.
pub fn require_pdftotext() {
    let found = std::process::Command::new("pdftotext")
        .arg("-v")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stderr).contains("pdftotext version"));
    assert!(
        found,
        "pdftotext is not installed: the PDF capture tests need Debian's poppler-utils \
         (apt-get install poppler-utils; scripts/test installs it when run as root, README Install)"
    );
}
