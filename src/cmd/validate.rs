//! `pgnkit validate`: replay every game and report every finding.

use std::io::Write;

use anyhow::Context;

use super::{Codes, Streaming};
use crate::cli::{ReportFormat, ValidateArgs};
use crate::exit::ExitStatus;
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
    let mut out = streaming.writer(stdout)?;
    let failed = || format!("failed to write the {WHAT}");
    streaming.check_range()?;
    report::write_header(&mut out, format, !streaming.no_header).with_context(failed)?;
    let mut codes = Codes::new();
    let totals = streaming.for_each_game(
        &out.clone(),
        |game| {
            let mut check = check_game(game);
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
                    if findings.iter().any(|f| f.severity() == Severity::Error) {
                        with_errors += 1;
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
                Event::Failed(file, err) => diag::error(format!("{file}: {err}")),
            }
            Ok(())
        },
    )?;
    let summary = format!("{with_errors} with errors, {with_warnings} with warnings");
    let status = streaming.finish(&mut out, WHAT, &totals, failing, &summary, &codes)?;
    if !streaming.quiet {
        tally.print();
    }
    Ok(status)
}
