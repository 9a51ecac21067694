//! `okf capture`: a captured page file for `okf build` from a published HTML publication
//! (see `okf_authoring::capture_html`). Only file handling lives here.

use crate::{CliError, read};
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct CaptureArgs {
    /// The published file as downloaded (HTML: `.html` or `.htm`).
    file: PathBuf,
    /// The URL it was published at (each page's link adds its `#section`).
    #[arg(long)]
    url: String,
    /// The document id profiles cite (default: the file's name without its extension).
    #[arg(long)]
    id: Option<String>,
    /// Capture file to write.
    #[arg(long)]
    out: PathBuf,
}

pub(crate) fn run(args: &CaptureArgs) -> Result<(), CliError> {
    let extension = args
        .file
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if extension != "html" && extension != "htm" {
        return Err(CliError::Failed(format!(
            "{}: okf capture reads HTML publications (.html, .htm); a PDF is captured with pdftotext -layout -enc UTF-8 (docs/authoring.md, \"Captured page files\")",
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
    let capture = okf_authoring::capture_html(&read(&args.file)?, &args.url, &id).ok_or_else(|| {
        CliError::Failed(format!(
            "{}: no text inside <main>; okf capture reads the main content of an HTML publication",
            args.file.display()
        ))
    })?;
    let pages = capture["pages"].as_array().map_or(0, Vec::len);
    let text = serde_json::to_string_pretty(&capture).unwrap_or_default() + "\n";
    crate::staged::write_file(&args.out, text.as_bytes())?;
    println!(
        "{}: document {id}, {pages} page(s) (one per section)",
        args.out.display()
    );
    Ok(())
}
