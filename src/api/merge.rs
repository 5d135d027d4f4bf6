//! `merge`: the outputs of `--byte-range` shards (CSV, JSON Lines,
//! Parquet or Arrow, each with the `--stats` it wrote) into the output one
//! run over the whole file gives; with `--plan`, only the walk over their
//! statistics, as JSON, for a program that runs the shards itself.
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
//! The shard logic is [`crate::shards`]; this module is its glue: the
//! options, the signals, the output and the walk's loop of reruns.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::bail;

use super::options::MergeOptions as MergeArgs;
use super::{BatchSink, Diagnostics, Level, RecordSink};
use crate::error::{Error, ErrorKind};
use crate::exit::ExitStatus;
use crate::output::columnar::ColumnarSink;
use crate::output::stats::RunStats;
use crate::shards::plan::{self, Next, Run, ShardRuns, Walk};
use crate::shards::read::{self, Record, Shard, read_shard};
use crate::shards::renumber::{self, Shift};
use crate::shards::rerun::{Reruns, check_interrupt};
use crate::shards::verify;

use super::streaming::{identity, stdout_identity};
use crate::output::{atomic, diag, write_csv_record};

/// Runs `merge` on `shard_paths` ([`super::merge`]), rerunning shards
/// with the pgnkit binary `exe`.
///
/// # Errors
///
/// When a shard or its statistics cannot be read or are refused, a rerun
/// fails, shards do not tile their file, or the output cannot be written.
pub(super) fn merge(
    args: &MergeArgs,
    shard_paths: &[PathBuf],
    records: RecordSink<'_>,
    exe: &Path,
    diagnostics: &dyn Diagnostics,
) -> Result<ExitStatus, Error> {
    let to_stdout = matches!(records, RecordSink::Stdout(_));
    let mut nothing = io::sink();
    let (stdout, batches): (&mut dyn Write, Option<Box<dyn BatchSink + '_>>) = match records {
        RecordSink::Stdout(w) | RecordSink::Writer(w) => (w, None),
        RecordSink::Batches(b) => (&mut nothing, Some(b)),
    };
    if batches.is_some() && args.format != super::Format::Arrow {
        return Err(Error::usage(format!(
            "a batch sink takes the arrow format, not {}",
            args.format
        )));
    }
    if args.plan {
        return print_plan(args, shard_paths, stdout);
    }
    let interrupted = interrupted_flag();
    check_target(args.output.as_deref())?;
    let shards = read_shards(args, shard_paths, to_stdout)?;
    for shard in &shards {
        read::verify(shard).map_err(about(&shard.output))?;
        check_interrupt(&interrupted)?;
    }
    let mut reruns = Reruns {
        exe,
        interrupted: &interrupted,
        dir: None,
    };
    let (walk, again) = settle(&shards, &mut reruns)?;
    let out = Out {
        stdout,
        batches,
        to_stdout,
    };
    write_merged(args, out, &shards, &walk, &again, &interrupted)?;
    let mut status = ExitStatus::Ok;
    for i in walk.files.iter().filter_map(|f| f.failed) {
        let message = format!(
            "{}: the run that wrote it could not read {} to the end: the merged output ends where it stopped",
            shards[i].output.display(),
            shards[i].path.display()
        );
        diagnostics.line(Level::Error, &diag::error_line(message));
        status = ExitStatus::Error;
    }
    Ok(status)
}

/// Refuses an output that is a directory, or in none, before anything is
/// read.
fn check_target(output: Option<&Path>) -> Result<(), Error> {
    let Some(p) = output.filter(|p| *p != Path::new("-")) else {
        return Ok(());
    };
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
    Ok(())
}

/// The shards named, their statistics read and checked: alike, none
/// twice, and none of them (or their statistics or input) the output.
fn read_shards(args: &MergeArgs, paths: &[PathBuf], to_stdout: bool) -> Result<Vec<Shard>, Error> {
    if paths.is_empty() {
        return Err(Error::usage("merge needs at least one shard"));
    }
    let shards = paths
        .iter()
        .map(|p| read_shard(p))
        .collect::<Result<Vec<Shard>, Error>>()?;
    check_output(args, &shards, to_stdout)?;
    let named: Vec<(&Path, &RunStats)> = shards
        .iter()
        .map(|s| (s.output.as_path(), &s.stats))
        .collect();
    let want = args.format.name();
    verify::check_alike(Some(&want), &named).map_err(anyhow::Error::msg)?;
    not_twice(named.iter().map(|(p, _)| *p))?;
    Ok(shards)
}

/// Refuses a shard named twice (by any name or link).
fn not_twice<'p>(paths: impl Iterator<Item = &'p Path>) -> Result<(), Error> {
    let mut seen: Vec<(&Path, Option<(u64, u64)>)> = Vec::new();
    for a in paths {
        let id = identity(a);
        if let Some((b, _)) = seen.iter().find(|(_, other)| *other == id) {
            return Err(Error::usage(format!(
                "{} and {} are the same shard",
                b.display(),
                a.display()
            )));
        }
        seen.push((a, id));
    }
    Ok(())
}

/// Refuses an output that is one of the shards, their statistics or their
/// input: writing it would destroy what is being merged.
fn check_output(args: &MergeArgs, shards: &[Shard], to_stdout: bool) -> Result<(), Error> {
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
        _ if to_stdout => stdout_identity(true).map(|id| (id, "standard output".to_owned())),
        _ => None,
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

/// Walks the shards, running each shard again that the walk asks for,
/// until every file merges; returns the walk and each shard's rerun.
/// Nothing is written here: a refusal leaves no output.
fn settle(shards: &[Shard], reruns: &mut Reruns<'_>) -> anyhow::Result<(Walk, Vec<Option<Shard>>)> {
    let keyed: Vec<_> = shards
        .iter()
        .map(|s| (Some(s.path.as_path()), s.input()))
        .collect();
    let files = plan::order(&keyed);
    let names: Vec<(String, String)> = shards
        .iter()
        .map(|s| (s.output.display().to_string(), s.path.display().to_string()))
        .collect();
    let mut again: Vec<Option<Shard>> = vec![None; shards.len()];
    loop {
        let runs: Vec<ShardRuns<'_>> = shards
            .iter()
            .zip(&again)
            .zip(&names)
            .map(|((s, r), (name, file))| ShardRuns {
                name,
                file,
                planned: one_run(&s.stats),
                rerun: r.as_ref().and_then(|r| Run::of(&r.stats)),
            })
            .collect();
        let walk = plan::walk(&files, &runs);
        match walk.pending() {
            None => return Ok((walk, again)),
            Some(Next::Refused(e)) => bail!("{e}"),
            Some(Next::Rerun(r)) => {
                let r = *r;
                again[r.shard] = Some(reruns.run(r.shard, &shards[r.shard], r.from)?);
            }
            Some(Next::Done) => unreachable!("pending is never done"),
        }
    }
}

/// What every record copied needs besides itself.
struct Copy<'a> {
    /// The `game` and `line` columns of a CSV row.
    columns: (usize, Option<usize>),
    /// Which of `game` and `line` a JSON record shifts.
    keys: [bool; 2],
    /// The output, as errors name it.
    to: &'a Path,
    interrupted: &'a AtomicBool,
}

/// Where the merged records go when not to `-o`.
struct Out<'a> {
    stdout: &'a mut dyn Write,
    batches: Option<Box<dyn BatchSink + 'a>>,
    /// `stdout` is the process's standard output.
    to_stdout: bool,
}

/// Writes the merged output: the accepted runs' records in order,
/// renumbered, to `-o` (a temporary file renamed when whole) or `stdout`.
fn write_merged(
    args: &MergeArgs,
    Out {
        stdout,
        batches,
        to_stdout,
    }: Out<'_>,
    shards: &[Shard],
    walk: &Walk,
    again: &[Option<Shard>],
    interrupted: &AtomicBool,
) -> Result<(), Error> {
    let to = args.output.as_deref().unwrap_or(Path::new("-"));
    let write_failed = |e| Error::output(to, "failed to write the merged output", e);
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
    let mut sink = match read::columnar(&first.format) {
        Some(format) => {
            let onto_terminal = (to_stdout || to != Path::new("-"))
                && crate::output::columnar::names_a_terminal(to);
            crate::output::columnar::refuse_terminal(format, onto_terminal)
                .map_err(Error::usage)?;
            let schema = read::columnar_schema(first);
            Some(ColumnarSink::new(format, schema, batches).map_err(Error::internal)?)
        }
        None => None,
    };
    if first.format == "csv" && !args.no_header {
        write_csv_record(&mut out, first.columns.iter().flatten()).map_err(write_failed)?;
    }
    let copy = Copy {
        columns: renumber::own_columns(&first.command),
        keys: renumber::json_keys(&first.command),
        to,
        interrupted,
    };
    for a in walk.accepted() {
        let shard = match &again[a.shard] {
            Some(rerun) if a.rerun => rerun,
            _ => &shards[a.shard],
        };
        let by = Shift {
            games: a.games_before,
            lines: a.lines_before,
            file: a.rename.as_deref(),
        };
        copy_records(&mut out, sink.as_mut(), shard, &by, &copy)?;
    }
    if let Some(sink) = sink {
        sink.finish(&mut out).map_err(write_failed)?;
    }
    out.flush().map_err(write_failed)?;
    drop(out);
    check_interrupt(interrupted)?;
    if let Some(commit) = commit {
        commit
            .commit()
            .map_err(|e| Error::output(to, "cannot rename the merged output onto its name", e))?;
    }
    Ok(())
}

/// Copies the records of `shard` to `out` (or, columnar, into `sink`),
/// shifted `by`.
fn copy_records(
    out: &mut dyn Write,
    mut sink: Option<&mut ColumnarSink<'_>>,
    shard: &Shard,
    by: &Shift<'_>,
    c: &Copy<'_>,
) -> Result<(), Error> {
    let write_failed = |e| Error::output(c.to, "failed to write the merged output", e);
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
            check_interrupt(c.interrupted)?;
        }
        match record {
            Record::Json(bytes) => renumber::write_json(out, bytes, c.keys, by, c.to),
            Record::Batch(batch) => {
                let batch = renumber::batch(batch, by)?;
                let Some(sink) = sink.as_mut() else {
                    bail!("a batch in a text merge");
                };
                for row in 0..batch.num_rows() {
                    sink.rows()
                        .push_from(&batch, row)
                        .map_err(|e| anyhow::anyhow!(e))?;
                    sink.flush_full(out).map_err(write_failed)?;
                }
                Ok(())
            }
            Record::Csv(row) => {
                let fields = renumber::csv_fields(row, c.columns, by)?;
                write_csv_record(out, &fields).map_err(|e| write_failed(e).into())
            }
        }
    };
    read::each_record(shard, file, &mut copy).map_err(about(&shard.output))
}

/// `merge --plan`: the walk over the statistics named (shards, then
/// `--rerun`s), as one line of JSON on `stdout`.
fn print_plan(
    args: &MergeArgs,
    shard_paths: &[PathBuf],
    stdout: &mut dyn Write,
) -> Result<ExitStatus, Error> {
    let shards = stats_of(shard_paths)?;
    let reruns = stats_of(&args.rerun)?;
    let named: Vec<(&Path, &RunStats)> = shards
        .iter()
        .chain(&reruns)
        .map(|(p, s, _)| (*p, s))
        .collect();
    verify::check_alike(None, &named).map_err(anyhow::Error::msg)?;
    not_twice(named.iter().map(|(p, _)| *p))?;
    let names: Vec<(String, String)> = shards
        .iter()
        .map(|(p, s, input)| {
            let file = input
                .as_ref()
                .map_or_else(|| s.inputs[0].file.clone(), |i| i.display().to_string());
            (p.display().to_string(), file)
        })
        .collect();
    let mut runs: Vec<ShardRuns<'_>> = shards
        .iter()
        .zip(&names)
        .map(|((_, s, _), (name, file))| ShardRuns {
            name,
            file,
            planned: one_run(s),
            rerun: None,
        })
        .collect();
    let paths: Vec<Option<&Path>> = shards.iter().map(|(_, _, i)| i.as_deref()).collect();
    let keyed: Vec<_> = paths
        .iter()
        .zip(&runs)
        .map(|(p, r)| (*p, r.planned.input))
        .collect();
    let files = plan::order(&keyed);
    let answers: Vec<_> = reruns
        .iter()
        .map(|(_, s, i)| (i.as_deref(), one_run(s)))
        .collect();
    let (walk, used) = plan::settle(&files, &mut runs, &paths, &answers);
    if let Some(e) = walk.refusal() {
        return Err(anyhow::Error::msg(e.message.clone()).into());
    }
    if let Some(j) = used.iter().position(Option::is_none) {
        let (path, stats, _) = &reruns[j];
        return Err(Error::bad_input(
            path,
            format!(
                "{}: no shard's walk asks for a rerun from byte {} of {}",
                path.display(),
                stats.inputs[0].start,
                stats.inputs[0].file
            ),
        ));
    }
    let mut text = plan::to_json(&walk, &runs, &used).to_string();
    text.push('\n');
    stdout.write_all(text.as_bytes()).map_err(Error::stdout)?;
    Ok(ExitStatus::Ok)
}

/// A statistics file: its path, its statistics, its input's path.
type Named<'a> = (&'a Path, RunStats, Option<PathBuf>);

/// The statistics files `paths`, read and checked, each with its path and
/// its input's.
fn stats_of(paths: &[PathBuf]) -> Result<Vec<Named<'_>>, Error> {
    paths
        .iter()
        .map(|p| read::read_stats(p).map(|(stats, input)| (p.as_path(), stats, input)))
        .collect()
}

/// The run of statistics that [`read::read_stats`] checked.
fn one_run(stats: &RunStats) -> Run<'_> {
    Run::of(stats).expect("one input, checked")
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

/// What became of an error met reading `shard`: a typed [`Error`] (a
/// write that failed) stays as it is; anything else is the shard refused
/// as an input, its message unchanged.
fn about(shard: &Path) -> impl Fn(anyhow::Error) -> Error + '_ {
    move |err| match err.downcast::<Error>() {
        Ok(err) => err,
        Err(err) => Error::composed(ErrorKind::Input, err).with_path(shard),
    }
}
