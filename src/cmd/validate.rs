//! `pgnkit validate`: replay every game and report every finding.

use std::borrow::Cow;
use std::io::Write;
use std::time::Instant;

use anyhow::Context;

use super::{output_writer, thread_count};
use crate::cli::{ReportFormat, ValidateArgs};
use crate::exit::ExitStatus;
use crate::output::diag;
use crate::output::report::{self, Format, Place};
use crate::rules::check::{GameCheck, check_game};
use crate::rules::finding::Severity;
use crate::stream::{self, Event};

/// Runs `validate`.
///
/// # Errors
///
/// When the report cannot be written.
pub fn run(args: &ValidateArgs, stdout: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let started = Instant::now();
    let format = match args.format {
        ReportFormat::Text => Format::Text,
        ReportFormat::Csv => Format::Csv,
        ReportFormat::Jsonl => Format::Jsonl,
    };
    let input = &args.input;
    let mut out = output_writer(input.output.as_deref(), stdout)?;
    report::write_header(&mut out, format).context("failed to write the report")?;

    let mut with_errors = 0u64;
    let mut with_warnings = 0u64;
    let totals = stream::for_each_game(
        &input.files,
        thread_count(input.threads),
        input.quiet,
        |game| {
            let check = check_game(game);
            // Names are only decoded for games that have something to say.
            let names = (!check.findings.is_empty()).then(|| {
                let name = |tag| {
                    game.tag_text(tag)
                        .map_or_else(|| "?".to_owned(), Cow::into_owned)
                };
                (name("White"), name("Black"))
            });
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
                        finding.line += ctx.line_offset;
                        report::write_finding(&mut out, format, &place, &finding)
                            .context("failed to write the report")?;
                    }
                }
                Event::Loose(file, finding) => {
                    let place = Place {
                        file,
                        game: None,
                        white: "",
                        black: "",
                        first_move: (1, shakmaty::Color::White),
                    };
                    report::write_finding(&mut out, format, &place, &finding)
                        .context("failed to write the report")?;
                }
                Event::Failed(file, err) => diag::error(format!("{file}: {err}")),
            }
            Ok(())
        },
    )?;
    out.flush().context("failed to write the report")?;
    if !input.quiet {
        diag::summary(
            format!(
                "{}, {with_errors} with errors, {with_warnings} with warnings",
                diag::games(totals.games),
            ),
            started.elapsed(),
        );
    }
    Ok(if totals.failed > 0 {
        ExitStatus::Error
    } else if with_errors > 0 {
        ExitStatus::Problems
    } else {
        ExitStatus::Ok
    })
}
