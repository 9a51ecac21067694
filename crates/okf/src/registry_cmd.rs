//! `okf registry pin`: writes the SHA-256 of a bundle's index file into its registry entry,
//! so a publisher never copies a digest by hand. Only that one quoted value changes: the rest
//! of the file (comments, order, spacing) is kept byte for byte, and the file is replaced
//! through a staging file and a rename, never written in part.

use crate::{CliError, read};
use clap::{Args, Subcommand};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::Spanned;

#[derive(Subcommand)]
pub(crate) enum RegistryCommand {
    /// Recompute a bundle's sha256 from its index file and write it into the registry.
    Pin(PinArgs),
}

#[derive(Args)]
pub(crate) struct PinArgs {
    /// The registry file (TOML, `okf serve --registry`), edited in place.
    #[arg(long)]
    registry: PathBuf,
    /// The `id` of the `[[bundle]]` to pin.
    #[arg(long)]
    bundle: String,
    /// Pin this `[[bundle.versions]]` entry (by `name`) instead of the bundle's main index.
    #[arg(long)]
    version: Option<String>,
}

/// The parts of a registry the command reads; every other key is left alone (`okf serve`
/// checks the whole file, and so does this command before it writes).
#[derive(Deserialize)]
struct Registry {
    #[serde(default)]
    bundle: Vec<Bundle>,
}

#[derive(Deserialize)]
struct Bundle {
    id: String,
    index: PathBuf,
    sha256: Option<Spanned<String>>,
    #[serde(default)]
    versions: Vec<Version>,
}

#[derive(Deserialize)]
struct Version {
    name: String,
    index: PathBuf,
    sha256: Option<Spanned<String>>,
}

pub(crate) fn run(command: &RegistryCommand) -> Result<(), CliError> {
    match command {
        RegistryCommand::Pin(args) => pin(args),
    }
}

fn pin(args: &PinArgs) -> Result<(), CliError> {
    let path = &args.registry;
    let text = String::from_utf8(read(path)?)
        .map_err(|_| CliError::Input(format!("{}: not UTF-8 text", path.display())))?;
    let (pinned, message) = pinned(&text, path, &args.bundle, args.version.as_deref())?;
    if pinned != text {
        crate::staged::write_file(path, pinned.as_bytes())?;
    }
    println!("{}: {message}", path.display());
    Ok(())
}

/// `text` with the entry's `sha256` set to its index file's digest, and what was done.
fn pinned(
    text: &str,
    path: &Path,
    id: &str,
    version: Option<&str>,
) -> Result<(String, String), CliError> {
    let invalid = |m: String| CliError::Input(format!("{}: {m}", path.display()));
    let registry: Registry = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
    let Some(bundle) = registry.bundle.iter().find(|b| b.id == id) else {
        let ids: Vec<&str> = registry.bundle.iter().map(|b| b.id.as_str()).collect();
        return Err(CliError::Input(format!(
            "--bundle: {} has no [[bundle]] whose id is {id:?} (its ids: {})",
            path.display(),
            if ids.is_empty() {
                "none".into()
            } else {
                ids.join(", ")
            }
        )));
    };
    let (label, index, sha256) = match version {
        None => (format!("bundle {id}"), &bundle.index, &bundle.sha256),
        Some(name) => {
            let Some(v) = bundle.versions.iter().find(|v| v.name == name) else {
                let names: Vec<&str> = bundle.versions.iter().map(|v| v.name.as_str()).collect();
                return Err(CliError::Input(format!(
                    "--version: bundle {id} in {} has no [[bundle.versions]] whose name is {name:?} (its names: {})",
                    path.display(),
                    if names.is_empty() {
                        "none".into()
                    } else {
                        names.join(", ")
                    }
                )));
            };
            (format!("bundle {id} version {name}"), &v.index, &v.sha256)
        }
    };
    let Some(sha256) = sha256 else {
        return Err(invalid(format!(
            "{label} has no sha256 key to pin; add `sha256 = \"\"` to its entry"
        )));
    };
    let file = path.parent().unwrap_or(Path::new(".")).join(index);
    let digest = okf_engine::canonical::sha256_hex(&read(&file)?);
    let span = sha256.span();
    let written = text.get(span.clone()).unwrap_or_default();
    let quoted = written.len() >= 2
        && (written.starts_with('"') && written.ends_with('"')
            || written.starts_with('\'') && written.ends_with('\''));
    if !quoted || written.contains('\n') {
        return Err(invalid(format!(
            "{label}: sha256 must be a one-line quoted string to pin, not {written}"
        )));
    }
    let out = format!("{}\"{digest}\"{}", &text[..span.start], &text[span.end..]);
    // The edit changed one string value; the file must still be a registry `okf serve` reads.
    toml::from_str::<okf_server::registry::RegistryFile>(&out)
        .map_err(|e| invalid(format!("not a valid registry after pinning: {e}")))?;
    let message = if *sha256.get_ref() == digest {
        format!(
            "{label} already pinned: sha256 = {digest} ({})",
            index.display()
        )
    } else {
        format!("{label} pinned: sha256 = {digest} ({})", index.display())
    };
    Ok((out, message))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn with_index(name: &str, bytes: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("okf-pin-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("index.json"), bytes).unwrap();
        std::fs::write(dir.join("old.json"), b"old").unwrap();
        dir.join("registry.toml")
    }

    const REGISTRY: &str = "# Our bundles.\n[[bundle]]\nid = \"a\"   # first\nindex = \"index.json\"\nsha256 = 'x' # set by okf registry pin\nindex_url = \"https://example.org/a.json\"\n\n[[bundle.versions]]\nname = \"old\"\nindex = \"old.json\"\nsha256 = \"\"\n\n[[bundle]]\nid = \"b\"\nindex = \"index.json\"\nsha256 = \"y\"\nindex_url = \"https://example.org/b.json\"\n";

    #[test]
    fn only_the_bundles_sha256_value_changes() {
        let path = with_index("only", b"{}");
        let digest = okf_engine::canonical::sha256_hex(b"{}");
        let (out, message) = pinned(REGISTRY, &path, "a", None).unwrap();
        assert_eq!(
            out,
            REGISTRY.replace("sha256 = 'x'", &format!("sha256 = \"{digest}\""))
        );
        assert!(message.contains("bundle a pinned"), "{message}");
        let (again, message) = pinned(&out, &path, "a", None).unwrap();
        assert_eq!(again, out);
        assert!(message.contains("already pinned"), "{message}");
        let (version, _) = pinned(REGISTRY, &path, "a", Some("old")).unwrap();
        let old = okf_engine::canonical::sha256_hex(b"old");
        assert_eq!(
            version,
            REGISTRY.replacen("sha256 = \"\"", &format!("sha256 = \"{old}\""), 1)
        );
    }

    #[test]
    fn an_unknown_bundle_or_version_is_refused_by_its_field() {
        let path = with_index("unknown", b"{}");
        let e = pinned(REGISTRY, &path, "c", None).unwrap_err().to_string();
        assert!(
            e.starts_with("--bundle:") && e.contains("\"c\"") && e.contains("a, b"),
            "{e}"
        );
        let e = pinned(REGISTRY, &path, "b", Some("old"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("--version:") && e.contains("none"), "{e}");
        let missing = REGISTRY.replace("sha256 = 'x' # set by okf registry pin\n", "");
        let e = pinned(&missing, &path, "a", None).unwrap_err().to_string();
        assert!(e.contains("no sha256 key"), "{e}");
    }
}
