//! `pgnkit` for Python: each function runs one subcommand of the library
//! on its own thread, as the command line runs it (`-f arrow`, `--quiet`),
//! and returns a [`RecordStream`] of its records, handed over batch by
//! batch through the Arrow C stream interface (`__arrow_c_stream__`) or
//! a Python iterator. The binding is glue only: arguments in, batches
//! out, the GIL released while the run works.

mod channel;
mod inputs;
mod perft_rows;
mod records;
mod run;

use std::collections::HashSet;
use std::ffi::OsString;
use std::sync::{Arc, Mutex};

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::SchemaRef;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

use crate::channel::Interrupted;
use crate::inputs::Inputs;
use crate::records::{CRecords, Failure, Records, Spec};
use crate::run::Job;

create_exception!(
    pgnkit,
    PgnkitError,
    PyException,
    "A run that could not do its job: an input that could not be read (raised after \
     the records of everything read before), a failed run, a stream used twice. Its \
     message is the command line's."
);

/// mimalloc 2 (the crate's `v2` feature) for the library's allocations,
/// as the command line has mimalloc (`src/main.rs`): the pipeline frees on
/// the writer what the workers allocated, which glibc's malloc serialises.
/// Not mimalloc 3, the command line's: it held 190 MB on the 200 MB memory
/// test, over the package's 150 MB. Measured figures: `python/README.md`,
/// "The allocator". Python's, pyarrow's and polars' buffers keep their own
/// allocators.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const STREAM_CAPSULE: &std::ffi::CStr = c"arrow_array_stream";
const SCHEMA_CAPSULE: &std::ffi::CStr = c"arrow_schema";
const ARRAY_CAPSULE: &std::ffi::CStr = c"arrow_array";

fn to_pyerr(failure: Failure, interrupt: Option<PyErr>) -> PyErr {
    match failure {
        Failure::Interrupted => {
            interrupt.unwrap_or_else(|| PyKeyboardInterrupt::new_err("interrupted"))
        }
        Failure::Usage(m) => PyValueError::new_err(m),
        Failure::Run(m) => PgnkitError::new_err(m),
    }
}

/// The records of one call, produced batch by batch while the run
/// works. Read it once: with ``pyarrow.table(s)``, ``polars.DataFrame(s)``,
/// ``duckdb.sql("select * from s")`` (any Arrow PyCapsule consumer), or
/// by iterating it (each item is a batch implementing
/// ``__arrow_c_array__``). A second use raises ``PgnkitError``.
#[pyclass(module = "pgnkit", name = "RecordStream")]
pub struct RecordStream {
    records: Mutex<Option<Records>>,
    what: String,
}

/// Runs `f` on the stream's records, the GIL released, Ctrl-C heeded.
fn with_records<T: Send>(
    stream: &RecordStream,
    py: Python<'_>,
    f: impl FnOnce(&mut Records) -> Result<T, Failure> + Send,
) -> PyResult<T> {
    let mut guard = stream
        .records
        .try_lock()
        .map_err(|_| PgnkitError::new_err("the stream is being read by another thread"))?;
    let Some(records) = guard.as_mut() else {
        return Err(consumed(&stream.what));
    };
    let interrupt: Arc<Mutex<Option<PyErr>>> = Arc::default();
    let slot = Arc::clone(&interrupt);
    records.set_tick(Box::new(move || {
        Python::attach(|py| py.check_signals()).map_err(|e| {
            *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
            Interrupted
        })
    }));
    let result = py.detach(|| f(records));
    result.map_err(|failure| {
        let interrupt = interrupt.lock().unwrap_or_else(|p| p.into_inner()).take();
        to_pyerr(failure, interrupt)
    })
}

fn consumed(what: &str) -> PyErr {
    PgnkitError::new_err(format!(
        "this stream of {what} was read already (a stream is read once): call the function again"
    ))
}

#[pymethods]
impl RecordStream {
    /// The Arrow C stream of the records not read yet, as a PyCapsule
    /// named ``arrow_array_stream``. ``requested_schema`` is ignored: the
    /// records have one schema.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let unread = self
            .records
            .try_lock()
            .map(|r| r.as_ref().is_some_and(|r| !r.is_done()))
            .unwrap_or(true);
        if !unread {
            return Err(consumed(&self.what));
        }
        let schema = with_records(self, py, Records::schema)?;
        let records = self
            .records
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .ok_or_else(|| consumed(&self.what))?;
        records::count_sigint();
        let stream = FFI_ArrowArrayStream::new(Box::new(CRecords::new(records, schema)));
        PyCapsule::new_with_value(py, stream, STREAM_CAPSULE)
    }

    /// The records' schema as a PyCapsule named ``arrow_schema``. It waits
    /// for the run's first batch (the stream's header comes with it).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = self.arrow_schema(py)?;
        schema_capsule(py, &schema)
    }

    /// The records' schema (an object implementing ``__arrow_c_schema__``:
    /// ``pyarrow.schema(s.schema)``). It waits for the run's first batch.
    #[getter]
    fn schema(&self, py: Python<'_>) -> PyResult<Schema> {
        Ok(Schema(self.arrow_schema(py)?))
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Batch>> {
        let batch = with_records(self, py, Records::next_batch)?;
        Ok(batch.map(Batch))
    }

    /// Stops the run and drops what it has not handed out.
    fn close(&self) {
        if let Some(records) = self
            .records
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            records.close();
        }
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, PyTuple>) {
        self.close();
    }

    fn __repr__(&self) -> String {
        format!("<pgnkit.RecordStream of {}>", self.what)
    }
}

impl RecordStream {
    fn arrow_schema(&self, py: Python<'_>) -> PyResult<SchemaRef> {
        with_records(self, py, Records::schema)
    }
}

fn schema_capsule<'py>(py: Python<'py>, schema: &SchemaRef) -> PyResult<Bound<'py, PyCapsule>> {
    let ffi = FFI_ArrowSchema::try_from(schema.as_ref())
        .map_err(|e| PgnkitError::new_err(e.to_string()))?;
    PyCapsule::new_with_value(py, ffi, SCHEMA_CAPSULE)
}

/// The schema of a stream's records (``pyarrow.schema(s)`` reads it).
#[pyclass(module = "pgnkit", name = "Schema", frozen)]
pub struct Schema(SchemaRef);

#[pymethods]
impl Schema {
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.0)
    }

    /// The column names, in order.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.0.fields().iter().map(|f| f.name().clone()).collect()
    }

    fn __repr__(&self) -> String {
        format!("<pgnkit.Schema {}>", self.names().join(", "))
    }
}

/// One batch of records (``pyarrow.record_batch(b)``,
/// ``polars.DataFrame(b)``; any consumer of ``__arrow_c_array__``).
#[pyclass(module = "pgnkit", name = "Batch", frozen)]
pub struct Batch(RecordBatch);

#[pymethods]
impl Batch {
    /// The batch as a struct array: a pair of PyCapsules (schema, array).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let array = StructArray::from(self.0.clone());
        let schema = FFI_ArrowSchema::try_from(array.data_type())
            .map_err(|e| PgnkitError::new_err(e.to_string()))?;
        let array = FFI_ArrowArray::new(&array.to_data());
        Ok((
            PyCapsule::new_with_value(py, schema, SCHEMA_CAPSULE)?,
            PyCapsule::new_with_value(py, array, ARRAY_CAPSULE)?,
        ))
    }

    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.0.schema())
    }

    /// Rows in the batch.
    #[getter]
    fn num_rows(&self) -> usize {
        self.0.num_rows()
    }

    fn __len__(&self) -> usize {
        self.0.num_rows()
    }

    fn __repr__(&self) -> String {
        format!("<pgnkit.Batch of {} rows>", self.0.num_rows())
    }
}

/// A comma-separated `str` or an iterable of `str`, as a list.
fn names(arg: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Vec<String>> {
    let Some(arg) = arg else {
        return Ok(Vec::new());
    };
    if let Ok(s) = arg.extract::<String>() {
        return Ok(s.split(',').map(str::to_owned).collect());
    }
    let mut out = Vec::new();
    for item in arg.try_iter()? {
        out.push(item?.extract::<String>().map_err(|_| {
            PyValueError::new_err(format!("{what}: give a str or an iterable of str"))
        })?);
    }
    Ok(out)
}

/// Refuses a name that is no finding code, as the command line does, at
/// call time.
fn check_codes(flag: &str, codes: &[String]) -> PyResult<()> {
    use pgnkit::rules::finding::Code;
    if let Some(bad) = codes.iter().find(|c| Code::from_name(c).is_none()) {
        let valid: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        return Err(PyValueError::new_err(format!(
            "{flag}: unknown finding code `{bad}` (valid: {})",
            valid.join(", ")
        )));
    }
    Ok(())
}

/// Starts the subcommand `argv` on `inputs`, reading `what`.
fn start(
    mut argv: Vec<OsString>,
    inputs: Inputs,
    what: &str,
    keep_tags: Option<HashSet<String>>,
) -> PyResult<RecordStream> {
    argv.push("--".into());
    argv.extend(inputs.paths.iter().cloned());
    let cli = run::parse(argv).map_err(PyValueError::new_err)?;
    let names = inputs
        .paths
        .iter()
        .map(|p| std::path::Path::new(p).display().to_string())
        .collect();
    let spec = Spec {
        names,
        labels: inputs.labels.clone(),
        keep_tags,
    };
    let tap = pgnkit::embed::Tap::new();
    let channel = run::spawn(Job::Subcommand(cli), Some(inputs))?;
    Ok(RecordStream {
        records: Mutex::new(Some(Records::new(channel, spec, tap))),
        what: what.to_owned(),
    })
}

fn args(list: &[&str]) -> Vec<OsString> {
    list.iter().map(OsString::from).collect()
}

fn threads_arg(argv: &mut Vec<OsString>, threads: Option<u16>) -> PyResult<()> {
    if let Some(n) = threads {
        if n == 0 {
            return Err(PyValueError::new_err(
                "threads: give 1 or more (None: every core)",
            ));
        }
        argv.extend(args(&["--threads", &n.to_string()]));
    }
    Ok(())
}

/// validate(*paths, threads=None, only=None, ignore=None, tags=None)
/// --
///
/// Replays every game and returns its findings, one row per finding
/// (``pgnkit validate -f arrow``; columns: ``docs/records.md``,
/// ``finding``). Findings are data: an illegal move is a row, never an
/// exception.
///
/// ``paths``: files (plain, .gz, .zst, .bz2), directories (their PGN
/// files) or ``bytes`` of PGN (named ``<bytes>`` in ``file``).
/// ``threads``: workers (default: every core). ``only`` / ``ignore``:
/// finding codes, a list or a comma-separated str. ``tags``: tag names
/// whose values fill each finding's ``tags`` map, as a chief arbiter files
/// findings (``tags=["Board", "WhiteFideId"]``, as ``--tags``).
///
/// >>> import polars as pl, pgnkit
/// >>> pl.DataFrame(pgnkit.validate("games.pgn", only=["illegal-move"]))
#[pyfunction]
#[pyo3(signature = (*paths, threads = None, only = None, ignore = None, tags = None))]
fn validate(
    paths: &Bound<'_, PyTuple>,
    threads: Option<u16>,
    only: Option<&Bound<'_, PyAny>>,
    ignore: Option<&Bound<'_, PyAny>>,
    tags: Option<&Bound<'_, PyAny>>,
) -> PyResult<RecordStream> {
    let inputs = Inputs::from_args(paths)?;
    let mut argv = args(&["validate", "--quiet", "--format", "arrow"]);
    threads_arg(&mut argv, threads)?;
    for (flag, list) in [("--only", only), ("--ignore", ignore)] {
        let codes = names(list, flag)?;
        check_codes(flag, &codes)?;
        if !codes.is_empty() {
            argv.extend([OsString::from(flag), codes.join(",").into()]);
        }
    }
    let tags = names(tags, "tags")?;
    if !tags.is_empty() {
        argv.extend([OsString::from("--tags"), tags.join(",").into()]);
    }
    start(argv, inputs, "findings", None)
}

/// annotate_outcome(*paths, rules="fide", tags=None, threads=None)
/// --
///
/// Says what the Laws say happened in each game, one row per game
/// (``pgnkit annotate-outcome -f arrow``; columns: ``docs/records.md``,
/// ``outcome``).
///
/// ``rules``: ``"fide"``, ``"app"`` or ``"online"`` (as ``--rules``).
/// ``tags``: tag names whose values fill the ``tags`` map (as
/// ``--tags``); inputs as for ``validate``.
///
/// >>> import pyarrow as pa, pgnkit
/// >>> t = pa.table(pgnkit.annotate_outcome("games.pgn", tags=["Event"]))
#[pyfunction]
#[pyo3(signature = (*paths, rules = "fide", tags = None, threads = None))]
fn annotate_outcome(
    paths: &Bound<'_, PyTuple>,
    rules: &str,
    tags: Option<&Bound<'_, PyAny>>,
    threads: Option<u16>,
) -> PyResult<RecordStream> {
    let inputs = Inputs::from_args(paths)?;
    let mut argv = args(&[
        "annotate-outcome",
        "--quiet",
        "--format",
        "arrow",
        "--rules",
        rules,
    ]);
    threads_arg(&mut argv, threads)?;
    let tags = names(tags, "tags")?;
    if !tags.is_empty() {
        argv.extend([OsString::from("--tags"), tags.join(",").into()]);
    }
    start(argv, inputs, "outcomes", None)
}

/// games(*paths, tags=None, san=False, threads=None)
/// --
///
/// Converts every game, one row per game (``pgnkit convert --to arrow``;
/// columns: ``docs/records.md``, ``game``): the Seven Tag Roster and
/// typed well-known tags as columns, every tag in the ``tags`` map, the
/// moves as a list of UCI strings (and SAN with ``san=True``), the
/// clock (seconds) and evaluation (``eval_cp``, ``eval_mate``) after each
/// move from its ``[%clk]`` and ``[%eval]`` comments, ``final_fen``,
/// ``plies`` and ``error``.
///
/// ``tags``: when given, the ``tags`` map keeps only these tags (the
/// columns are unchanged); inputs as for ``validate``.
///
/// >>> import duckdb, pgnkit
/// >>> g = pgnkit.games("games.pgn", threads=2)
/// >>> duckdb.sql("select white, black, plies from g where plies > 200")
#[pyfunction]
#[pyo3(signature = (*paths, tags = None, san = false, threads = None))]
fn games(
    paths: &Bound<'_, PyTuple>,
    tags: Option<&Bound<'_, PyAny>>,
    san: bool,
    threads: Option<u16>,
) -> PyResult<RecordStream> {
    let inputs = Inputs::from_args(paths)?;
    let mut argv = args(&["convert", "--quiet", "--to", "arrow"]);
    if san {
        argv.push("--san".into());
    }
    threads_arg(&mut argv, threads)?;
    let keep = tags.map(|t| names(Some(t), "tags")).transpose()?;
    start(argv, inputs, "games", keep.map(|k| k.into_iter().collect()))
}

/// positions(*paths, threads=None)
/// --
///
/// One row per position of every game, with the move that led to it and
/// that move's clock and evaluation (``pgnkit convert --to arrow
/// --positions all``; columns: ``docs/records.md``, ``position``).
/// Inputs as for ``validate``.
///
/// >>> import polars as pl, pgnkit
/// >>> pl.DataFrame(pgnkit.positions("games.pgn"))
#[pyfunction]
#[pyo3(signature = (*paths, threads = None))]
fn positions(paths: &Bound<'_, PyTuple>, threads: Option<u16>) -> PyResult<RecordStream> {
    let inputs = Inputs::from_args(paths)?;
    let mut argv = args(&["convert", "--quiet", "--to", "arrow", "--positions", "all"]);
    threads_arg(&mut argv, threads)?;
    start(argv, inputs, "positions", None)
}

/// perft(fen, depth, divide=False, threads=None)
/// --
///
/// Counts the leaf nodes of the legal move tree ``depth`` plies below
/// ``fen`` (``"startpos"`` for the standard start). Returns a stream of
/// rows ``move`` (the root move in UCI, with ``divide``; else null) and
/// ``nodes``: one row per root move with ``divide``, else one row of the
/// total.
///
/// >>> import pyarrow as pa, pgnkit
/// >>> pa.table(pgnkit.perft("startpos", 3))["nodes"][0].as_py()
/// 8902
#[pyfunction]
#[pyo3(signature = (fen, depth, divide = false, threads = None))]
fn perft(fen: &str, depth: u32, divide: bool, threads: Option<u16>) -> PyResult<RecordStream> {
    let mut argv = args(&["perft", "--quiet", "--depth", &depth.to_string()]);
    if divide {
        argv.push("--divide".into());
    }
    threads_arg(&mut argv, threads)?;
    argv.push("--".into());
    argv.push(fen.trim().into());
    let cli = run::parse(argv).map_err(PyValueError::new_err)?;
    let spec = Spec {
        names: Vec::new(),
        labels: Vec::new(),
        keep_tags: None,
    };
    let tap = pgnkit::embed::Tap::new();
    let channel = run::spawn(Job::Perft(cli), None)?;
    Ok(RecordStream {
        records: Mutex::new(Some(Records::new(channel, spec, tap))),
        what: "perft counts".to_owned(),
    })
}

/// _run(argv)
/// --
///
/// Runs the command line `pgnkit *argv` in this process (the library's
/// own subcommands, its standard output into bytes) and gives its exit
/// code, standard output and error message: what the tests compare the
/// streams with, without a binary to build.
#[pyfunction]
fn _run(py: Python<'_>, argv: Vec<OsString>) -> PyResult<(u8, Vec<u8>, Option<String>)> {
    let cli = run::parse(argv).map_err(PyValueError::new_err)?;
    Ok(py.detach(move || {
        let mut out = Vec::new();
        let result = match &cli.command {
            pgnkit::cli::Command::Validate(a) => pgnkit::cmd::validate::run(a, &mut out),
            pgnkit::cli::Command::AnnotateOutcome(a) => {
                pgnkit::cmd::annotate_outcome::run(a, &mut out)
            }
            pgnkit::cli::Command::Convert(a) => pgnkit::cmd::convert::run(a, &mut out),
            pgnkit::cli::Command::Perft(a) => pgnkit::cmd::perft::run(a, &mut out),
            _ => Err(pgnkit::Error::usage(
                "_run runs validate, annotate-outcome, convert and perft",
            )),
        };
        match result {
            Ok(status) => {
                let code = match status {
                    pgnkit::exit::ExitStatus::Ok => 0,
                    pgnkit::exit::ExitStatus::Problems => 1,
                    pgnkit::exit::ExitStatus::Error => 2,
                };
                (code, out, None)
            }
            Err(e) => (2, out, Some(format!("{e:#}"))),
        }
    }))
}

#[pymodule]
fn _pgnkit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    pgnkit::embed::set_embedded();
    m.add("PgnkitError", m.py().get_type::<PgnkitError>())?;
    m.add_class::<RecordStream>()?;
    m.add_class::<Schema>()?;
    m.add_class::<Batch>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(annotate_outcome, m)?)?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(positions, m)?)?;
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    m.add_function(wrap_pyfunction!(_run, m)?)?;
    m.add(
        "PERFT_COLUMNS",
        perft_rows::PERFT
            .columns
            .iter()
            .map(|c| c.name)
            .collect::<Vec<_>>(),
    )?;
    Ok(())
}
