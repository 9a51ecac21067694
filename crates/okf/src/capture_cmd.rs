//! `okf capture`: a captured page file for `okf build` from a published HTML publication (see
//! `okf_authoring::capture_html`) or PDF (`okf_authoring::capture_pdf`, text by Debian's
//! poppler `pdftotext`, run here as a subprocess with fixed arguments). Only file and process
//! handling lives here; nothing is fetched.

use crate::{CliError, read};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(Args)]
pub(crate) struct CaptureArgs {
    /// The published file as downloaded: HTML (`.html`, `.htm`) or PDF (`.pdf`, read with
    /// poppler's `pdftotext -layout -enc UTF-8`).
    file: PathBuf,
    /// The URL it was published at (each page's link adds its `#section`, or `#page=N`).
    #[arg(long)]
    url: String,
    /// The document id profiles cite (default: the file's name without its extension).
    #[arg(long)]
    id: Option<String>,
    /// Capture file to write.
    #[arg(long)]
    out: PathBuf,
}

/// The extraction tool for PDFs, found on `PATH`.
const PDFTOTEXT: &str = "pdftotext";

/// What to do when `pdftotext` cannot be run.
const INSTALL_POPPLER: &str =
    "install Debian's poppler-utils (apt-get install poppler-utils), which provides it";

pub(crate) fn run(args: &CaptureArgs) -> Result<(), CliError> {
    let extension = args
        .file
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let pdf = extension == "pdf";
    if !pdf && extension != "html" && extension != "htm" {
        return Err(CliError::Failed(format!(
            "{}: okf capture reads HTML publications (.html, .htm) and PDFs (.pdf)",
            args.file.display()
        )));
    }
    if !args.url.starts_with("https://") {
        return Err(CliError::Failed(
            "--url: must be the https URL the file was published at".into(),
        ));
    }
    let id = args.id.clone().unwrap_or_else(|| {
        args.file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let bytes = read(&args.file)?;
    let (capture, unit) = if pdf {
        (
            capture_pdf(&args.file, &bytes, &args.url, &id)?,
            "one per PDF page",
        )
    } else {
        let capture = okf_authoring::capture_html(&bytes, &args.url, &id).ok_or_else(|| {
            CliError::Failed(format!(
                "{}: no text inside <main>; okf capture reads the main content of an HTML publication",
                args.file.display()
            ))
        })?;
        (capture, "one per section")
    };
    let pages = capture["pages"].as_array().map_or(0, Vec::len);
    let text = serde_json::to_string_pretty(&capture).unwrap_or_default() + "\n";
    crate::staged::write_file(&args.out, text.as_bytes())?;
    println!(
        "{}: document {id}, {pages} page(s) ({unit})",
        args.out.display()
    );
    Ok(())
}

/// The capture of a PDF: `pdftotext` reads exactly the bytes that were hashed (on standard
/// input), so the text and `source_sha256` always describe the same file.
fn capture_pdf(
    file: &Path,
    bytes: &[u8],
    url: &str,
    id: &str,
) -> Result<serde_json::Value, CliError> {
    if !bytes.starts_with(b"%PDF-") {
        return Err(CliError::Failed(format!(
            "{}: not a PDF (it does not start with %PDF-)",
            file.display()
        )));
    }
    let tool = pdftotext_version()?;
    let mut child = Command::new(PDFTOTEXT)
        .args(okf_authoring::PDFTOTEXT_ARGS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| missing(&e))?;
    let mut stdin = child.stdin.take();
    let output = std::thread::scope(|scope| {
        let writer = scope.spawn(move || match stdin.as_mut() {
            Some(pipe) => pipe.write_all(bytes),
            None => Ok(()),
        });
        let output = child.wait_with_output();
        // A tool that stops reading early reports it through its exit status.
        let _ = writer.join();
        output
    })
    .map_err(|e| CliError::Failed(format!("{PDFTOTEXT}: {e}")))?;
    let warnings = String::from_utf8_lossy(&output.stderr)
        .trim_end()
        .to_owned();
    if !output.status.success() {
        return Err(CliError::Failed(format!(
            "{}: {PDFTOTEXT} {} failed ({}): {warnings}",
            file.display(),
            okf_authoring::PDFTOTEXT_ARGS.join(" "),
            output.status
        )));
    }
    let extracted = String::from_utf8(output.stdout).map_err(|_| {
        CliError::Failed(format!(
            "{}: {PDFTOTEXT} -enc UTF-8 wrote text that is not UTF-8",
            file.display()
        ))
    })?;
    okf_authoring::capture_pdf(bytes, &extracted, &tool, &warnings, url, id).ok_or_else(|| {
        CliError::Failed(format!(
            "{}: {PDFTOTEXT} found no text on any page (a scanned PDF? okf capture performs no OCR)",
            file.display()
        ))
    })
}

/// The `pdftotext version …` line of `pdftotext -v`, which the capture records.
fn pdftotext_version() -> Result<String, CliError> {
    let output = Command::new(PDFTOTEXT)
        .arg("-v")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| missing(&e))?;
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    said.lines()
        .map(str::trim)
        .find(|l| l.starts_with("pdftotext version "))
        .map(str::to_owned)
        .ok_or_else(|| {
            CliError::Failed(format!(
                "{PDFTOTEXT} -v did not print its version (\"pdftotext version …\"); okf capture needs poppler's pdftotext: {INSTALL_POPPLER}"
            ))
        })
}

fn missing(e: &std::io::Error) -> CliError {
    if e.kind() == std::io::ErrorKind::NotFound {
        CliError::Failed(format!(
            "okf capture reads a PDF with poppler's {PDFTOTEXT}, which is not installed (not found on PATH): {INSTALL_POPPLER}"
        ))
    } else {
        CliError::Failed(format!("{PDFTOTEXT} could not be run: {e}"))
    }
}
