//! The I/O of shards: a shard's statistics read from its `--stats` file,
//! its output read once to check it against them, and its records read
//! to be merged. What is checked is in [`super::verify`].

use crate::format::Subcommand;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use arrow_array::RecordBatch;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::{renumber, verify};
use crate::error::Error;
use crate::output::columnar::Columnar;
use crate::output::stats::{Digest, InputStats, RunStats, path_from_hex};
use crate::schema;
use crate::schema::arrow::ArrowRows;

/// The largest statistics file read: a shard's are a few hundred bytes.
const MAX_STATS: u64 = 16 << 20;

/// One shard: where its output is, and what its statistics say.
#[derive(Debug, Clone)]
pub struct Shard {
    pub output: PathBuf,
    pub stats_path: PathBuf,
    pub stats: RunStats,
    /// The input file, exactly as recorded.
    pub path: PathBuf,
}

impl Shard {
    /// The one input the shard read.
    pub fn input(&self) -> &InputStats {
        &self.stats.inputs[0]
    }
}

/// The statistics file of a shard output.
pub fn stats_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".stats.json");
    PathBuf::from(name)
}

/// Reads the statistics file `path` of a shard and checks them
/// ([`verify::check_stats`]), and returns them with the input file they
/// record (`None`: standard input).
///
/// # Errors
///
/// When the file cannot be read, or its statistics are refused.
pub fn read_stats(path: &Path) -> Result<(RunStats, Option<PathBuf>), Error> {
    let refuse = |why: String| Error::bad_input(path, format!("{}: {why}", path.display()));
    let unread = |e: io::Error| {
        Error::input(
            path,
            format!("cannot read the statistics {}", path.display()),
            e,
        )
    };
    let file = File::open(path).map_err(unread)?;
    let mut text = String::new();
    file.take(MAX_STATS + 1)
        .read_to_string(&mut text)
        .map_err(unread)?;
    if text.len() as u64 > MAX_STATS {
        return Err(refuse("it is too large to be pgnkit --stats".to_owned()));
    }
    let stats = RunStats::parse(&text).map_err(refuse)?;
    verify::check_stats(&stats).map_err(refuse)?;
    let input = match stats.inputs[0].path_bytes.as_deref() {
        None => None,
        Some(hex) => Some(path_from_hex(hex).ok_or_else(|| refuse(NOT_A_FILE.to_owned()))?),
    };
    Ok((stats, input))
}

/// Why statistics of a run that read standard input are no shard's.
const NOT_A_FILE: &str = "its input is not a file (a shard reads a byte range of a file)";

/// Reads and checks the statistics of the shard written to `output`.
///
/// # Errors
///
/// As [`read_stats`], and when its input is not a file.
pub fn read_shard(output: &Path) -> Result<Shard, Error> {
    let path = stats_path(output);
    let (stats, input) = read_stats(&path)?;
    let Some(input) = input else {
        return Err(Error::bad_input(
            &path,
            format!("{}: {NOT_A_FILE}", path.display()),
        ));
    };
    Ok(Shard {
        output: output.to_owned(),
        stats_path: path,
        stats,
        path: input,
    })
}

/// Reads a shard's output once to check it against its statistics: its
/// size and digest, its header and its record count.
///
/// # Errors
///
/// When it cannot be read or is not what its statistics say.
pub fn verify(shard: &Shard) -> anyhow::Result<()> {
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
    verify::check_bytes(&shard.output, &digest, out).map_err(anyhow::Error::msg)?;
    let file = File::open(&shard.output).with_context(|| format!("cannot open {name}"))?;
    let mut records = 0u64;
    let mut count = |r: Record<'_>| {
        records += r.len();
        Ok(())
    };
    each_record(shard, file, &mut count)?;
    verify::check_records(&shard.output, records, out).map_err(anyhow::Error::msg)
}

/// One record of a shard.
pub enum Record<'r> {
    Json(&'r [u8]),
    Csv(&'r csv::ByteRecord),
    /// A batch of a Parquet or Arrow shard, its columns checked.
    Batch(&'r RecordBatch),
}

impl Record<'_> {
    /// The records it holds.
    pub fn len(&self) -> u64 {
        match self {
            Record::Batch(b) => b.num_rows() as u64,
            _ => 1,
        }
    }

    /// Whether it holds none (an empty batch).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Whether a shard's format is columnar, and which.
pub fn columnar(format: &str) -> Option<Columnar> {
    match format {
        "parquet" => Some(Columnar::Parquet),
        "arrow" => Some(Columnar::Arrow),
        _ => None,
    }
}

/// The record kind of a columnar shard of `stats`.
pub fn columnar_schema(stats: &RunStats) -> &'static schema::Schema {
    let positions = stats
        .options
        .windows(2)
        .any(|w| w[0] == "--positions" && w[1] == "all");
    let command = Subcommand::from_name(&stats.command);
    if command == Some(Subcommand::Convert) && positions {
        return &schema::position::POSITION;
    }
    command
        .and_then(schema::of_command)
        .unwrap_or(&schema::game::GAME)
}

/// Calls `record` with every record of a shard, checking the shape of
/// each and, for CSV, that a header row is the recorded columns.
///
/// # Errors
///
/// When the shard cannot be read or a record is not pgnkit's, or what
/// `record` returns.
pub fn each_record(
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
            renumber::json_places(&line)
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
