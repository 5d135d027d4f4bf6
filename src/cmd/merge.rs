//! `pgnkit merge`: the outputs of `--byte-range` shards (CSV or JSON Lines,
//! each with the `--stats` it wrote) into the output one run over the
//! whole file gives.
//!
//! Shards and their statistics are another run's output, so merge trusts
//! none of them: before it writes a byte it checks every statistics file's
//! checksum, every shard's size and digest against its statistics, its
//! records against its counts, that all shards come from one subcommand
//! with the same output-affecting flags, and that they tile their file.
//! Then it writes the merged output to a temporary file beside `-o` and
//! renames it on success, so a refused or interrupted merge leaves the old
//! output as it was.
//!
//! The contract, per file (shards ordered by range start): a shard is
//! exact when it began where its predecessor's parse ended (`first_byte`
//! of one equals `end_byte` of the one before). Then its `game` and `line`
//! values are shifted by the games and lines of the shards before it. A
//! shard whose region its predecessor read to the end is skipped; one that
//! began inside a game its predecessor owns is run again from where that
//! game ended: on the recorded file (its absolute path, byte for byte,
//! after checking its size and modification time), with the recorded
//! output-affecting flags only. `offset` is file-wide already and is kept.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};

use crate::cli::MergeArgs;
use crate::error::{Error, ErrorKind};
use crate::exit::ExitStatus;
use crate::output::columnar::Columnar;
use crate::output::stats::{Digest, RunStats, path_from_hex};
use crate::schema;
use crate::schema::arrow::ArrowRows;
use arrow_array::cast::AsArray;
use arrow_array::types::UInt64Type;
use arrow_array::{RecordBatch, StringArray, UInt64Array};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::identity;
use crate::output::{atomic, diag, write_csv_record};

/// The largest statistics file read: a shard's are a few hundred bytes.
const MAX_STATS: u64 = 16 << 20;

/// Subcommands whose shards merge, and the format flag each takes.
const MERGEABLE: [(&str, &str); 3] = [
    ("validate", "-f"),
    ("annotate-outcome", "-f"),
    ("convert", "--to"),
];

/// One shard: where its output is, and what its statistics say.
#[derive(Debug, Clone)]
struct Shard {
    output: PathBuf,
    stats_path: PathBuf,
    stats: RunStats,
    /// The input file, exactly as recorded.
    path: PathBuf,
}

impl Shard {
    fn input(&self) -> &crate::output::stats::InputStats {
        &self.stats.inputs[0]
    }
}

/// The statistics file of a shard output.
fn stats_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".stats.json");
    PathBuf::from(name)
}

/// Reads and checks the statistics of the shard written to `output`.
fn read_shard(output: &Path) -> Result<Shard, Error> {
    let path = stats_path(output);
    let refuse = |why: String| Error::bad_input(&path, format!("{}: {why}", path.display()));
    let unread = |e: io::Error| {
        Error::input(
            &path,
            format!("cannot read the statistics {}", path.display()),
            e,
        )
    };
    let file = File::open(&path).map_err(unread)?;
    let mut text = String::new();
    file.take(MAX_STATS + 1)
        .read_to_string(&mut text)
        .map_err(unread)?;
    if text.len() as u64 > MAX_STATS {
        return Err(refuse("it is too large to be pgnkit --stats".to_owned()));
    }
    let stats = RunStats::parse(&text).map_err(refuse)?;
    let [input] = stats.inputs.as_slice() else {
        return Err(refuse(
            "a shard must have read exactly one input".to_owned(),
        ));
    };
    if !MERGEABLE.iter().any(|(c, _)| *c == stats.command) {
        return Err(refuse(format!(
            "it was written by `pgnkit {}`, whose output does not merge",
            stats.command
        )));
    }
    if !matches!(stats.format.as_str(), "csv" | "jsonl" | "parquet" | "arrow") {
        return Err(refuse(format!(
            "its shard is {} output; merge reads CSV, JSON Lines, Parquet and Arrow",
            stats.format
        )));
    }
    if stats.format == "csv" && stats.columns.as_ref().is_none_or(Vec::is_empty) {
        return Err(refuse(
            "a CSV shard's statistics name no columns".to_owned(),
        ));
    }
    // (`first_byte` may lie before `start` only when the range starts past
    // the end of the file.)
    let consistent = input.end_byte >= input.first_byte
        && input.limit.is_none_or(|l| l >= input.first_byte)
        && input.end.is_none_or(|e| e >= input.start)
        && stats.games == input.games
        && input.first_offset.is_none_or(|o| o >= input.first_byte)
        && input.last_offset.is_none_or(|o| o < input.end_byte.max(1));
    if !consistent {
        return Err(refuse("its numbers contradict each other".to_owned()));
    }
    let recorded = match (&stats.command[..], &stats.format[..]) {
        ("validate", _) => Some(
            stats
                .findings
                .values()
                .try_fold(0u64, |a, &n| a.checked_add(n)),
        ),
        ("annotate-outcome", _) | ("convert", "csv") => Some(Some(input.games)),
        _ => None,
    };
    match recorded {
        Some(None) => return Err(refuse("its counts overflow".to_owned())),
        Some(Some(n)) if n != stats.output.records => {
            return Err(refuse(format!(
                "it says {} records were written, but its counts make {n}",
                stats.output.records
            )));
        }
        _ => {}
    }
    let input_path = input
        .path_bytes
        .as_deref()
        .and_then(path_from_hex)
        .ok_or_else(|| {
            refuse("its input is not a file (a shard reads a byte range of a file)".to_owned())
        })?;
    Ok(Shard {
        output: output.to_owned(),
        stats_path: stats_path(output),
        stats,
        path: input_path,
    })
}

/// Refuses an output that is one of the shards, their statistics or their
/// input: writing it would destroy what is being merged.
fn check_output(args: &MergeArgs, shards: &[Shard]) -> Result<(), Error> {
    let mut read: Vec<((u64, u64), &Path)> = Vec::new();
    for shard in shards {
        for p in [&shard.output, &shard.stats_path, &shard.path] {
            if let Some(id) = identity(p) {
                read.push((id, p));
            }
        }
    }
    let written = match args.output.as_deref() {
        Some(p) if p != Path::new("-") => identity(p).map(|id| (id, p.display().to_string())),
        _ => super::stdout_identity(true).map(|id| (id, "standard output".to_owned())),
    };
    if let Some((id, name)) = written
        && let Some((_, shard)) = read.iter().find(|(r, _)| *r == id)
    {
        return Err(Error::usage(format!(
            "refusing to write the merged output to {name}: it is {}, which merge reads",
            shard.display()
        )));
    }
    Ok(())
}

/// Refuses shards that are not the output of one command with the same
/// flags, or not in the format asked for.
fn check_alike(args: &MergeArgs, shards: &[Shard]) -> anyhow::Result<()> {
    let want = super::value_name(&args.format);
    let first = &shards[0];
    for shard in shards {
        let s = &shard.stats;
        if s.format != want {
            bail!(
                "{}: it is a {} shard, and this merge reads {want} (give -f {})",
                shard.output.display(),
                s.format,
                s.format
            );
        }
        let f = &first.stats;
        if (s.command.as_str(), &s.options, &s.columns)
            != (f.command.as_str(), &f.options, &f.columns)
        {
            let hint = if s.command == "convert"
                && s.format == "csv"
                && !s.options.iter().any(|o| o == "--tags")
            {
                " (convert CSV without --tags chooses its columns from each shard's first games: give --tags)"
            } else {
                ""
            };
            bail!(
                "{} was written by `pgnkit {}` and {} by `pgnkit {}`: shards must come from one \
                 command with the same flags{hint}",
                first.output.display(),
                describe(f),
                shard.output.display(),
                describe(s)
            );
        }
    }
    Ok(())
}

/// A shard's command and output-affecting flags, as a rerun gives them.
fn describe(s: &RunStats) -> String {
    let mut text = format!("{} {} {}", s.command, format_flag(&s.command), s.format);
    for option in &s.options {
        text.push(' ');
        text.push_str(option);
    }
    if let Some(columns) = &s.columns {
        text.push_str(&format!(" ({} columns)", columns.len()));
    }
    text
}

/// The flag that names the format of `command`.
fn format_flag(command: &str) -> &'static str {
    MERGEABLE
        .iter()
        .find(|(c, _)| *c == command)
        .map_or("-f", |(_, f)| f)
}

/// Where every CSV row of pgnkit names its file.
const FILE_COLUMN: usize = 0;

/// Where pgnkit's own `game` and `line` columns are in a CSV row of
/// `command` (tags come after them, or after pgnkit's leading columns).
fn own_columns(command: &str) -> (usize, Option<usize>) {
    let schema = schema::of_command(command).unwrap_or(&schema::game::GAME);
    // The tag columns come after pgnkit's leading ones, so positions in
    // the header without tags hold in any run.
    let fixed = schema.csv_names(&[]);
    let game = fixed
        .iter()
        .position(|c| *c == schema::common::GAME.name)
        .expect("a game column");
    let line = fixed.iter().position(|c| *c == schema::finding::LINE.name);
    (game, line)
}

/// Reads a shard's output once to check it against its statistics: its
/// size and digest, its header and its record count.
fn verify(shard: &Shard) -> anyhow::Result<()> {
    let name = shard.output.display();
    let file = File::open(&shard.output).with_context(|| format!("cannot open {name}"))?;
    let mut digest = Digest::default();
    let mut reader = BufReader::with_capacity(1 << 16, file);
    loop {
        let buf = reader
            .fill_buf()
            .with_context(|| format!("cannot read {name}"))?;
        if buf.is_empty() {
            break;
        }
        digest.update(buf);
        let n = buf.len();
        reader.consume(n);
    }
    let out = &shard.stats.output;
    if digest.len() != out.bytes || digest.hex() != out.digest {
        bail!(
            "{name}: it is not the output its statistics describe ({} bytes, {} recorded): it was \
             cut, edited or replaced, or belongs to other statistics",
            digest.len(),
            out.bytes
        );
    }
    let file = File::open(&shard.output).with_context(|| format!("cannot open {name}"))?;
    let mut records = 0u64;
    let mut count = |r: Record<'_>| {
        records += r.len();
        Ok(())
    };
    each_record(shard, file, &mut count)?;
    if records != out.records {
        bail!(
            "{name}: it holds {records} records and its statistics say {}",
            out.records
        );
    }
    Ok(())
}

/// One record of a shard.
enum Record<'r> {
    Json(&'r [u8]),
    Csv(&'r csv::ByteRecord),
    /// A batch of a Parquet or Arrow shard, its columns checked.
    Batch(&'r RecordBatch),
}

impl Record<'_> {
    /// The records it holds.
    fn len(&self) -> u64 {
        match self {
            Record::Batch(b) => b.num_rows() as u64,
            _ => 1,
        }
    }
}

/// Whether a shard's format is columnar, and which.
fn columnar(format: &str) -> Option<Columnar> {
    match format {
        "parquet" => Some(Columnar::Parquet),
        "arrow" => Some(Columnar::Arrow),
        _ => None,
    }
}

/// The record kind of a columnar shard of `stats`.
fn columnar_schema(stats: &RunStats) -> &'static schema::Schema {
    let positions = stats
        .options
        .windows(2)
        .any(|w| w[0] == "--positions" && w[1] == "all");
    if stats.command == "convert" && positions {
        return &schema::position::POSITION;
    }
    schema::of_command(&stats.command).unwrap_or(&schema::game::GAME)
}

/// The batches of a columnar shard, each checked to have the record's
/// columns.
fn each_batch(
    shard: &Shard,
    format: Columnar,
    file: File,
    record: &mut dyn FnMut(Record<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let name = shard.output.display();
    let rows = ArrowRows::new(columnar_schema(&shard.stats));
    let batches: Box<dyn Iterator<Item = Result<RecordBatch, arrow_schema::ArrowError>>> =
        match format {
            Columnar::Parquet => Box::new(
                ParquetRecordBatchReaderBuilder::try_new(file)
                    .with_context(|| format!("{name}: not Parquet"))?
                    .with_batch_size(crate::output::columnar::BATCH_ROWS)
                    .build()
                    .with_context(|| format!("{name}: not Parquet"))?,
            ),
            Columnar::Arrow => Box::new(
                arrow_ipc::reader::StreamReader::try_new(BufReader::new(file), None)
                    .with_context(|| format!("{name}: not an Arrow IPC stream"))?,
            ),
        };
    for batch in batches {
        let batch = batch.with_context(|| format!("{name}: cannot read a batch"))?;
        rows.check_columns(&batch)
            .map_err(|e| anyhow::anyhow!("{name}: not pgnkit's {} records: {e}", format.name()))?;
        record(Record::Batch(&batch))?;
    }
    Ok(())
}

/// `batch` with `by` added to its `column` (`game`, `line`).
fn shift_column(batch: RecordBatch, column: &str, by: u64) -> anyhow::Result<RecordBatch> {
    let Ok(at) = batch.schema_ref().index_of(column) else {
        return Ok(batch);
    };
    if by == 0 {
        return Ok(batch);
    }
    let values = batch
        .column(at)
        .as_primitive_opt::<UInt64Type>()
        .with_context(|| format!("`{column}` is not an unsigned integer"))?;
    let shifted = values
        .iter()
        .map(|v| {
            v.map(|v| {
                v.checked_add(by)
                    .with_context(|| format!("`{column}` {v} cannot be shifted by {by}"))
            })
            .transpose()
        })
        .collect::<anyhow::Result<UInt64Array>>()?;
    let mut columns = batch.columns().to_vec();
    columns[at] = Arc::new(shifted);
    Ok(RecordBatch::try_new(batch.schema(), columns)?)
}

/// `batch` with every `file` value `file`.
fn rename_file(batch: RecordBatch, file: &str) -> anyhow::Result<RecordBatch> {
    let at = batch.schema_ref().index_of(schema::common::FILE.name)?;
    let mut columns = batch.columns().to_vec();
    columns[at] = Arc::new(StringArray::from(vec![file; batch.num_rows()]));
    Ok(RecordBatch::try_new(batch.schema(), columns)?)
}

/// Calls `record` with every record of a shard, checking the shape of
/// each and, for CSV, that a header row is the recorded columns.
fn each_record(
    shard: &Shard,
    file: File,
    record: &mut dyn FnMut(Record<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let name = shard.output.display();
    if let Some(format) = columnar(&shard.stats.format) {
        return each_batch(shard, format, file, record);
    }
    let reader = BufReader::with_capacity(1 << 16, file);
    if shard.stats.format == "jsonl" {
        for line in reader.split(b'\n') {
            let line = line.with_context(|| format!("cannot read {name}"))?;
            json_places(&line)
                .with_context(|| format!("{name}: a record that is not pgnkit JSON"))?;
            record(Record::Json(&line))?;
        }
        return Ok(());
    }
    let columns = shard.stats.columns.as_deref().unwrap_or_default();
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(reader);
    let mut row = csv::ByteRecord::new();
    let mut first = shard.stats.header;
    while csv
        .read_byte_record(&mut row)
        .with_context(|| format!("{name}: not CSV"))?
    {
        if row.len() != columns.len() {
            bail!(
                "{name}: line {}: {} fields where its statistics name {} columns",
                row.position().map_or(0, csv::Position::line),
                row.len(),
                columns.len()
            );
        }
        if first {
            first = false;
            let names: Vec<String> = row
                .iter()
                .map(|f| String::from_utf8_lossy(f).into_owned())
                .collect();
            if names != columns {
                bail!("{name}: its header is not the columns its statistics name");
            }
            continue;
        }
        record(Record::Csv(&row))?;
    }
    if first {
        bail!("{name}: its header is missing");
    }
    Ok(())
}

/// The byte ranges of the numbers (or `null`s) of the top-level `game` and
/// `line` keys of one JSON object, checking that the record is one object.
fn json_places(record: &[u8]) -> anyhow::Result<[Option<std::ops::Range<usize>>; 3]> {
    let mut places = [None, None, None];
    if record.first() != Some(&b'{') || record.last() != Some(&b'}') {
        bail!("it is not one JSON object on its line");
    }
    let mut depth = 0usize;
    let mut i = 0;
    // The last string at depth 1 and where it ended, to tell a key.
    let mut key: Option<std::ops::Range<usize>> = None;
    while i < record.len() {
        match record[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                loop {
                    match record.get(i) {
                        None => bail!("a string that does not end"),
                        Some(b'\\') => i += 2,
                        Some(b'"') => break,
                        Some(_) => i += 1,
                    }
                }
                key = (depth == 1).then_some(start..i);
                i += 1;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1).context("unbalanced brackets")?;
                if depth == 0 && i + 1 != record.len() {
                    bail!("text after the object");
                }
            }
            b':' if depth == 1 => {
                if let Some(k) = key.take() {
                    let name = &record[k.clone()];
                    let slot = if name == schema::common::GAME.name.as_bytes() {
                        Some(0)
                    } else if name == schema::finding::LINE.name.as_bytes() {
                        Some(1)
                    } else {
                        None
                    };
                    if name == schema::common::FILE.name.as_bytes() {
                        places[2] = Some(string_at(record, i + 1)?);
                    }
                    if let Some(slot) = slot {
                        let start = i + 1;
                        let len = record[start..]
                            .iter()
                            .take_while(|b| b.is_ascii_alphanumeric())
                            .count();
                        places[slot] = Some(start..start + len);
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    if depth != 0 {
        bail!("unbalanced brackets");
    }
    Ok(places)
}

/// The byte range of the JSON string (quotes included) at `at`.
fn string_at(record: &[u8], at: usize) -> anyhow::Result<std::ops::Range<usize>> {
    if record.get(at) != Some(&b'"') {
        bail!("a `file` that is not a string");
    }
    let mut i = at + 1;
    loop {
        match record.get(i) {
            None => bail!("a string that does not end"),
            Some(b'\\') => i += 2,
            Some(b'"') => return Ok(at..i + 1),
            Some(_) => i += 1,
        }
    }
}

/// One shard of the plan: its records are copied, with `game` and `line`
/// shifted by the games and lines of the shards of its file before it.
struct Step {
    shard: usize,
    /// The name the records give their file, when a rerun named it
    /// otherwise (the rerun reads the absolute path).
    file: Option<String>,
    /// The shard run again from where its predecessor's last game ended.
    rerun: Option<Shard>,
    games: u64,
    lines: u64,
}

/// The steps that merge `shards` (sorted by file, then start), running a
/// shard again where it began inside its predecessor's last game, and the
/// shards whose runs could not read their input to the end. Nothing is
/// written here: a refusal leaves no output.
fn plan(shards: &[Shard], reruns: &mut Reruns<'_>) -> anyhow::Result<(Vec<Step>, Vec<usize>)> {
    let mut steps = Vec::new();
    let mut failed = Vec::new();
    let mut i = 0;
    while i < shards.len() {
        let first = &shards[i];
        let file = &first.path;
        let (mut owned_until, mut games, mut lines) = (0u64, 0u64, 0u64);
        let mut stopped = false;
        let mut reached_end = false;
        while i < shards.len() && shards[i].path == *file {
            let shard = &shards[i];
            let input = shard.input();
            if input.file != first.input().file {
                bail!(
                    "{} and {} name {} differently (`{}` and `{}`), which no one run does: run \
                     the shards with the same file name",
                    first.output.display(),
                    shard.output.display(),
                    file.display(),
                    first.input().file,
                    input.file
                );
            }
            if (input.size, input.mtime_ns) != (first.input().size, first.input().mtime_ns) {
                bail!(
                    "{} and {} read {} at different times (its size or modification time \
                     differ): the file changed between shards",
                    first.output.display(),
                    shard.output.display(),
                    file.display()
                );
            }
            if stopped || input.limit.is_some_and(|l| l <= owned_until) {
                // Its whole region was read by the shard before it.
                i += 1;
                continue;
            }
            let rerun = if input.first_byte == owned_until {
                None
            } else if input.first_byte < owned_until {
                Some(reruns.run(i, shard, owned_until)?)
            } else {
                bail!(
                    "{}: no shard holds bytes {owned_until}..{} of {} (the ranges must tile the file)",
                    shard.output.display(),
                    input.first_byte,
                    file.display()
                );
            };
            let used = rerun.as_ref().unwrap_or(shard);
            let read = used.input();
            let file = rerun
                .as_ref()
                .filter(|r| r.input().file != input.file)
                .map(|_| input.file.clone());
            steps.push(Step {
                shard: i,
                file,
                games,
                lines,
                rerun: rerun.clone(),
            });
            if used.stats.failed > 0 {
                failed.push(i);
                stopped = true;
            }
            games = games
                .checked_add(read.games)
                .context("the shards' game counts overflow")?;
            lines = lines
                .checked_add(read.lines)
                .context("the shards' line counts overflow")?;
            owned_until = read.end_byte;
            reached_end = read.limit.is_none();
            i += 1;
        }
        if !stopped && !reached_end {
            bail!(
                "no shard holds the end of {} (bytes {owned_until}.. are missing)",
                file.display()
            );
        }
    }
    Ok((steps, failed))
}

/// Reruns of shards, in a temporary directory made when the first is
/// needed.
struct Reruns<'a> {
    exe: &'a Path,
    interrupted: &'a AtomicBool,
    dir: Option<tempfile::TempDir>,
}

impl Reruns<'_> {
    fn run(&mut self, index: usize, shard: &Shard, from: u64) -> anyhow::Result<Shard> {
        let dir = match &mut self.dir {
            Some(dir) => dir,
            None => self.dir.insert(tempfile::tempdir().with_context(|| {
                format!(
                    "cannot make a temporary directory in {} to rerun shards (set TMPDIR)",
                    std::env::temp_dir().display()
                )
            })?),
        };
        let base = dir.path().join(index.to_string());
        run_again(shard, from, &base, self.exe, self.interrupted)
    }
}

/// Set by SIGINT or SIGTERM: the merge stops, ends a rerun's child and
/// leaves nothing behind.
/// Registered once per process (a library caller may merge many times).
fn interrupted_flag() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    Arc::clone(FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // Should registering fail, a signal kills the merge as before:
            // still no partial output (it is a temporary file until the
            // end), but the rerun's child would live on.
            let _ = signal_hook::flag::register(signal, Arc::clone(&flag));
        }
        flag
    }))
}

fn check_interrupt(flag: &AtomicBool) -> anyhow::Result<()> {
    if flag.load(Ordering::Relaxed) {
        bail!("interrupted: nothing was written, and the temporary files are removed");
    }
    Ok(())
}

/// What became of an error met reading `shard`: a typed [`Error`] (a
/// write that failed) stays as it is; anything else is the shard refused
/// as an input, its message unchanged.
fn about(shard: &Path) -> impl Fn(anyhow::Error) -> Error + '_ {
    move |err| match err.downcast::<Error>() {
        Ok(err) => err,
        Err(err) => Error::composed(ErrorKind::Input, err).with_path(shard),
    }
}

/// Runs `merge`, rerunning shards with this pgnkit binary.
///
/// # Errors
///
/// When a shard or its statistics cannot be read or are refused, a rerun
/// fails, shards do not tile their file, or the output cannot be written.
pub fn run(args: &MergeArgs, stdout: &mut dyn Write) -> Result<ExitStatus, Error> {
    let exe = std::env::current_exe().context("cannot find the pgnkit binary to rerun a shard")?;
    merge(args, stdout, &exe)
}

/// Runs `merge`, rerunning shards with the pgnkit binary `exe`.
///
/// # Errors
///
/// As [`run`].
pub fn merge(args: &MergeArgs, stdout: &mut dyn Write, exe: &Path) -> Result<ExitStatus, Error> {
    let interrupted = interrupted_flag();
    let to = args.output.as_deref().unwrap_or(Path::new("-"));
    let write_failed = |e| Error::output(to, "failed to write the merged output", e);
    if let Some(p) = args.output.as_deref().filter(|p| *p != Path::new("-")) {
        if p.is_dir() {
            return Err(Error::usage(format!(
                "cannot write the merged output to {}: it is a directory",
                p.display()
            )));
        }
        let dir = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Err(Error::usage(format!(
                "cannot write the merged output to {}: {} is no directory",
                p.display(),
                dir.display()
            )));
        }
    }
    let mut shards = args
        .shards
        .iter()
        .map(|p| read_shard(p))
        .collect::<Result<Vec<Shard>, Error>>()?;
    check_output(args, &shards)?;
    check_alike(args, &shards)?;
    for (i, a) in shards.iter().enumerate() {
        if let Some(b) = shards[..i]
            .iter()
            .find(|b| identity(&b.output) == identity(&a.output))
        {
            return Err(Error::usage(format!(
                "{} and {} are the same shard",
                b.output.display(),
                a.output.display()
            )));
        }
    }
    for shard in &shards {
        verify(shard).map_err(about(&shard.output))?;
        check_interrupt(&interrupted)?;
    }
    // Files in the order first named, shards of a file by range start.
    let mut files: Vec<PathBuf> = Vec::new();
    for s in &shards {
        if !files.contains(&s.path) {
            files.push(s.path.clone());
        }
    }
    shards.sort_by_key(|s| {
        let file = files.iter().position(|f| *f == s.path);
        (file, s.input().start, s.input().first_byte)
    });
    let mut reruns = Reruns {
        exe,
        interrupted: &interrupted,
        dir: None,
    };
    let (steps, failed) = plan(&shards, &mut reruns)?;

    let mut commit = None;
    let mut out: Box<dyn Write + '_> = match &args.output {
        Some(p) if p != Path::new("-") => {
            let (file, c) = atomic::create(p)?.split();
            commit = Some(c);
            Box::new(io::BufWriter::with_capacity(1 << 16, file))
        }
        _ => Box::new(stdout),
    };
    let first = &shards[0].stats;
    let mut sink = match columnar(&first.format) {
        Some(format) => {
            crate::output::columnar::refuse_terminal(format, to == Path::new("-"))
                .map_err(Error::usage)?;
            Some(
                crate::output::columnar::ColumnarSink::new(format, columnar_schema(first))
                    .map_err(Error::internal)?,
            )
        }
        None => None,
    };
    if first.format == "csv" && !args.no_header {
        write_csv_record(&mut out, first.columns.iter().flatten()).map_err(write_failed)?;
    }
    let (game_col, line_col) = own_columns(&first.command);
    let keys = match first.command.as_str() {
        "validate" => [true, true],
        _ => [true, false],
    };
    for step in &steps {
        let (games, lines) = (step.games, step.lines);
        let shard = step.rerun.as_ref().unwrap_or(&shards[step.shard]);
        let file = File::open(&shard.output).map_err(|e| {
            Error::input(
                &shard.output,
                format!("cannot open {}", shard.output.display()),
                e,
            )
        })?;
        let mut n = 0u32;
        let mut copy = |record: Record<'_>| -> anyhow::Result<()> {
            n = n.wrapping_add(1);
            if n.is_multiple_of(4096) {
                check_interrupt(&interrupted)?;
            }
            match record {
                Record::Json(bytes) => write_json(
                    &mut out,
                    bytes,
                    keys,
                    games,
                    lines,
                    step.file.as_deref(),
                    to,
                ),
                Record::Batch(batch) => {
                    let mut batch = shift_column(batch.clone(), schema::common::GAME.name, games)?;
                    batch = shift_column(batch, schema::finding::LINE.name, lines)?;
                    if let Some(file) = &step.file {
                        batch = rename_file(batch, file)?;
                    }
                    let Some(sink) = sink.as_mut() else {
                        bail!("a batch in a text merge");
                    };
                    for row in 0..batch.num_rows() {
                        sink.rows()
                            .push_from(&batch, row)
                            .map_err(|e| anyhow::anyhow!(e))?;
                        sink.flush_full(&mut out).map_err(write_failed)?;
                    }
                    Ok(())
                }
                Record::Csv(row) => {
                    let mut fields: Vec<std::borrow::Cow<'_, [u8]>> =
                        row.iter().map(std::borrow::Cow::Borrowed).collect();
                    if let Some(file) = &step.file {
                        fields[FILE_COLUMN] = file.as_bytes().to_vec().into();
                    }
                    for (column, by) in [(Some(game_col), games), (line_col, lines)] {
                        if let Some(c) = column {
                            fields[c] = shift(&fields[c], by)?.into_bytes().into();
                        }
                    }
                    write_csv_record(&mut out, &fields).map_err(|e| write_failed(e).into())
                }
            }
        };
        each_record(shard, file, &mut copy).map_err(about(&shard.output))?;
    }
    if let Some(sink) = sink {
        sink.finish(&mut out).map_err(write_failed)?;
    }
    out.flush().map_err(write_failed)?;
    drop(out);
    check_interrupt(&interrupted)?;
    if let Some(commit) = commit {
        commit
            .commit()
            .map_err(|e| Error::output(to, "cannot rename the merged output onto its name", e))?;
    }
    for &i in &failed {
        diag::error(format!(
            "{}: the run that wrote it could not read {} to the end: the merged output ends where it stopped",
            shards[i].output.display(),
            shards[i].path.display()
        ));
    }
    Ok(if failed.is_empty() {
        ExitStatus::Ok
    } else {
        ExitStatus::Error
    })
}

/// Runs `shard` again from `from` (where its predecessor's last game
/// ended), writing into `base` + `.out`, and returns the new shard.
fn run_again(
    shard: &Shard,
    from: u64,
    base: &Path,
    exe: &Path,
    interrupted: &AtomicBool,
) -> anyhow::Result<Shard> {
    let input = shard.input();
    let name = shard.output.display();
    let meta = std::fs::metadata(&shard.path).with_context(|| {
        format!(
            "{name} must be run again from byte {from}, and its input {} cannot be read",
            shard.path.display()
        )
    })?;
    let mtime = meta
        .mtime()
        .saturating_mul(1_000_000_000)
        .saturating_add(meta.mtime_nsec());
    if (Some(meta.len()), Some(mtime)) != (input.size, input.mtime_ns) {
        bail!(
            "{name} must be run again from byte {from}, and its input {} changed since the shard ran \
             (its size or modification time differ)",
            shard.path.display()
        );
    }
    if let Some(expected) = &input.region_digest {
        let mut file = File::open(&shard.path)
            .with_context(|| format!("cannot read {}", shard.path.display()))?;
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(input.first_byte))
            .with_context(|| format!("cannot read {}", shard.path.display()))?;
        let mut region = file.take(input.end_byte - input.first_byte);
        let mut digest = Digest::default();
        let mut buf = vec![0u8; 1 << 16];
        loop {
            check_interrupt(interrupted)?;
            let n = region
                .read(&mut buf)
                .with_context(|| format!("cannot read {}", shard.path.display()))?;
            if n == 0 {
                break;
            }
            digest.update(&buf[..n]);
        }
        if digest.hex() != *expected || digest.len() != input.end_byte - input.first_byte {
            bail!(
                "{name} must be run again from byte {from}, and its input {} changed since the \
                 shard ran (the bytes it read differ)",
                shard.path.display()
            );
        }
    }
    let output = base.with_extension("out");
    let stats = stats_path(&output);
    let range = match input.end {
        Some(end) => format!("{from}..{}", end.max(from)),
        None => format!("{from}.."),
    };
    let s = &shard.stats;
    let mut command = Command::new(exe);
    command
        .arg(&s.command)
        .args(["--byte-range", &range, "-q", "--stats"])
        .arg(&stats)
        .arg("-o")
        .arg(&output)
        .args([format_flag(&s.command), &s.format])
        .args(&s.options);
    if !s.header {
        command.arg("--no-header");
    }
    let mut child = command
        .arg("--")
        .arg(&shard.path)
        .stdin(Stdio::null())
        .spawn()
        .context("cannot rerun a shard")?;
    let status = loop {
        if let Some(status) = child.try_wait().context("cannot rerun a shard")? {
            break status;
        }
        if interrupted.load(Ordering::Relaxed) {
            let _ = child.kill();
            let _ = child.wait();
            check_interrupt(interrupted)?;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    if !matches!(status.code(), Some(0 | 1)) {
        bail!("rerunning {name} from byte {from} failed ({status})");
    }
    let again = read_shard(&output)?;
    verify(&again)?;
    if (
        &again.stats.command,
        &again.stats.options,
        &again.stats.columns,
    ) != (&s.command, &s.options, &s.columns)
    {
        bail!("rerunning {name} from byte {from} gave output of another shape");
    }
    if again.input().first_byte != from {
        bail!(
            "rerunning {name} from byte {from} began at byte {} instead",
            again.input().first_byte
        );
    }
    Ok(again)
}

/// `field` (digits, or empty) with `by` added.
fn shift(field: &[u8], by: u64) -> anyhow::Result<String> {
    if field.is_empty() {
        return Ok(String::new());
    }
    let text = std::str::from_utf8(field)
        .ok()
        .filter(|t| t.bytes().all(|b| b.is_ascii_digit()));
    let n: u64 = text.and_then(|t| t.parse().ok()).with_context(|| {
        format!(
            "`{}` is not a game or line number",
            String::from_utf8_lossy(field)
        )
    })?;
    Ok(n.checked_add(by)
        .context("a game or line number overflows")?
        .to_string())
}

/// Writes one JSON record with its top-level `game` (and, for `keys[1]`,
/// `line`) numbers shifted.
fn write_json(
    out: &mut dyn Write,
    record: &[u8],
    keys: [bool; 2],
    games: u64,
    lines: u64,
    file: Option<&str>,
    to: &Path,
) -> anyhow::Result<()> {
    let [game, line, file_place] = json_places(record)?;
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for ((place, by), wanted) in [game, line].into_iter().zip([games, lines]).zip(keys) {
        if let (Some(place), true) = (place, wanted) {
            let value = &record[place.clone()];
            if value != b"null" {
                edits.push((place, shift(value, by)?));
            }
        }
    }
    if let (Some(name), Some(place)) = (file, file_place) {
        let mut quoted = Vec::new();
        crate::schema::json_str(&mut quoted, name);
        edits.push((place, String::from_utf8(quoted).expect("JSON is UTF-8")));
    }
    edits.sort_by_key(|(r, _)| r.start);
    let mut at = 0;
    let write = |out: &mut dyn Write, b: &[u8]| -> anyhow::Result<()> {
        out.write_all(b)
            .map_err(|e| Error::output(to, "failed to write the merged output", e).into())
    };
    for (range, value) in edits {
        write(out, &record[at..range.start])?;
        write(out, value.as_bytes())?;
        at = range.end;
    }
    write(out, &record[at..])?;
    write(out, b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_top_level_numbers_are_found() {
        let r = br#"{"file":"x\"game\":7","game":3,"offset":9,"line":12,"x":{"game":1,"line":2}}"#;
        let [g, l, f] = json_places(r).unwrap();
        assert_eq!(&r[g.unwrap()], b"3");
        assert_eq!(&r[l.unwrap()], b"12");
        assert_eq!(&r[f.unwrap()], br#""x\"game\":7""#);
        let mut out = Vec::new();
        write_json(&mut out, r, [true, true], 10, 100, None, Path::new("-")).unwrap();
        assert_eq!(
            out,
            b"{\"file\":\"x\\\"game\\\":7\",\"game\":13,\"offset\":9,\"line\":112,\"x\":{\"game\":1,\"line\":2}}\n"
        );
        let mut out = Vec::new();
        write_json(
            &mut out,
            r,
            [true, false],
            1,
            1,
            Some("a\"b"),
            Path::new("-"),
        )
        .unwrap();
        assert!(out.starts_with(b"{\"file\":\"a\\\"b\",\"game\":4,"));
        let n = br#"{"game":null,"line":5}"#;
        let mut out = Vec::new();
        write_json(&mut out, n, [true, false], 10, 10, None, Path::new("-")).unwrap();
        assert_eq!(out, b"{\"game\":null,\"line\":5}\n");
        for bad in [
            &br#"{"game":1"#[..],
            br#"{"a":"b}"#,
            br#"{"a":1}}"#,
            b"",
            br#"{"a":[}"#,
        ] {
            assert!(
                json_places(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn fields_shift_and_refuse_what_is_no_number() {
        assert_eq!(shift(b"41", 1).unwrap(), "42");
        assert_eq!(shift(b"", 5).unwrap(), "");
        assert!(shift(b"x", 1).is_err());
        assert!(shift(b"-1", 1).is_err());
        assert!(shift(b"18446744073709551615", 1).is_err());
    }
}
