//! `pgnkit select`: the games the criteria pick ([`super::selection`]),
//! written byte for byte as they were read (`-f pgn`), a line each (`-f
//! text`), or as their game records (the record formats: `convert`'s run
//! with the same criteria, and the `match_ply` column).
//!
//! One read of the inputs: each worker judges its games (tags first, then
//! a replay no longer than the answer needs), and the in-order writer
//! copies the bytes of each game selected, as `validate --bad-games` does.

use super::options::{ConvertOptions, SelectOptions, SourceFormat};
use super::selection::{Admit, Picked, Stage};
use super::streaming::{Product, Streaming};
use super::{Diagnostics, Format, Input, RecordSink, Subcommand, Summary};
use crate::error::Error;
use crate::input::error::chain;
use crate::input::scan::Movetext;
use crate::output::diag;
use crate::output::problem_games::GameBytes;
use crate::output::report::{GameLabel, write_game_label};
use crate::output::tally::Tally;
use crate::rules::game::RawGame;
use crate::rules::select::{Judged, Verdict};
use crate::rules::setup::start_position;
use crate::stream::{Event, GameCtx};

/// What the output is called in errors.
const PRODUCT_NAME: &str = "output";

/// A worker's part: the verdict, and for `-f text` or a game not judged,
/// what names the game.
struct Worked {
    judged: Option<Judged>,
    label: Option<Named>,
}

/// A game's label and its matching move as written.
struct Named {
    label: GameLabel,
    first_move: (u32, shakmaty::Color),
    /// `after 12...Nf3`, when a position or move matched.
    matched: Option<String>,
}

fn worked(game: &RawGame<'_>, stage: Option<&Stage>, text: bool) -> Worked {
    let judged = stage.and_then(|s| s.judge(game));
    let unjudged = judged.is_some_and(|j| j.verdict == Verdict::Unjudged);
    let selected = match (stage, judged.map(|j| j.verdict)) {
        (None, _) => Some(None),
        (_, Some(Verdict::Selected { ply })) => Some(ply),
        _ => None,
    };
    let label = ((text && selected.is_some()) || unjudged).then(|| {
        use shakmaty::Position;
        let first_move = start_position(game).map_or((1, shakmaty::Color::White), |s| {
            (s.pos.fullmoves().get(), s.pos.turn())
        });
        Named {
            label: GameLabel::of(|t| game.tag_text(t), game.line).clipped(),
            first_move,
            matched: selected
                .flatten()
                .map(|ply| game.after_ply(ply, first_move)),
        }
    });
    Worked { judged, label }
}

/// Writes `FILE:LINE: game G (White - Black; Event, round R)` and, where a
/// position or move matched, `: ply P (after 12...Nf3)`.
fn text_line(out: &mut Vec<u8>, ctx: &GameCtx<'_>, named: &Named, ply: Option<u32>) {
    use std::io::Write;
    let place = named.label.place(ctx.place(), named.first_move, (&[], &[]));
    let _ = write!(out, "{}:{}: ", ctx.file, named.label.line + ctx.line_offset);
    let _ = write_game_label(out, &place);
    if let (Some(ply), Some(matched)) = (ply, &named.matched) {
        let _ = write!(
            out,
            ": ply {ply} ({})",
            diag::clipped(matched, 2 * diag::SHOWN)
        );
    }
    out.push(b'\n');
}

/// Runs `select` ([`super::select`]).
///
/// # Errors
///
/// For conflicting flags, or when the output cannot be written.
pub(super) fn run(
    args: &SelectOptions,
    inputs: Vec<Input>,
    records: RecordSink<'_>,
    diag: &dyn Diagnostics,
) -> Result<Summary, Error> {
    if !args.format.is_of(Subcommand::Select) {
        return Err(Error::usage(format!(
            "select does not write {}",
            args.format
        )));
    }
    if !matches!(args.format, Format::Pgn | Format::Text) {
        // The records are convert's, of the games selected.
        let convert = ConvertOptions {
            run: args.run.clone(),
            format: args.format,
            from: Some(SourceFormat::Pgn),
            openings: args.openings.clone(),
            selection: args.selection.clone(),
            ..ConvertOptions::default()
        };
        return super::convert::run_as(Subcommand::Select, &convert, inputs, records, diag);
    }
    let streaming = Streaming::new(&args.run, inputs, &records, diag);
    let stage = Stage::new(&args.selection, args.openings.as_deref(), &args.run)?;
    let (mut out, batches) = streaming.writer(records)?;
    Streaming::check_batches(batches.is_some(), args.format)?;
    streaming.check_range()?;
    let failed = streaming.write_error(PRODUCT_NAME);
    let text = args.format == Format::Text;
    let mut picked = Picked::default();
    let mut bytes = GameBytes::default();
    let mut line = Vec::with_capacity(256);
    let spool = out.clone();
    let ordered = Stage::ordered(stage.as_ref());
    let mut inputs = streaming.inputs((!ordered).then_some(&spool));
    // Criteria on tags alone: the movetext is only skipped to its end.
    if !Stage::needs_moves(stage.as_ref()) {
        inputs.movetext = Movetext::Skipped;
    }
    let totals = inputs.for_each_game(
        |game| worked(game, stage.as_ref(), text),
        |event| {
            match event {
                Event::Game(ctx, w) => match picked.admit(stage.as_ref(), w.judged) {
                    Admit::Write(ply) => {
                        if let (true, Some(named)) = (text, &w.label) {
                            line.clear();
                            text_line(&mut line, &ctx, named, ply);
                            std::io::Write::write_all(&mut out, &line).map_err(&failed)?;
                        } else if !text {
                            bytes.write(&mut out, ctx.raw).map_err(&failed)?;
                        }
                    }
                    Admit::Unjudged => {
                        if let Some(named) = &w.label {
                            let mut shown = Vec::new();
                            let place = named.label.place(ctx.place(), named.first_move, (&[], &[]));
                            let _ = write_game_label(&mut shown, &place);
                            out.note(diag::warning_line(format!(
                                "{}:{}: {}: not judged: its main line stops (a move that is not legal, or a setup refused: `pgnkit validate` says which) before a criterion on its moves is decided",
                                ctx.file,
                                named.label.line + ctx.line_offset,
                                String::from_utf8_lossy(&shown)
                            )));
                        }
                    }
                    Admit::Skip => {}
                },
                // Text holding no game: nothing to select.
                Event::Loose(..) => {}
                Event::Skipped(file, skip) => out.error(format!("{file}: {}", skip.message())),
                Event::Failed(file, err) => out.error(format!("{file}: {}", chain(&err))),
            }
            Ok(())
        },
    )?;
    let codes = Tally::new();
    let product = Product {
        what: PRODUCT_NAME,
        command: Subcommand::Select,
        format: args.format.name(),
        columns: None,
        options: options(args, stage.as_ref()),
        records: picked.selected,
        codes: &codes,
    };
    let summary = picked
        .summary(stage.as_ref())
        .unwrap_or_else(|| "no criterion: every game selected".to_owned());
    streaming.finish(&mut out, &totals, &product, picked.unjudged, &summary)
}

/// The flags besides the format that change the output.
fn options(args: &SelectOptions, stage: Option<&Stage>) -> Vec<String> {
    let mut options = Vec::new();
    if let Some(file) = &args.openings {
        options.extend(["--openings".to_owned(), file.display().to_string()]);
    }
    options.extend(stage.map(Stage::flags).unwrap_or_default());
    options
}
