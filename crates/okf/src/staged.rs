//! Writing outputs so that a failure leaves nothing partial: everything goes to a staging
//! directory (or file) beside the target and is renamed into place only once complete and
//! checked. `okf build`, `okf retain`, `okf corpus build` and `okf workbench build` write
//! through here.

use crate::CliError;
use std::io;
use std::path::{Path, PathBuf};

/// A write failure, naming the path.
pub(crate) fn write_error(path: &Path, source: io::Error) -> CliError {
    CliError::Write(io::Error::new(
        source.kind(),
        format!("{}: {source}", path.display()),
    ))
}

/// Refuses an `out` that exists and is not an empty directory.
pub(crate) fn require_empty(out: &Path) -> Result<(), CliError> {
    if !out.exists() {
        return Ok(());
    }
    let empty = std::fs::read_dir(out)
        .map_err(|e| write_error(out, e))?
        .next()
        .is_none();
    if empty {
        Ok(())
    } else {
        Err(CliError::Failed(format!(
            "{} already exists and is not empty; choose a new directory",
            out.display()
        )))
    }
}

/// The staging path beside `out`: hidden, and named after this process so two runs never
/// share one.
fn staging_path(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    out.with_file_name(format!(".{name}.partial-{}", std::process::id()))
}

/// Writes `files` (paths relative to the directory) into a staging directory beside `out`,
/// runs `check` on it, then moves it to `out` (which must be absent or an empty directory).
/// On any failure the staging directory is removed and `out` is left as it was.
pub(crate) fn write_dir<T>(
    out: &Path,
    files: &[(&str, &[u8])],
    check: impl FnOnce(&Path) -> Result<T, CliError>,
) -> Result<T, CliError> {
    require_empty(out)?;
    let staging = staging_path(out);
    let _ = std::fs::remove_dir_all(&staging);
    let result = (|| {
        std::fs::create_dir_all(&staging).map_err(|e| write_error(&staging, e))?;
        for (relative, bytes) in files {
            let target = staging.join(relative);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|e| write_error(parent, e))?;
            }
            std::fs::write(&target, bytes).map_err(|e| write_error(&target, e))?;
        }
        let checked = check(&staging)?;
        if out.exists() {
            std::fs::remove_dir(out).map_err(|e| write_error(out, e))?;
        }
        std::fs::rename(&staging, out).map_err(|e| write_error(out, e))?;
        Ok(checked)
    })();
    if result.is_err() {
        // Best effort: the staging directory is ours and never the output.
        let _ = std::fs::remove_dir_all(&staging);
    }
    result
}

/// Writes one file through a sibling staging file and a rename.
pub(crate) fn write_file(out: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let staging = staging_path(out);
    let result = std::fs::write(&staging, bytes)
        .and_then(|()| std::fs::rename(&staging, out))
        .map_err(|e| write_error(out, e));
    if result.is_err() {
        let _ = std::fs::remove_file(&staging);
    }
    result
}
