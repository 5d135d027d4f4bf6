//! The library API: one entry point per subcommand, each taking its typed
//! options, its inputs, a record sink and a diagnostics sink, and returning
//! what the run came to. The command line ([`crate::cmd`]) and the Python
//! package call these; so can any Rust program.
//!
//! - **Options**: [`ValidateOptions`], [`AnnotateOutcomeOptions`],
//!   [`ConvertOptions`], [`PerftOptions`], [`MergeOptions`],
//!   [`SchemaOptions`] (and the shared [`RunOptions`]), each with the
//!   command line's defaults.
//! - **Inputs**: [`Input::path`] (a file, a directory or `-`) or
//!   [`Input::reader`] (any `Read`, under a name such as `<bytes>` that
//!   every diagnostic and record then shows).
//! - **Records**: [`RecordSink::Writer`] (bytes in the chosen [`Format`]),
//!   [`RecordSink::Batches`] (Arrow record batches handed to a
//!   [`BatchSink`], with `Format::Arrow`); perft's rows go to a
//!   [`PerftSink`] as [`PerftRow`]s.
//! - **Diagnostics**: a [`Diagnostics`] gets every line a person would
//!   read on standard error (errors, warnings, notes, the summary) and says
//!   whether a progress bar is drawn; [`Stderr`] is the command line's,
//!   [`Collected`] keeps them.
//!
//! ```
//! use pgnkit::api::{self, Collected, Input, RecordSink, ValidateOptions, Format};
//! let pgn = b"[Event \"x\"]\n\n1. e4 e5 2. Ke3 *\n".to_vec();
//! let options = ValidateOptions { format: Format::Csv, ..ValidateOptions::default() };
//! let mut csv = Vec::new();
//! let diagnostics = Collected::default();
//! let summary = api::validate(
//!     &options,
//!     vec![Input::reader("<bytes>", std::io::Cursor::new(pgn))],
//!     RecordSink::Writer(&mut csv),
//!     &diagnostics,
//! )
//! .unwrap();
//! assert_eq!(summary.status, pgnkit::exit::ExitStatus::Problems);
//! assert!(String::from_utf8(csv).unwrap().contains("<bytes>,1,0,3,3,2.Ke3,Ke3,error,illegal-move"));
//! ```

mod annotate_outcome;
mod convert;
mod crosstable;
mod dedupe;
mod merge;
pub mod openings;
pub mod options;
mod perft;
mod schema;
mod select;
mod selection;
pub(crate) mod streaming;
mod tournament;
mod validate;

use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

pub use self::options::{
    AnnotateOutcomeOptions, ConvertOptions, CrosstableOptions, DedupeOptions, EcoTags, HtmlOptions,
    Keep, MergeOptions, PerftOptions, Positions, RulesProfile, RunOptions, SchemaOptions,
    SelectOptions, Selection, SourceFormat, ValidateOptions,
};
pub use self::perft::{PerftRow, PerftSink, PerftText};
pub use crate::error::{Error, ErrorKind};
pub use crate::exit::ExitStatus;
pub use crate::format::{Format, FormatParser, Subcommand};
pub use crate::output::columnar::BatchSink;
pub use crate::output::diag::{Diagnostics, Level};
pub use crate::stream::Input;

/// The command line's diagnostics: every line on standard error through
/// [`crate::output::diag`], and the progress bar.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stderr;

impl Diagnostics for Stderr {
    fn line(&self, _level: Level, line: &str) {
        crate::output::diag::note(line);
    }

    fn shows_progress(&self) -> bool {
        true
    }
}

/// Diagnostics kept in memory, in order (no progress bar).
#[derive(Debug, Default)]
pub struct Collected {
    lines: Mutex<Vec<(Level, String)>>,
}

impl Collected {
    /// The lines so far.
    pub fn lines(&self) -> Vec<(Level, String)> {
        self.lines.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

impl Diagnostics for Collected {
    fn line(&self, level: Level, line: &str) {
        if let Ok(mut lines) = self.lines.lock() {
            lines.push((level, line.to_owned()));
        }
    }
}

/// Where a run's records go.
pub enum RecordSink<'a> {
    /// The process's standard output (the command line): a binary format
    /// or the HTML page is refused onto a terminal, and an output that is
    /// an input is refused.
    Stdout(&'a mut dyn Write),
    /// Bytes in the chosen format, to a writer of the caller's.
    Writer(&'a mut dyn Write),
    /// Record batches (the format must be [`Format::Arrow`]): nothing is
    /// encoded.
    Batches(Box<dyn BatchSink + 'a>),
}

/// What a streaming run came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// The exit status the command line gives.
    pub status: ExitStatus,
    /// Games (or record lines) read.
    pub games: u64,
    /// Records written (rows, lines, findings), a header not counted.
    pub records: u64,
    /// Inputs that could not be opened or read to their end.
    pub unread: u64,
}

/// Runs `validate`: every game of `inputs` replayed, its findings written
/// to `records`.
///
/// # Errors
///
/// Options that conflict, an output that cannot be written (an unreadable
/// input is reported and counted in [`Summary::unread`] instead).
pub fn validate(
    options: &ValidateOptions,
    inputs: Vec<Input>,
    records: RecordSink<'_>,
    diagnostics: &dyn Diagnostics,
) -> Result<Summary, Error> {
    validate::run(options, inputs, records, diagnostics)
}

/// Runs `annotate-outcome`: what the Laws say happened in every game of
/// `inputs`, a row (or the game written back) each to `records`.
///
/// # Errors
///
/// As [`validate`].
pub fn annotate_outcome(
    options: &AnnotateOutcomeOptions,
    inputs: Vec<Input>,
    records: RecordSink<'_>,
    diagnostics: &dyn Diagnostics,
) -> Result<Summary, Error> {
    annotate_outcome::run(options, inputs, records, diagnostics)
}

/// Runs `dedupe`: the games of `inputs` that are one game grouped, each
/// written once (`Format::Pgn`), or the groups reported.
///
/// # Errors
///
/// For conflicting flags, inputs that cannot be read twice, or when an
/// output cannot be written.
pub fn dedupe(
    options: &DedupeOptions,
    inputs: Vec<Input>,
    records: RecordSink<'_>,
    diagnostics: &dyn Diagnostics,
) -> Result<Summary, Error> {
    dedupe::run(options, inputs, records, diagnostics)
}

/// Runs `crosstable`: each event of `inputs` (the games of one `Event`,
/// `Site` and `EventDate`) with its standings and crosstable from the results,
/// written to `records` in `options.format`.
///
/// # Errors
///
/// As [`validate`].
pub fn crosstable(
    options: &CrosstableOptions,
    inputs: Vec<Input>,
    records: RecordSink<'_>,
    diagnostics: &dyn Diagnostics,
) -> Result<Summary, Error> {
    crosstable::run(options, inputs, records, diagnostics)
}

/// Runs `select`: the games of `inputs` the criteria pick, written as they
/// were read (`Format::Pgn`), a line each (`Format::Text`), or as their
/// game records.
///
/// # Errors
///
/// As [`validate`].
pub fn select(
    options: &SelectOptions,
    inputs: Vec<Input>,
    records: RecordSink<'_>,
    diagnostics: &dyn Diagnostics,
) -> Result<Summary, Error> {
    select::run(options, inputs, records, diagnostics)
}

/// Runs `convert`: every game (or position, or UCI line) of `inputs`
/// written to `records` in `options.format`.
///
/// # Errors
///
/// As [`validate`].
pub fn convert(
    options: &ConvertOptions,
    inputs: Vec<Input>,
    records: RecordSink<'_>,
    diagnostics: &dyn Diagnostics,
) -> Result<Summary, Error> {
    convert::run(options, inputs, records, diagnostics)
}

/// Runs `perft` on `fen` (`None` or `startpos`: the start position), or on
/// `options.suite`: each row (a root move, the total, a suite's check) to
/// `rows` as soon as it and every row before it are known.
///
/// # Errors
///
/// Options that conflict, a bad FEN or `--moves`, an unreadable suite, a
/// failed write. A suite check that does not match is a problem (exit
/// status 1), not an error.
pub fn perft(
    options: &PerftOptions,
    fen: Option<&str>,
    rows: &mut dyn PerftSink,
    diagnostics: &dyn Diagnostics,
) -> Result<ExitStatus, Error> {
    perft::run(options, fen, rows, diagnostics)
}

/// Runs `merge` on the outputs of `--byte-range` shards (with `--plan`,
/// their statistics), rerunning shards with the pgnkit binary `exe`.
///
/// # Errors
///
/// A shard or statistics file refused, a rerun that failed, shards that do
/// not tile their file, an output that cannot be written.
pub fn merge(
    options: &MergeOptions,
    shards: &[PathBuf],
    out: RecordSink<'_>,
    exe: &std::path::Path,
    diagnostics: &dyn Diagnostics,
) -> Result<ExitStatus, Error> {
    merge::merge(options, shards, out, exe, diagnostics)
}

/// Runs `schema`: the columns of a record kind, as text or JSON, to `out`.
///
/// # Errors
///
/// An unknown record kind, or a failed write.
pub fn schema(options: &SchemaOptions, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    schema::run(options, out)
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Read};

    use super::*;

    const ILLEGAL: &str = "[Event \"x\"]\n\n1. e4 e5 2. Ke3 *\n";

    /// A reader that fails after its first bytes.
    struct Broken(bool);

    impl Read for Broken {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if std::mem::replace(&mut self.0, true) {
                return Err(std::io::Error::other("the cable came loose"));
            }
            let head = b"[Event \"x\"]\n\n1. e4 ";
            buf[..head.len()].copy_from_slice(head);
            Ok(head.len())
        }
    }

    #[test]
    fn a_reader_is_named_as_the_caller_names_it() {
        let mut out = Vec::new();
        let diagnostics = Collected::default();
        let inputs = vec![
            Input::reader("<bytes>", Cursor::new(ILLEGAL)),
            Input::reader("<bytes>", Broken(false)),
        ];
        let summary = validate(
            &ValidateOptions::default(),
            inputs,
            RecordSink::Writer(&mut out),
            &diagnostics,
        )
        .unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.lines().all(|l| l.starts_with("<bytes>:")), "{out}");
        assert!(out.contains("<bytes>:3: game 1 (? - ?; x), ply 3 (2.Ke3): illegal-move"));
        let lines = diagnostics.lines();
        let failed = lines
            .iter()
            .find(|(level, _)| *level == Level::Error)
            .expect("the broken reader is reported");
        assert!(failed.1.starts_with("pgnkit: <bytes>: "), "{failed:?}");
        assert!(failed.1.contains("the cable came loose"), "{failed:?}");
        assert_eq!(summary.unread, 1);
        assert_eq!(summary.status, ExitStatus::Error);
    }

    /// Collects the rows of a batch sink.
    struct Rows<'a>(&'a mut usize, &'a mut bool);

    impl BatchSink for Rows<'_> {
        fn schema(&mut self, _: arrow_schema::SchemaRef) -> std::io::Result<()> {
            *self.1 = true;
            Ok(())
        }

        fn batch(&mut self, batch: arrow_array::RecordBatch) -> std::io::Result<()> {
            *self.0 += batch.num_rows();
            Ok(())
        }
    }

    #[test]
    fn batches_go_to_the_sink_and_only_in_the_arrow_format() {
        let (mut rows, mut schema) = (0, false);
        let options = ValidateOptions {
            format: Format::Arrow,
            ..ValidateOptions::default()
        };
        let sink = RecordSink::Batches(Box::new(Rows(&mut rows, &mut schema)));
        let input = vec![Input::reader("<bytes>", Cursor::new(ILLEGAL))];
        validate(&options, input, sink, &Collected::default()).unwrap();
        assert!(schema);
        assert_eq!(rows, 3);

        let (mut rows, mut schema) = (0, false);
        let sink = RecordSink::Batches(Box::new(Rows(&mut rows, &mut schema)));
        let input = vec![Input::reader("<bytes>", Cursor::new(ILLEGAL))];
        let csv = ConvertOptions {
            format: Format::Csv,
            ..ConvertOptions::default()
        };
        let err = convert(&csv, input, sink, &Collected::default()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Usage);
    }

    #[test]
    fn a_format_of_another_subcommand_is_refused() {
        let options = ValidateOptions {
            format: Format::Pgn,
            ..ValidateOptions::default()
        };
        let input = vec![Input::reader("<bytes>", Cursor::new(ILLEGAL))];
        let err = validate(
            &options,
            input,
            RecordSink::Writer(&mut Vec::new()),
            &Collected::default(),
        )
        .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Usage);
    }

    /// Keeps perft's rows.
    #[derive(Default)]
    struct Kept(Vec<(Option<String>, u64)>);

    impl PerftSink for Kept {
        fn row(&mut self, row: PerftRow<'_>) -> std::io::Result<()> {
            match row {
                PerftRow::RootMove { uci, nodes } => self.0.push((Some(uci.to_owned()), nodes)),
                PerftRow::Total { nodes, .. } => self.0.push((None, nodes)),
                PerftRow::Check { .. } => unreachable!("no suite"),
            }
            Ok(())
        }
    }

    #[test]
    fn perft_rows_are_typed() {
        let options = PerftOptions {
            depth: Some(2),
            divide: true,
            quiet: true,
            ..PerftOptions::default()
        };
        let mut kept = Kept::default();
        let status = perft(&options, None, &mut kept, &Collected::default()).unwrap();
        assert_eq!(status, ExitStatus::Ok);
        assert_eq!(kept.0.len(), 21);
        assert!(
            kept.0[..20]
                .iter()
                .all(|(uci, n)| uci.is_some() && *n == 20)
        );
        assert_eq!(kept.0[20], (None, 400));
    }
}
