//! `pgnkit validate`: replay every game and report every finding.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use anyhow::Context;

use super::{Codes, Streaming, identity};
use crate::cli::{ReportFormat, ValidateArgs};
use crate::exit::ExitStatus;
use crate::input::open::{input_name, open};
use crate::output::diag;
use crate::output::report::{self, CodeCount, Format, Place, players};
use crate::rules::check::{GameCheck, check_game};
use crate::rules::finding::{Code, Finding, Severity};
use crate::stream::Event;

/// What the report is called in errors.
const WHAT: &str = "report";

/// The settings of one run, from the arguments.
struct Settings {
    streaming: Streaming,
    format: Format,
    policy: Policy,
}

fn settings(args: &ValidateArgs) -> anyhow::Result<Settings> {
    Ok(Settings {
        streaming: Streaming::new(&args.input),
        format: match args.format {
            ReportFormat::Text => Format::Text,
            ReportFormat::Csv => Format::Csv,
            ReportFormat::Jsonl => Format::Jsonl,
        },
        policy: Policy::new(args)?,
    })
}

/// How many finding codes there are.
const CODES: usize = Code::ALL.len();

/// Which findings a run reports (and counts), and which of those fail it,
/// by code: `--ignore`, `--only`, `--fail-on`.
#[derive(Debug, Clone, Copy)]
struct Policy {
    keep: [bool; CODES],
    fail: [bool; CODES],
}

impl Policy {
    fn new(args: &ValidateArgs) -> anyhow::Result<Policy> {
        let mut keep = [args.only.is_empty(); CODES];
        for code in codes("only", &args.only, &[])? {
            keep[code.index()] = true;
        }
        for code in codes("ignore", &args.ignore, &[])? {
            keep[code.index()] = false;
        }
        let mut fail = [false; CODES];
        let never = args.fail_on.iter().any(|w| w == "never");
        if never && args.fail_on.len() > 1 {
            anyhow::bail!("--fail-on never stands alone");
        }
        for when in &args.fail_on {
            match when.as_str() {
                "never" => {}
                "warning" => fail = [true; CODES],
                "error" => {
                    for code in Code::ALL {
                        fail[code.index()] |= code.severity() == Severity::Error;
                    }
                }
                _ => {
                    for code in codes("fail-on", std::slice::from_ref(when), KEYWORDS)? {
                        fail[code.index()] = true;
                    }
                }
            }
        }
        Ok(Policy { keep, fail })
    }

    fn keeps(&self, code: Code) -> bool {
        self.keep[code.index()]
    }

    fn fails(&self, code: Code) -> bool {
        self.fail[code.index()]
    }
}

/// What `--fail-on` takes besides codes.
const KEYWORDS: &[&str] = &["error", "warning", "never"];

/// The codes `names` name, for the flag `--{flag}`.
///
/// # Errors
///
/// For a name that is no code, listing the valid ones (and `keywords`).
fn codes(flag: &str, names: &[String], keywords: &[&str]) -> anyhow::Result<Vec<Code>> {
    names
        .iter()
        .map(|name| {
            Code::from_name(name).ok_or_else(|| {
                let valid: Vec<&str> = keywords
                    .iter()
                    .copied()
                    .chain(Code::ALL.map(Code::as_str))
                    .collect();
                anyhow::anyhow!(
                    "--{flag}: unknown finding code `{}`; valid: {}",
                    diag::clipped(name, diag::SHOWN),
                    valid.join(", ")
                )
            })
        })
        .collect()
}

/// Findings and games per code, for the table that ends the run.
struct Tally {
    counts: [CodeCount; CODES],
}

impl Tally {
    fn new() -> Tally {
        Tally {
            counts: Code::ALL.map(|code| CodeCount {
                code,
                findings: 0,
                games: 0,
            }),
        }
    }

    /// Counts the findings of one game (`in_game`) or one loose finding.
    fn add<'f>(&mut self, findings: impl IntoIterator<Item = &'f Finding>, in_game: bool) {
        let mut seen = [false; CODES];
        for finding in findings {
            let i = finding.code.index();
            self.counts[i].findings += 1;
            if in_game && !seen[i] {
                seen[i] = true;
                self.counts[i].games += 1;
            }
        }
    }

    /// Prints the table on standard error, when there is a finding.
    fn print(&self) {
        let rows: Vec<CodeCount> = self
            .counts
            .iter()
            .copied()
            .filter(|c| c.findings > 0)
            .collect();
        if !rows.is_empty() {
            for line in report::code_table(&rows) {
                diag::note(line);
            }
        }
    }
}

/// A file `--bad-games` or `--good-games` writes games to.
struct GamesFile {
    path: PathBuf,
    out: BufWriter<File>,
    /// The last byte written, to part two games with a newline when the
    /// first did not end with one.
    last: Option<u8>,
    /// Set when writing failed (as opposed to reading the input).
    failed: bool,
}

impl GamesFile {
    fn create(path: &Path) -> anyhow::Result<GamesFile> {
        let file =
            File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        Ok(GamesFile {
            path: path.to_owned(),
            out: BufWriter::with_capacity(1 << 16, file),
            last: None,
            failed: false,
        })
    }

    /// Copies the next `len` bytes of `input` (all of it when `None`), one
    /// game, after a newline if the game before did not end with one.
    fn copy_game(&mut self, input: &mut dyn Read, len: Option<u64>) -> io::Result<()> {
        if self.last.is_some_and(|b| b != b'\n') {
            self.write_all(b"\n")?;
        }
        match len {
            Some(len) => io::copy(&mut input.take(len), self)?,
            None => io::copy(input, self)?,
        };
        Ok(())
    }
}

impl Write for GamesFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf).inspect_err(|_| self.failed = true)?;
        if n > 0 {
            self.last = Some(buf[n - 1]);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush().inspect_err(|_| self.failed = true)
    }
}

/// `--bad-games` and `--good-games`: the verdict of every game while the
/// run goes, then the games copied from the inputs, read again.
struct Split {
    bad: Option<GamesFile>,
    good: Option<GamesFile>,
    /// The games of each input read, in order: its name, and every game's
    /// offset in it and whether it is bad.
    runs: Vec<(String, Vec<(u64, bool)>)>,
    /// Inputs the run could not read to their end.
    failed: Vec<String>,
}

impl Split {
    /// The files of `args`, created; `None` without the flags.
    ///
    /// # Errors
    ///
    /// When the inputs cannot be read twice, a file is an input or the
    /// other file, or one cannot be created.
    fn new(args: &ValidateArgs, streaming: &Streaming) -> anyhow::Result<Option<Split>> {
        let paths = [&args.bad_games, &args.good_games];
        if paths.iter().all(|p| p.is_none()) {
            return Ok(None);
        }
        if streaming.files.is_empty() || streaming.files.iter().any(|f| f == Path::new("-")) {
            anyhow::bail!(
                "--bad-games and --good-games copy games from the inputs read again: give files, not standard input"
            );
        }
        if streaming.range.is_some() {
            anyhow::bail!("--bad-games and --good-games cannot be used with --byte-range");
        }
        let mut taken: Vec<(u64, u64)> = streaming
            .output
            .iter()
            .filter_map(|o| identity(o))
            .collect();
        let mut files = paths.into_iter().map(|path| {
            let Some(path) = path else {
                return Ok(None);
            };
            streaming.check_output(path)?;
            if identity(path).is_some_and(|id| taken.contains(&id)) {
                anyhow::bail!(
                    "refusing to write games to {}: the run writes another output there",
                    path.display()
                );
            }
            let file = GamesFile::create(path)?;
            taken.extend(identity(path));
            Ok(Some(file))
        });
        let bad = files.next().expect("two paths")?;
        let good = files.next().expect("two paths")?;
        Ok(Some(Split {
            bad,
            good,
            runs: Vec::new(),
            failed: Vec::new(),
        }))
    }

    /// Notes game `ctx.game` of `ctx.file`, at `offset`, and whether it is bad.
    fn record(&mut self, file: &str, game: u64, offset: u64, bad: bool) {
        if game == 1 || self.runs.is_empty() {
            self.runs.push((file.to_owned(), Vec::new()));
        }
        let (_, games) = self.runs.last_mut().expect("a run was pushed");
        games.push((offset, bad));
    }

    /// Copies every game noted from `files` (the inputs, in the order they
    /// were read) to its file. An input the run could not read to its end
    /// is copied as far as it can be read.
    ///
    /// # Errors
    ///
    /// When an input cannot be read again, or a file cannot be written.
    fn write(mut self, files: &[PathBuf]) -> anyhow::Result<()> {
        let mut next = 0;
        for (name, games) in &self.runs {
            let index = (next..files.len())
                .find(|&i| input_name(&files[i]) == *name)
                .expect("the games of an input come from one of the inputs, in order");
            next = index + 1;
            let copied = copy_games(&files[index], games, self.bad.as_mut(), self.good.as_mut());
            if let Err(error) = copied {
                if let Some(file) = [&self.bad, &self.good]
                    .into_iter()
                    .flatten()
                    .find(|f| f.failed)
                {
                    return Err(error)
                        .with_context(|| format!("failed to write {}", file.path.display()));
                }
                if !self.failed.contains(name) {
                    return Err(error)
                        .with_context(|| format!("cannot read {name} again to copy its games"));
                }
            }
        }
        for file in [&mut self.bad, &mut self.good].into_iter().flatten() {
            file.flush()
                .with_context(|| format!("failed to write {}", file.path.display()))?;
        }
        Ok(())
    }
}

/// Copies the `games` (offset, bad) of the input `path` to `bad` or
/// `good` (nowhere when not given).
fn copy_games(
    path: &Path,
    games: &[(u64, bool)],
    mut bad: Option<&mut GamesFile>,
    mut good: Option<&mut GamesFile>,
) -> io::Result<()> {
    let mut input = open(path, Arc::new(AtomicU64::new(0)))?.reader;
    let first = games.first().map_or(0, |g| g.0);
    io::copy(&mut (&mut input).take(first), &mut io::sink())?;
    for (i, &(offset, is_bad)) in games.iter().enumerate() {
        let len = games.get(i + 1).map(|next| next.0 - offset);
        let to = if is_bad {
            bad.as_deref_mut()
        } else {
            good.as_deref_mut()
        };
        match to {
            Some(file) => file.copy_game(&mut input, len)?,
            None => {
                match len {
                    Some(len) => io::copy(&mut (&mut input).take(len), &mut io::sink())?,
                    None => 0,
                };
            }
        }
    }
    Ok(())
}

/// Runs `validate`.
///
/// # Errors
///
/// When the report cannot be written.
pub fn run(args: &ValidateArgs, stdout: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let Settings {
        streaming,
        format,
        policy,
    } = settings(args)?;
    let mut with_errors = 0u64;
    let mut failing = 0u64;
    let mut tally = Tally::new();
    let mut with_warnings = 0u64;
    // Before the product file is created: a refused --stats leaves it be.
    let copies: Vec<&Path> = [&args.bad_games, &args.good_games]
        .into_iter()
        .filter_map(|p| p.as_deref())
        .collect();
    streaming.check_stats(&copies)?;
    let mut out = streaming.writer(stdout)?;
    let failed = || format!("failed to write the {WHAT}");
    streaming.check_range()?;
    let mut split = Split::new(args, &streaming)?;
    report::write_header(&mut out, format, !streaming.no_header).with_context(failed)?;
    let mut codes = Codes::new();
    // The games are noted in input order, one input after another: with
    // --bad-games or --good-games, inputs are not read at once.
    let spool = out.clone();
    let inputs = streaming.inputs(split.is_none().then_some(&spool));
    let totals = inputs.for_each_game(
        |game| {
            let mut check = check_game(game, args.laws);
            check.findings.retain(|f| policy.keeps(f.code));
            // Names are only decoded for games that have something to say.
            let names = (!check.findings.is_empty()).then(|| players(|tag| game.tag_text(tag)));
            (check, names)
        },
        |event| {
            match event {
                Event::Game(ctx, (check, names)) => {
                    let GameCheck {
                        findings,
                        first_move,
                        ..
                    } = check;
                    let (white, black) = names.unwrap_or_default();
                    let place = Place {
                        file: ctx.file,
                        game: Some(ctx.game),
                        offset: ctx.offset,
                        white: &white,
                        black: &black,
                        first_move,
                    };
                    let bad = findings.iter().any(|f| f.severity() == Severity::Error);
                    with_errors += u64::from(bad);
                    if let (Some(split), Some(offset)) = (split.as_mut(), ctx.offset) {
                        split.record(ctx.file, ctx.game, offset, bad);
                    }
                    if findings.iter().any(|f| f.severity() == Severity::Warning) {
                        with_warnings += 1;
                    }
                    if findings.iter().any(|f| policy.fails(f.code)) {
                        failing += 1;
                    }
                    tally.add(&findings, true);
                    for mut finding in findings {
                        *codes.entry(finding.code.as_str()).or_default() += 1;
                        finding.line += ctx.line_offset;
                        report::write_finding(&mut out, format, &place, &finding)
                            .with_context(failed)?;
                    }
                }
                Event::Loose(_, finding) if !policy.keeps(finding.code) => {}
                Event::Loose(file, finding) => {
                    failing += u64::from(policy.fails(finding.code));
                    tally.add([&finding], false);
                    let place = Place {
                        file,
                        game: None,
                        offset: None,
                        white: "",
                        black: "",
                        first_move: (1, shakmaty::Color::White),
                    };
                    *codes.entry(finding.code.as_str()).or_default() += 1;
                    report::write_finding(&mut out, format, &place, &finding)
                        .with_context(failed)?;
                }
                Event::Failed(file, err) => {
                    if let Some(split) = split.as_mut() {
                        split.failed.push(file.to_owned());
                    }
                    diag::error(format!("{file}: {err}"));
                }
            }
            Ok(())
        },
    )?;
    if let Some(split) = split {
        split.write(&streaming.files)?;
    }
    let summary = format!("{with_errors} with errors, {with_warnings} with warnings");
    let status = streaming.finish(&mut out, WHAT, &totals, failing, &summary, &codes)?;
    if !streaming.quiet {
        tally.print();
    }
    Ok(status)
}
