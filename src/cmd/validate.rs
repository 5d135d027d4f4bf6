//! `pgnkit validate`: replay every game and report every finding.

use std::io::Write;

use anyhow::Context;

use super::{Codes, Streaming};
use crate::cli::{ReportFormat, ValidateArgs};
use crate::exit::ExitStatus;
use crate::output::diag;
use crate::output::report::{self, Format, Place, players};
use crate::rules::check::{GameCheck, check_game};
use crate::rules::finding::Severity;
use crate::stream::Event;

/// What the report is called in errors.
const WHAT: &str = "report";

/// The settings of one run, from the arguments.
struct Settings {
    streaming: Streaming,
    format: Format,
}

fn settings(args: &ValidateArgs) -> Settings {
    Settings {
        streaming: Streaming::new(&args.input),
        format: match args.format {
            ReportFormat::Text => Format::Text,
            ReportFormat::Csv => Format::Csv,
            ReportFormat::Jsonl => Format::Jsonl,
        },
    }
}

/// Runs `validate`.
///
/// # Errors
///
/// When the report cannot be written.
pub fn run(args: &ValidateArgs, stdout: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let Settings { streaming, format } = settings(args);
    let mut with_errors = 0u64;
    let mut with_warnings = 0u64;
    let mut out = streaming.writer(stdout)?;
    let failed = || format!("failed to write the {WHAT}");
    streaming.check_range()?;
    report::write_header(&mut out, format, !streaming.no_header).with_context(failed)?;
    let mut codes = Codes::new();
    let totals = streaming.for_each_game(
        &out.clone(),
        |game| {
            let check = check_game(game);
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
                    for mut finding in findings {
                        *codes.entry(finding.code.as_str()).or_default() += 1;
                        finding.line += ctx.line_offset;
                        report::write_finding(&mut out, format, &place, &finding)
                            .with_context(failed)?;
                    }
                }
                Event::Loose(file, finding) => {
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
    streaming.finish(&mut out, WHAT, &totals, with_errors, &summary, &codes)
}
