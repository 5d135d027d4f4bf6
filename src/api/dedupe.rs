//! `pgnkit dedupe`: the games of the inputs that are one game
//! ([`crate::rules::identity`]), grouped; each written once.
//!
//! Two reads of the inputs. The first replays every game (in parallel) to
//! its key and groups them in input order: 32 bytes per distinct game (a
//! hash table entry of 24: its 16-byte key and its group's number; the
//! group, 4: the copy kept and whether there are others; its plies, 4; 4
//! more for what `--keep longest|most-tags` compares), beside the table's
//! slack, and 16 bytes per game (its group, and where its bytes are), 16
//! more per game whose players are named while truncated copies are looked
//! for (its pairing; not with `--no-prefix`). The second reads each input again as a
//! plain stream of bytes (no scan, no replay) and copies each game's bytes
//! where its role sends them; the games of groups with a repeat have their
//! tags read again, to tell each repeat's kind from the copy kept, and
//! make the report at the end.

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
use crate::rules::identity::{GameKey, KeyMap, PackedKey};
use crate::rules::replay::replay;
use crate::rules::setup::start_position;
use crate::schema::duplicate::{DUPLICATE, DuplicateRecord, Kind};
use crate::stream::Event;

/// What the product is called in errors.
const PRODUCT_NAME: &str = "output";

/// A game in no group: it could not be replayed.
const NONE: u32 = u32::MAX;

/// A group of games with one key, as the first read leaves it: the
/// ordinal (in the whole run) of the copy kept, and whether the group has
/// another copy ([`REPEATED`]). 4 bytes: what `--keep longest|most-tags`
/// compares is held beside it only for those.
#[derive(Debug, Clone, Copy)]
struct Group(u32);

/// The bit of a [`Group`] that says it holds more than one game.
const REPEATED: u32 = 1 << 31;

impl Group {
    fn kept(self) -> u32 {
        self.0 & !REPEATED
    }

    fn repeated(self) -> bool {
        self.0 & REPEATED != 0
    }
}

/// Where a game's bytes are, and its group (`NONE`: none).
#[derive(Debug, Clone, Copy)]
struct Slot {
    raw_offset: u64,
    raw_len: u32,
    group: u32,
}

/// An input read again, as plain bytes, game by recorded game.
struct Reread<'i> {
    input: &'i crate::stream::InputTotals,
    reader: std::io::BufReader<Box<dyn std::io::Read + Send>>,
    /// The offset read up to, and the newlines before it.
    pos: u64,
    lines: u64,
}

impl<'i> Reread<'i> {
    /// Opens `input` again (decompressing as the first read did).
    fn open(input: &'i crate::stream::InputTotals) -> Result<Reread<'i>, Error> {
        let source = crate::input::open::open(&input.path, Default::default())
            .map_err(|e| Error::input(&input.file, "cannot open it again", e))?;
        Ok(Reread {
            input,
            reader: std::io::BufReader::with_capacity(1 << 20, source.reader),
            pos: 0,
            lines: 0,
        })
    }

    /// Reads the bytes of the game at `slot` (later than the last one
    /// read) into `buf`; the newlines before them.
    fn game(&mut self, slot: Slot, buf: &mut Vec<u8>) -> Result<u64, Error> {
        let changed = || {
            Error::usage(format!(
                "{}: it changed between dedupe's reads of it: run it again on files no one writes",
                self.input.file
            ))
        };
        let gap = slot.raw_offset.checked_sub(self.pos).ok_or_else(changed)?;
        self.lines += skip(&mut self.reader, gap).map_err(|_| changed())?;
        buf.resize(slot.raw_len as usize, 0);
        std::io::Read::read_exact(&mut self.reader, buf).map_err(|_| changed())?;
        self.pos = slot.raw_offset + u64::from(slot.raw_len);
        let before = self.lines;
        self.lines += memchr::memchr_iter(b'\n', buf).count() as u64;
        Ok(before)
    }
}

/// Reads and drops `n` bytes of `reader`; the newlines among them.
fn skip(reader: &mut impl std::io::BufRead, mut n: u64) -> std::io::Result<u64> {
    let mut lines = 0;
    while n > 0 {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let take = available
            .len()
            .min(usize::try_from(n).unwrap_or(usize::MAX));
        lines += memchr::memchr_iter(b'\n', &available[..take]).count() as u64;
        reader.consume(take);
        n -= take as u64;
    }
    Ok(lines)
}

/// A game of a group with a repeat, as the second read finds it.
struct Member {
    group: u32,
    /// Its own key's number: the same as the kept copy's unless it is a
    /// transposition of it.
    line_index: u32,
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

/// What the first read finds of a game replayed to its end.
#[derive(Debug, Clone, Copy)]
struct Identity {
    /// The game's key.
    key: GameKey,
    /// With `--transpositions`, the key of its start, final position and
    /// length ([`GameKey::of_outcome`]).
    reached: Option<GameKey>,
    plies: u32,
    tags: usize,
    /// The pairing, folded ([`players`]).
    players: Option<u64>,
}

/// The pairing of a game and its date, folded so that two spellings of one
/// name meet: each side's surname (before a comma, else the last word),
/// letters only, in lower case, and the `Date` tag as written. `None` when
/// a side is unknown (`?`, missing). Two games of one pairing on one day
/// whose moves start alike are, but for a match's repeated opening, one
/// game and a copy cut short.
fn players(game: &RawGame<'_>) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    let fold = |name: &str| -> Option<String> {
        let surname = match name.split_once(',') {
            Some((surname, _)) => surname,
            None => name.split_whitespace().last()?,
        };
        let folded: String = surname
            .chars()
            .filter(|c| c.is_alphabetic())
            .flat_map(char::to_lowercase)
            .collect();
        (!folded.is_empty()).then_some(folded)
    };
    let white = fold(&game.tag_text("White")?)?;
    let black = fold(&game.tag_text("Black")?)?;
    let date = game.tag_text("Date").map(|d| d.trim().to_owned());
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (white, black, date).hash(&mut hasher);
    Some(hasher.finish())
}

/// The first read's work on each game: its identity, when it replays to
/// its end.
fn identify(game: &RawGame<'_>, transpositions: bool, prefix: bool) -> Option<Identity> {
    let start = start_position(game).ok()?;
    let mut moves = Vec::with_capacity(game.tokens.len());
    let done = replay(game, start.pos.clone(), |ply| moves.push(ply.mv));
    if done.error.is_some() {
        return None;
    }
    Some(Identity {
        key: GameKey::of(&start.pos, start.mode, &moves),
        reached: transpositions
            .then(|| GameKey::of_outcome(&start.pos, start.mode, &done.pos, done.plies)),
        plies: done.plies,
        tags: distinct_tags(game),
        players: if prefix { players(game) } else { None },
    })
}

/// How many tags `game` has, a tag named twice counted once (its first
/// value is its value, as in `convert`'s `tags`).
fn distinct_tags(game: &RawGame<'_>) -> usize {
    game.tags
        .iter()
        .enumerate()
        .filter(|(i, t)| !game.tags[..*i].iter().any(|u| u.name == t.name))
        .count()
}

/// The tags of a game's bytes, decoded, in order, and the line (in the
/// bytes, from 1) and offset (from 0) where the game starts.
fn tags_of(raw: &[u8]) -> (Vec<(String, String)>, u64, u64) {
    // Only the header is read.
    let end = crate::input::scan::header_end(raw);
    let scan = crate::input::scan::scan(&raw[..end], true);
    scan.games
        .first()
        .map(|g| {
            let tags = g
                .tags
                .iter()
                .map(|t| (decode_text(t.name).into_owned(), t.text().into_owned()))
                .collect();
            (tags, g.line, g.offset as u64)
        })
        .unwrap_or_default()
}

/// What a repeat is beside the copy kept, and the tags that differ.
fn kind_of(kept: &Member, repeat: &Member) -> (Kind, Vec<String>) {
    let transposed = kept.line_index != repeat.line_index;
    // A tag named twice has its first value (as `convert`'s `tags`).
    let mut differ: Vec<String> = Vec::new();
    for (name, _) in &kept.tags {
        if repeat.tag(name) != kept.tag(name) && !differ.contains(name) {
            differ.push(name.clone());
        }
    }
    for (name, _) in &repeat.tags {
        if kept.tag(name).is_none() && !differ.contains(name) {
            differ.push(name.clone());
        }
    }
    let kind = if repeat.plies < kept.plies {
        Kind::Prefix
    } else if transposed {
        Kind::Transposed
    } else if differ.iter().any(|n| n == "Result") {
        Kind::ResultDiffers
    } else if differ.is_empty() {
        Kind::Exact
    } else {
        Kind::TagsDiffer
    };
    (kind, differ)
}

/// The most lines of one pairing compared with each other for truncated
/// copies: a bound on the work a hostile file (one pairing in a million
/// games) can ask for.
const PAIRING_LINES: usize = 1024;

/// Truncated copies. Among the games of one pairing ([`players`]), a line
/// (a key) whose moves are the start of a longer line's is a prefix of it:
/// the longer lines are read again (only those games, as plain bytes) and
/// replayed, and the key of each shorter line's length compared. Returns,
/// for each group of a shorter line, the group of the longest line it
/// starts.
///
/// # Errors
///
/// When an input changed since the first read.
fn prefixes(
    totals: &crate::stream::Totals,
    pairings: &mut [(u64, u32, u32)],
    slots: &[Slot],
    plies_of: &[u32],
    keys: &KeyMap<u32>,
) -> Result<HashMap<u32, u32>, Error> {
    pairings.sort_unstable();
    let plies = |ordinal: u32| plies_of[slots[ordinal as usize].group as usize];
    // The long games to replay, each with the (plies, line) it may start.
    let mut needs: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    let mut shorts: HashMap<u32, u32> = HashMap::new();
    for run in pairings.chunk_by(|a, b| a.0 == b.0) {
        let mut lines: Vec<(u32, u32)> = run.iter().map(|&(_, line, ord)| (line, ord)).collect();
        lines.dedup_by_key(|l| l.0);
        if lines.len() < 2 {
            continue;
        }
        lines.truncate(PAIRING_LINES);
        let mut by_plies: Vec<(u32, u32, u32)> = lines
            .iter()
            .map(|&(line, ord)| (plies(ord), line, ord))
            .collect();
        by_plies.sort_unstable();
        for (i, &(long, _, ord)) in by_plies.iter().enumerate() {
            for &(short, line, short_ord) in &by_plies[..i] {
                if short < long {
                    needs.entry(ord).or_default().push((short, line));
                    shorts.insert(line, short_ord);
                }
            }
        }
    }
    let mut found: HashMap<u32, (u32, u32)> = HashMap::new();
    if needs.is_empty() {
        return Ok(HashMap::new());
    }
    let short_keys: HashMap<u32, GameKey> = keys
        .iter()
        .filter(|(_, line)| shorts.contains_key(line))
        .map(|(k, line)| (*line, GameKey::from(*k)))
        .collect();
    let mut ordinal = 0usize;
    for input in &totals.inputs {
        let games = usize::try_from(input.games).unwrap_or(usize::MAX);
        let range = ordinal..ordinal + games;
        ordinal += games;
        if !needs.keys().any(|o| range.contains(&(*o as usize))) {
            continue;
        }
        let mut again = Reread::open(input)?;
        // The candidates' bytes, read in order; replayed in parallel.
        let mut candidates: Vec<(usize, Vec<u8>)> = Vec::new();
        for n in range {
            if !needs.contains_key(&(n as u32)) {
                continue;
            }
            let mut bytes = Vec::new();
            again.game(slots[n], &mut bytes)?;
            candidates.push((n, bytes));
        }
        use rayon::prelude::*;
        let matches: Vec<Vec<(u32, u32, u32)>> = candidates
            .par_iter()
            .map(|(n, bytes)| {
                let want = &needs[&(*n as u32)];
                let slot = slots[*n];
                let scan = crate::input::scan::scan(bytes, true);
                let Some(game) = scan.games.first() else {
                    return Vec::new();
                };
                let Ok(start) = start_position(game) else {
                    return Vec::new();
                };
                let mut moves = Vec::with_capacity(game.tokens.len());
                replay(game, start.pos.clone(), |ply| moves.push(ply.mv));
                let long = plies_of[slot.group as usize];
                want.iter()
                    .filter(|&&(short, line)| {
                        moves.get(..short as usize).is_some_and(|prefix| {
                            short_keys.get(&line)
                                == Some(&GameKey::of(&start.pos, start.mode, prefix))
                        })
                    })
                    .map(|&(_, line)| (line, long, slot.group))
                    .collect()
            })
            .collect();
        for (line, long, group) in matches.into_iter().flatten() {
            if found.get(&line).is_none_or(|&(best, _)| long > best) {
                found.insert(line, (long, group));
            }
        }
    }
    Ok(found
        .into_iter()
        .map(|(line, (_, group))| (slots[shorts[&line] as usize].group, group))
        .filter(|(from, to)| from != to)
        .collect())
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
             (on a cluster, the Spark job's dedupe: docs/dedupe.md)",
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
    // The archive's files come first, so that its games are met first.
    let archive: Vec<std::path::PathBuf> = crate::input::open::expand_dirs(&args.against).files;
    let mut all: Vec<Input> = archive.iter().cloned().map(Input::Path).collect();
    all.extend(inputs);
    let streaming = Streaming::new(&args.run, all, &records, diag);
    check_inputs(&streaming)?;
    let archive_names: std::collections::HashSet<String> = archive
        .iter()
        .map(|p| crate::input::open::input_name(p))
        .collect();
    if !archive.is_empty() {
        let given = streaming.files.len() - archive.len();
        let inputs = &streaming.files[archive.len()..];
        if given == 0 {
            return Err(Error::usage(
                "--against names the archive: give the games to check too",
            ));
        }
        if let Some(both) = inputs.iter().find(|i| archive_names.contains(&i.name())) {
            return Err(Error::usage(format!(
                "{} is both an input and an archive (--against)",
                both.name()
            )));
        }
    }
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

    // The first read: every game's key, grouped in input order, and where
    // its bytes are. Groups are by key, or with --transpositions by the
    // position reached and the length; then each game's own key is a
    // line of its group, also noted.
    let mut table: KeyMap<u32> = KeyMap::default();
    let mut lines_table: KeyMap<u32> = KeyMap::default();
    let mut line_of: Vec<u32> = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    // What `--keep` compares of each group's copy kept (not for `first`).
    let mut best: Vec<u32> = Vec::new();
    let mut slots: Vec<Slot> = Vec::new();
    let mut plies_of: Vec<u32> = Vec::new();
    // Whether the games met are still the archive's.
    let mut in_archive = !archive.is_empty();
    // Each game's pairing, own key's number (its line) and ordinal: where
    // truncated copies are looked for.
    let mut pairings: Vec<(u64, u32, u32)> = Vec::new();
    let mut empty = 0u64;
    let totals = streaming.inputs(None).for_each_game(
        |game| identify(game, args.transpositions, !args.no_prefix),
        |event| {
            match event {
                Event::Game(ctx, id) => {
                    let ordinal = u32::try_from(slots.len())
                        .ok()
                        .filter(|&n| n < REPEATED)
                        .ok_or_else(|| {
                            anyhow::anyhow!(
                                "dedupe holds at most {} games in one run",
                                REPEATED - 1
                            )
                        })?;
                    let raw_len = u32::try_from(ctx.raw.len()).unwrap_or(u32::MAX);
                    let mut slot = Slot {
                        raw_offset: ctx.raw_offset,
                        raw_len,
                        group: NONE,
                    };
                    in_archive = in_archive && archive_names.contains(ctx.file);
                    // A game without moves (a forfeit, a bye) records
                    // no game: it is never grouped.
                    let id = id.filter(|id| {
                        empty += u64::from(id.plies == 0);
                        id.plies > 0
                    });
                    if let Some(id) = id {
                        // The archive's first copy is kept, whatever --keep.
                        let measure = match args.keep {
                            _ if in_archive => u32::MAX,
                            Keep::First => 0,
                            Keep::Longest => raw_len,
                            Keep::MostTags => u32::try_from(id.tags).unwrap_or(u32::MAX),
                        };
                        let next = u32::try_from(groups.len()).expect("fewer groups than games");
                        let index = *table
                            .entry(PackedKey::from(id.reached.unwrap_or(id.key)))
                            .or_insert(next);
                        if index == next {
                            groups.push(Group(ordinal));
                            if args.keep != Keep::First {
                                best.push(measure);
                            }
                            plies_of.push(id.plies);
                        }
                        let line = if args.transpositions {
                            let next =
                                u32::try_from(lines_table.len()).expect("fewer lines than games");
                            let line = *lines_table.entry(PackedKey::from(id.key)).or_insert(next);
                            line_of.push(line);
                            line
                        } else {
                            index
                        };
                        if let Some(players) = id.players {
                            pairings.push((players, line, ordinal));
                        }
                        let group = &mut groups[index as usize];
                        if index != next {
                            group.0 |= REPEATED;
                            if let Some(best) = best.get_mut(index as usize)
                                && measure > *best
                            {
                                *best = measure;
                                *group = Group(ordinal | REPEATED);
                            }
                        }
                        slot.group = index;
                    }
                    if args.transpositions && slot.group == NONE {
                        line_of.push(NONE);
                    }
                    slots.push(slot);
                }
                Event::Loose(..) => {}
                Event::Skipped(file, skip) => out.error(format!("{file}: {}", skip.message())),
                Event::Failed(file, err) => out.error(format!("{file}: {}", chain(&err))),
            }
            Ok(())
        },
    )?;

    // Truncated copies: a game of a pairing whose moves are the start of
    // a longer game of the same pairing joins that game's group.
    let redirect = if args.no_prefix {
        HashMap::new()
    } else {
        prefixes(
            &totals,
            &mut pairings,
            &slots,
            &plies_of,
            if args.transpositions {
                &lines_table
            } else {
                &table
            },
        )?
    };
    let root = |mut g: u32| {
        while let Some(&next) = redirect.get(&g) {
            g = next;
        }
        g
    };
    for (&from, _) in redirect.iter() {
        // The truncated copy and the game it starts are one group.
        groups[root(from) as usize].0 |= REPEATED;
    }

    // The second read: each input again, in order, as a plain stream of
    // bytes (no scan, no replay): each game's bytes where its role sends
    // them; the games of a group with a repeat have their tags read again.
    let mut members: Vec<Member> = Vec::new();
    let mut repeats = 0u64;
    let mut kept_bytes = GameBytes::default();
    let mut ordinal = 0usize;
    let mut buf = Vec::new();
    // Groups that hold a game of the inputs (not only the archive's), and
    // the inputs' games found in the archive.
    let mut with_input: std::collections::HashSet<u32> = std::collections::HashSet::new();
    let mut in_the_archive = 0u64;
    let mut archive_end = 0usize;
    for input in &totals.inputs {
        let games = usize::try_from(input.games).unwrap_or(usize::MAX);
        let of_archive = ordinal == archive_end && archive_names.contains(&input.file);
        if of_archive {
            archive_end += games;
        }
        let mut again = Reread::open(input)?;
        for (n, slot) in slots.iter().enumerate().skip(ordinal).take(games) {
            let this = n as u32;
            let before = again.game(*slot, &mut buf)?;
            let own = slot.group;
            let slot = Slot {
                group: if own == NONE { NONE } else { root(own) },
                ..*slot
            };
            let group = (slot.group != NONE).then(|| groups[slot.group as usize]);
            let repeat = group.is_some_and(|g| g.kept() != this);
            if of_archive {
                // The archive's games are never written; its kept copies
                // stand in the report beside the inputs' repeats of them.
                if repeat || group.is_none_or(|g| !g.repeated()) {
                    continue;
                }
            } else if group.is_some_and(Group::repeated) {
                with_input.insert(slot.group);
                if group.is_some_and(|g| (g.kept() as usize) < archive_end) {
                    in_the_archive += 1;
                }
            }
            // The games kept alone need no tags: no report is made.
            if !matches!(report, Report::Games) && group.is_some_and(Group::repeated) {
                let (tags, line, at) = tags_of(&buf);
                members.push(Member {
                    group: slot.group,
                    line_index: line_of.get(n).copied().unwrap_or(own),
                    ordinal: this,
                    file: input.file.clone(),
                    game: (n - ordinal) as u64 + 1,
                    offset: slot.raw_offset + at,
                    line: before + line,
                    tags,
                    plies: plies_of[own as usize],
                });
            }
            if of_archive {
                continue;
            }
            if repeat {
                repeats += 1;
            } else if matches!(report, Report::Games) {
                kept_bytes.write(&mut out, &buf).map_err(&failed)?;
            }
            if let Some(files) = files.as_mut() {
                files.game(&buf, repeat)?;
            }
        }
        ordinal += games;
    }
    if ordinal != slots.len() {
        return Err(Error::usage(
            "an input changed between dedupe's two reads of it: run it again on files no one writes",
        ));
    }
    if let Some(files) = files {
        files.finish()?;
    }

    // The report: the groups in the order of their first copy, each game
    // of a group in input order; with --against, only the groups that hold
    // a game of the inputs.
    if !archive.is_empty() {
        members.retain(|m| with_input.contains(&m.group));
    }
    // Each member's own key, by its line's number (the group's number
    // without --transpositions).
    let wanted: std::collections::HashSet<u32> = members.iter().map(|m| m.line_index).collect();
    let own = if args.transpositions {
        &lines_table
    } else {
        &table
    };
    let keys: HashMap<u32, GameKey> = own
        .iter()
        .filter(|(_, i)| wanted.contains(i))
        .map(|(k, i)| (*i, GameKey::from(*k)))
        .collect();
    drop(table);
    drop(lines_table);
    let mut numbers: HashMap<u32, u64> = HashMap::new();
    for m in &members {
        let n = numbers.len() as u64 + 1;
        numbers.entry(m.group).or_insert(n);
    }
    let mut listed: HashMap<u32, u32> = HashMap::new();
    for m in &members {
        *listed.entry(m.group).or_default() += 1;
    }
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by_key(|&i| (numbers[&members[i].group], members[i].ordinal));
    let kept_of: HashMap<u32, usize> = members
        .iter()
        .enumerate()
        .filter(|(_, m)| groups[m.group as usize].kept() == m.ordinal)
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
            key: keys[&m.line_index].to_string(),
        };
        line.clear();
        match &mut report {
            Report::Games => continue,
            Report::Text => text_record(&mut line, &record, listed[&m.group]),
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
    let grouped = if archive.is_empty() {
        (0..groups.len() as u32)
            .filter(|g| groups[*g as usize].repeated() && !redirect.contains_key(g))
            .count() as u64
    } else {
        with_input.len() as u64
    };
    let unjudged = slots.iter().filter(|s| s.group == NONE).count() as u64 - empty;
    let mut summary = format!(
        "{grouped} group{} of repeats, {repeats} repeat{} left out, {unjudged} not replayed (never grouped)",
        if grouped == 1 { "" } else { "s" },
        if repeats == 1 { "" } else { "s" },
    );
    if empty > 0 {
        summary.push_str(&format!(
            ", {empty} without moves (never grouped: a forfeit is no game)"
        ));
    }
    if !archive.is_empty() {
        summary.push_str(&format!(
            ", {in_the_archive} of the inputs' games already in the archive ({archive_end} games)"
        ));
    }
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
        options: [
            vec!["--keep".to_owned(), keep_name(args.keep).to_owned()],
            args.transpositions
                .then(|| "--transpositions".to_owned())
                .into_iter()
                .collect(),
            args.no_prefix
                .then(|| "--no-prefix".to_owned())
                .into_iter()
                .collect(),
        ]
        .concat(),
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
        Some(kind) if r.tags_differ.is_empty() => {
            let _ = write!(out, ": {}", kind.as_str());
        }
        Some(kind) => {
            let names: Vec<String> = r.tags_differ.iter().map(|n| esc(n)).collect();
            let _ = write!(out, ": {} ({})", kind.as_str(), names.join(", "));
        }
    }
    out.push(b'\n');
}
