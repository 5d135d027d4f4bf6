//! `validate --bad-games` and `--good-games`: each game's bytes, as the one
//! read of the inputs hands them over, copied to the file its verdict
//! picks, so the two files together hold every game read, once each,
//! whatever the input is (a pipe, a FIFO, standard input).
//!
//! It writes; which paths may be written (not an input, not standard
//! output, not another output of the run) is decided by the caller, which
//! knows the run's other files, before each file is created.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::output::atomic::{self, Commit};

/// Games' bytes one after another, as they were read: a newline parts two
/// games only where the first did not end with one.
#[derive(Debug, Default)]
pub struct GameBytes {
    /// The last byte written.
    last: Option<u8>,
}

impl GameBytes {
    /// Writes one game's bytes to `out`.
    ///
    /// # Errors
    ///
    /// When writing fails.
    pub fn write(&mut self, out: &mut dyn Write, raw: &[u8]) -> std::io::Result<()> {
        let Some(&last) = raw.last() else {
            return Ok(());
        };
        if self.last.is_some_and(|b| b != b'\n') {
            out.write_all(b"\n")?;
        }
        out.write_all(raw)?;
        self.last = Some(last);
        Ok(())
    }
}

/// A file games are copied to.
struct GamesFile {
    path: PathBuf,
    out: BufWriter<File>,
    /// Renames the temporary file written onto `path` at the end.
    commit: Commit,
    bytes: GameBytes,
}

impl GamesFile {
    fn create(path: &Path) -> Result<GamesFile, Error> {
        let (file, commit) = atomic::create(path)?.split();
        Ok(GamesFile {
            path: path.to_owned(),
            out: BufWriter::with_capacity(1 << 16, file),
            commit,
            bytes: GameBytes::default(),
        })
    }

    /// The error of a failed write.
    fn failed(&self, e: std::io::Error) -> Error {
        let message = format!("failed to write {}", self.path.display());
        Error::output(&self.path, message, e)
    }

    /// Writes one game's bytes, after a newline if the game before did not
    /// end with one.
    fn write_game(&mut self, raw: &[u8]) -> Result<(), Error> {
        let GamesFile { out, bytes, .. } = self;
        let written = bytes.write(out, raw);
        written.map_err(|e| self.failed(e))
    }

    /// Flushes the file and gives it its name.
    fn finish(mut self) -> Result<(), Error> {
        self.out.flush().map_err(|e| self.failed(e))?;
        let message = format!("cannot rename the finished {}", self.path.display());
        let path = self.path;
        self.commit
            .commit()
            .map_err(|e| Error::output(&path, message, e))
    }
}

/// The files of problem games (`--bad-games`) and good ones
/// (`--good-games`), either or both.
pub struct ProblemGames {
    bad: Option<GamesFile>,
    good: Option<GamesFile>,
}

impl ProblemGames {
    /// Creates the files `bad` and `good` (each written as a temporary
    /// file beside it until [`ProblemGames::finish`]), calling `check` on
    /// each path just before it is created.
    ///
    /// # Errors
    ///
    /// The first error of `check`, or when a file cannot be created.
    pub fn create(
        bad: Option<&Path>,
        good: Option<&Path>,
        mut check: impl FnMut(&Path) -> Result<(), Error>,
    ) -> Result<ProblemGames, Error> {
        let mut create = |path: Option<&Path>| -> Result<Option<GamesFile>, Error> {
            let Some(path) = path else {
                return Ok(None);
            };
            check(path)?;
            GamesFile::create(path).map(Some)
        };
        let bad = create(bad)?;
        let good = create(good)?;
        Ok(ProblemGames { bad, good })
    }

    /// Copies one game's bytes to the file of its verdict.
    ///
    /// # Errors
    ///
    /// When the file cannot be written.
    pub fn game(&mut self, raw: &[u8], bad: bool) -> Result<(), Error> {
        let to = if bad { &mut self.bad } else { &mut self.good };
        match to {
            Some(file) => file.write_game(raw),
            None => Ok(()),
        }
    }

    /// Flushes both files and gives them their names.
    ///
    /// # Errors
    ///
    /// When a file cannot be written or renamed.
    pub fn finish(self) -> Result<(), Error> {
        for file in [self.bad, self.good].into_iter().flatten() {
            file.finish()?;
        }
        Ok(())
    }
}
