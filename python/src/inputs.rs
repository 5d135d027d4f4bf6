//! The inputs of a call: paths as the command line takes them (files,
//! compressed files, directories) and `bytes`, which are written to a
//! temporary file of their own and named `<bytes>` in the records
//! (`<bytes 3>` for the third input, when a call is given several).

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

/// The inputs of a call, and the temporary files `bytes` were written to.
pub struct Inputs {
    /// The paths the run is given, in order.
    pub paths: Vec<OsString>,
    /// Each temporary file's path as the records would show it, and the
    /// name they show instead.
    pub labels: Vec<(String, String)>,
    _dir: Option<tempfile::TempDir>,
}

impl Inputs {
    /// The inputs `args` holds: `str`, `os.PathLike` or `bytes`.
    ///
    /// # Errors
    ///
    /// `TypeError` for anything else, `ValueError` for none at all, and
    /// `OSError` when a temporary file cannot be written.
    pub fn from_args(args: &Bound<'_, PyTuple>) -> PyResult<Inputs> {
        if args.is_empty() {
            return Err(PyValueError::new_err(
                "no input: give one or more paths (str or os.PathLike) or bytes",
            ));
        }
        let count = args
            .iter()
            .filter(|a| a.is_instance_of::<PyBytes>())
            .count();
        let mut inputs = Inputs {
            paths: Vec::new(),
            labels: Vec::new(),
            _dir: None,
        };
        for (index, arg) in args.iter().enumerate() {
            if let Ok(bytes) = arg.cast::<PyBytes>() {
                let dir = match &inputs._dir {
                    Some(dir) => dir,
                    None => inputs
                        ._dir
                        .insert(tempfile::Builder::new().prefix("pgnkit-").tempdir()?),
                };
                // Named by their place among the inputs: `<bytes 3>` is the third.
                let n = index + 1;
                let path = dir.path().join(format!("input-{n}.pgn"));
                let mut file = std::fs::File::create(&path)?;
                file.write_all(bytes.as_bytes())?;
                file.flush()?;
                let label = if count == 1 {
                    "<bytes>".to_owned()
                } else {
                    format!("<bytes {n}>")
                };
                inputs.labels.push((path.display().to_string(), label));
                inputs.paths.push(path.into_os_string());
            } else if let Ok(path) = arg.extract::<PathBuf>() {
                inputs.paths.push(path.into_os_string());
            } else {
                return Err(PyTypeError::new_err(format!(
                    "an input is a path (str or os.PathLike) or bytes, not {}",
                    arg.get_type().name()?
                )));
            }
        }
        Ok(inputs)
    }

    /// `text` with the temporary files' paths replaced by their names.
    pub fn relabel(labels: &[(String, String)], text: &str) -> String {
        let mut text = text.to_owned();
        for (path, label) in labels {
            text = text.replace(path.as_str(), label);
        }
        text
    }
}
