//! Output files written whole or not at all: a temporary file in the
//! target's own directory, renamed onto the target once it is complete. A
//! run that fails or is refused leaves the old file as it was.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use anyhow::Context;
use tempfile::TempPath;

/// The directory a temporary file for `path` goes in: its own.
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// A new temporary file beside `path`, and its path, which
/// [`TempPath::persist`] renames onto `path` (dropped, it is removed).
///
/// # Errors
///
/// When no file can be made in that directory; the message names it.
pub fn beside(path: &Path) -> anyhow::Result<(File, TempPath)> {
    let dir = dir_of(path);
    let temp = tempfile::Builder::new()
        .prefix(".pgnkit-")
        .suffix(".part")
        .tempfile_in(dir)
        .with_context(|| {
            format!(
                "cannot create {}: no temporary file can be made in {} to write it to",
                path.display(),
                dir.display()
            )
        })?;
    Ok(temp.into_parts())
}

/// Writes `bytes` to `path` whole: through a temporary file beside it when
/// `path` is a regular file or does not exist, else (a device, a pipe)
/// straight.
///
/// # Errors
///
/// When the file cannot be written.
pub fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let regular = match std::fs::metadata(path) {
        Ok(meta) => meta.is_file(),
        Err(e) => e.kind() == io::ErrorKind::NotFound,
    };
    if !regular {
        return Ok(std::fs::write(path, bytes)?);
    }
    let (mut file, temp) = beside(path)?;
    file.write_all(bytes)?;
    file.flush()?;
    drop(file);
    temp.persist(path)?;
    Ok(())
}
