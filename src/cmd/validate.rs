//! `pgnkit validate`: replay every game and report every finding.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::{Codes, Product, Streaming, identity, stdout_identity, value_name};
use crate::cli::{ReportFormat, ValidateArgs};
use crate::exit::ExitStatus;
use crate::input::error::chain;
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
        for when in &args.fail_on {
            if let Some(code) = Code::from_name(when)
                && !keep[code.index()]
            {
                anyhow::bail!(
                    "--fail-on {when} can never fail the run: {} leaves `{when}` out of the report",
                    if args.ignore.iter().any(|c| c == when) {
                        "--ignore"
                    } else {
                        "--only"
                    }
                );
            }
        }
        Ok(Policy { keep, fail })
    }

    /// The kept codes in the canonical spelling a rerun is given: nothing
    /// when every code is kept, else `--only` (or `--ignore` every code).
    fn options(&self) -> Vec<String> {
        if self.keep.iter().all(|&k| k) {
            return Vec::new();
        }
        let kept: Vec<&str> = Code::ALL
            .into_iter()
            .filter(|c| self.keeps(*c))
            .map(Code::as_str)
            .collect();
        if kept.is_empty() {
            let all: Vec<&str> = Code::ALL.map(Code::as_str).to_vec();
            return vec!["--ignore".to_owned(), all.join(",")];
        }
        vec!["--only".to_owned(), kept.join(",")]
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
    /// Renames the temporary file written onto `path` at the end.
    commit: crate::output::atomic::Commit,
    /// The last byte written, to part two games with a newline when the
    /// first did not end with one.
    last: Option<u8>,
}

impl GamesFile {
    fn create(path: &Path) -> anyhow::Result<GamesFile> {
        let (file, commit) = crate::output::atomic::create(path)?.split();
        Ok(GamesFile {
            path: path.to_owned(),
            out: BufWriter::with_capacity(1 << 16, file),
            commit,
            last: None,
        })
    }

    /// Writes one game's bytes, after a newline if the game before did not
    /// end with one.
    fn write_game(&mut self, raw: &[u8]) -> anyhow::Result<()> {
        let Some(&last) = raw.last() else {
            return Ok(());
        };
        let failed = || format!("failed to write {}", self.path.display());
        if self.last.is_some_and(|b| b != b'\n') {
            self.out.write_all(b"\n").with_context(failed)?;
        }
        self.out.write_all(raw).with_context(failed)?;
        self.last = Some(last);
        Ok(())
    }

    /// Flushes the file and gives it its name.
    fn finish(mut self) -> anyhow::Result<()> {
        self.out
            .flush()
            .with_context(|| format!("failed to write {}", self.path.display()))?;
        self.commit
            .commit()
            .with_context(|| format!("cannot rename the finished {}", self.path.display()))
    }
}

/// `--bad-games` and `--good-games`: each game's bytes, as the one read of
/// the inputs hands them over, written to the file its verdict picks, so
/// the two files together hold every game read, once each, whatever the
/// input is (a pipe, a FIFO, standard input).
struct Split {
    bad: Option<GamesFile>,
    good: Option<GamesFile>,
}

impl Split {
    /// The files of `args`, created; `None` without the flags.
    ///
    /// # Errors
    ///
    /// When a file is an input, standard output or another output, or one
    /// cannot be created.
    fn new(args: &ValidateArgs, streaming: &Streaming) -> anyhow::Result<Option<Split>> {
        let paths = [&args.bad_games, &args.good_games];
        if paths.iter().all(|p| p.is_none()) {
            return Ok(None);
        }
        if streaming.range.is_some() {
            anyhow::bail!("--bad-games and --good-games cannot be used with --byte-range");
        }
        let mut taken: Vec<(u64, u64)> = streaming
            .output
            .iter()
            .filter(|o| o.as_path() != Path::new("-"))
            .filter_map(|o| identity(o))
            .collect();
        // Whatever standard output is (a file, a pipe, a terminal): games
        // written there too would mix with the report.
        let stdout = stdout_identity(false);
        let mut files = paths.into_iter().map(|path| {
            let Some(path) = path else {
                return Ok(None);
            };
            if path == Path::new("-") {
                anyhow::bail!(
                    "--bad-games and --good-games write files: `-` (standard output) holds the report"
                );
            }
            streaming.check_output(path)?;
            let id = identity(path);
            if id.is_some() && id == stdout && streaming.output.as_deref().is_none_or(|o| o == Path::new("-")) {
                anyhow::bail!(
                    "refusing to write games to {}: standard output goes there too",
                    path.display()
                );
            }
            if id.is_some_and(|id| taken.contains(&id)) {
                anyhow::bail!(
                    "refusing to write games to {}: the run writes another output there",
                    path.display()
                );
            }
            let file = GamesFile::create(path)?;
            taken.extend(id);
            Ok(Some(file))
        });
        let bad = files.next().expect("two paths")?;
        let good = files.next().expect("two paths")?;
        if let (Some(b), Some(g)) = (&bad, &good)
            && b.path == g.path
        {
            anyhow::bail!(
                "refusing to write games to {}: the run writes another output there",
                g.path.display()
            );
        }
        Ok(Some(Split { bad, good }))
    }

    /// Writes one game's bytes to the file of its verdict.
    fn game(&mut self, raw: &[u8], bad: bool) -> anyhow::Result<()> {
        let to = if bad { &mut self.bad } else { &mut self.good };
        match to {
            Some(file) => file.write_game(raw),
            None => Ok(()),
        }
    }

    /// Flushes both files and gives them their names.
    fn finish(self) -> anyhow::Result<()> {
        for file in [self.bad, self.good].into_iter().flatten() {
            file.finish()?;
        }
        Ok(())
    }
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
    let mut records = 0u64;
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
                    if let Some(split) = split.as_mut() {
                        split.game(ctx.raw, bad)?;
                    }
                    if findings.iter().any(|f| f.severity() == Severity::Warning) {
                        with_warnings += 1;
                    }
                    if findings.iter().any(|f| policy.fails(f.code)) {
                        failing += 1;
                    }
                    tally.add(&findings, true);
                    for mut finding in findings {
                        records += 1;
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
                    records += 1;
                    *codes.entry(finding.code.as_str()).or_default() += 1;
                    report::write_finding(&mut out, format, &place, &finding)
                        .with_context(failed)?;
                }
                Event::Failed(file, err) => out.error(format!("{file}: {}", chain(&err))),
            }
            Ok(())
        },
    )?;
    if let Some(split) = split {
        split.finish()?;
    }
    let summary = format!("{with_errors} with errors, {with_warnings} with warnings");
    let product = Product {
        what: WHAT,
        command: "validate",
        format: value_name(&args.format),
        columns: (format == Format::Csv)
            .then(|| report::CSV_HEADER.split(',').map(str::to_owned).collect()),
        options: [
            vec!["--laws".to_owned(), args.laws.as_arg()],
            policy.options(),
        ]
        .concat(),
        records,
        codes: &codes,
    };
    let status = streaming.finish(&mut out, &totals, &product, failing, &summary)?;
    if !streaming.quiet {
        tally.print();
    }
    Ok(status)
}
