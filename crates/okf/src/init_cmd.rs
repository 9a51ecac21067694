//! `okf init`: writes a first authoring profile for a folder of captures (see
//! `okf_authoring::scaffold`). Only file handling lives here.

use crate::CliError;
use clap::Args;
use okf_authoring::ScaffoldOptions;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct InitArgs {
    /// Profile folder to create (it must not exist yet, or be empty).
    dir: PathBuf,
    /// Folder of captured page files (`*.json`, searched recursively).
    #[arg(long)]
    sources: PathBuf,
    /// Base of every id the profile writes, ending in `/` (default: an example.invalid base
    /// named after the folder, to replace before publishing).
    #[arg(long)]
    base: Option<String>,
    /// When the captures were made, YYYY-MM-DD (written on each `[[document]]`).
    #[arg(long)]
    captured_on: String,
}

pub(crate) fn run(args: &InitArgs) -> Result<(), CliError> {
    if okf_engine::AsOf::parse(&args.captured_on).is_err() {
        return Err(CliError::Failed(
            "--captured-on: must be a calendar date YYYY-MM-DD".into(),
        ));
    }
    let occupied = std::fs::read_dir(&args.dir).is_ok_and(|mut d| d.next().is_some());
    if occupied {
        return Err(CliError::Failed(format!(
            "{}: the folder is not empty; okf init writes a new profile only",
            args.dir.display()
        )));
    }
    let name = args
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "profile".into());
    let slug: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let options = ScaffoldOptions {
        base: args
            .base
            .clone()
            .unwrap_or_else(|| format!("https://example.invalid/{slug}/")),
        snapshot: format!("{slug}-{}", args.captured_on),
        captured_at: format!("{}T00:00:00Z", args.captured_on),
    };
    if !options.base.ends_with('/') {
        return Err(CliError::Failed("--base: must end with /".into()));
    }
    let mut captures = Vec::new();
    crate::build_cmd::captures(&args.sources, &mut captures)?;
    let files = okf_authoring::scaffold(&captures, &options)?;
    std::fs::create_dir_all(&args.dir).map_err(|e| crate::staged::write_error(&args.dir, e))?;
    for file in &files {
        crate::staged::write_file(&args.dir.join(&file.name), file.text.as_bytes())?;
    }
    println!(
        "{}: {} written; build with okf build {} --sources {} --out index.json",
        args.dir.display(),
        files
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        args.dir.display(),
        args.sources.display()
    );
    Ok(())
}
