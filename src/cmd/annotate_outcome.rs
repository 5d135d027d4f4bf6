//! `pgnkit annotate-outcome`: what the Laws say happened in every game, as a
//! table (CSV, JSON Lines) or as the games written back with the outcome in
//! tags and comments.

use std::borrow::Cow;
use std::io::Write;
use std::time::Instant;

use anyhow::Context;

use super::{output_writer, thread_count};
use crate::cli::{AnnotateFormat, AnnotateOutcomeArgs, RulesProfile};
use crate::exit::ExitStatus;
use crate::output::annotate::{self, Format, Row, loss_rule_name};
use crate::output::diag;
use crate::output::pgn::{self, Edits, Keep};
use crate::rules::dead::Mateability;
use crate::rules::ends::EndKind;
use crate::rules::game::RawGame;
use crate::rules::outcome::{LossRule, Outcome, Profile, annotate};
use crate::stream::{self, Event};

/// The names of the tags `--format pgn` adds (README, man page).
pub mod tags {
    pub const RULES: &str = "PgnkitRules";
    pub const RESULT: &str = "PgnkitResult";
    pub const TERMINATION: &str = "PgnkitTermination";
    pub const TERMINATION_PLY: &str = "PgnkitTerminationPly";
    pub const THREEFOLD_CLAIM_PLY: &str = "PgnkitThreefoldClaimPly";
    pub const FIFTY_CLAIM_PLY: &str = "PgnkitFiftyClaimPly";
    pub const WINNER_CAN_MATE: &str = "PgnkitWinnerCanMate";
    pub const LOSS_RULE: &str = "PgnkitLossRule";
    pub const DEAD_REASON: &str = "PgnkitDeadReason";
    pub const ERROR: &str = "PgnkitError";
    pub const RECORDED_RESULT: &str = "PgnkitRecordedResult";
}

/// What a worker hands back for one game.
struct Annotated {
    row: Row,
    /// The game written back, for `--format pgn`.
    pgn: Option<Vec<u8>>,
    replayed: bool,
}

/// Runs `annotate-outcome`.
///
/// # Errors
///
/// When the output cannot be written.
pub fn run(args: &AnnotateOutcomeArgs, stdout: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let started = Instant::now();
    let profile = match args.rules {
        RulesProfile::Fide => Profile::Fide,
        RulesProfile::App => Profile::App,
        RulesProfile::Online => Profile::Online,
    };
    let table = match args.format {
        AnnotateFormat::Csv => Some(Format::Csv),
        AnnotateFormat::Jsonl => Some(Format::Jsonl),
        AnnotateFormat::Pgn => None,
    };
    let input = &args.input;
    let mut out = output_writer(input.output.as_deref(), stdout)?;
    if let Some(format) = table {
        annotate::write_header(&mut out, format).context("failed to write the output")?;
    }

    let mut wrong = 0u64;
    let mut not_replayed = 0u64;
    let totals = stream::for_each_game(
        &input.files,
        thread_count(input.threads),
        input.quiet,
        |game| {
            let outcome = annotate(game, profile);
            let name = |tag| {
                game.tag_text(tag)
                    .map_or_else(|| "?".to_owned(), Cow::into_owned)
            };
            let row = Row::new(&outcome, name("White"), name("Black"));
            let pgn = table.is_none().then(|| {
                let mut buf = Vec::with_capacity(1024);
                write_pgn(&mut buf, game, &outcome, args)
                    .expect("writing to a Vec<u8> cannot fail");
                buf
            });
            Annotated {
                row,
                pgn,
                replayed: outcome.is_replayed(),
            }
        },
        |event| {
            match event {
                Event::Game(ctx, done) => {
                    if !done.replayed {
                        not_replayed += 1;
                    } else if !done.row.result_ok {
                        wrong += 1;
                    }
                    match (&done.pgn, table) {
                        (Some(pgn), _) => out.write_all(pgn),
                        (None, Some(format)) => {
                            annotate::write_row(&mut out, format, ctx.file, ctx.game, &done.row)
                        }
                        (None, None) => Ok(()),
                    }
                    .context("failed to write the output")?;
                }
                // Text holding no game is `validate`'s business.
                Event::Loose(..) => {}
                Event::Failed(file, err) => diag::error(format!("{file}: {err}")),
            }
            Ok(())
        },
    )?;
    out.flush().context("failed to write the output")?;
    if !input.quiet {
        diag::summary(
            format!(
                "{}, {wrong} with a result the rules do not give, {not_replayed} not replayed",
                diag::games(totals.games),
            ),
            started.elapsed(),
        );
    }
    Ok(if totals.failed > 0 {
        ExitStatus::Error
    } else if wrong > 0 || not_replayed > 0 {
        ExitStatus::Problems
    } else {
        ExitStatus::Ok
    })
}

/// The comment at the ply where the game ended.
fn end_comment(kind: EndKind) -> Option<&'static str> {
    Some(match kind {
        EndKind::Checkmate => return None,
        EndKind::Stalemate => "stalemate: game drawn",
        EndKind::DeadPosition => "dead position: game drawn",
        EndKind::FivefoldRepetition => "fivefold repetition: game drawn",
        EndKind::SeventyFiveMoves => "seventy-five-move rule: game drawn",
        EndKind::ThreefoldRepetition => "threefold repetition: game drawn",
        EndKind::FiftyMoves => "fifty-move rule: game drawn",
    })
}

/// Writes `game` back with the outcome as `Pgnkit*` tags and comments.
fn write_pgn(
    out: &mut Vec<u8>,
    game: &RawGame<'_>,
    outcome: &Outcome,
    args: &AnnotateOutcomeArgs,
) -> std::io::Result<()> {
    let row = Row::new(outcome, String::new(), String::new());
    let mut edits = Edits::default();
    let mut tag = |name: &str, value: String| {
        if !value.is_empty() {
            edits.tags.push((name.to_owned(), value));
        }
    };
    let rules = match args.rules {
        RulesProfile::Fide => "fide",
        RulesProfile::App => "app",
        RulesProfile::Online => "online",
    };
    tag(tags::RULES, rules.to_owned());
    tag(tags::RESULT, row.fide_result.to_owned());
    tag(tags::TERMINATION, row.termination.to_owned());
    let num = |n: Option<u32>| n.map(|n| n.to_string()).unwrap_or_default();
    tag(tags::TERMINATION_PLY, num(row.termination_ply));
    tag(tags::DEAD_REASON, row.dead_reason.to_owned());
    tag(tags::THREEFOLD_CLAIM_PLY, num(row.threefold_claim_ply));
    tag(tags::FIFTY_CLAIM_PLY, num(row.fifty_claim_ply));
    tag(tags::WINNER_CAN_MATE, row.winner_can_mate.to_owned());
    tag(tags::LOSS_RULE, row.loss_rule.to_owned());
    tag(tags::ERROR, row.error.clone().unwrap_or_default());
    if args.fix_results
        && let Some(result) = outcome.rules_result
        && outcome.recorded != Some(result)
    {
        tag(
            tags::RECORDED_RESULT,
            outcome.recorded.map_or("", |r| r.as_str()).to_owned(),
        );
        edits.result = Some(result);
    }

    if let Some(ply) = outcome.threefold_claim_ply {
        edits
            .comments
            .push((ply, "threefold repetition: draw claimable".into()));
    }
    if let Some(ply) = outcome.fifty_claim_ply {
        edits
            .comments
            .push((ply, "fifty-move rule: draw claimable".into()));
    }
    if let Some(end) = outcome.end
        && let Some(text) = end_comment(end.kind)
    {
        edits.comments.push((end.ply, text.into()));
    }
    if let Some(rule) = outcome.loss_rule {
        let text = match rule {
            LossRule::Time | LossRule::Resignation => {
                format!(
                    "the winner cannot mate: 5.1.2/6.9 ({}), game drawn",
                    loss_rule_name(rule)
                )
            }
            LossRule::ResignationBefore2023 => {
                "the winner cannot mate: 5.1.2/6.9, but a resignation before 2023 stands".into()
            }
            LossRule::BareKing => "the winner has a bare king: game drawn".into(),
        };
        edits.comments.push((outcome.plies, text));
    } else if matches!(outcome.winner_can_mate, Some(Mateability::No)) && outcome.end.is_none() {
        edits
            .comments
            .push((outcome.plies, "the winner cannot mate".into()));
    }
    edits.comments.sort_by_key(|(ply, _)| *ply);
    pgn::write_game(out, game, outcome.first_move, Keep::default(), &edits)
}
