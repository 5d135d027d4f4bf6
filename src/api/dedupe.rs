//! `pgnkit dedupe`: the games of the inputs that are one game
//! ([`crate::rules::identity`]), grouped; each written once.
//!
//! Two reads of the inputs. The first replays every game (in parallel) to
//! its key and groups them in input order: a table of 32 bytes per
//! distinct game (its 16-byte key, the group's kept copy, its size and the
//! measure `--keep` compares, 4 bytes each) and 4 bytes per game (its
//! group). The second only cuts the inputs into games again and copies
//! each game's bytes where its role sends it; the games of groups with a
//! repeat have their tags read again, to tell each repeat's kind from the
//! copy kept, and make the report at the end.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use super::options::{DedupeOptions, Keep};
use super::streaming::{Product, Streaming};
use super::{Diagnostics, Format, Input, RecordSink, Subcommand, Summary};
use crate::error::Error;
use crate::input::error::chain;
use crate::output::columnar::{Columnar, ColumnarSink};
use crate::output::diag;
use crate::output::problem_games::GameBytes;
use crate::output::tally::Tally;
use crate::rules::game::{RawGame, decode_text};
use crate::rules::identity::GameKey;
use crate::rules::replay::replay;
use crate::rules::setup::start_position;
use crate::schema::duplicate::{DUPLICATE, DuplicateRecord, Kind};
use crate::stream::Event;

/// What the product is called in errors.
const PRODUCT_NAME: &str = "output";

/// A game in no group: it could not be replayed.
const NONE: u32 = u32::MAX;

/// A group of games with one key, as the first read leaves it.
#[derive(Debug, Clone, Copy)]
struct Group {
    /// The ordinal (in the whole run) of the copy kept.
    kept: u32,
    /// Games in the group.
    members: u32,
    /// What `--keep` compares, of the copy kept.
    best: u32,
}

/// A game of a group with a repeat, as the second read finds it.
struct Member {
    group: u32,
    ordinal: u32,
    file: String,
    game: u64,
    offset: u64,
    line: u64,
    tags: Vec<(String, String)>,
    plies: u32,
}

impl Member {
    fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The key of a game replayed to its end, and its plies: the first read's
/// work on each game.
fn identify(game: &RawGame<'_>) -> Option<(GameKey, u32)> {
    let start = start_position(game).ok()?;
    let mut moves = Vec::with_capacity(game.tokens.len());
    let done = replay(game, start.pos.clone(), |ply| moves.push(ply.mv));
    if done.error.is_some() {
        return None;
    }
    Some((GameKey::of(&start.pos, start.mode, &moves), done.plies))
}

/// The tags of a game's bytes, decoded, in order.
fn tags_of(raw: &[u8]) -> Vec<(String, String)> {
    let scan = crate::input::scan::scan(raw, true);
    scan.games
        .first()
        .map(|g| {
            g.tags
                .iter()
                .map(|t| (decode_text(t.name).into_owned(), t.text().into_owned()))
                .collect()
        })
        .unwrap_or_default()
}

/// What a repeat is beside the copy kept, and the tags that differ.
fn kind_of(kept: &Member, repeat: &Member) -> (Kind, Vec<String>) {
    let mut differ: Vec<String> = Vec::new();
    for (name, value) in &kept.tags {
        if repeat.tag(name) != Some(value.as_str()) && !differ.contains(name) {
            differ.push(name.clone());
        }
    }
    for (name, _) in &repeat.tags {
        if kept.tag(name).is_none() && !differ.contains(name) {
            differ.push(name.clone());
        }
    }
    let kind = if differ.iter().any(|n| n == "Result") {
        Kind::ResultDiffers
    } else if differ.is_empty() {
        Kind::Exact
    } else {
        Kind::TagsDiffer
    };
    (kind, differ)
}

/// Refuses inputs that cannot be read twice.
fn check_inputs(streaming: &Streaming<'_>) -> Result<(), Error> {
    let regular = |i: &Input| {
        i.as_path()
            .is_some_and(|p| p != Path::new("-") && std::fs::metadata(p).is_ok_and(|m| m.is_file()))
    };
    if streaming.files.is_empty() || !streaming.files.iter().all(regular) {
        return Err(Error::usage(
            "dedupe reads its inputs twice (once to find the repeats, once to write the games), \
             so they must be regular files, not a pipe or standard input",
        ));
    }
    if streaming.range.is_some() {
        return Err(Error::usage(
            "dedupe compares every game with every other: --byte-range is not for it \
             (on a cluster, group `convert`'s key column: docs/shards.md)",
        ));
    }
    Ok(())
}

/// Where the report goes: one sink per format.
enum Report<'a> {
    /// `-f pgn`: no report, the games kept are the product.
    Games,
    /// `-f text`.
    Text,
    /// `-f csv|jsonl`.
    Lines(crate::schema::Format),
    /// `-f parquet|arrow`.
    Columnar(ColumnarSink<'a>),
}

/// Runs `dedupe` ([`super::dedupe`]).
///
/// # Errors
///
/// For conflicting flags or inputs that cannot be read twice, when an input
/// changed between the two reads, or when an output cannot be written.
pub(super) fn run(
    args: &DedupeOptions,
    inputs: Vec<Input>,
    records: RecordSink<'_>,
    diag: &dyn Diagnostics,
) -> Result<Summary, Error> {
    let streaming = Streaming::new(&args.run, inputs, &records, diag);
    check_inputs(&streaming)?;
    if args.format == Format::Pgn && args.unique.is_some() {
        return Err(Error::usage(
            "--unique goes with a report format (-f text, csv, …): -f pgn writes the games kept",
        ));
    }
    let copies: Vec<&Path> = [&args.duplicates, &args.unique]
        .into_iter()
        .filter_map(|p| p.as_deref())
        .collect();
    streaming.check_stats(&copies)?;
    let (mut out, batches) = streaming.writer(records)?;
    Streaming::check_batches(batches.is_some(), args.format)?;
    let mut report = match args.format {
        Format::Pgn => Report::Games,
        Format::Csv => Report::Lines(crate::schema::Format::Csv),
        Format::Jsonl => Report::Lines(crate::schema::Format::Jsonl),
        format => match Columnar::of(format) {
            Some(c) => Report::Columnar(streaming.columnar(c, &DUPLICATE, batches)?),
            None => Report::Text,
        },
    };
    let failed = streaming.write_error(PRODUCT_NAME);
    let mut files = streaming.game_files(
        args.duplicates.as_deref(),
        args.unique.as_deref(),
        "--duplicates and --unique",
    )?;

    // The first read: every game's key, grouped in input order.
    let mut table: HashMap<GameKey, u32> = HashMap::new();
    let mut groups: Vec<Group> = Vec::new();
    let mut of_game: Vec<u32> = Vec::new();
    let mut plies_of: Vec<u32> = Vec::new();
    let first = streaming.inputs(None).for_each_game(
        |game| identify(game).map(|id| (id, game.tags.len())),
        |event| {
            if let Event::Game(ctx, id) = event {
                let ordinal = u32::try_from(of_game.len()).map_err(|_| {
                    anyhow::anyhow!("dedupe holds at most {} games in one run", u32::MAX - 1)
                })?;
                let Some(((key, plies), tags)) = id else {
                    of_game.push(NONE);
                    return Ok(());
                };
                let measure = match args.keep {
                    Keep::First => 0,
                    Keep::Longest => u32::try_from(ctx.raw.len()).unwrap_or(u32::MAX),
                    Keep::MostTags => u32::try_from(tags).unwrap_or(u32::MAX),
                };
                let next = u32::try_from(groups.len()).expect("fewer groups than games");
                let index = *table.entry(key).or_insert(next);
                if index == next {
                    groups.push(Group {
                        kept: ordinal,
                        members: 0,
                        best: measure,
                    });
                    plies_of.push(plies);
                }
                let group = &mut groups[index as usize];
                group.members += 1;
                if measure > group.best {
                    group.kept = ordinal;
                    group.best = measure;
                }
                of_game.push(index);
            }
            // Failures and skipped stretches are reported by the second
            // read, which meets them again.
            Ok(())
        },
    )?;

    // The second read: each game's bytes where its role sends them.
    let mut members: Vec<Member> = Vec::new();
    let mut ordinal = 0usize;
    let mut repeats = 0u64;
    let mut changed = false;
    let mut kept_bytes = GameBytes::default();
    let totals = streaming.inputs(None).for_each_game(
        |game| game.line,
        |event| {
            match event {
                Event::Game(ctx, line) => {
                    let Some(&index) = of_game.get(ordinal) else {
                        changed = true;
                        return Ok(());
                    };
                    let this = ordinal as u32;
                    ordinal += 1;
                    let group = (index != NONE).then(|| groups[index as usize]);
                    let repeat = group.is_some_and(|g| g.kept != this);
                    if group.is_some_and(|g| g.members > 1) {
                        members.push(Member {
                            group: index,
                            ordinal: this,
                            file: ctx.file.to_owned(),
                            game: ctx.game,
                            offset: ctx.offset.unwrap_or(0),
                            line: line + ctx.line_offset,
                            tags: tags_of(ctx.raw),
                            plies: plies_of[index as usize],
                        });
                    }
                    if repeat {
                        repeats += 1;
                    } else if matches!(report, Report::Games) {
                        kept_bytes.write(&mut out, ctx.raw).map_err(&failed)?;
                    }
                    if let Some(files) = files.as_mut() {
                        files.game(ctx.raw, repeat)?;
                    }
                }
                Event::Loose(..) => {}
                Event::Skipped(file, skip) => out.error(format!("{file}: {}", skip.message())),
                Event::Failed(file, err) => out.error(format!("{file}: {}", chain(&err))),
            }
            Ok(())
        },
    )?;
    if changed || ordinal != of_game.len() || first.games != totals.games {
        return Err(Error::usage(
            "an input changed between dedupe's two reads of it: run it again on files no one writes",
        ));
    }
    if let Some(files) = files {
        files.finish()?;
    }

    // The report: the groups in the order of their first copy, each game
    // of a group in input order.
    let keys: HashMap<u32, GameKey> = table
        .iter()
        .filter(|(_, i)| groups[**i as usize].members > 1)
        .map(|(k, i)| (*i, *k))
        .collect();
    drop(table);
    let mut numbers: HashMap<u32, u64> = HashMap::new();
    for m in &members {
        let n = numbers.len() as u64 + 1;
        numbers.entry(m.group).or_insert(n);
    }
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by_key(|&i| (numbers[&members[i].group], members[i].ordinal));
    let kept_of: HashMap<u32, usize> = members
        .iter()
        .enumerate()
        .filter(|(_, m)| groups[m.group as usize].kept == m.ordinal)
        .map(|(i, m)| (m.group, i))
        .collect();
    if matches!(report, Report::Lines(crate::schema::Format::Csv)) && !streaming.no_header {
        crate::output::write_csv_record(&mut out, DUPLICATE.csv_names(&[])).map_err(&failed)?;
    }
    let mut records_written = 0u64;
    let mut line = Vec::with_capacity(512);
    for &i in &order {
        let m = &members[i];
        let kept = &members[kept_of[&m.group]];
        let (kind, differ) = if kept.ordinal == m.ordinal {
            (None, Vec::new())
        } else {
            let (kind, differ) = kind_of(kept, m);
            (Some(kind), differ)
        };
        let record = DuplicateRecord {
            group: numbers[&m.group],
            kind,
            tags_differ: differ,
            file: m.file.clone(),
            game: m.game,
            offset: m.offset,
            line: m.line,
            white: m.tag("White").unwrap_or("?").to_owned(),
            black: m.tag("Black").unwrap_or("?").to_owned(),
            event: m.tag("Event").map(str::to_owned),
            round: m.tag("Round").map(str::to_owned),
            plies: m.plies,
            key: keys[&m.group].to_string(),
        };
        line.clear();
        match &mut report {
            Report::Games => continue,
            Report::Text => text_record(&mut line, &record, groups[m.group as usize].members),
            Report::Lines(format) => record.write(*format, &mut line),
            Report::Columnar(sink) => {
                record.columnar(sink.rows());
                sink.flush_full(&mut out).map_err(&failed)?;
            }
        }
        out.write_all(&line).map_err(&failed)?;
        records_written += 1;
    }
    if let Report::Columnar(sink) = report {
        sink.finish(&mut out).map_err(&failed)?;
    }
    let grouped = numbers.len() as u64;
    let unjudged = of_game.iter().filter(|&&g| g == NONE).count() as u64;
    let summary = format!(
        "{grouped} group{} of repeats, {repeats} repeat{} left out, {unjudged} not replayed (never grouped)",
        if grouped == 1 { "" } else { "s" },
        if repeats == 1 { "" } else { "s" },
    );
    let tally = Tally::default();
    let product = Product {
        what: PRODUCT_NAME,
        command: Subcommand::Dedupe,
        format: args.format.name(),
        columns: (args.format == Format::Csv).then(|| {
            DUPLICATE
                .csv_names(&[])
                .into_iter()
                .map(str::to_owned)
                .collect()
        }),
        options: vec!["--keep".to_owned(), keep_name(args.keep).to_owned()],
        records: records_written,
        codes: &tally,
    };
    streaming.finish(&mut out, &totals, &product, repeats, &summary)
}

/// `--keep`'s value as the command line spells it.
fn keep_name(keep: Keep) -> &'static str {
    match keep {
        Keep::First => "first",
        Keep::Longest => "longest",
        Keep::MostTags => "most-tags",
    }
}

/// One line of the text report: the group's head before its kept copy,
/// then a line per game.
fn text_record(out: &mut Vec<u8>, r: &DuplicateRecord, members: u32) {
    let esc = |s: &str| diag::escaped(s).into_owned();
    if r.kind.is_none() {
        let mut about = Vec::new();
        if let Some(event) = &r.event {
            about.push(esc(event));
        }
        if let Some(round) = &r.round {
            about.push(format!("round {}", esc(round)));
        }
        let about = if about.is_empty() {
            String::new()
        } else {
            format!(" ({})", about.join(", "))
        };
        let _ = writeln!(
            out,
            "group {}: {members} copies of {} - {}{about}, {} plies, key {}",
            r.group,
            esc(&r.white),
            esc(&r.black),
            r.plies,
            r.key
        );
    }
    let role = if r.kind.is_some() { "repeat" } else { "kept  " };
    let _ = write!(out, "  {role} {}:{}: game {}", esc(&r.file), r.line, r.game);
    match r.kind {
        None => {}
        Some(Kind::Exact) => {
            let _ = write!(out, ": exact");
        }
        Some(kind) => {
            let names: Vec<String> = r.tags_differ.iter().map(|n| esc(n)).collect();
            let _ = write!(out, ": {} ({})", kind.as_str(), names.join(", "));
        }
    }
    out.push(b'\n');
}
