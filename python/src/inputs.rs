//! The inputs of a call: paths as the command line takes them (files,
//! compressed files, directories, `-`), `bytes` and binary file-like
//! objects, each streamed to the run as a named reader
//! ([`pgnkit::api::Input::reader`]): no temporary file, and every record
//! and message names it `<bytes>` (`<bytes 3>` for the third input when a
//! call is given several), or a file-like object by its `name`.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use pgnkit::api::Input;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

/// The inputs of a call, and the names the records give them.
pub struct Inputs {
    pub inputs: Vec<Input>,
    pub names: Vec<String>,
}

impl Inputs {
    /// The inputs `args` holds: `str`, `os.PathLike`, `bytes`, or an
    /// object with a `read(n)` method that returns bytes.
    ///
    /// # Errors
    ///
    /// `TypeError` for anything else, `ValueError` for none at all or for
    /// `bytes` that hold a path rather than PGN, and `OSError` (its
    /// subclass for the cause, `filename` set) for a path that cannot be
    /// opened.
    pub fn from_args(args: &Bound<'_, PyTuple>) -> PyResult<Inputs> {
        if args.is_empty() {
            return Err(PyValueError::new_err(
                "no input: give one or more paths (str or os.PathLike), bytes or binary files",
            ));
        }
        let unnamed = args
            .iter()
            .filter(|a| a.is_instance_of::<PyBytes>())
            .count();
        let mut inputs = Inputs {
            inputs: Vec::new(),
            names: Vec::new(),
        };
        for (index, arg) in args.iter().enumerate() {
            if let Ok(bytes) = arg.cast::<PyBytes>() {
                refuse_a_path(bytes.as_bytes())?;
                let name = if unnamed == 1 {
                    "<bytes>".to_owned()
                } else {
                    format!("<bytes {}>", index + 1)
                };
                let reader = BytesReader {
                    bytes: bytes.clone().unbind(),
                    at: 0,
                };
                inputs.push(Input::reader(name.clone(), reader), name);
            } else if let Ok(path) = arg.extract::<PathBuf>() {
                check_path(&path)?;
                let name = path.display().to_string();
                inputs.push(Input::path(path), name);
            } else if arg.hasattr("read")? {
                let name = arg
                    .getattr("name")
                    .ok()
                    .and_then(|n| n.extract::<String>().ok())
                    .unwrap_or_else(|| "<stream>".to_owned());
                let reader = FileReader {
                    file: arg.clone().unbind(),
                };
                inputs.push(Input::reader(name.clone(), reader), name);
            } else {
                return Err(PyTypeError::new_err(format!(
                    "an input is a path (str or os.PathLike), bytes or a binary file, not {}",
                    arg.get_type().name()?
                )));
            }
        }
        Ok(inputs)
    }

    fn push(&mut self, input: Input, name: String) {
        self.inputs.push(input);
        self.names.push(name);
    }
}

/// Fails at the call for a path that cannot be opened, naming it (a
/// directory is walked by the run; `-` is standard input).
fn check_path(path: &Path) -> PyResult<()> {
    if path == Path::new("-") {
        return Ok(());
    }
    let opened = std::fs::metadata(path).and_then(|meta| {
        if meta.is_dir() {
            std::fs::read_dir(path).map(drop)
        } else {
            std::fs::File::open(path).map(drop)
        }
    });
    opened.map_err(|err| {
        let shown = format!("{path:?}");
        let message = format!("cannot read the input {shown}: {err}");
        let errno = err.raw_os_error();
        match errno {
            // The OSError subclass of the cause (FileNotFoundError,
            // PermissionError, …), with `filename` set, as `open` raises.
            Some(errno) => PyOSError::new_err((errno, message, path.to_path_buf())),
            // A name no file can have (a NUL byte): a value error.
            None => PyValueError::new_err(message),
        }
    })
}

/// A `bytes` value that holds a path rather than PGN (`b"games.pgn"`) is
/// refused: read as PGN it would give no game and no word (issue 43).
fn refuse_a_path(bytes: &[u8]) -> PyResult<()> {
    const EXTENSIONS: [&str; 8] = [
        ".pgn", ".gz", ".zst", ".bz2", ".fen", ".epd", ".uci", ".txt",
    ];
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Ok(());
    };
    let text = text.trim();
    let one_word = !text.is_empty() && text.len() < 4096 && !text.contains(['\n', '[', '{', ' ']);
    let looks = one_word
        && (EXTENSIONS
            .iter()
            .any(|e| text.to_ascii_lowercase().ends_with(e))
            || Path::new(text).exists());
    if looks {
        return Err(PyValueError::new_err(format!(
            "the bytes {text:?} hold a path, not PGN: give the path as a str (or os.PathLike) \
             to read the file"
        )));
    }
    Ok(())
}

/// A `bytes` input, read from the object itself (the GIL held per read).
struct BytesReader {
    bytes: Py<PyBytes>,
    at: usize,
}

impl Read for BytesReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Python::attach(|py| {
            let all = self.bytes.bind(py).as_bytes();
            let rest = &all[self.at.min(all.len())..];
            let n = rest.len().min(buf.len());
            buf[..n].copy_from_slice(&rest[..n]);
            self.at += n;
            Ok(n)
        })
    }
}

/// A binary file-like object: its `read(n)`, the GIL held per call.
struct FileReader {
    file: Py<PyAny>,
}

impl Read for FileReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Python::attach(|py| {
            let got = self
                .file
                .bind(py)
                .call_method1("read", (buf.len(),))
                .map_err(|e| io::Error::other(e.to_string()))?;
            if got.is_none() {
                // A non-blocking stream with nothing yet: nothing to wait on.
                return Err(io::Error::other("read() gave None (a non-blocking stream)"));
            }
            let bytes = got.cast::<PyBytes>().map_err(|_| {
                io::Error::other("read() must give bytes: open the file in binary mode ('rb')")
            })?;
            let data = bytes.as_bytes();
            let n = data.len().min(buf.len());
            buf[..n].copy_from_slice(&data[..n]);
            Ok(n)
        })
    }
}
