//! `okf build`: reads a profile folder and its captured page files and writes the compiled
//! index (see `okf_authoring`). Only file handling lives here.

use crate::{CliError, read};
use clap::Args;
use okf_authoring::{CaptureFile, ProfileFile, ReviewFile};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub(crate) struct BuildArgs {
    /// Profile folder: profile.toml and further *.toml files.
    profile: PathBuf,
    /// Folder of captured page files (*.json, searched recursively); default PROFILE/sources.
    #[arg(long)]
    sources: Option<PathBuf>,
    /// Published index file to compose the profile onto; its SHA-256 must be the one the
    /// profile's [compose] section pins. The base's items are kept as they are.
    #[arg(long)]
    base: Option<PathBuf>,
    /// Folder of review decisions (okf-review-decision.v1, *.json, applied in file-name
    /// order); default PROFILE/reviews when it exists.
    #[arg(long)]
    reviews: Option<PathBuf>,
    /// Index file to write.
    #[arg(long)]
    out: PathBuf,
    /// Write nothing; exit 1 unless --out already holds exactly these bytes.
    #[arg(long)]
    check: bool,
    /// Write the index even when `okf lint` finds errors in it (they are printed either way).
    #[arg(long)]
    allow_lint: bool,
    /// An earlier build of this profile: list the records whose text changed, appeared or
    /// disappeared since, so a republished page that changes evidence is seen.
    #[arg(long)]
    previous: Option<PathBuf>,
}

fn list(dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    let entries = std::fs::read_dir(dir).map_err(|source| CliError::Read {
        path: dir.to_owned(),
        source,
    })?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| CliError::Read {
            path: dir.to_owned(),
            source,
        })?;
        out.push(entry.path());
    }
    out.sort();
    Ok(out)
}

pub(crate) fn captures(dir: &Path, out: &mut Vec<CaptureFile>) -> Result<(), CliError> {
    for path in list(dir)? {
        if path.is_dir() {
            captures(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(CaptureFile {
                name: path.display().to_string(),
                bytes: read(&path)?,
            });
        }
    }
    Ok(())
}

fn profile_files(dir: &Path) -> Result<Vec<ProfileFile>, CliError> {
    let mut out = Vec::new();
    for path in list(dir)? {
        if path.is_file() && path.extension().is_some_and(|e| e == "toml") {
            let bytes = read(&path)?;
            let text = String::from_utf8(bytes).map_err(|_| {
                CliError::Failed(format!(
                    "{}:1: a profile file must be UTF-8",
                    path.display()
                ))
            })?;
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.push(ProfileFile { name, text });
        }
    }
    Ok(out)
}

/// The decision files of `dir` (`*.json`, top level only), named `reviews/<file name>` (the
/// CLI prefixes errors with the profile folder) or by their path when `dir` is not the
/// profile's own folder.
pub(crate) fn review_files(dir: &Path, own: bool) -> Result<Vec<ReviewFile>, CliError> {
    let mut out = Vec::new();
    for path in list(dir)? {
        if path.is_file() && path.extension().is_some_and(|e| e == "json") {
            let name = match (own, path.file_name()) {
                (true, Some(file)) => format!("reviews/{}", file.to_string_lossy()),
                _ => path.display().to_string(),
            };
            out.push(ReviewFile {
                name,
                bytes: read(&path)?,
            });
        }
    }
    Ok(out)
}

pub(crate) fn run(args: &BuildArgs) -> Result<(), CliError> {
    let profile = profile_files(&args.profile)?;
    let sources = args
        .sources
        .clone()
        .unwrap_or_else(|| args.profile.join("sources"));
    let mut capture_files = Vec::new();
    captures(&sources, &mut capture_files)?;
    let base = args.base.as_deref().map(read).transpose()?;
    let reviews = match &args.reviews {
        Some(dir) => review_files(dir, false)?,
        None if args.profile.join("reviews").is_dir() => {
            review_files(&args.profile.join("reviews"), true)?
        }
        None => Vec::new(),
    };
    let built = okf_authoring::build_reviewed(&profile, &capture_files, base.as_deref(), &reviews)
        .map_err(|mut e| {
            let own_review = args.reviews.is_none() && e.file.starts_with("reviews/");
            if own_review || !e.file.contains(std::path::MAIN_SEPARATOR) {
                e.file = args.profile.join(&e.file).display().to_string();
            }
            CliError::Authoring(e)
        })?;
    let index = okf_engine::ContextIndex::from_json_slice(built.json.as_bytes())?;
    let pages = okf_authoring::captured_pages(&capture_files)?
        .into_iter()
        .map(|(label, text)| okf_eval::CapturedPage { label, text })
        .collect::<Vec<_>>();
    let lint = okf_eval::lint_with_captures(&index, &pages);
    if lint.has_errors() {
        crate::print(&okf_eval::report::lint_table(&lint))?;
        if !args.allow_lint && !args.check {
            return Err(CliError::Failed(format!(
                "lint found {} error(s); nothing was written (fix them, or pass --allow-lint)",
                lint.count(okf_eval::Severity::Error)
            )));
        }
    }
    for s in &built.stale_reviews {
        let file = if args.reviews.is_some() {
            s.file.clone()
        } else {
            args.profile.join(&s.file).display().to_string()
        };
        eprintln!(
            "warning: {file}: stale review decision not applied: {} changed since it was reviewed (the decision states item_sha256 {}; the item as built is {})",
            s.item, s.declared, s.actual
        );
    }
    if args.check {
        let current = std::fs::read(&args.out).unwrap_or_default();
        if current != built.json.as_bytes() {
            return Err(CliError::Failed(format!(
                "{} is not what the profile builds",
                args.out.display()
            )));
        }
        println!("{} is up to date", args.out.display());
        return Ok(());
    }
    // Write beside the target and rename, so a failure never leaves a partial index.
    crate::staged::write_file(&args.out, built.json.as_bytes())?;
    let parts = built
        .index
        .parts
        .as_ref()
        .map_or(String::new(), |p| format!(" in {} parts", p.len()));
    let reviews = built
        .index
        .reviews
        .as_ref()
        .map_or(String::new(), |r| format!(", {} reviews", r.len()));
    println!(
        "{}: {} records, {} assertions, {} requirements{parts}{reviews}",
        args.out.display(),
        built.index.records.len(),
        built.index.assertions.len(),
        built.index.requirements.len()
    );
    let warnings = lint.count(okf_eval::Severity::Warning);
    if warnings > 0 {
        println!(
            "  lint: {warnings} warning(s); read them with okf lint --index {} --sources {}",
            args.out.display(),
            sources.display()
        );
    }
    if let Some(previous) = &args.previous {
        let before = okf_engine::ContextIndex::from_json_slice(&read(previous)?)?;
        print_changes(previous, before.document(), index.document());
    }
    for g in &built.resolved_gaps {
        println!(
            "  gap {} is held by the base: resolved to {}",
            g.gap,
            g.records.join(", ")
        );
    }
    Ok(())
}

/// The records whose text changed, appeared or disappeared between two builds, by id (in id
/// order), printed under one heading each.
fn print_changes(
    previous: &Path,
    before: &okf_engine::model::IndexDocument,
    after: &okf_engine::model::IndexDocument,
) {
    let texts =
        |doc: &okf_engine::model::IndexDocument| -> std::collections::BTreeMap<String, String> {
            doc.records
                .iter()
                .map(|r| (r.id.clone(), r.text.clone()))
                .collect()
        };
    let (old, new) = (texts(before), texts(after));
    let changed: Vec<&String> = new
        .iter()
        .filter(|(id, text)| old.get(*id).is_some_and(|t| t != *text))
        .map(|(id, _)| id)
        .collect();
    let appeared: Vec<&String> = new.keys().filter(|id| !old.contains_key(*id)).collect();
    let gone: Vec<&String> = old.keys().filter(|id| !new.contains_key(*id)).collect();
    println!(
        "  since {}: {} record(s) changed text, {} appeared, {} disappeared",
        previous.display(),
        changed.len(),
        appeared.len(),
        gone.len()
    );
    for (what, ids) in [
        ("changed", changed),
        ("appeared", appeared),
        ("disappeared", gone),
    ] {
        for id in ids {
            println!("    {what}: {id}");
        }
    }
}
