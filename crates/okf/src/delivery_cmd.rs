//! `okf catalogue`, `okf read`, `okf retain` and `okf verify --parts`: bounded delivery of a
//! stored package through `okf-delivery`, with files on either side.

use crate::{CliError, print, read};
use clap::Args;
use okf_delivery::{
    Context, DEFAULT_DELIVERY_BYTES, PART_BYTES, ReadRequest, RetainedPart, Section,
};
use okf_engine::canonical::sha256_hex;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Name of the parts list `okf retain` writes beside the part files.
pub(crate) const PARTS_LIST: &str = "parts.json";

#[derive(Args)]
pub(crate) struct CatalogueArgs {
    /// Package JSON file (canonical, as `okf ask` prints it).
    package: PathBuf,
    /// First record of the page (counted in records).
    #[arg(long, default_value_t = 0)]
    offset: u64,
    /// Largest response in bytes (8192-65536).
    #[arg(long, default_value_t = DEFAULT_DELIVERY_BYTES)]
    max_bytes: u64,
}

#[derive(Args)]
pub(crate) struct ReadArgs {
    /// Package JSON file (canonical, as `okf ask` prints it).
    package: PathBuf,
    /// record_text, record_metadata, relationships, diagnostics or package.
    #[arg(long)]
    section: String,
    /// Selected record to read (record_text and record_metadata only).
    #[arg(long)]
    record: Option<String>,
    /// Start in UTF-16 code units.
    #[arg(long, default_value_t = 0)]
    offset: u64,
    /// Largest response in bytes (8192-65536).
    #[arg(long, default_value_t = DEFAULT_DELIVERY_BYTES)]
    max_bytes: u64,
    /// The context_id the read must reproduce (default: the package's own).
    #[arg(long)]
    context_id: Option<String>,
}

#[derive(Args)]
pub(crate) struct RetainArgs {
    /// Package JSON file (canonical, as `okf ask` prints it).
    package: PathBuf,
    /// New directory for the part files and parts.json (must not exist or be empty).
    #[arg(long)]
    out: PathBuf,
    /// File-name stem of the parts: STEM-000.json, STEM-001.json, ...
    #[arg(long, default_value = "part")]
    name: String,
}

/// One row of a parts list: where the part is (relative to the list) and what it must hash to.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PartRef {
    /// Path relative to the parts list's folder.
    pub url: String,
    /// SHA-256 of the part file's bytes.
    pub sha256: String,
    /// Byte length of the part file.
    pub bytes: u64,
}

fn failed(message: String) -> CliError {
    CliError::Verification(message)
}

/// A stored package through the stored-package gate (spec §4.5).
fn load(path: &Path) -> Result<Context, CliError> {
    let bytes = read(path)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| failed(format!("{}: the package is not UTF-8", path.display())))?;
    // Tolerate the one trailing newline `okf ask` prints; the package is the line before it.
    let text = text.strip_suffix('\n').map(str::to_owned).unwrap_or(text);
    Context::from_stored(text, None).map_err(|e| failed(format!("{}: {e}", path.display())))
}

fn delivery(e: okf_delivery::DeliveryError) -> CliError {
    CliError::Verification(format!("{}: {e}", e.code()))
}

pub(crate) fn catalogue(args: &CatalogueArgs) -> Result<(), CliError> {
    let context = load(&args.package)?;
    print(&okf_delivery::catalogue(&context, args.offset, args.max_bytes).map_err(delivery)?)
}

pub(crate) fn read_section(args: &ReadArgs) -> Result<(), CliError> {
    let context = load(&args.package)?;
    let request = ReadRequest {
        context_id: args
            .context_id
            .clone()
            .unwrap_or_else(|| context.context_id().to_owned()),
        section: Section::parse(&args.section).map_err(delivery)?,
        record_id: args.record.clone(),
        offset: args.offset,
        max_bytes: args.max_bytes,
    };
    print(&okf_delivery::read(&context, &request).map_err(delivery)?)
}

/// Writes the parts into a fresh staging folder beside `out` and moves it into place, so a
/// failure never leaves a partial set under `out`.
pub(crate) fn write_parts(
    out: &Path,
    name: &str,
    parts: &[RetainedPart],
) -> Result<Vec<PartRef>, CliError> {
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        || name.is_empty()
        || name.starts_with('.')
    {
        return Err(failed(format!(
            "--name {name:?} must be letters, digits, '-', '_' or '.', not starting with '.'"
        )));
    }
    let names: Vec<String> = (0..parts.len())
        .map(|i| format!("{name}-{i:03}.json"))
        .collect();
    let list: Vec<PartRef> = parts
        .iter()
        .zip(&names)
        .map(|(part, file)| PartRef {
            url: file.clone(),
            sha256: part.sha256.clone(),
            bytes: part.bytes,
        })
        .collect();
    let listing = serde_json::to_string_pretty(&list).unwrap_or_default() + "\n";
    let mut files: Vec<(&str, &[u8])> = names
        .iter()
        .zip(parts)
        .map(|(file, part)| (file.as_str(), part.json.as_bytes()))
        .collect();
    files.push((PARTS_LIST, listing.as_bytes()));
    crate::staged::write_dir(out, &files, |_| Ok(()))?;
    Ok(list)
}

pub(crate) fn retain(args: &RetainArgs) -> Result<(), CliError> {
    let context = load(&args.package)?;
    // `retain` proves the parts reconstruct the package before anything is written.
    let parts = okf_delivery::retain(&context).map_err(delivery)?;
    let list = write_parts(&args.out, &args.name, &parts)?;
    let bytes: u64 = list.iter().map(|p| p.bytes).sum();
    println!(
        "{} parts ({bytes} bytes) for {} ({} bytes) in {}",
        list.len(),
        context.context_id(),
        context.text().len(),
        args.out.display()
    );
    Ok(())
}

/// Reads a parts list (a `parts.json` file or a folder holding one) and rebuilds the package,
/// checking every part's path, size and digest before its content, then the reconstruction.
pub(crate) fn reconstruct_from(list_path: &Path) -> Result<Context, CliError> {
    let list_path = if list_path.is_dir() {
        list_path.join(PARTS_LIST)
    } else {
        list_path.to_owned()
    };
    let folder = list_path.parent().unwrap_or(Path::new("."));
    let list: Vec<PartRef> = serde_json::from_slice(&read(&list_path)?)
        .map_err(|e| failed(format!("{}: not a parts list: {e}", list_path.display())))?;
    let mut texts = Vec::with_capacity(list.len());
    for part in &list {
        let name = &part.url;
        // The same part path rule as a workbench manifest (spec §1.2), and the same decoding
        // of `%XX` escapes to the file name, so a parts list reads exactly what a workbench
        // serving it would.
        let file = okf_workbench::manifest::decode_path(name)
            .map_err(|rule| failed(format!("part {name:?}: url {rule}")))?;
        if part.bytes > PART_BYTES {
            return Err(failed(format!(
                "part {name:?}: declares {} bytes, over {PART_BYTES}",
                part.bytes
            )));
        }
        let path = folder.join(file);
        let size = std::fs::metadata(&path)
            .map_err(|e| {
                failed(format!(
                    "part {name:?}: cannot read {}: {e}",
                    path.display()
                ))
            })?
            .len();
        if size > PART_BYTES {
            return Err(failed(format!(
                "part {name:?}: the file is {size} bytes, over {PART_BYTES}"
            )));
        }
        let bytes = read(&path)?;
        let digest = sha256_hex(&bytes);
        if bytes.len() as u64 != part.bytes || digest != part.sha256 {
            return Err(failed(format!(
                "part {name:?}: {} bytes with SHA-256 {digest}, the list declares {} bytes with {}",
                bytes.len(),
                part.bytes,
                part.sha256
            )));
        }
        texts.push(
            String::from_utf8(bytes).map_err(|_| failed(format!("part {name:?}: not UTF-8")))?,
        );
    }
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    okf_delivery::reconstruct(&refs, None).map_err(|e| match e {
        okf_delivery::DeliveryError::Part { index, reason } => failed(format!(
            "part {:?}: {reason}",
            list.get(index).map_or("?", |p| p.url.as_str())
        )),
        other => delivery(other),
    })
}
