//! Output files written whole or not at all: a temporary file in the
//! target's own directory, renamed onto the target once it is complete. A
//! run that fails, is refused or is interrupted leaves the old file as it
//! was, and no half-written one beside it.
//!
//! Only a regular file with one name (or a name that does not exist yet)
//! is replaced so; a symlink is followed to the file it names, whose mode
//! the new file keeps. A device, a FIFO, a file with several hard links or
//! a dangling link is written in place, as `>` would.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use crate::error::{Error, ErrorKind};

/// An output being written.
#[derive(Debug)]
pub struct Output {
    /// The file to write to.
    pub file: File,
    /// What gives a temporary file its name.
    pub commit: Commit,
}

/// A temporary file and the name it takes when it is complete.
#[derive(Debug)]
struct Pending {
    temp: PathBuf,
    target: PathBuf,
}

impl Output {
    /// Splits off the file from what gives it its name.
    pub fn split(self) -> (File, Commit) {
        (self.file, self.commit)
    }
}

/// What renames an [`Output`]'s temporary file onto its target; dropped
/// uncommitted, it removes it. Nothing to do for a file written in place.
#[derive(Debug)]
pub struct Commit {
    pending: Option<Pending>,
}

impl Commit {
    /// Gives the temporary file its name.
    ///
    /// # Errors
    ///
    /// When the rename fails.
    pub fn commit(mut self) -> io::Result<()> {
        self.pending.take().map_or(Ok(()), rename)
    }
}

impl Drop for Commit {
    fn drop(&mut self) {
        if let Some(p) = self.pending.take() {
            let _ = std::fs::remove_file(&p.temp);
            forget(&p.temp);
        }
    }
}

/// Renames a finished temporary file onto its target.
fn rename(p: Pending) -> io::Result<()> {
    let renamed = std::fs::rename(&p.temp, &p.target);
    if renamed.is_err() {
        let _ = std::fs::remove_file(&p.temp);
    }
    forget(&p.temp);
    renamed
}

/// Opens `path` for writing the way the module says: a temporary file
/// beside the file it names, or the path itself.
///
/// # Errors
///
/// When the file cannot be created; the message names it, or the directory
/// a temporary file could not be made in.
pub fn create(path: &Path) -> Result<Output, Error> {
    let cannot = |e: io::Error| Error::output(path, format!("cannot create {}", path.display()), e);
    let in_place = || -> Result<Output, Error> {
        let file = File::create(path).map_err(cannot)?;
        Ok(Output {
            file,
            commit: Commit { pending: None },
        })
    };
    let (target, mode) = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => (path.to_owned(), None),
        Err(_) => return in_place(),
        Ok(meta) => {
            let target = if meta.file_type().is_symlink() {
                match std::fs::canonicalize(path) {
                    Ok(target) => target,
                    Err(_) => return in_place(),
                }
            } else {
                path.to_owned()
            };
            match std::fs::metadata(&target) {
                Ok(m) if m.is_file() && m.nlink() == 1 => (target, Some(m.permissions().mode())),
                _ => return in_place(),
            }
        }
    };
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
        _ => PathBuf::from("."),
    };
    // Created 0666 less the umask, as `>` creates a file; an existing
    // file's mode is kept.
    let temp = tempfile::Builder::new()
        .prefix(".pgnkit-")
        .suffix(".part")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(&dir)
        .map_err(|e| {
            let message = format!(
                "cannot create {}: no temporary file can be made in {} to write it to",
                path.display(),
                dir.display()
            );
            Error::output(path, message, e)
        })?;
    let (file, temp) = temp.keep().map_err(|e| cannot(e.error))?;
    if let Some(mode) = mode {
        let _ = file.set_permissions(std::fs::Permissions::from_mode(mode & 0o7777));
    }
    remember(&temp);
    Ok(Output {
        file,
        commit: Commit {
            pending: Some(Pending { temp, target }),
        },
    })
}

/// Writes `bytes` to `path` whole ([`create`]).
///
/// # Errors
///
/// When the file cannot be written.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let (mut file, commit) = create(path)?.split();
    let failed = |e| Error::adopt(ErrorKind::Output, e).with_path(path);
    file.write_all(bytes).map_err(failed)?;
    file.flush().map_err(failed)?;
    drop(file);
    commit.commit().map_err(failed)?;
    Ok(())
}

/// The temporary files of this process, removed on SIGINT or SIGTERM.
static TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Notes a temporary file, and makes sure a signal removes it.
fn remember(temp: &Path) {
    static WATCH: Once = Once::new();
    WATCH.call_once(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let mut ok = true;
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            ok &= signal_hook::flag::register(signal, Arc::clone(&flag)).is_ok();
        }
        if ok {
            std::thread::spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_millis(25));
                    if flag.load(Ordering::Relaxed) {
                        interrupted();
                    }
                }
            });
        }
    });
    TEMPS.lock().expect("not poisoned").push(temp.to_owned());
}

/// A signal came: the temporary files go, and so does the process.
fn interrupted() -> ! {
    if let Ok(temps) = TEMPS.lock() {
        for temp in temps.iter() {
            let _ = std::fs::remove_file(temp);
        }
    }
    crate::output::diag::error("interrupted: no output was written");
    #[allow(clippy::exit)]
    std::process::exit(2)
}

fn forget(temp: &Path) {
    if let Ok(mut temps) = TEMPS.lock() {
        temps.retain(|t| t != temp);
    }
}
