//! The record formats of `convert`: one line per game (UCI, SAN, LAN), one
//! line per position (FEN, EPD), one CSV row or JSON object per game.
//!
//! Records are rendered into a `Vec<u8>` on the worker that replayed the
//! game, so the writer thread only copies bytes; the parts that depend on
//! the whole run (the CSV header, the EPD `id`) are finished by the caller.
//! PGN is written elsewhere.

use crate::rules::setup::polyglot_key;
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};

use shakmaty::CastlingMode;

use crate::rules::commands::Eval;
use crate::rules::finding::Finding;
use crate::rules::game::{GameResult, SEVEN_TAG_ROSTER, unknown_tag_value};
use crate::rules::laws::PgnDate;
use crate::rules::notation::{append_fen, epd, fen, lan, push_uci};
use crate::rules::openings::Opening;
use crate::rules::san::append_san;
use crate::rules::time_control::Period;
use crate::schema::arrow::ArrowRows;
use crate::schema::finding::ErrorCell;
use crate::schema::game::{GAME, MOVE};
use crate::schema::{Cells, CsvRow, InCsv, JsonObject, Number, json_str, push_uint};
use crate::tasks::convert::{Annotations, ConvertedGame, Reading, VariationToken};

/// Whether a game is written in the `fen <FEN> moves …` form of UCI: it
/// starts from a FEN tag, or it is Chess960 (whose castling moves an engine
/// reads only with a Shredder-FEN or X-FEN that says so).
fn uci_needs_fen(game: &ConvertedGame) -> bool {
    game.start
        .as_ref()
        .is_some_and(|s| s.from_fen || s.mode == CastlingMode::Chess960)
}

/// The main line in UCI, moves separated by single spaces.
fn push_uci_moves(game: &ConvertedGame, out: &mut Vec<u8>) {
    let mode = game.mode();
    for (i, ply) in game.plies.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        push_uci(ply.mv, mode, out);
    }
}

/// One line: `e2e4 e7e5 …`, or `fen <FEN> moves e2e4 …` for a game from a
/// FEN (or Chess960); an empty line (or `fen <FEN> moves`) for a game
/// without moves, and an empty line for a game whose setup failed.
pub fn write_uci(game: &ConvertedGame, out: &mut Vec<u8>) {
    if let Some(start) = &game.start
        && uci_needs_fen(game)
    {
        out.extend_from_slice(b"fen ");
        out.extend_from_slice(fen(&start.pos, start.mode).as_bytes());
        out.extend_from_slice(b" moves");
        if !game.plies.is_empty() {
            out.push(b' ');
        }
    }
    push_uci_moves(game, out);
    out.push(b'\n');
}

/// One line: the main line in SAN, no move numbers.
pub fn write_san(game: &ConvertedGame, out: &mut Vec<u8>) {
    for (i, ply) in game.plies.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        append_san(&ply.san, out);
    }
    out.push(b'\n');
}

/// One line: the main line in long algebraic notation with piece letters.
pub fn write_lan(game: &ConvertedGame, out: &mut Vec<u8>) {
    for (i, ply) in game.plies.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        out.extend_from_slice(lan(ply.mv, ply.san.suffix).as_bytes());
    }
    out.push(b'\n');
}

/// One FEN per line: every position of the main line when `all`, else the
/// final one. Nothing for a game whose setup failed.
pub fn write_fens(game: &ConvertedGame, all: bool, out: &mut Vec<u8>) {
    let mode = game.mode();
    if all {
        for pos in game.positions() {
            append_fen(&pos, mode, out);
            out.push(b'\n');
        }
    } else if let Some(pos) = game.final_position() {
        append_fen(&pos, mode, out);
        out.push(b'\n');
    }
}

/// The EPD records of a game as `(ply, four fields)`: every position when
/// `all`, else the final one. The caller adds the `id` (see [`write_epd`]),
/// which names the game by its place in the whole run.
pub fn epd_records(game: &ConvertedGame, all: bool) -> Vec<(usize, String)> {
    let mode = game.mode();
    if all {
        game.positions()
            .enumerate()
            .map(|(ply, pos)| (ply, epd(&pos, mode)))
            .collect()
    } else {
        game.final_position()
            .map(|pos| (game.plies.len(), epd(&pos, mode)))
            .into_iter()
            .collect()
    }
}

/// Writes one EPD record: `<epd> id "<game>:<ply>";` (`game` is the
/// source line number for FEN, EPD and UCI line input).
///
/// # Errors
///
/// When writing fails.
pub fn write_epd(out: &mut dyn Write, record: &str, game: u64, ply: usize) -> io::Result<()> {
    writeln!(out, "{record} id \"{game}:{ply}\";")
}

/// A replayed variation as PGN text without move numbers (JSON Lines
/// keeps it as one string): `(d4 {also} d5 (Nf6))`. A `}` inside a
/// comment is written as `)`, as in PGN output.
pub fn variation_text(tokens: &[VariationToken]) -> String {
    let mut s = Vec::new();
    let mut after_open = true;
    for t in tokens {
        if *t != VariationToken::Close && !after_open {
            s.push(b' ');
        }
        match t {
            VariationToken::Open => s.push(b'('),
            VariationToken::Close => s.push(b')'),
            VariationToken::Move(san) => append_san(san, &mut s),
            VariationToken::Nag(n) => s.extend_from_slice(format!("${n}").as_bytes()),
            VariationToken::Comment(c) => {
                // As in PGN output: `}` would end the comment.
                s.push(b'{');
                s.extend(c.bytes().map(|b| if b == b'}' { b')' } else { b }));
                s.push(b'}');
            }
        }
        after_open = *t == VariationToken::Open;
    }
    String::from_utf8(s).expect("SAN is ASCII and comments are UTF-8")
}

/// Writes the `nags`, `comments` and `variations` of `notes` (`null` when
/// empty: an absent value is `null` in every JSON record,
/// `docs/records.md`).
fn write_notes(o: &mut JsonObject<'_>, notes: &Annotations) {
    o.list(Some(notes.nags.as_slice()), |n, out| {
        push_uint(out, u64::from(*n));
    });
    o.list(Some(notes.comments.as_slice()), |c, out| json_str(out, c));
    o.list(Some(notes.variations.as_slice()), |v, out| {
        json_str(out, &variation_text(v));
    });
}

/// The place of a JSON record (`file`, `game`, `offset`), which only the
/// writer knows: the object's first bytes, to which the worker's
/// [`write_jsonl`] bytes are appended.
pub fn jsonl_head(out: &mut Vec<u8>, file: &str, game: u64, offset: Option<u64>) {
    let mut o = JsonObject::new(out, &GAME, true);
    o.str(file);
    o.uint(Some(game));
    o.uint(offset);
}

/// One JSON object per game, after its place ([`jsonl_head`]): the
/// columns of [`GAME`] that JSON Lines holds, the top-level `nags`,
/// `comments` and `variations` being the annotations before the first move
/// and `error` a struct for a game kept despite its error; each move's
/// `fen_after` only with `fens` (else null: `--no-fen`). A tag that
/// appears twice keeps its first value (JSON objects have unique keys).
pub fn write_jsonl(game: &ConvertedGame, fens: bool, out: &mut Vec<u8>) {
    let mut o = JsonObject::rest(out, &GAME, 3);
    o.map(first_of_each(&game.tags));
    write_notes(&mut o, &game.pre);
    let mode = game.mode();
    let mut pos = game.start.as_ref().map(|s| s.pos.clone());
    let plies = if pos.is_some() { &game.plies[..] } else { &[] };
    o.objects(&MOVE, plies, |ply, m| {
        let pos = pos.as_mut().expect("plies only with a start");
        m.ascii(|out| append_san(&ply.san, out));
        m.ascii(|out| push_uci(ply.mv, mode, out));
        if fens {
            shakmaty::Position::play_unchecked(pos, ply.mv);
            m.ascii(|out| append_fen(pos, mode, out));
        } else {
            m.opt_str(None);
        }
        write_notes(m, ply.notes());
    });
    o.word(Some(game.result().as_str()));
    opening_cells(game.opening, &mut o);
    o.periods(game.time_control.as_deref());
    for list in reading_lists(&game.readings, game.time_spent.as_deref()) {
        o.numbers(list.as_deref());
    }
    o.opt_str(game.key().map(|k| k.to_string()).as_deref());
    o.error(game.error.as_ref());
    o.uint(game.match_ply.map(u64::from));
    o.finish();
}

/// The `eco`, `opening` and `opening_ply` cells of a game.
fn opening_cells(o: Option<Opening<'_>>, cells: &mut impl Cells) {
    cells.opt_str(o.map(|o| o.eco));
    cells.opt_str(o.map(|o| o.name));
    cells.uint(o.map(|o| u64::from(o.ply)));
}

/// Each tag once, with its first value, in input order: the entries of a
/// map (JSON objects and columnar maps have unique keys). Earlier names
/// are searched in a set past a few dozen tags, so that a hostile game of
/// 100,000 tags stays linear.
fn first_of_each(tags: &[(String, String)]) -> impl Iterator<Item = (&str, Option<&str>)> {
    let mut seen = (tags.len() > 32).then(HashSet::new);
    tags.iter()
        .enumerate()
        .filter(move |(i, (name, _))| match &mut seen {
            Some(set) => set.insert(name.as_str()),
            None => !tags[..*i].iter().any(|(n, _)| n == name),
        })
        .map(|(_, (n, v))| (n.as_str(), Some(v.as_str())))
}

/// What a CSV row needs from a game; the columns are chosen by the caller.
#[derive(Debug, Clone)]
pub struct CsvRecord {
    /// The input's name, the game's number in it and its byte offset
    /// (empty for a record line): set by the writer, which knows them.
    pub file: String,
    pub game: u64,
    pub offset: Option<u64>,
    /// The game's first line in its input (of a record line, its own).
    pub line: u64,
    /// The start position when it is not the standard one, or the game is
    /// Chess960 (then with Shredder-FEN castling, which says so): with
    /// `uci`, all a replay needs, whatever tag columns the run has.
    pub start_fen: Option<String>,
    pub tags: Vec<(String, String)>,
    /// `None` for a game left out because it could not be replayed.
    pub plies: Option<usize>,
    /// The main line in UCI, space-separated (no `fen … moves` prefix: the
    /// start position is `start_fen`).
    pub uci: Option<String>,
    /// Empty when the game's setup failed or the game was left out.
    pub final_fen: Option<String>,
    /// The final position's Polyglot key.
    pub final_zobrist: Option<u64>,
    /// The game's identity ([`crate::rules::identity`]), when it was
    /// replayed to its end.
    pub key: Option<String>,
    /// For a game that could not be replayed: where and why it broke.
    pub error: Option<Finding>,
    /// The recorded result (the columnar form's `result`).
    pub result: GameResult,
    /// The main line in SAN, space-separated, when asked for (`--san`).
    pub san: Option<String>,
    /// The clock and evaluation after each ply; empty when no ply has one.
    pub readings: Vec<Reading>,
    /// The opening the game played, when it was classified.
    pub opening: Option<Opening<'static>>,
    /// The time control's periods ([`ConvertedGame::time_control`]).
    pub time_control: Option<Vec<Period>>,
    /// The seconds each ply took ([`ConvertedGame::time_spent`]).
    pub time_spent: Option<Vec<Option<f64>>>,
    /// The ply a selection criterion matched at.
    pub match_ply: Option<u32>,
}

/// The `clock`, `time_spent`, `eval_cp` and `eval_mate` lists of a game's
/// readings and times, each null when no ply has a value of its own
/// (`time_spent`: when there are no times).
fn reading_lists(
    readings: &[Reading],
    spent: Option<&[Option<f64>]>,
) -> [Option<Vec<Option<Number>>>; 4] {
    std::array::from_fn(|i| {
        if i == 1 {
            return spent.map(|s| s.iter().map(|t| t.map(seconds)).collect());
        }
        let items: Vec<Option<Number>> = readings
            .iter()
            .map(|r| reading_cells(Some(r), None)[i])
            .collect();
        items.iter().any(Option::is_some).then_some(items)
    })
}

/// Seconds (to the millisecond) as a number.
fn seconds(s: f64) -> Number {
    Number::Millis((s * 1000.0).round().max(0.0) as u64)
}

/// The readings of one ply as `clock`, `time_spent`, `eval_cp`,
/// `eval_mate`.
fn reading_cells(r: Option<&Reading>, spent: Option<f64>) -> [Option<Number>; 4] {
    let r = r.copied().unwrap_or_default();
    [
        r.clock.map(Number::Millis),
        spent.map(seconds),
        match r.eval {
            Some(Eval::Centipawns(cp)) => Some(Number::Int(cp)),
            _ => None,
        },
        match r.eval {
            Some(Eval::Mate(m)) => Some(Number::Int(m)),
            _ => None,
        },
    ]
}

impl CsvRecord {
    /// The record of a replayed game (or one kept despite its error), with
    /// its SAN when `san`.
    ///
    /// Takes the game, so that its tags and readings move into the record
    /// rather than being copied (one allocation per tag name and value).
    pub fn new(mut game: ConvertedGame, san: bool) -> CsvRecord {
        // Four letters and a space a move, a promotion one more.
        let mut uci = Vec::with_capacity(5 * game.plies.len());
        push_uci_moves(&game, &mut uci);
        CsvRecord {
            plies: Some(game.plies.len()),
            uci: Some(String::from_utf8(uci).expect("UCI moves are ASCII")),
            final_fen: game.final_position().map(|p| fen(&p, game.mode())),
            final_zobrist: game.final_position().map(|p| polyglot_key(&p)),
            key: game.key().map(|k| k.to_string()),
            san: san.then(|| {
                let mut text = Vec::with_capacity(6 * game.plies.len());
                for (i, ply) in game.plies.iter().enumerate() {
                    if i > 0 {
                        text.push(b' ');
                    }
                    append_san(&ply.san, &mut text);
                }
                String::from_utf8_lossy(&text).into_owned()
            }),
            readings: std::mem::take(&mut game.readings),
            opening: game.opening,
            time_spent: game.time_spent.take(),
            ..CsvRecord::left_out(game)
        }
    }

    /// The row of a game that could not be replayed and is left out: its
    /// place, tags, start position and error, no moves, so that rows still
    /// match the input's games one to one.
    pub fn left_out(game: ConvertedGame) -> CsvRecord {
        let result = game.result();
        CsvRecord {
            file: String::new(),
            game: 0,
            offset: None,
            line: 0,
            start_fen: game
                .start
                .as_ref()
                .filter(|s| s.from_fen || s.mode == CastlingMode::Chess960)
                .map(|s| fen(&s.pos, s.mode))
                .filter(|f| f != STANDARD_START),
            tags: game.tags,
            plies: None,
            uci: None,
            final_fen: None,
            final_zobrist: None,
            key: None,
            error: game.error,
            result,
            san: None,
            readings: Vec::new(),
            opening: None,
            time_control: game.time_control,
            time_spent: None,
            match_ply: game.match_ply,
        }
    }

    /// The value of the first tag called `name`.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The standard start position as [`fen`] writes it: `start_fen` is absent
/// for it.
const STANDARD_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The tag columns of a CSV run ([`GAME`]'s `tags`): the Seven Tag Roster,
/// then `extra`.
#[derive(Debug, Clone)]
pub struct CsvColumns {
    pub extra: Vec<String>,
    /// `extra` as a set: a run may have thousands of tag columns
    /// (`--tags all` on a hostile input), and each game's tags are looked up.
    index: HashSet<String>,
}

/// The first value of each tag of `tags`, found by name: by a scan for the
/// few tags of a real game, through a map past a few dozen.
fn tag_lookup<'t>(tags: &'t [(String, String)]) -> impl Fn(&str) -> Option<&'t str> {
    let map: Option<HashMap<&str, &str>> = (tags.len() > 32).then(|| {
        let mut map = HashMap::with_capacity(tags.len());
        for (n, v) in tags {
            map.entry(n.as_str()).or_insert(v.as_str());
        }
        map
    });
    move |name| match &map {
        Some(map) => map.get(name).copied(),
        None => tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str()),
    }
}

impl CsvColumns {
    /// Adds `name` as a column unless it has one (or is a roster tag).
    fn push(&mut self, name: &str) {
        if !SEVEN_TAG_ROSTER.contains(&name) && !self.index.contains(name) {
            self.index.insert(name.to_owned());
            self.extra.push(name.to_owned());
        }
    }

    /// Columns for exactly the tags `names` after the roster (roster tags
    /// and repeats among them are dropped, so every column is unique).
    ///
    /// # Errors
    ///
    /// A name that is the name of a fixed column (`plies`, `uci`, …): the
    /// header would name two columns alike.
    pub fn exactly(names: &[String]) -> Result<CsvColumns, String> {
        let mut columns = CsvColumns {
            extra: Vec::new(),
            index: HashSet::new(),
        };
        for n in names {
            if is_fixed_column(n) {
                return Err(format!(
                    "--tags: `{n}` is the name of a fixed column (tags are named as in the PGN, e.g. `ECO`)"
                ));
            }
            if !n.is_empty() {
                columns.push(n);
            }
        }
        Ok(columns)
    }

    /// Columns for the tags `records` use, in order of first appearance.
    pub fn seen_in<'r>(records: impl Iterator<Item = &'r CsvRecord>) -> CsvColumns {
        let mut columns = CsvColumns {
            extra: Vec::new(),
            index: HashSet::new(),
        };
        for r in records {
            for (name, _) in &r.tags {
                // A tag named like a fixed column (`plies`) gets none: it
                // is left out, and the warning names it.
                if !is_fixed_column(name) {
                    columns.push(name);
                }
            }
        }
        columns
    }

    /// Whether `name` has a column.
    pub fn has(&self, name: &str) -> bool {
        SEVEN_TAG_ROSTER.contains(&name) || self.index.contains(name)
    }

    /// The tags that have a column, in column order.
    fn tag_names(&self) -> impl Iterator<Item = &str> {
        SEVEN_TAG_ROSTER
            .iter()
            .copied()
            .chain(self.extra.iter().map(String::as_str))
    }

    /// Writes the header row.
    ///
    /// # Errors
    ///
    /// When writing fails.
    pub fn write_header(&self, out: &mut dyn Write) -> io::Result<()> {
        write_row(out, &self.names())
    }

    /// The names of the columns, in order.
    pub fn names(&self) -> Vec<&str> {
        let tags: Vec<&str> = self.tag_names().collect();
        GAME.csv_names(&tags)
    }

    /// Writes the row of one game; a tag without a column is left out, a
    /// column without a tag is empty.
    ///
    /// # Errors
    ///
    /// When writing fails.
    pub fn write_record(&self, out: &mut dyn Write, r: &CsvRecord) -> io::Result<()> {
        let mut buf = Vec::with_capacity(512);
        let mut row = CsvRow::new(&mut buf, &GAME);
        row.str(&r.file);
        row.uint(Some(r.game));
        row.uint(r.offset);
        row.opt_str(r.start_fen.as_deref());
        let value = tag_lookup(&r.tags);
        let tags: Vec<Option<&str>> = self.tag_names().map(value).collect();
        row.tags(&[], &tags);
        opening_cells(r.opening, &mut row);
        row.periods(r.time_control.as_deref());
        row.uint(r.plies.map(|p| p as u64));
        row.opt_str(r.uci.as_deref());
        for list in reading_lists(&r.readings, r.time_spent.as_deref()) {
            row.numbers(list.as_deref());
        }
        row.opt_str(r.final_fen.as_deref());
        row.uint(r.final_zobrist);
        row.opt_str(r.key.as_deref());
        row.error(r.error.as_ref());
        row.word(r.error.as_ref().map(|e| e.code.as_str()));
        row.uint(r.match_ply.map(u64::from));
        row.finish();
        out.write_all(&buf)
    }
}

/// The game's record in the columnar form: the place, the typed readings
/// of well-known tags, every tag in the map (a repeated tag keeps its first
/// value, as in JSON Lines: map keys are unique), the moves as lists.
pub fn write_columnar(r: &CsvRecord, rows: &mut ArrowRows) {
    let tag = tag_lookup(&r.tags);
    let mut row = rows.row();
    row.str(&r.file);
    row.uint(Some(r.game));
    row.uint(r.offset);
    row.uint(Some(r.line));
    row.opt_str(tag("Event"));
    row.opt_str(tag("Site"));
    row.date(tag("Date").and_then(tag_date));
    row.opt_str(tag("Round"));
    row.str(tag("White").unwrap_or(unknown_tag_value("White")));
    row.str(tag("Black").unwrap_or(unknown_tag_value("Black")));
    row.uint(tag("WhiteElo").and_then(tag_rating));
    row.uint(tag("BlackElo").and_then(tag_rating));
    row.date(tag("UTCDate").and_then(tag_date));
    row.time(tag("UTCTime").and_then(tag_time));
    row.opt_str(r.start_fen.as_deref());
    row.map(first_of_each(&r.tags));
    row.word(Some(r.result.as_str()));
    opening_cells(r.opening, &mut row);
    row.periods(r.time_control.as_deref());
    row.uint(r.plies.map(|p| p as u64));
    row.spaced(r.uci.as_deref());
    row.spaced(r.san.as_deref());
    for list in reading_lists(&r.readings, r.time_spent.as_deref()) {
        row.numbers(list.as_deref());
    }
    row.opt_str(r.final_fen.as_deref());
    row.uint(r.final_zobrist);
    row.opt_str(r.key.as_deref());
    row.error(r.error.as_ref());
    row.word(r.error.as_ref().map(|e| e.code.as_str()));
    row.uint(r.match_ply.map(u64::from));
    row.finish();
}

/// One position of a game's main line, for the columnar `position` record.
#[derive(Debug, Clone)]
pub struct PositionRow {
    pub ply: u32,
    pub fen: String,
    /// Its Polyglot key.
    pub zobrist: u64,
    /// The seconds the move that led to it took.
    pub time_spent: Option<f64>,
    /// The move that led to it (none for the start position).
    pub uci: Option<String>,
    pub san: Option<String>,
    /// The clock and evaluation after that move.
    pub reading: Option<Reading>,
}

/// Every position of the main line, the start first; none when the
/// game's setup failed.
pub fn position_rows(game: &ConvertedGame) -> Vec<PositionRow> {
    let mode = game.mode();
    let mut rows = Vec::with_capacity(game.plies.len() + 1);
    for (i, pos) in game.positions().enumerate() {
        let ply = i.checked_sub(1).map(|p| &game.plies[p]);
        let text = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut b = Vec::with_capacity(8);
            f(&mut b);
            String::from_utf8_lossy(&b).into_owned()
        };
        rows.push(PositionRow {
            ply: u32::try_from(i).unwrap_or(u32::MAX),
            fen: fen(&pos, mode),
            zobrist: polyglot_key(&pos),
            uci: ply.map(|p| text(&|b| push_uci(p.mv, mode, b))),
            san: ply.map(|p| text(&|b| append_san(&p.san, b))),
            reading: i.checked_sub(1).and_then(|p| game.readings.get(p).copied()),
            time_spent: i
                .checked_sub(1)
                .and_then(|p| game.time_spent.as_ref()?.get(p).copied().flatten()),
        });
    }
    rows
}

/// Adds one position of the game at `place` to `rows`
/// ([`crate::schema::position::POSITION`]).
pub fn write_position(
    p: &PositionRow,
    (file, game, offset): (&str, u64, Option<u64>),
    rows: &mut ArrowRows,
) {
    let mut row = rows.row();
    row.str(file);
    row.uint(Some(game));
    row.uint(offset);
    row.uint(Some(u64::from(p.ply)));
    row.str(&p.fen);
    row.uint(Some(p.zobrist));
    row.opt_str(p.uci.as_deref());
    row.opt_str(p.san.as_deref());
    for cell in reading_cells(p.reading.as_ref(), p.time_spent) {
        row.number(cell);
    }
    row.finish();
}

/// A `Date` or `UTCDate` value as days since 1970-01-01, when it is a
/// complete, real day.
fn tag_date(value: &str) -> Option<i32> {
    PgnDate::parse(value.as_bytes()).and_then(PgnDate::days_since_epoch)
}

/// A rating tag's value (`WhiteElo`), when it is a number: `?`, `-` and
/// the empty string are none.
fn tag_rating(value: &str) -> Option<u64> {
    let v = value.trim();
    if v.is_empty() || v.len() > 9 || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse().ok()
}

/// A `UTCTime` value (`HH:MM:SS`) as seconds since midnight.
fn tag_time(value: &str) -> Option<i32> {
    let b = value.trim().as_bytes();
    let two = |i: usize| -> Option<i32> {
        match (b.get(i), b.get(i + 1)) {
            (Some(x @ b'0'..=b'9'), Some(y @ b'0'..=b'9')) => {
                Some(i32::from(x - b'0') * 10 + i32::from(y - b'0'))
            }
            _ => None,
        }
    };
    if b.len() != 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let (h, m, s) = (two(0)?, two(3)?, two(6)?);
    (h < 24 && m < 60 && s < 60).then_some(h * 3600 + m * 60 + s)
}

/// Whether `name` is the name of one of [`GAME`]'s own CSV cells.
pub fn is_fixed_column(name: &str) -> bool {
    GAME.columns
        .iter()
        .any(|c| c.csv == InCsv::Cell && c.name == name)
}

/// The tags a CSV run left out for want of a column: each name and in how
/// many games, in order of first appearance, and where the first was.
#[derive(Debug, Clone, Default)]
pub struct DroppedTags {
    names: Vec<(String, u64)>,
    index: std::collections::HashMap<String, usize>,
    /// Games with a tag beyond the names kept (a hostile input's millions
    /// of names are counted, not kept).
    others: u64,
    first: Option<(String, u64)>,
}

impl DroppedTags {
    /// How many names are kept, at most.
    const KEPT: usize = 10_000;
    /// How many the warning names.
    const SHOWN: usize = 20;

    /// Counts the tags of `record` (of game `game` of `file`) that have no
    /// column; `FEN` and `SetUp` are not dropped (`start_fen` holds them).
    pub fn add(&mut self, columns: &CsvColumns, record: &CsvRecord, (file, game): (&str, u64)) {
        // Counted once per game, whatever the repeats.
        let mut own = HashSet::new();
        for (name, _) in &record.tags {
            if columns.has(name)
                || matches!(name.as_str(), "FEN" | "SetUp")
                || !own.insert(name.as_str())
            {
                continue;
            }
            if self.first.is_none() {
                self.first = Some((file.to_owned(), game));
            }
            match self.index.get(name) {
                Some(&at) => self.names[at].1 += 1,
                None if self.names.len() < Self::KEPT => {
                    self.index.insert(name.clone(), self.names.len());
                    self.names.push((name.clone(), 1));
                }
                None => self.others += 1,
            }
        }
    }

    /// The warning that names every dropped tag and its count (the first
    /// first twenty, then how many more), or `None` when none was.
    pub fn warning(&self, header_games: usize) -> Option<String> {
        let (file, game) = self.first.as_ref()?;
        let mut names: Vec<String> = self
            .names
            .iter()
            .take(Self::SHOWN)
            .map(|(n, count)| {
                let s = if *count == 1 { "" } else { "s" };
                format!(
                    "{} ({count} game{s})",
                    super::diag::clipped(n, super::diag::SHOWN)
                )
            })
            .collect();
        let more = self.names.len().saturating_sub(Self::SHOWN);
        if more > 0 || self.others > 0 {
            let others = if self.others > 0 {
                format!(" and others in {} games", self.others)
            } else {
                String::new()
            };
            names.push(format!("{more} more{others}"));
        }
        Some(format!(
            "tags without a CSV column were left out, the first in {file} game {game} \
             (the columns are the tags of the first {header_games} games; name them with \
             --tags, or keep them all with --tags all): {}",
            names.join(", ")
        ))
    }
}

fn write_row(out: &mut dyn Write, row: &[&str]) -> io::Result<()> {
    super::write_csv_record(out, row)
}

/// Writes `game` as PGN in export format, laid out by
/// [`super::pgn::write_export`] (the layout `annotate-outcome` uses too)
/// with its normalised SAN; comments, NAGs and variations are kept as `keep`
/// says. A game kept despite its error (`--keep-invalid`) stops after its
/// last legal move with a comment saying where it broke, after that move's
/// comments and before its variations, where it reads back.
pub fn write_pgn(game: &ConvertedGame, keep: super::pgn::Keep, out: &mut Vec<u8>) {
    use super::pgn::Tok;
    use std::borrow::Cow;
    if let Some(comment) = game.break_comment() {
        // Rare: the game as it reads back, with the comment on its last
        // move (or before the first), and without the error.
        let mut kept = game.clone();
        kept.error = None;
        match kept.plies.last_mut() {
            Some(ply) => ply
                .annotations
                .get_or_insert_default()
                .comments
                .push(comment),
            None => kept.pre.comments.push(comment),
        }
        return write_pgn(&kept, keep, out);
    }
    fn token(token: &VariationToken) -> Tok<'_> {
        match token {
            VariationToken::Move(san) => Tok::San(san),
            VariationToken::Nag(n) => Tok::NagNumber(*n),
            VariationToken::Comment(c) => Tok::Comment(Cow::Borrowed(c)),
            VariationToken::Open => Tok::Open,
            VariationToken::Close => Tok::Close,
        }
    }
    fn notes(notes: &Annotations) -> impl Iterator<Item = Tok<'_>> {
        let nags = notes.nags.iter().map(|&n| Tok::NagNumber(n));
        let comments = notes
            .comments
            .iter()
            .map(|c| Tok::Comment(Cow::Borrowed(c)));
        let variations = notes.variations.iter().flatten().map(token);
        nags.chain(comments).chain(variations)
    }
    let plies = game
        .plies
        .iter()
        .flat_map(|p| std::iter::once(Tok::San(&p.san)).chain(notes(p.notes())));
    let tokens = notes(&game.pre).chain(plies);
    super::pgn::write_export(
        out,
        &game.tags,
        game.result(),
        tokens,
        game.first_move(),
        keep,
        &super::pgn::Edits::default(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::scan::scan;
    use crate::tasks::convert::lines::game_from_uci_line;
    use crate::tasks::convert::{ConvertOptions, convert_game};

    fn convert(pgn: &str) -> ConvertedGame {
        let scan = scan(pgn.as_bytes(), true);
        convert_game(&scan.games[0], ConvertOptions::default())
    }

    fn render(f: fn(&ConvertedGame, &mut Vec<u8>), game: &ConvertedGame) -> String {
        let mut out = Vec::new();
        f(game, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn line_formats() {
        let game = convert("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O *");
        assert_eq!(
            render(write_uci, &game),
            "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5c6 d7c6 e1g1\n"
        );
        assert_eq!(
            render(write_san, &game),
            "e4 e5 Nf3 Nc6 Bb5 a6 Bxc6 dxc6 O-O\n"
        );
        assert_eq!(
            render(write_lan, &game),
            "e2-e4 e7-e5 Ng1-f3 Nb8-c6 Bf1-b5 a7-a6 Bb5xc6 d7xc6 O-O\n"
        );
        let empty = convert("*");
        assert_eq!(render(write_uci, &empty), "\n");
        let from_fen = convert("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n*");
        assert_eq!(
            render(write_uci, &from_fen),
            "fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves\n"
        );
    }

    #[test]
    fn fen_and_epd_positions() {
        let game = convert("1. e4 e5 *");
        let mut all = Vec::new();
        write_fens(&game, true, &mut all);
        assert_eq!(String::from_utf8(all).unwrap().lines().count(), 3);
        let records = epd_records(&game, false);
        assert_eq!(
            records,
            [(
                2,
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -".to_owned()
            )]
        );
        let mut out = Vec::new();
        write_epd(&mut out, &records[0].1, 7, records[0].0).unwrap();
        assert!(String::from_utf8(out).unwrap().ends_with(" id \"7:2\";\n"));
    }

    #[test]
    fn jsonl_object() {
        let game = convert(
            "[Event \"E \\\"x\\\"\"]\n[White \"Caf\u{e9}\"]\n\n{pre} 1. e4 $1 {a \"b\"} (1. d4 d5) e5 1-0",
        );
        assert_eq!(
            render(|g, out| write_jsonl(g, true, out), &game),
            concat!(
                r#","tags":{"Event":"E \"x\"","White":"Café"},"nags":null,"comments":["pre"],"variations":null,"moves":["#,
                r#"{"san":"e4","uci":"e2e4","fen_after":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1","nags":[1],"comments":["a \"b\""],"variations":["(d4 d5)"]},"#,
                r#"{"san":"e5","uci":"e7e5","fen_after":"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2","nags":null,"comments":null,"variations":null}],"result":"1-0","eco":null,"opening":null,"opening_ply":null,"time_control":null,"clock":null,"time_spent":null,"eval_cp":null,"eval_mate":null,"key":"6256a93f5f7b6dfe5d999d17d59e79df","error":null,"match_ply":null}"#,
                "\n"
            )
        );
        let broken = game_from_uci_line("e2e4 e2e4", 3);
        let text = render(|g, out| write_jsonl(g, true, out), &broken);
        assert!(
            text.ends_with(
                r#""result":"*","eco":null,"opening":null,"opening_ply":null,"time_control":null,"clock":null,"time_spent":null,"eval_cp":null,"eval_mate":null,"key":null,"error":{"ply":2,"san":"e2e4","code":"illegal-move","message":"`e2e4` is not a legal move"},"match_ply":null}
"#
            ),
            "{text}"
        );
    }

    #[test]
    fn csv_start_fen_is_empty_only_for_the_standard_start() {
        let start_fen = |pgn: &str| {
            CsvRecord::new(convert(pgn), false)
                .start_fen
                .unwrap_or_default()
        };
        assert_eq!(start_fen("1. e4 *"), "");
        // A FEN tag holding the standard start is the standard start.
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(
            start_fen(&format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n*")),
            ""
        );
        assert_eq!(
            start_fen("[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n1. O-O *"),
            "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
        );
        // Chess960 from the standard array: Shredder-FEN says it is 960.
        assert_eq!(
            start_fen("[Variant \"Chess960\"]\n\n1. e4 *"),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"
        );
        // A game that cannot be replayed keeps its start and says why.
        let broken = CsvRecord::left_out(convert(
            "[FEN \"4k3/8/8/8/8/8/8/4K2R w K -\"]\n\n1. Kf2 Kd7 2. O-O *",
        ));
        assert_eq!(
            broken.start_fen.as_deref(),
            Some("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
        );
        assert_eq!((broken.plies, broken.uci.as_deref()), (None, None));
        let error = broken.error.unwrap();
        assert_eq!((error.ply, error.san.as_deref()), (Some(3), Some("O-O")));
    }

    #[test]
    fn csv_columns() {
        let a = CsvRecord::new(
            convert("[Event \"e\"]\n[White \"w, jr\"]\n[ECO \"C60\"]\n\n1. e4 *"),
            false,
        );
        let b = CsvRecord::new(convert("[Opening \"x\"]\n[ECO \"B00\"]\n\n*"), false);
        let cols = CsvColumns::seen_in([&a, &b].into_iter());
        assert_eq!(cols.extra, ["ECO", "Opening"]);
        let mut out = Vec::new();
        cols.write_header(&mut out).unwrap();
        cols.write_record(&mut out, &a).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "file,game,offset,start_fen,Event,Site,Date,Round,White,Black,Result,ECO,Opening,eco,opening,opening_ply,time_control,plies,uci,clock,time_spent,eval_cp,eval_mate,final_fen,final_zobrist,key,error,error_code,match_ply\n\
             ,0,,,e,,,,\"w, jr\",,,C60,,,,,,1,e2e4,,,,,rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1,9384546495678726550,cbd1741152cb22b2d33a88f67ff47e10,,,\n"
        );
        let exact = CsvColumns::exactly(&["White".into(), "ECO".into(), "ECO".into()]).unwrap();
        assert!(CsvColumns::exactly(&["plies".into()]).is_err());
        assert_eq!(exact.extra, ["ECO"]);
    }
}
