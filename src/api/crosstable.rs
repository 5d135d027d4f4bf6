//! `pgnkit crosstable`: every game's event, round, players and result
//! noted ([`super::tournament::Tracker`]), a repeat of a game (the same
//! moves from the same start) left out, and each event's standings and
//! crosstable written once every game is read.

use std::io::Write;

use super::options::CrosstableOptions;
use super::streaming::{Product, Streaming};
use super::tournament::Added;
use super::{Diagnostics, Format, Input, RecordSink, Subcommand, Summary};
use crate::error::Error;
use crate::input::error::chain;
use crate::output::columnar::Columnar;
use crate::output::tally::Tally;
use crate::rules::game::RawGame;
use crate::rules::identity::{GameKey, KeyMap, PackedKey};
use crate::rules::replay::replay;
use crate::rules::setup::start_position;
use crate::rules::tournament::OwnedTags;
use crate::schema::standing::{STANDING, StandingRecord};
use crate::stream::Event;

/// What the product is called in errors.
const PRODUCT_NAME: &str = "crosstable";

/// A worker's part: the game's tags, and its identity when it replays to
/// its end with a move (what tells a repeat).
fn noted(game: &RawGame<'_>) -> (OwnedTags, Option<GameKey>, u64) {
    let tags = OwnedTags::of_game(game);
    let key = tags
        .tags()
        .has_moves
        .then(|| {
            let start = start_position(game).ok()?;
            let mut moves = Vec::with_capacity(game.tokens.len());
            let done = replay(game, start.pos.clone(), |ply| moves.push(ply.mv));
            (done.error.is_none() && !moves.is_empty())
                .then(|| GameKey::of(&start.pos, start.mode, &moves))
        })
        .flatten();
    (tags, key, game.line)
}

/// Runs `crosstable` ([`super::crosstable`]).
///
/// # Errors
///
/// For `--byte-range` (a shard sees part of an event), or when the output
/// cannot be written.
pub(super) fn run(
    args: &CrosstableOptions,
    inputs: Vec<Input>,
    records: RecordSink<'_>,
    diag: &dyn Diagnostics,
) -> Result<Summary, Error> {
    let streaming = Streaming::new(&args.run, inputs, &records, diag);
    if !args.format.is_of(Subcommand::Crosstable) {
        return Err(Error::usage(format!(
            "crosstable does not write {}",
            args.format
        )));
    }
    if streaming.range.is_some() {
        return Err(Error::usage(
            "crosstable counts each event whole: --byte-range is not for it (a shard sees part of an event)",
        ));
    }
    if args.format == Format::Html {
        streaming.check_page()?;
    }
    streaming.check_stats(&[])?;
    let (mut out, batches) = streaming.writer(records)?;
    Streaming::check_batches(batches.is_some(), args.format)?;
    let columnar = match Columnar::of(args.format) {
        Some(c) => Some(streaming.columnar(c, &STANDING, batches)?),
        None => None,
    };
    let failed = streaming.write_error(PRODUCT_NAME);

    let mut tracker = super::tournament::Tracker::with_unrounded();
    let mut seen: KeyMap<()> = KeyMap::default();
    let mut repeats = 0u64;
    let mut outside = 0u64;
    let totals = streaming.inputs(None).for_each_game(noted, |event| {
        match event {
            Event::Game(ctx, (tags, key, line)) => {
                if let Some(key) = key
                    && seen.insert(PackedKey::from(key), ()).is_some()
                {
                    repeats += 1;
                    return Ok(());
                }
                let before = tracker.games.len();
                tracker.add(
                    ctx.file,
                    Added {
                        tags: Box::new(tags),
                        game: ctx.game,
                        offset: ctx.offset,
                        line: line + ctx.line_offset,
                        warned: false,
                        failing: false,
                        tag_values: None,
                    },
                );
                outside += u64::from(tracker.games.len() == before);
            }
            Event::Failed(file, err) => out.error(format!("{file}: {}", chain(&err))),
            Event::Loose(..) | Event::Skipped(..) => {}
        }
        Ok(())
    })?;
    let events = super::tournament::on_threads(streaming.threads, || tracker.events());
    let mut records_written = 0u64;
    let mut line = Vec::with_capacity(1024);
    match args.format {
        Format::Text => {
            let mut s = String::new();
            for (i, e) in events.iter().enumerate() {
                if i > 0 {
                    s.push('\n');
                }
                crate::output::crosstable::text(e, &mut s);
                records_written += e.standings.len() as u64;
            }
            out.write_all(s.as_bytes()).map_err(&failed)?;
        }
        Format::Html => {
            let inputs: Vec<String> = totals.inputs.iter().map(|i| i.file.clone()).collect();
            let page = crate::output::crosstable::page(&events, &inputs);
            records_written = events.iter().map(|e| e.standings.len() as u64).sum();
            out.write_all(page.as_bytes()).map_err(&failed)?;
        }
        format => {
            let mut columnar = columnar;
            let lines = match format {
                Format::Csv => Some(crate::schema::Format::Csv),
                Format::Jsonl => Some(crate::schema::Format::Jsonl),
                _ => None,
            };
            if lines == Some(crate::schema::Format::Csv) && !streaming.no_header {
                crate::output::write_csv_record(&mut out, STANDING.csv_names(&[]))
                    .map_err(&failed)?;
            }
            for e in &events {
                let rows = e.row_of();
                for row in 0..e.standings.len() {
                    let record = StandingRecord {
                        event: e,
                        row,
                        rows: &rows,
                    };
                    line.clear();
                    match (lines, columnar.as_mut()) {
                        (Some(f), _) => record.write(f, &mut line),
                        (None, Some(sink)) => {
                            record.columnar(sink.rows());
                            sink.flush_full(&mut out).map_err(&failed)?;
                        }
                        (None, None) => {}
                    }
                    out.write_all(&line).map_err(&failed)?;
                    records_written += 1;
                }
            }
            if let Some(sink) = columnar {
                sink.finish(&mut out).map_err(&failed)?;
            }
        }
    }
    let players: usize = events.iter().map(|e| e.players.len()).sum();
    let mut summary = format!(
        "{} event{}, {players} player{}",
        events.len(),
        if events.len() == 1 { "" } else { "s" },
        if players == 1 { "" } else { "s" },
    );
    if repeats > 0 {
        summary.push_str(&format!(
            ", {repeats} repeat{} of a game counted once",
            if repeats == 1 { "" } else { "s" }
        ));
    }
    if outside > 0 {
        summary.push_str(&format!(
            ", {outside} game{} without an Event tag left out",
            if outside == 1 { "" } else { "s" }
        ));
    }
    let tally = Tally::default();
    let product = Product {
        what: PRODUCT_NAME,
        command: Subcommand::Crosstable,
        format: args.format.name(),
        columns: (args.format == Format::Csv).then(|| {
            STANDING
                .csv_names(&[])
                .into_iter()
                .map(str::to_owned)
                .collect()
        }),
        options: Vec::new(),
        records: records_written,
        codes: &tally,
    };
    streaming.finish(&mut out, &totals, &product, 0, &summary)
}
