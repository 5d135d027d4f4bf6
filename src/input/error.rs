//! [`InputError`], why an input is refused before (or while) its games or
//! lines are read, and [`ReadError`], an I/O error with what was being done
//! when it happened. Both travel inside an [`io::Error`] (its kind says
//! what sort of failure it is), so that a reader keeps one error type; a
//! caller finds them with [`io::Error::get_ref`] and `downcast_ref`.

use std::error::Error;
use std::fmt;
use std::io;

/// Why an input cannot be read as it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputError {
    /// A directory given as an input held no PGN file to read.
    EmptyDirectory,
    /// The input is UTF-16 (it starts with its byte order mark).
    Utf16,
    /// Line `line` of a line-based input ends with a bare carriage return.
    BareCarriageReturn {
        /// The 1-based line.
        line: u64,
    },
    /// `--byte-range` was given standard input.
    RangeOfStdin,
    /// `--byte-range` was given something other than a regular file.
    RangeOfNonFile,
    /// `--byte-range` was given a compressed file.
    RangeOfCompressed,
}

impl InputError {
    /// The [`io::ErrorKind`] the error travels as.
    pub fn kind(self) -> io::ErrorKind {
        match self {
            InputError::Utf16 | InputError::BareCarriageReturn { .. } => io::ErrorKind::InvalidData,
            _ => io::ErrorKind::InvalidInput,
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::EmptyDirectory => {
                f.write_str("is a directory holding no .pgn, .pgn.zst, .pgn.gz or .pgn.bz2 file")
            }
            InputError::Utf16 => f.write_str(
                "UTF-16 input is not supported, convert it to UTF-8 (iconv -f UTF-16 -t UTF-8)",
            ),
            InputError::BareCarriageReturn { line } => write!(
                f,
                "line {line}: lines end with a bare carriage return (classic Mac OS line \
                 endings), which would run records together; convert them first: \
                 tr '\\r' '\\n'"
            ),
            InputError::RangeOfStdin => {
                f.write_str("--byte-range needs a file, not standard input")
            }
            InputError::RangeOfNonFile => f.write_str("--byte-range needs a regular file"),
            InputError::RangeOfCompressed => f.write_str(
                "the file is compressed, and --byte-range counts bytes of uncompressed PGN: \
                 give each compressed file to one run whole, or decompress it first",
            ),
        }
    }
}

impl Error for InputError {}

impl From<InputError> for io::Error {
    fn from(error: InputError) -> io::Error {
        io::Error::new(error.kind(), error)
    }
}

/// An I/O error, [`source`](Error::source), with what was being done when
/// it happened (`cannot open`, `read failed`): its message is only that,
/// and the cause follows in the chain ([`chain`]).
#[derive(Debug)]
pub struct ReadError {
    /// What was being done.
    pub doing: &'static str,
    /// What went wrong.
    pub source: io::Error,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.doing)
    }
}

impl Error for ReadError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.source)
    }
}

impl From<ReadError> for io::Error {
    fn from(error: ReadError) -> io::Error {
        io::Error::new(error.source.kind(), error)
    }
}

/// `error` and its causes, each after `": "` (as anyhow's `{:#}`): the
/// whole message of an error whose cause is kept apart.
pub fn chain(error: &(dyn Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(err) = cause {
        text.push_str(": ");
        text.push_str(&err.to_string());
        cause = err.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_error_keeps_its_cause_apart() {
        let cause = io::Error::from(InputError::Utf16);
        let error = io::Error::from(ReadError {
            doing: "cannot open",
            source: cause,
        });
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert_eq!(error.to_string(), "cannot open");
        assert_eq!(
            chain(&error),
            "cannot open: UTF-16 input is not supported, convert it to UTF-8 \
             (iconv -f UTF-16 -t UTF-8)"
        );
        let inner = error
            .get_ref()
            .and_then(|e| e.downcast_ref::<ReadError>())
            .and_then(|e| e.source.get_ref())
            .and_then(|e| e.downcast_ref::<InputError>());
        assert_eq!(inner, Some(&InputError::Utf16));
    }
}
