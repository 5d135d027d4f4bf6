//! What every streaming subcommand shares: its settings from
//! [`RunOptions`] (inputs, threads, the product's file, `--stats`), the
//! checks made before anything is read (an output that is an input, a
//! binary format onto a terminal), the product writer, and the tail
//! (`Streaming::finish`): flush, rename, statistics, summary, exit status.
//! Each says what went wrong as a [`crate::Error`] of the kind it is.

use std::fs::File;
use std::fs::Metadata;
use std::io::{BufWriter, IsTerminal, Write};
use std::num::NonZero;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::options::RunOptions;
use super::{BatchSink, Diagnostics, Level, RecordSink};
use crate::error::Error;
use crate::exit::ExitStatus;
use crate::input::range::ByteRange;
use crate::output::diag;
use crate::output::report;
use crate::output::stats::{self, Digest};
use crate::output::tally::Tally;
use crate::rules::finding::Finding;
use crate::schema::finding::FindingPlace;
use crate::stream::{self, Input, Spooled, Totals};

/// The most workers a run starts per core. The work is CPU-bound, so
/// threads beyond the cores only add memory (each worker keeps up to two
/// chunks of the input in flight) and, in the thousands, exhaust the
/// system's threads (`-j 20000` made spawning fail).
pub const THREADS_PER_CORE: usize = 4;

/// The worker count: `--threads`, at most [`THREADS_PER_CORE`] per core, or
/// every core.
pub(crate) fn thread_count(threads: Option<u16>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, NonZero::get);
    threads.map_or(cores, |n| usize::from(n).min(THREADS_PER_CORE * cores))
}

/// The metadata of the file open as `fd`.
fn fd_metadata(fd: BorrowedFd<'_>) -> Option<Metadata> {
    File::from(fd.try_clone_to_owned().ok()?).metadata().ok()
}

/// The device and inode of the file `path` names, symlinks followed (`-` is
/// standard input): two paths name the same file when these are equal,
/// whatever the spelling, a symlink or a hard link.
pub(crate) fn identity(path: &Path) -> Option<(u64, u64)> {
    let meta = if path == Path::new("-") {
        fd_metadata(std::io::stdin().as_fd())?
    } else {
        std::fs::metadata(path).ok()?
    };
    Some((meta.dev(), meta.ino()))
}

/// Whether `a` and `b` name the same file: the same device and inode when
/// both exist, else the same file name in the same directory.
fn same_file(a: &Path, b: &Path) -> bool {
    /// The directory (links and `..` resolved) and the name of `p`; a
    /// dangling link stands for the file it names.
    fn place(p: &Path) -> Option<(PathBuf, std::ffi::OsString)> {
        let mut p = std::path::absolute(p).ok()?;
        for _ in 0..40 {
            let dir = p.parent()?.canonicalize().ok()?;
            match std::fs::read_link(&p) {
                Ok(target) => p = dir.join(target),
                Err(_) => return Some((dir, p.file_name()?.to_owned())),
            }
        }
        None
    }
    match (identity(a), identity(b)) {
        (Some(a), Some(b)) => a == b,
        (None, None) => place(a).is_some_and(|a| place(b) == Some(a)),
        _ => false,
    }
}

/// The settings every streaming subcommand shares, from [`RunOptions`].
pub(crate) struct Streaming<'d> {
    pub files: Vec<Input>,
    pub threads: usize,
    pub output: Option<PathBuf>,
    pub quiet: bool,
    pub range: Option<ByteRange>,
    pub stats: Option<PathBuf>,
    /// CSV output is written without its header.
    pub no_header: bool,
    /// `--max-game-bytes`.
    pub max_game_bytes: usize,
    /// Paths a directory walk found that are not regular files (a FIFO, a
    /// socket, a device): reported and skipped.
    pub skipped: Vec<PathBuf>,
    /// The temporary file `-o` is written to, and the path it becomes.
    pending: std::sync::Mutex<Option<crate::output::atomic::Commit>>,
    started: Instant,
    /// The product goes to the process's standard output.
    stdout: bool,
    /// Where the lines for people go.
    pub diag: &'d dyn Diagnostics,
}

impl<'d> Streaming<'d> {
    /// The settings of `args` for `inputs`, the product going to `records`;
    /// the run's clock starts here. A directory among the inputs stands for
    /// the PGN files under it ([`crate::input::open::expand_dirs`]).
    pub fn new(
        args: &RunOptions,
        inputs: Vec<Input>,
        records: &RecordSink<'_>,
        diag: &'d dyn Diagnostics,
    ) -> Streaming<'d> {
        let mut files = Vec::with_capacity(inputs.len());
        let mut skipped = Vec::new();
        for input in inputs {
            match input {
                Input::Path(path) => {
                    let expanded = crate::input::open::expand_dirs(std::slice::from_ref(&path));
                    files.extend(expanded.files.into_iter().map(Input::Path));
                    skipped.extend(expanded.skipped);
                }
                reader => files.push(reader),
            }
        }
        Streaming {
            files,
            skipped,
            stdout: matches!(records, RecordSink::Stdout(_)),
            diag,
            pending: std::sync::Mutex::new(None),
            threads: thread_count(args.threads),
            output: args.output.clone(),
            quiet: args.quiet,
            range: args.byte_range,
            stats: args.stats.clone(),
            no_header: args.no_header,
            max_game_bytes: args.max_game_bytes.bytes(),
            started: Instant::now(),
        }
    }

    /// Refuses `--byte-range` unless exactly one file is read: offsets are
    /// offsets in one file.
    ///
    /// # Errors
    ///
    /// When the range cannot apply.
    pub fn check_range(&self) -> Result<(), Error> {
        if self.range.is_none() {
            return Ok(());
        }
        if self.files.is_empty() || self.files.iter().any(Input::is_stream) {
            return Err(Error::usage(
                "--byte-range needs a file, not standard input",
            ));
        }
        if self.files.len() != 1 {
            return Err(Error::usage("--byte-range needs exactly one input file"));
        }
        Ok(())
    }

    /// Refuses an output file that is also an input: creating it would
    /// truncate the input before a byte of it is read. Only an existing
    /// regular file can be lost so; nothing is opened here.
    ///
    /// # Errors
    ///
    /// When `output` is one of the inputs.
    pub(crate) fn check_output(&self, output: &Path) -> Result<(), Error> {
        self.refuse_input(output, "the output")
    }

    /// Refuses to write `what` to `path` when it is one of the inputs.
    fn refuse_input(&self, path: &Path, what: &str) -> Result<(), Error> {
        let Some(meta) = std::fs::metadata(path).ok().filter(Metadata::is_file) else {
            return Ok(());
        };
        match self.input_of(&meta) {
            Some(input) => Err(Error::usage(format!(
                "refusing to write {what} to {}: it is the input {input}, which it would destroy",
                path.display(),
            ))),
            None => Ok(()),
        }
    }

    /// Refuses a `--stats` file that is an input, or that the run writes
    /// something else to: the product (`-o`, or the file standard output
    /// is), or one of `others` (`--bad-games`, `--good-games`). The
    /// statistics are written last, so they would replace it. Files that do
    /// not exist yet are compared by their absolute paths.
    ///
    /// # Errors
    ///
    /// When the `--stats` file is one of those.
    pub(crate) fn check_stats(&self, others: &[&Path]) -> Result<(), Error> {
        let Some(stats) = self.stats.as_deref() else {
            return Ok(());
        };
        self.refuse_input(stats, "the statistics")?;
        let product = match self.output.as_deref() {
            Some(p) if p != Path::new("-") => same_file(stats, p),
            // Only a regular file can be overwritten (not /dev/null, a pipe).
            _ => stdout_identity(true).is_some_and(|out| identity(stats) == Some(out)),
        };
        if product || others.iter().any(|other| same_file(stats, other)) {
            return Err(Error::usage(format!(
                "refusing to write the statistics to {}: the run writes another output there",
                stats.display()
            )));
        }
        Ok(())
    }

    /// Refuses a standard output that is a file also read as an input
    /// (`pgnkit convert x.pgn >> x.pgn`): the run would read what it
    /// writes, and with `>` the shell has emptied the input already.
    ///
    /// # Errors
    ///
    /// When standard output is one of the inputs.
    fn check_stdout(&self) -> Result<(), Error> {
        if !self.stdout {
            return Ok(());
        }
        let Some(meta) = fd_metadata(std::io::stdout().as_fd()).filter(Metadata::is_file) else {
            return Ok(());
        };
        let Some(input) = self.input_of(&meta) else {
            return Ok(());
        };
        let emptied = if meta.len() == 0 {
            " (it is empty now: the shell truncated it when it opened it for `>`)"
        } else {
            ""
        };
        Err(Error::usage(format!(
            "refusing to write the output to standard output: it is the input {input}, \
             which it would destroy{emptied}; write to another file"
        )))
    }

    /// The name of the input that is the file `meta` describes, if any.
    fn input_of(&self, meta: &Metadata) -> Option<String> {
        let written = Some((meta.dev(), meta.ino()));
        let stdin = [Input::path("-")];
        let inputs = if self.files.is_empty() {
            &stdin[..]
        } else {
            &self.files
        };
        let input = inputs
            .iter()
            .find(|input| input.as_path().is_some_and(|p| identity(p) == written))?;
        Some(input.name())
    }

    /// The writer for the product: `-o FILE`, or the writer of `records`;
    /// with the batch sink of `records`, when it is one (the writer then
    /// gets nothing).
    ///
    /// # Errors
    ///
    /// When the output file (or standard output, when it is written) is an
    /// input, or cannot be created; a batch sink with `-o`.
    ///
    /// It is a [`Spooled`] writer: give a clone of it to
    /// [`Streaming::inputs`] and several inputs are read at once.
    pub fn writer<'a, 'b>(
        &self,
        records: RecordSink<'a>,
    ) -> Result<(Spooled<'b>, Option<Box<dyn BatchSink + 'b>>), Error>
    where
        'a: 'b,
        'd: 'b,
    {
        self.check_stats(&[])?;
        let (stdout, batches): (Box<dyn Write + 'b>, Option<Box<dyn BatchSink + 'b>>) =
            match records {
                RecordSink::Stdout(w) | RecordSink::Writer(w) => (Box::new(w), None),
                RecordSink::Batches(b) => (Box::new(std::io::sink()), Some(b)),
            };
        let out: Box<dyn Write + 'b> = match self.output.as_deref() {
            Some(p) if p != Path::new("-") => {
                if batches.is_some() {
                    return Err(Error::usage(
                        "-o writes bytes: a batch sink takes the records instead",
                    ));
                }
                self.check_output(p)?;
                Box::new(BufWriter::with_capacity(1 << 16, self.create_output(p)?))
            }
            _ => {
                self.check_stdout()?;
                stdout
            }
        };
        let spooled = if self.stats.is_some() {
            Spooled::digested(out, self.diag)
        } else {
            Spooled::new(out, self.diag)
        };
        Ok((spooled, batches))
    }

    /// The writer of a columnar product (`-f parquet`, `-f arrow`) of
    /// `schema`'s records: never onto a terminal.
    ///
    /// # Errors
    ///
    /// When standard output is a terminal and the product goes there.
    pub fn columnar<'a>(
        &self,
        format: crate::output::columnar::Columnar,
        schema: &crate::schema::Schema,
        batches: Option<Box<dyn BatchSink + 'a>>,
    ) -> Result<crate::output::columnar::ColumnarSink<'a>, Error> {
        crate::output::columnar::refuse_terminal(format, self.product_is_terminal())
            .map_err(Error::usage)?;
        crate::output::columnar::ColumnarSink::new(format, schema, batches).map_err(Error::internal)
    }

    /// Refuses a batch sink for a format that is not Arrow's.
    ///
    /// # Errors
    ///
    /// When there are `batches` and `format` is not [`super::Format::Arrow`].
    pub fn check_batches(batches: bool, format: super::Format) -> Result<(), Error> {
        if batches && format != super::Format::Arrow {
            return Err(Error::usage(format!(
                "a batch sink takes the arrow format, not {format}"
            )));
        }
        Ok(())
    }

    /// Refuses to write the HTML page onto a terminal.
    ///
    /// # Errors
    ///
    /// When standard output is a terminal and the page goes there.
    pub fn check_page(&self) -> Result<(), Error> {
        if self.product_is_terminal() {
            return Err(Error::usage(
                "refusing to write the HTML page to a terminal: give -o FILE (then open it in a browser) or redirect standard output",
            ));
        }
        Ok(())
    }

    /// Whether the product would go onto a terminal: standard output that
    /// is one, or an `-o` that names one (`/dev/tty`, `/dev/stdout` on a
    /// terminal, a pty), opened without becoming its controlling terminal.
    fn product_is_terminal(&self) -> bool {
        let path = self.product_path();
        (self.stdout || path != Path::new("-")) && crate::output::columnar::names_a_terminal(path)
    }

    /// Opens the `-o` file `path` ([`crate::output::atomic::create`]): a
    /// regular file is written as a temporary file beside it, which
    /// [`Streaming::finish`] renames onto it, so a run that fails leaves the
    /// old file as it was, and no half-written one.
    fn create_output(&self, path: &Path) -> Result<File, Error> {
        let (file, commit) = crate::output::atomic::create(path)?.split();
        *self.pending.lock().expect("not poisoned") = Some(commit);
        Ok(file)
    }

    /// The file the product is written to: the `-o` file, or `-` for
    /// standard output.
    pub fn product_path(&self) -> &Path {
        match self.output.as_deref() {
            Some(p) => p,
            None => Path::new("-"),
        }
    }

    /// The error of a failed write of the product (`what` names it):
    /// `failed to write the {what}`, about [`Streaming::product_path`].
    pub fn write_error(&self, what: &str) -> impl Fn(std::io::Error) -> Error + use<'_> {
        let message = format!("failed to write the {what}");
        move |e| Error::output(self.product_path(), message.clone(), e)
    }

    /// The inputs as the stream reads them; with `spool` (the product
    /// writer), several at once.
    /// Says once, on standard error, that a terminal's standard input is
    /// read when no file was given (a user who forgot the file otherwise
    /// sees nothing happen).
    pub fn inputs<'f, 's>(&'f self, spool: Option<&'f Spooled<'s>>) -> stream::Inputs<'f, 's> {
        for path in &self.skipped {
            self.error(format!(
                "{}: skipped: not a regular file (a FIFO, socket or device could block the run)",
                path.display()
            ));
        }
        if self.files.is_empty() && !self.quiet && std::io::stdin().is_terminal() {
            self.diag.line(
                Level::Note,
                "pgnkit: reading standard input (no FILE given); end it with Ctrl-D, \
                 or give files as arguments",
            );
        }
        stream::Inputs {
            files: &self.files,
            range: self.range,
            threads: self.threads,
            quiet: self.quiet || !self.diag.shows_progress(),
            spool,
            max_game_bytes: self.max_game_bytes,
            movetext: crate::input::scan::Movetext::Tokens,
        }
    }

    /// The files games are copied to (`validate --bad-games/--good-games`,
    /// `dedupe --duplicates/--unique`; `flags` names them in errors),
    /// checked and created: none may be an input, standard output, the
    /// product or the other; `None` without either.
    ///
    /// # Errors
    ///
    /// When a file is refused, or one cannot be created.
    pub fn game_files(
        &self,
        bad: Option<&Path>,
        good: Option<&Path>,
        flags: &str,
    ) -> Result<Option<crate::output::problem_games::ProblemGames>, Error> {
        if bad.is_none() && good.is_none() {
            return Ok(None);
        }
        if self.range.is_some() {
            return Err(Error::usage(format!(
                "{flags} cannot be used with --byte-range"
            )));
        }
        let mut taken: Vec<(u64, u64)> = self
            .output
            .iter()
            .filter(|o| o.as_path() != Path::new("-"))
            .filter_map(|o| identity(o))
            .collect();
        // Whatever standard output is (a file, a pipe, a terminal): games
        // written there too would mix with the product.
        let stdout = stdout_identity(false);
        let mut created: Option<PathBuf> = None;
        let refuse = |path: &Path, why: &str| {
            Error::usage(format!(
                "refusing to write games to {}: {why}",
                path.display()
            ))
        };
        let another = "the run writes another output there";
        crate::output::problem_games::ProblemGames::create(bad, good, |path| {
            if path == Path::new("-") {
                return Err(Error::usage(format!(
                    "{flags} write files: `-` (standard output) holds the product"
                )));
            }
            self.check_output(path)?;
            let id = identity(path);
            if id.is_some()
                && id == stdout
                && self.output.as_deref().is_none_or(|o| o == Path::new("-"))
            {
                return Err(refuse(path, "standard output goes there too"));
            }
            if id.is_some_and(|id| taken.contains(&id)) || created.as_deref() == Some(path) {
                return Err(refuse(path, another));
            }
            taken.extend(id);
            created = Some(path.to_owned());
            Ok(())
        })
        .map(Some)
    }

    /// Reports `message` as an error line (`pgnkit: {message}`).
    pub fn error(&self, message: impl std::fmt::Display) {
        self.diag.line(Level::Error, &diag::error_line(message));
    }

    /// Reports `message` as a warning line (`pgnkit: warning: {message}`).
    pub fn warning(&self, message: impl std::fmt::Display) {
        self.diag.line(Level::Warning, &diag::warning_line(message));
    }

    /// The tail every streaming subcommand shares: flushes the product
    /// (`what` names it in the error) and renames a temporary `-o` file onto
    /// its name, writes the `--stats` of `product`, prints `N games,
    /// {summary}` on standard error unless `--quiet` (ending with how many
    /// inputs could not be read, when any could not), and gives the exit
    /// status of a run that found `problems`.
    ///
    /// # Errors
    ///
    /// When the product or the statistics cannot be written.
    pub fn finish(
        &self,
        out: &mut Spooled<'_>,
        totals: &Totals,
        product: &Product<'_>,
        problems: u64,
        summary: &str,
    ) -> Result<super::Summary, Error> {
        let what = product.what;
        out.flush().map_err(self.write_error(what))?;
        if let Some(commit) = self.pending.lock().expect("not poisoned").take() {
            commit.commit().map_err(|e| {
                let message = format!("cannot rename the finished {what} onto its name");
                Error::output(self.product_path(), message, e)
            })?;
        }
        let failed = totals.failed + self.skipped.len() as u64;
        if let Some(path) = &self.stats {
            self.stats_of(totals, failed, product, out.digest().unwrap_or_default())
                .write(path)?;
        }
        if !self.quiet {
            let skipped = match totals.skipped {
                0 => String::new(),
                n => format!(
                    ", {n} stretch{} skipped (--max-game-bytes)",
                    if n == 1 { "" } else { "es" }
                ),
            };
            let text = format!(
                "{}, {summary}{skipped}{}",
                diag::games(totals.games),
                unread(failed)
            );
            let line = diag::summary_line(text, self.started.elapsed());
            self.diag.line(Level::Note, &line);
        }
        Ok(super::Summary {
            status: ExitStatus::of_run(problems + totals.skipped, failed),
            games: totals.games,
            records: product.records,
            unread: failed,
        })
    }

    /// The `--stats` of a run.
    fn stats_of(
        &self,
        totals: &Totals,
        failed: u64,
        product: &Product<'_>,
        digest: Digest,
    ) -> stats::RunStats {
        let inputs = totals
            .inputs
            .iter()
            .map(|input| {
                let (start, end) = input.range.map_or((0, None), |r| (r.start, r.end));
                let stats::OnDisk {
                    path,
                    path_bytes,
                    size,
                    mtime_ns,
                } = stats::OnDisk::of(&input.path);
                stats::InputStats {
                    file: input.file.clone(),
                    path,
                    path_bytes,
                    size,
                    mtime_ns,
                    start,
                    end,
                    first_byte: input.first_byte,
                    limit: input.limit,
                    end_byte: input.end_byte,
                    games: input.games,
                    lines: input.lines,
                    first_offset: input.first_offset,
                    last_offset: input.last_offset,
                    region_digest: input.region.map(|d| d.hex()),
                }
            })
            .collect();
        let (args, cwd) = stats::invocation();
        stats::RunStats {
            version: stats::VERSION,
            command: product.command.name().to_owned(),
            format: product.format.to_owned(),
            header: !self.no_header,
            columns: product.columns.clone(),
            options: product.options.clone(),
            inputs,
            games: totals.games,
            failed,
            findings: product.codes.by_name(),
            output: stats::OutputStats {
                bytes: digest.len(),
                records: product.records,
                digest: digest.hex(),
            },
            args,
            cwd,
            checksum: None,
        }
    }
}

/// The name clap gives `value` on the command line (`csv`, `jsonl`, …).
pub(crate) fn value_name<V: clap::ValueEnum>(value: &V) -> String {
    value
        .to_possible_value()
        .expect("every value has a name")
        .get_name()
        .to_owned()
}

/// The device and inode of the file standard output is, whatever it is (a
/// file, a pipe, a terminal); with `regular`, only when it is a regular
/// file (the only kind a run could overwrite).
pub(crate) fn stdout_identity(regular: bool) -> Option<(u64, u64)> {
    fd_metadata(std::io::stdout().as_fd())
        .filter(|m| !regular || m.is_file())
        .map(|m| (m.dev(), m.ino()))
}

/// What a subcommand wrote, for the tail ([`Streaming::finish`]) and its
/// `--stats`.
pub(crate) struct Product<'c> {
    /// What the product is called in errors (`report`, `output`).
    pub what: &'static str,
    /// The subcommand.
    pub command: super::Subcommand,
    /// The product's format, as `-f` or `--to` names it.
    pub format: String,
    /// A CSV product's columns.
    pub columns: Option<Vec<String>>,
    /// The flags besides the format that change the product, canonically
    /// spelt (what a rerun of a shard is given).
    pub options: Vec<String>,
    /// Records written (rows or lines), the header not counted.
    pub records: u64,
    /// Findings (or other records) per code.
    pub codes: &'c Tally,
}

/// The end of a summary when `failed` inputs could not be opened or read
/// to their end (`, 2 inputs could not be read`): a run that lost an
/// input must not read like a success.
fn unread(failed: u64) -> String {
    match failed {
        0 => String::new(),
        1 => ", 1 input could not be read".to_owned(),
        n => format!(", {n} inputs could not be read"),
    }
}

/// Reports `finding` of the game at `place` (its line relative to the
/// chunk at `line_offset`) on standard error, in `validate`'s words: what
/// came from the input is escaped and cut there (the file name is the
/// user's own).
pub(crate) fn report_finding(
    spool: &Spooled<'_>,
    place: &FindingPlace<'_>,
    line_offset: u64,
    mut finding: Finding,
) {
    finding.line += line_offset;
    finding.san = finding
        .san
        .map(|san| diag::clipped(&san, diag::SHOWN).into_owned());
    finding.message = diag::clipped(&finding.message, 2 * diag::SHOWN).into_owned();
    let mut text = Vec::new();
    report::write_finding(&mut text, report::Format::Text, place, &finding)
        .expect("writing to a Vec cannot fail");
    spool.error(String::from_utf8_lossy(text.trim_ascii_end()));
}
