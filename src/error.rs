//! [`Error`], the one error the library's edge returns: every
//! `cmd::*::run` (and `cmd::merge::merge`) gives it, and `main` maps it to
//! exit status 2 and prints it once.
//!
//! It says what kind of failure it is ([`ErrorKind`]: a refused usage, an
//! unreadable input, a failed write, a bug), which file it concerns
//! ([`Error::path`]), and keeps the error that caused it as its
//! [`source`](std::error::Error::source), so that a caller (the Python
//! binding, a test, `main` looking for a broken pipe) can branch on it
//! without reading the message. What goes wrong deeper down (`rules`,
//! `input`) has its own typed errors; findings are data, never errors.
//!
//! `{}` shows the error's own message; `{:#}` adds its causes, each after
//! `": "`, as anyhow does: that is the line `main` prints.

use std::error::Error as StdError;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// What kind of failure an [`Error`] is, for callers that branch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The arguments were refused: a bad value or a combination of options
    /// that cannot work. No output was written.
    Usage,
    /// An input could not be opened or read.
    Input,
    /// An output (a file, or standard output) could not be written.
    Output,
    /// Anything else: a failure the run could not go on from, or a bug.
    Internal,
}

/// The source of an [`Error`], kept whole.
type Source = Box<dyn StdError + Send + Sync + 'static>;

/// Why a run stopped: its [`kind`](Error::kind), the [`path`](Error::path)
/// it concerns and its cause.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    path: Option<PathBuf>,
    /// The message of this error; `None` when it is its source's (an error
    /// adopted whole, [`Error::internal`]).
    message: Option<String>,
    source: Option<Source>,
}

/// The path standard input and standard output are given as (`-`).
const STDIO: &str = "-";

impl Error {
    fn new(
        kind: ErrorKind,
        path: Option<&Path>,
        message: Option<String>,
        source: Option<Source>,
    ) -> Error {
        Error {
            kind,
            path: path.map(Path::to_owned),
            message,
            source,
        }
    }

    /// Arguments refused with `message` (`--tags applies to --to csv only`).
    pub fn usage(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Usage, None, Some(message.into()), None)
    }

    /// The input `path` (`-` is standard input) could not be read:
    /// `message`, caused by `source`.
    pub fn input(
        path: impl AsRef<Path>,
        message: impl Into<String>,
        source: impl Into<Source>,
    ) -> Error {
        let (path, message) = (Some(path.as_ref()), Some(message.into()));
        Error::new(ErrorKind::Input, path, message, Some(source.into()))
    }

    /// The input `path` was read and refused for what it holds: `message`
    /// (a shard's statistics that contradict themselves).
    pub fn bad_input(path: impl AsRef<Path>, message: impl Into<String>) -> Error {
        let (path, message) = (Some(path.as_ref()), Some(message.into()));
        Error::new(ErrorKind::Input, path, message, None)
    }

    /// The output `path` (`-` is standard output) could not be written:
    /// `message`, caused by `source`.
    pub fn output(
        path: impl AsRef<Path>,
        message: impl Into<String>,
        source: impl Into<Source>,
    ) -> Error {
        let (path, message) = (Some(path.as_ref()), Some(message.into()));
        Error::new(ErrorKind::Output, path, message, Some(source.into()))
    }

    /// Standard output could not be written: `source` says why, and is
    /// the whole message (`pgnkit: No space left on device (os error 28)`).
    pub fn stdout(source: io::Error) -> Error {
        Error::adopt(ErrorKind::Output, source).with_path(STDIO)
    }

    /// A failure of another kind, `source`, adopted whole: its message is
    /// this error's.
    pub fn internal(source: impl Into<Source>) -> Error {
        Error::adopt(ErrorKind::Internal, source)
    }

    /// `source` adopted whole as an error of `kind`: its message is this
    /// error's (a write to standard output that failed says only why).
    pub fn adopt(kind: ErrorKind, source: impl Into<Source>) -> Error {
        Error::new(kind, None, None, Some(source.into()))
    }

    /// An error composed with anyhow, adopted whole as an error of `kind`
    /// ([`Error::adopt`]); its causes stay reachable as they are.
    pub(crate) fn composed(kind: ErrorKind, err: anyhow::Error) -> Error {
        Error::adopt(kind, Composed(err))
    }

    /// The same error, about `path` (`-` for a standard stream).
    #[must_use]
    pub fn with_path(mut self, path: impl AsRef<Path>) -> Error {
        self.path = Some(path.as_ref().to_owned());
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The file this error concerns: the input or output that failed (`-`
    /// for standard input or output); `None` for usage and internal errors.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Whether a cause of this error is a closed pipe: `pgnkit … | head`
    /// stopped reading, which is no failure.
    pub fn is_broken_pipe(&self) -> bool {
        let is_pipe = |err: &(dyn StdError + 'static)| {
            err.downcast_ref::<io::Error>()
                .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
        };
        // From the source as it is kept: an adopted error is a cause too.
        let mut cause: Option<&(dyn StdError + 'static)> = self.source.as_deref().map(|s| s as _);
        while let Some(err) = cause {
            let composed = err.downcast_ref::<Composed>();
            if is_pipe(err) || composed.is_some_and(|c| c.0.chain().any(is_pipe)) {
                return true;
            }
            cause = err.source();
        }
        false
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut cause: Option<&(dyn StdError + 'static)> = match &self.message {
            Some(message) => {
                f.write_str(message)?;
                self.source.as_deref().map(|s| s as _)
            }
            None => match &self.source {
                Some(source) => {
                    write!(f, "{source}")?;
                    source.source()
                }
                None => return Ok(()),
            },
        };
        if f.alternate() {
            while let Some(err) = cause {
                write!(f, ": {err}")?;
                cause = err.source();
            }
        }
        Ok(())
    }
}

impl StdError for Error {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        let source = self.source.as_deref()?;
        match self.message {
            Some(_) => Some(source),
            // Adopted whole: its message is ours, so the chain goes on
            // from its cause.
            None => source.source(),
        }
    }
}

/// An error composed with anyhow inside a subcommand: an [`Error`] in it is
/// taken as it is, anything else is [`ErrorKind::Internal`].
impl From<anyhow::Error> for Error {
    fn from(err: anyhow::Error) -> Error {
        match err.downcast::<Error>() {
            Ok(err) => err,
            Err(err) => Error::composed(ErrorKind::Internal, err),
        }
    }
}

/// An anyhow error kept as a source. Its conversion into a boxed error
/// hides the error it holds from `downcast_ref`; kept whole, its chain
/// still yields each cause as it is (an `io::Error` of a broken pipe).
struct Composed(anyhow::Error);

impl fmt::Debug for Composed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for Composed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl StdError for Composed {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.0.chain().nth(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn not_found() -> io::Error {
        io::Error::new(io::ErrorKind::NotFound, "no such file")
    }

    #[test]
    fn usage_has_a_message_and_no_file() {
        let err = Error::usage("--tags applies to --to csv only");
        assert_eq!(err.kind(), ErrorKind::Usage);
        assert_eq!(err.path(), None);
        assert!(err.source().is_none());
        assert_eq!(err.to_string(), "--tags applies to --to csv only");
        assert_eq!(format!("{err:#}"), "--tags applies to --to csv only");
    }

    #[test]
    fn input_keeps_its_file_and_source() {
        let err = Error::input("games.pgn", "cannot open games.pgn", not_found());
        assert_eq!(err.kind(), ErrorKind::Input);
        assert_eq!(err.path(), Some(Path::new("games.pgn")));
        let source = err.source().expect("a source");
        assert_eq!(
            source.downcast_ref::<io::Error>().map(io::Error::kind),
            Some(io::ErrorKind::NotFound)
        );
        assert_eq!(err.to_string(), "cannot open games.pgn");
        assert_eq!(format!("{err:#}"), "cannot open games.pgn: no such file");
    }

    #[test]
    fn output_to_stdout_is_dash() {
        let pipe = io::Error::from(io::ErrorKind::BrokenPipe);
        let err = Error::output("-", "failed to write the report", pipe);
        assert_eq!(err.kind(), ErrorKind::Output);
        assert_eq!(err.path(), Some(Path::new("-")));
        assert!(err.is_broken_pipe());
        assert!(!Error::usage("x").is_broken_pipe());
        let full = Error::stdout(io::Error::other("no space left"));
        assert_eq!(full.kind(), ErrorKind::Output);
        assert_eq!(full.path(), Some(Path::new("-")));
        assert_eq!(format!("{full:#}"), "no space left");
        // Adopted whole (`main`'s last flush), the pipe is still seen.
        let pipe = io::Error::from(io::ErrorKind::BrokenPipe);
        assert!(Error::adopt(ErrorKind::Output, pipe).is_broken_pipe());
        let pipe = anyhow::Error::new(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(Error::from(pipe).is_broken_pipe());
    }

    #[test]
    fn the_chain_is_printed_with_hash() {
        let inner = anyhow::Error::new(not_found()).context("cannot create out.csv");
        let err = Error::output("out.csv", "cannot write the statistics", inner);
        assert_eq!(
            format!("{err:#}"),
            "cannot write the statistics: cannot create out.csv: no such file"
        );
        let mut chain = 0;
        let mut cause = err.source();
        while let Some(c) = cause {
            chain += 1;
            cause = c.source();
        }
        assert_eq!(chain, 2);
    }

    #[test]
    fn anyhow_errors_are_internal_unless_typed() {
        let typed: Error = anyhow::Error::new(Error::usage("bad")).into();
        assert_eq!(typed.kind(), ErrorKind::Usage);
        let other: Error = anyhow::Error::new(not_found()).context("stopped").into();
        assert_eq!(other.kind(), ErrorKind::Internal);
        assert_eq!(other.to_string(), "stopped");
        assert_eq!(format!("{other:#}"), "stopped: no such file");
        // Adopted whole, the chain does not repeat the adopted message.
        assert_eq!(
            other.source().map(ToString::to_string),
            Some("no such file".into())
        );
    }
}
