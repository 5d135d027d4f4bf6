//! The `pgnkit` binary: parse the command line, run one subcommand, map its
//! outcome to an exit code. Everything else lives in the library.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use pgnkit::Error;
use pgnkit::cli::{Cli, Command};
use pgnkit::cmd;
use pgnkit::exit::ExitStatus;
use pgnkit::output::diag;

/// mimalloc rather than glibc's malloc: the pipeline allocates a game's
/// record on a worker and frees it on the writer, a free from another
/// thread that glibc serialises on the arena's lock, and glibc's heap
/// handed pages back to the kernel after every chunk (page faults on each
/// reuse). Measured side by side on pgnmentor at `-j2`: `convert --to csv`
/// 4.64 -> 3.80 s (median of three), 9% fewer instructions on the slice;
/// the output is the same bytes. Peak RSS grows (validate 14 -> 44 MB on
/// the corpus): each thread keeps its own heap, still flat in the input.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// No transparent huge pages for a run of at least [`LARGE_RUN`] bytes of
/// input on disk, unless `MIMALLOC_ALLOW_THP` says otherwise. mimalloc asks for them
/// on its memory, and a long run keeps allocating fresh memory (each chunk's
/// games, the records in flight): each fault then zeroes 2 MiB, often in
/// direct compaction. Measured on pgnmentor at `-j2`, alternating runs
/// (issue 48): `validate` 0.6-1.15 s of system time -> 0.15 s, wall
/// 1.98-2.26 -> 1.63-1.91 s, peak RSS 135-152 -> 110-113 MB; `convert --to
/// parquet` 1.25-1.73 -> 0.46-0.50 s of system time. A short run is the
/// other way round: its few huge pages save it hundreds of small faults
/// (the test suite, a thousand short runs, spent 1.3 s more of system time
/// with them off). Standard input, a pipe or a device, of unknown length,
/// counts as large. It is what `MIMALLOC_ALLOW_THP=0` does
/// (`prctl(PR_SET_THP_DISABLE)`); the binary starts no other program that
/// would inherit it.
fn no_huge_pages_if_large(cli: &Cli) {
    #[cfg(target_os = "linux")]
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() && is_large(cli) {
        // SAFETY: PR_SET_THP_DISABLE takes plain integers and only changes
        // how the kernel backs this process's memory, never its content.
        // It cannot fail in a way that matters: huge pages stay allowed.
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
        }
    }
}

/// Input bytes on disk from which a run is large ([`no_huge_pages_if_large`]).
const LARGE_RUN: u64 = 16 << 20;

/// Whether the run reads at least [`LARGE_RUN`] bytes, or an input of
/// unknown length (standard input, a pipe, a device): its inputs walked and
/// summed as the run itself walks and sizes them.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn is_large(cli: &Cli) -> bool {
    use pgnkit::input::open::{expand_dirs, total_size};
    let files = match &cli.command {
        Command::Validate(a) => &a.input.files,
        Command::AnnotateOutcome(a) => &a.input.files,
        Command::Convert(a) => &a.input.files,
        Command::Dedupe(a) => &a.input.files,
        Command::Crosstable(a) => &a.input.files,
        Command::Select(a) => &a.input.files,
        Command::Merge(a) => &a.shards,
        Command::Perft(_) | Command::Schema(_) | Command::Completions(_) => return false,
    };
    files.is_empty() || total_size(&expand_dirs(files).files).is_none_or(|n| n >= LARGE_RUN)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    no_huge_pages_if_large(&cli);
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = match &cli.command {
        Command::Validate(args) => cmd::validate::run(args, &mut out),
        Command::AnnotateOutcome(args) => cmd::annotate_outcome::run(args, &mut out),
        Command::Perft(args) => cmd::perft::run(args, &mut out),
        Command::Convert(args) => cmd::convert::run(args, &mut out),
        Command::Dedupe(args) => cmd::dedupe::run(args, &mut out),
        Command::Crosstable(args) => cmd::crosstable::run(args, &mut out),
        Command::Select(args) => cmd::select::run(args, &mut out),
        Command::Merge(args) => cmd::merge::run(args, &mut out),
        Command::Schema(args) => cmd::schema::run(args, &mut out),
        Command::Completions(args) => completions(args.shell, &mut out),
    };
    let result = result.and_then(|status| {
        out.flush().map_err(Error::stdout)?;
        Ok(status)
    });
    match result {
        Ok(status) => status.into(),
        Err(err) if err.is_broken_pipe() => ExitCode::from(0),
        Err(err) => {
            // Never `eprintln!`: it panics when standard error is unwritable.
            diag::error(format_args!("{err:#}"));
            ExitStatus::Error.into()
        }
    }
}

/// Writes the completion script for `shell`, generated from the same
/// definitions as `--help`.
fn completions(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    // Into a buffer first: the generators panic on a write error (`| head`).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "pgnkit", &mut script);
    out.write_all(&script).map_err(Error::stdout)?;
    Ok(ExitStatus::Ok)
}
