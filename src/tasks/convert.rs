//! Games as `convert` sees them: a [`ConvertedGame`] is a game replayed
//! through the rules core, with normalised SAN for every legal move, the
//! comments, NAGs and variations attached to the ply they follow, and the
//! finding that stopped the replay, if one did.
//!
//! Variations are replayed too, each from the position before the move it
//! replaces (PGN standard 8.2.5), nested ones from the position before the
//! move of their parent line they replace: every move a [`ConvertedGame`]
//! holds is legal in its position and in normalised SAN. A variation that
//! does not replay is left out whole (or kept as the text of a comment,
//! [`ConvertOptions::keep_invalid`]) and said in
//! [`ConvertedGame::left_out`]; so is a variation the end of the game cut
//! off before its `)`.
//!
//! The line-based inputs of `convert --from uci|fen|epd` become the same
//! [`ConvertedGame`] in [`lines`]. SAN is [`crate::rules::san`]'s, FEN,
//! EPD, UCI and LAN [`crate::rules::notation`]'s, reading a FEN
//! [`crate::rules::setup`]'s; writing bytes is left to
//! [`crate::output::convert`] (and to the PGN writer for `--to pgn`).

use shakmaty::san::{San, SanError, SanPlus, Suffix};
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use crate::rules::attacks::is_checkmate;
use crate::rules::commands::{self, Commands, Eval, may_hold_command};
use crate::rules::finding::{Code, Finding};
use crate::rules::game::{GameResult, RawGame, Token, TokenKind, decode_text};
use crate::rules::openings::{Classifier, Opening, OpeningTable};
use crate::rules::replay::replay;
use crate::rules::san::{normalised_san, parse_san, resolve_with_check};
use crate::rules::setup::{Start, start_position};
use crate::rules::time_control::{Period, TimeControl, clock_findings, tag_finding, time_spent_in};

pub mod lines;

/// What to keep of the movetext besides the moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConvertOptions {
    /// Normalise the SAN of every move. Without it [`ConvertedPly::san`] is
    /// the SAN as written (parsed, suffix as written): for formats that write
    /// no SAN, which then skip the cost of recomputing it. Moves of
    /// variations are always normalised.
    pub san: bool,
    pub comments: bool,
    pub nags: bool,
    /// Replay and keep the variations.
    pub variations: bool,
    /// Keep a variation that does not replay as a comment holding its text
    /// and why it was not replayed, where it stood (after the comments of
    /// the move it follows), instead of leaving it out.
    pub keep_invalid: bool,
    /// Read the clock and evaluation commands of the main line's comments
    /// ([`ConvertedGame::readings`]); an unreadable one is a finding.
    pub commands: bool,
    /// Classify the game's opening by this table
    /// ([`ConvertedGame::opening`]).
    pub openings: Option<&'static OpeningTable>,
}

impl Default for ConvertOptions {
    fn default() -> ConvertOptions {
        ConvertOptions {
            san: true,
            comments: true,
            nags: true,
            variations: true,
            keep_invalid: false,
            commands: true,
            openings: None,
        }
    }
}

/// A token of a replayed variation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VariationToken {
    /// A move, legal in its position, in normalised SAN.
    Move(SanPlus),
    Nag(u8),
    /// A comment's text without `{}` or `;`.
    Comment(String),
    /// `(`: a variation starts, replacing the move before it.
    Open,
    /// `)`
    Close,
}

/// What follows a move (or stands before the first one) in the movetext.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Annotations {
    /// NAG numbers in input order (`!` is 1, `?` is 2, … as the scanner reads them).
    pub nags: Vec<u8>,
    /// Comment texts without `{}` or `;`, decoded as UTF-8 or Latin-1.
    pub comments: Vec<String>,
    /// Replayed variations, each from its `(` to its `)`, with the
    /// comments, NAGs and nested variations inside it in input order.
    pub variations: Vec<Vec<VariationToken>>,
}

impl Annotations {
    pub fn is_empty(&self) -> bool {
        self.nags.is_empty() && self.comments.is_empty() && self.variations.is_empty()
    }
}

/// One legal main-line ply.
#[derive(Debug, Clone)]
pub struct ConvertedPly {
    pub mv: Move,
    /// Normalised SAN (minimal disambiguation, `+`/`#` as the position says),
    /// whatever the input wrote (unless [`ConvertOptions::san`] is off).
    pub san: SanPlus,
    /// Comments, NAGs and variations after this move, if any (most moves
    /// have none, and a game holds many moves): see [`ConvertedPly::notes`].
    pub annotations: Option<Box<Annotations>>,
}

impl ConvertedPly {
    /// Comments, NAGs and variations after this move.
    pub fn notes(&self) -> &Annotations {
        static NONE: Annotations = Annotations {
            nags: Vec::new(),
            comments: Vec::new(),
            variations: Vec::new(),
        };
        self.annotations.as_deref().unwrap_or(&NONE)
    }
}

/// A game ready to be written in any format.
#[derive(Debug, Clone)]
pub struct ConvertedGame {
    /// Tags in input order, decoded; duplicates kept.
    pub tags: Vec<(String, String)>,
    /// Where the game starts; `None` when its setup failed (bad FEN,
    /// unsupported variant): then `error` says why and there are no plies.
    pub start: Option<Start>,
    /// Comments, NAGs and variations before the first move.
    pub pre: Annotations,
    /// The legal main-line plies, up to the first that is not legal.
    pub plies: Vec<ConvertedPly>,
    /// The termination marker of the movetext.
    pub marker: Option<GameResult>,
    /// What stopped the game from being replayed to its end.
    pub error: Option<Finding>,
    /// Variations that were not replayed, one finding each (the move that
    /// failed, or the `(` of a variation that replaces no move), in input
    /// order: left out, or kept as comments. A variation the end of the
    /// game cut off before its `)` is dropped (or kept) without a finding
    /// here: the scanner's finding says it. Also each `[%clk …]` or
    /// `[%eval …]` command that could not be read (read as none).
    pub left_out: Vec<Finding>,
    /// The clock and evaluation after each ply, from the `[%clk …]` and
    /// `[%eval …]` commands of the comments that follow it: one per ply,
    /// or empty when no ply has either (most games).
    pub readings: Vec<Reading>,
    /// The position after the last legal ply (the start when there is
    /// none); `None` when the setup failed. Kept from the replay, so that
    /// the final FEN of every record does not replay the game again.
    pub end: Option<Chess>,
    /// The opening it played ([`crate::rules::openings`]), when asked for
    /// ([`ConvertOptions::openings`]) and the table names a position it
    /// reached.
    pub opening: Option<Opening<'static>>,
    /// The `TimeControl` tag's periods (empty for `-`, no time control);
    /// `None` when the tag is missing, `?` or malformed (a finding in
    /// `left_out`), or the clocks were not asked for
    /// ([`ConvertOptions::commands`]).
    pub time_control: Option<Vec<Period>>,
    /// The seconds each ply took ([`crate::rules::time_control::time_spent`]), when a ply has a clock
    /// and the time control has periods; a ply whose time is not known is
    /// `None`, and a `clock-mismatch` finding in `left_out` says why.
    pub time_spent: Option<Vec<Option<f64>>>,
    /// The ply a selection criterion matched at (`match_ply`), set by the
    /// selection stage.
    pub match_ply: Option<u32>,
}

/// What the comments after one ply say of the clock and the evaluation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reading {
    /// Time left in milliseconds.
    pub clock: Option<u64>,
    pub eval: Option<Eval>,
}

impl ConvertedGame {
    /// The game's identity key ([`crate::rules::identity`]): `None` when it
    /// was not replayed to its end (its setup failed, or a move is not
    /// legal).
    pub fn key(&self) -> Option<crate::rules::identity::GameKey> {
        let start = self.start.as_ref().filter(|_| self.error.is_none())?;
        let moves = self.plies.iter().map(|p| &p.mv);
        Some(crate::rules::identity::GameKey::of(
            &start.pos, start.mode, moves,
        ))
    }
}

impl ConvertedGame {
    /// The game as a record of a game left out: its tags, start, result
    /// and error, without its moves or what annotates them.
    pub fn without_moves(&self) -> ConvertedGame {
        ConvertedGame {
            tags: self.tags.clone(),
            start: self.start.clone(),
            pre: Annotations::default(),
            plies: Vec::new(),
            marker: self.marker,
            error: self.error.clone(),
            left_out: Vec::new(),
            readings: Vec::new(),
            end: self.start.as_ref().map(|s| s.pos.clone()),
            opening: None,
            time_control: self.time_control.clone(),
            time_spent: None,
            match_ply: self.match_ply,
        }
    }

    /// The value of the first tag called `name`.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The castling mode the game is played with (standard when unknown).
    pub fn mode(&self) -> CastlingMode {
        self.start
            .as_ref()
            .map_or(CastlingMode::Standard, |s| s.mode)
    }

    /// The game's recorded result, as everywhere in pgnkit
    /// ([`crate::rules::game::recorded_result`]): a valid `Result` tag, else
    /// the termination marker, else `*`.
    pub fn result(&self) -> GameResult {
        GameResult::recorded(self.tag("Result").map(str::as_bytes), self.marker)
            .unwrap_or(GameResult::Unfinished)
    }

    /// Every position of the main line: the start, then the one after each
    /// legal ply. Empty when the setup failed.
    pub fn positions(&self) -> impl Iterator<Item = Chess> + '_ {
        let mut pos = self.start.as_ref().map(|s| s.pos.clone());
        let mut plies = self.plies.iter();
        std::iter::from_fn(move || {
            let current = pos.clone()?;
            pos = plies.next().map(|p| {
                let mut next = current.clone();
                next.play_unchecked(p.mv);
                next
            });
            Some(current)
        })
    }

    /// Classifies the game's opening by `table` after the fact (a game
    /// made from a line of UCI moves; PGN games are classified as they are
    /// replayed, [`ConvertOptions::openings`]).
    pub fn classify(&mut self, table: &'static OpeningTable) {
        let Some(start) = &self.start else { return };
        let mut c = Classifier::new(table, &start.pos);
        let mut pos = start.pos.clone();
        for (i, p) in self.plies.iter().take(table.depth() as usize).enumerate() {
            pos.play_unchecked(p.mv);
            c.push(i as u32 + 1, &pos);
        }
        self.opening = c.opening();
    }

    /// The position after the last legal ply.
    pub fn final_position(&self) -> Option<Chess> {
        self.end.clone()
    }

    /// Fullmove number and side to move at the start, for move numbers.
    pub fn first_move(&self) -> (u32, Color) {
        self.start.as_ref().map_or((1, Color::White), |s| {
            (s.pos.fullmoves().get(), s.pos.turn())
        })
    }

    /// For a game written despite its error (`--keep-invalid`): the comment
    /// that goes after its last legal move, saying where and why it broke.
    pub fn break_comment(&self) -> Option<String> {
        let f = self.error.as_ref()?;
        Some(match (f.ply, &f.san) {
            (Some(ply), Some(san)) => format!(
                "pgnkit: not replayed from ply {ply} ({san}): {}: {}",
                f.code, f.message
            ),
            _ => format!("pgnkit: not replayed: {}: {}", f.code, f.message),
        })
    }
}

/// Replays `game` and collects what `convert` writes.
///
/// # Examples
///
/// ```
/// use pgnkit::input::scan::scan;
/// use pgnkit::tasks::convert::{ConvertOptions, convert_game};
/// let scan = scan(b"[White \"A\"]\n\n1. e4 {best} e5 2. Ng1f3 $1 *", true);
/// let game = convert_game(&scan.games[0], ConvertOptions::default());
/// let sans: Vec<String> = game.plies.iter().map(|p| p.san.to_string()).collect();
/// assert_eq!(sans, ["e4", "e5", "Nf3"]);
/// assert_eq!(game.plies[0].notes().comments, ["best"]);
/// assert_eq!(game.plies[2].notes().nags, [1]);
/// ```
pub fn convert_game(game: &RawGame<'_>, options: ConvertOptions) -> ConvertedGame {
    let tags = game
        .tags
        .iter()
        .map(|t| (decode_text(t.name).into_owned(), t.text().into_owned()))
        .collect();
    let mut converted = ConvertedGame {
        tags,
        start: None,
        pre: Annotations::default(),
        plies: Vec::new(),
        marker: game.marker.map(|m| m.result),
        error: None,
        left_out: Vec::new(),
        readings: Vec::new(),
        end: None,
        opening: None,
        time_control: None,
        time_spent: None,
        match_ply: None,
    };
    if options.commands {
        converted.time_control = time_control(game, &mut converted.left_out);
    }
    let start = match start_position(game) {
        Ok(start) => start,
        Err(err) => {
            converted.error = Some(err.finding(game));
            return converted;
        }
    };

    let mut plies = Vec::with_capacity(game.tokens.len());
    let mut openings = options.openings.map(|t| Classifier::new(t, &start.pos));
    let done = replay(game, start.pos.clone(), |ev| {
        if let Some(c) = openings.as_mut() {
            c.push(ev.ply, ev.after);
        }
        if !options.san {
            plies.push(ConvertedPly {
                mv: ev.mv,
                san: ev.san,
                annotations: None,
            });
            return;
        }
        let suffix = ev.check.then(|| {
            if is_checkmate(ev.after) {
                Suffix::Checkmate
            } else {
                Suffix::Check
            }
        });
        plies.push(ConvertedPly {
            mv: ev.mv,
            san: SanPlus {
                san: normalised_san(ev.after, &ev.san.san, ev.mv),
                suffix,
            },
            annotations: None,
        });
    });
    converted.plies = plies;
    converted.opening = openings.and_then(|c| c.opening());
    converted.error = done.error;
    converted.end = Some(done.pos);
    converted.start = Some(start);
    if options.comments || options.nags || options.variations || options.commands {
        attach_annotations(game, options, &mut converted);
    }
    if !converted.readings.is_empty()
        && let Some(periods) = converted.time_control.take()
    {
        times(game, &periods, &mut converted);
        converted.time_control = Some(periods);
    }
    converted
}

/// The periods of `game`'s `TimeControl` tag (see
/// [`ConvertedGame::time_control`]); a malformed one is an `invalid-tag`
/// finding.
fn time_control(game: &RawGame<'_>, findings: &mut Vec<Finding>) -> Option<Vec<Period>> {
    let tag = game.tag("TimeControl")?;
    match crate::rules::time_control::parse(&tag.text()) {
        Ok(TimeControl::Periods(periods)) => Some(periods),
        Ok(TimeControl::None) => Some(Vec::new()),
        Ok(TimeControl::Unknown) => None,
        Err(problem) => {
            findings.push(tag_finding(tag, &problem));
            None
        }
    }
}

/// Fills [`ConvertedGame::time_spent`] from the clocks of `out`'s
/// readings and the time control's `periods`; each ply whose time is not
/// known is a `clock-mismatch` finding.
#[inline(never)]
fn times(game: &RawGame<'_>, periods: &[Period], out: &mut ConvertedGame) {
    let clocks: Vec<Option<f64>> = out
        .readings
        .iter()
        .map(|r| r.clock.map(|ms| ms as f64 / 1000.0))
        .collect();
    let first_white = out.first_move().1 == Color::White;
    let Some((spent, problems)) = time_spent_in(&clocks, first_white, periods) else {
        return;
    };
    out.left_out.extend(clock_findings(game, problems));
    out.time_spent = Some(spent);
}

/// Hangs depth-0 comments and NAGs, and replayed variations, on the ply
/// they follow; stops at the first main-line move that was not replayed.
///
/// Kept out of [`convert_game`] (once a game, so the call costs nothing),
/// whose replay loop is the hot path of `convert`.
#[inline(never)]
fn attach_annotations(game: &RawGame<'_>, options: ConvertOptions, out: &mut ConvertedGame) {
    fn notes(out: &mut ConvertedGame, seen: usize) -> &mut Annotations {
        match seen {
            0 => &mut out.pre,
            n => out.plies[n - 1].annotations.get_or_insert_default(),
        }
    }
    let legal = out.plies.len();
    let tokens = &game.tokens;
    // The position after `.1` main-line plies, made when a variation first
    // needs one and moved forward from there.
    let mut cursor: Option<(Chess, usize)> = None;
    let mut seen = 0usize;
    // The clock and evaluation read so far after ply `said.0`.
    let mut said = (0usize, Commands::default());
    let mut i = 0;
    // Only depth-0 tokens and the `(` of a variation of the main line
    // reach the match: a variation is taken whole.
    while let Some(t) = tokens.get(i) {
        i += 1;
        match t.kind {
            TokenKind::Move => {
                seen += 1;
                if seen > legal {
                    break;
                }
            }
            TokenKind::Nag if options.nags => {
                if let Some(n) = nag_number(t) {
                    notes(out, seen).nags.push(n);
                }
            }
            TokenKind::Comment => {
                if options.commands && may_hold_command(t.text) {
                    if said.0 != seen {
                        said = (seen, Commands::default());
                    }
                    read_commands(out, &mut said.1, seen, t);
                }
                if options.comments {
                    notes(out, seen)
                        .comments
                        .push(decode_text(t.text).into_owned());
                }
            }
            TokenKind::VariationStart => {
                let (end, closed) = variation_end(tokens, i - 1);
                let variation = &tokens[i - 1..end];
                i = end;
                if !options.variations {
                    continue;
                }
                let replayed = if !closed {
                    Err(None)
                } else if seen == 0 {
                    Err(Some(replaces_nothing(t)))
                } else {
                    let (pos, at) = cursor.get_or_insert_with(|| {
                        let start = out.start.as_ref().expect("a replayed game has a start");
                        (start.pos.clone(), 0)
                    });
                    for ply in &out.plies[*at..seen - 1] {
                        pos.play_unchecked(ply.mv);
                    }
                    *at = seen - 1;
                    let on = on_ply(out, seen);
                    replay_variation(variation, pos.clone(), &on, options, &mut out.left_out)
                        .map_err(Some)
                };
                match replayed {
                    Ok(v) => notes(out, seen).variations.push(v),
                    Err(finding) => {
                        let on = on_ply(out, seen);
                        let what = format!("variation {on}");
                        let (fate, comment) = if options.keep_invalid {
                            let text = match &finding {
                                Some(f) => invalid_comment(&what, f, variation),
                                None => format!(
                                    "pgnkit: {what} not closed: {}",
                                    written_variation(variation)
                                ),
                            };
                            ("kept as a comment", Some(text))
                        } else {
                            ("left out", None)
                        };
                        if let Some(mut f) = finding {
                            f.message = format!("{}: the {what} is {fate}", f.message);
                            out.left_out.push(f);
                        }
                        notes(out, seen).comments.extend(comment);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Takes the clock and evaluation of the comment `t` after ply `seen`,
/// after what the comments before it after that ply gave (`said`: the
/// first readable value of each kind counts); every other command is a
/// finding.
fn read_commands(out: &mut ConvertedGame, said: &mut Commands, seen: usize, t: &Token<'_>) {
    let problems = said.read(t.text);
    let san = seen.checked_sub(1).map(|i| out.plies[i].san.to_string());
    let on = san
        .as_deref()
        .map(|san| (u32::try_from(seen).unwrap_or(u32::MAX), san));
    out.left_out
        .extend(commands::findings(problems, t.line, on));
    let Some(i) = seen.checked_sub(1) else { return };
    if said.is_empty() {
        return;
    }
    if out.readings.is_empty() {
        out.readings = vec![Reading::default(); out.plies.len()];
    }
    out.readings[i].clock = said.clock;
    out.readings[i].eval = said.eval;
}

/// The NAG number of a NAG token (the scanner keeps only 0 to 255).
fn nag_number(t: &Token<'_>) -> Option<u8> {
    std::str::from_utf8(t.text).ok()?.parse().ok()
}

/// Where the variation whose `(` is `tokens[start]` ends: the index past
/// its `)` and `true`, or the end of `tokens` and `false` when the game
/// ends before the variation is closed.
fn variation_end(tokens: &[Token<'_>], start: usize) -> (usize, bool) {
    let depth = tokens[start].depth;
    match tokens[start + 1..]
        .iter()
        .position(|t| t.kind == TokenKind::VariationEnd && t.depth == depth)
    {
        Some(off) => (start + off + 2, true),
        None => (tokens.len(), false),
    }
}

/// `on 12. Nf3` (the main-line move a variation replaces), or `before the
/// first move`.
fn on_ply(game: &ConvertedGame, seen: usize) -> String {
    let Some(ply) = seen.checked_sub(1).and_then(|i| game.plies.get(i)) else {
        return "before the first move".to_owned();
    };
    let name = crate::rules::notation::move_name(
        u32::try_from(seen).unwrap_or(u32::MAX),
        game.first_move(),
        &ply.san.to_string(),
    );
    format!("on {name}")
}

/// The finding for a variation whose `(` (the token `open`) stands before
/// any move of the line it branches from: there is no move to replace.
fn replaces_nothing(open: &Token<'_>) -> Finding {
    Finding::game(
        Code::Syntax,
        open.line,
        "a variation before the first move of its line replaces no move",
    )
}

/// Replays one variation, `tokens` from its `(` to its `)`, from `pos`, the
/// position before the move it replaces (PGN standard 8.2.5), `on` naming
/// that move; a variation nested in it replaces the move of its own line
/// just before it. Keeps comments and NAGs as `options` says.
///
/// A nested variation that does not replay is left out alone (or kept as a
/// comment where it stood, [`ConvertOptions::keep_invalid`]), with a
/// finding pushed on `left_out`, and its parent goes on.
///
/// Iterative, so that 200,000 nested variations need no deep stack: what
/// each enclosing line needs to go on is the position before its last move
/// and that move.
///
/// # Errors
///
/// The first move of the variation's own line that is not legal (or not
/// SAN) in its position: then the whole variation is not replayed, and
/// nothing is pushed on `left_out`.
fn replay_variation(
    tokens: &[Token<'_>],
    pos: Chess,
    on: &str,
    options: ConvertOptions,
    left_out: &mut Vec<Finding>,
) -> Result<Vec<VariationToken>, Finding> {
    /// A line a nested variation branched from.
    struct Outer {
        /// The position before the line's last move, and the move.
        last: (Chess, Move),
        /// Where the nested variation starts in `tokens` and in `out`.
        token: usize,
        out: usize,
    }
    let reported = left_out.len();
    let mut out = Vec::with_capacity(tokens.len());
    let mut pos = pos;
    // The position before the last move of the current line, and the move.
    let mut last: Option<(Chess, Move)> = None;
    let mut outer: Vec<Outer> = Vec::new();
    out.push(VariationToken::Open);
    let body = tokens.len() - 1;
    let mut i = 1;
    while i < body {
        let t = &tokens[i];
        i += 1;
        // A nested variation that does not replay: its `(` and why.
        let failed = match t.kind {
            TokenKind::Move => match resolve_written(&pos, t) {
                Ok(mv) => {
                    let before = pos.clone();
                    // shakmaty's SAN, which the main line's agrees with (a
                    // test checks it): the main line's is inlined in its
                    // hot loop, and variations are few.
                    let san = SanPlus::from_move_and_play_unchecked(&mut pos, mv);
                    out.push(VariationToken::Move(san));
                    last = Some((before, mv));
                    continue;
                }
                Err(finding) => match outer.pop() {
                    None => {
                        left_out.truncate(reported);
                        return Err(finding);
                    }
                    Some(o) => {
                        out.truncate(o.out);
                        (pos, last) = resume(o.last);
                        (o.token, finding)
                    }
                },
            },
            TokenKind::Nag => {
                if let Some(n) = nag_number(t).filter(|_| options.nags) {
                    out.push(VariationToken::Nag(n));
                }
                continue;
            }
            TokenKind::Comment => {
                if options.comments {
                    out.push(VariationToken::Comment(decode_text(t.text).into_owned()));
                }
                continue;
            }
            TokenKind::VariationStart => match last.take() {
                Some((before, mv)) => {
                    pos = before.clone();
                    outer.push(Outer {
                        last: (before, mv),
                        token: i - 1,
                        out: out.len(),
                    });
                    out.push(VariationToken::Open);
                    continue;
                }
                None => (i - 1, replaces_nothing(t)),
            },
            TokenKind::VariationEnd => {
                if let Some(o) = outer.pop() {
                    (pos, last) = resume(o.last);
                }
                out.push(VariationToken::Close);
                continue;
            }
        };
        let (open, mut finding) = failed;
        let (end, _) = variation_end(tokens, open);
        i = end;
        let fate = if options.keep_invalid {
            out.push(VariationToken::Comment(invalid_comment(
                "a variation",
                &finding,
                &tokens[open..end],
            )));
            "kept as a comment"
        } else {
            "left out"
        };
        finding.message = format!(
            "{}: a variation inside the variation {on} is {fate}",
            finding.message
        );
        left_out.push(finding);
    }
    out.push(VariationToken::Close);
    Ok(out)
}

/// The position after `last`, a position and the move made in it, and
/// `last` itself: a line resumed after a nested variation.
fn resume(last: (Chess, Move)) -> (Chess, Option<(Chess, Move)>) {
    let mut pos = last.0.clone();
    pos.play_unchecked(last.1);
    (pos, Some(last))
}

/// The comment that keeps a variation that did not replay (`finding` says
/// why; `what` names it): its text as written.
fn invalid_comment(what: &str, finding: &Finding, tokens: &[Token<'_>]) -> String {
    format!(
        "pgnkit: {what} not replayed ({}: {}): {}",
        finding.code,
        finding.message,
        written_variation(tokens)
    )
}

/// The legal move the move token `t` writes in `pos`.
///
/// # Errors
///
/// A finding on the token: `syntax` when it is not SAN, `null-move`,
/// `ambiguous-move` or `illegal-move` when it is not one legal move.
fn resolve_written(pos: &Chess, t: &Token<'_>) -> Result<Move, Finding> {
    let shown = || String::from_utf8_lossy(t.text).into_owned();
    let finding = |code, message: String| Finding {
        line: t.line,
        ply: None,
        san: Some(shown()),
        code,
        message,
        suggestion: None,
    };
    let san = parse_san(t.text).map_err(|e| finding(Code::Syntax, e.to_string()))?;
    match resolve_with_check(pos, &san.san, pos.is_check()) {
        Ok(mv) => Ok(mv),
        Err(_) if san.san == San::Null => Err(finding(
            Code::NullMove,
            "a null move is not a legal move".to_owned(),
        )),
        Err(SanError::AmbiguousSan) => Err(finding(
            Code::AmbiguousMove,
            format!("`{}` matches several legal moves", shown()),
        )),
        Err(_) => Err(finding(
            Code::IllegalMove,
            format!("`{}` is not a legal move", shown()),
        )),
    }
}

/// A variation as it was written, for a comment: moves as written, NAGs as
/// `$n`, comments inside `<` and `>` (a brace would end the comment that
/// holds the text), no move numbers (the scanner keeps none).
fn written_variation(tokens: &[Token<'_>]) -> String {
    let mut s = String::new();
    let mut after_open = true;
    for t in tokens {
        if t.kind != TokenKind::VariationEnd && !after_open {
            s.push(' ');
        }
        let text = decode_text(t.text);
        match t.kind {
            TokenKind::VariationStart | TokenKind::VariationEnd | TokenKind::Move => {
                s.push_str(&text);
            }
            TokenKind::Nag => {
                s.push('$');
                s.push_str(&text);
            }
            TokenKind::Comment => {
                s.push('<');
                s.push_str(text.trim());
                s.push('>');
            }
        }
        after_open = t.kind == TokenKind::VariationStart;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::lines::game_from_uci_line;
    use super::*;
    use crate::input::scan::scan;
    use crate::rules::notation::{fen, lan, uci};
    use crate::rules::san::tests::assert_normalised_san_agrees;
    use crate::rules::setup::parse_fen;

    fn convert(pgn: &str) -> ConvertedGame {
        let scan = scan(pgn.as_bytes(), true);
        convert_game(&scan.games[0], ConvertOptions::default())
    }

    /// The position kept from the replay is the one a second replay of
    /// the kept plies reaches, for every game of the fixtures (illegal
    /// moves, FEN starts, broken setups, damaged movetext among them, and
    /// the 2 MB pgnmentor corpus) and every line of the UCI fixture.
    #[test]
    fn the_kept_end_is_the_replayed_end() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");
        let mut games = 0;
        for sub in ["convert", "pgn", "annotate", "corpus"] {
            for entry in std::fs::read_dir(format!("{dir}/{sub}")).unwrap() {
                let path = entry.unwrap().path();
                if !matches!(
                    path.extension().and_then(|e| e.to_str()),
                    Some("pgn" | "zst")
                ) {
                    continue;
                }
                let mut bytes = std::fs::read(&path).unwrap();
                if path.extension().and_then(|e| e.to_str()) == Some("zst") {
                    bytes = zstd::decode_all(&bytes[..]).unwrap();
                }
                for game in &scan(&bytes, true).games {
                    let c = convert_game(game, ConvertOptions::default());
                    assert_eq!(c.final_position(), c.positions().last(), "{path:?}");
                    games += 1;
                }
            }
        }
        let uci = std::fs::read_to_string(format!("{dir}/convert/games.uci")).unwrap();
        for (i, line) in uci.lines().enumerate() {
            let c = game_from_uci_line(line, i as u64 + 1);
            assert_eq!(
                c.final_position(),
                c.positions().last(),
                "games.uci:{}",
                i + 1
            );
            assert_eq!(c.without_moves().final_position(), c.start.map(|s| s.pos));
        }
        assert!(games > 1000, "only {games} games in the fixtures");
    }

    fn sans(game: &ConvertedGame) -> Vec<String> {
        game.plies.iter().map(|p| p.san.to_string()).collect()
    }

    /// A replayed variation as words: `(`, SAN, `$n`, `{comment}`, `)`.
    fn words(variation: &[VariationToken]) -> Vec<String> {
        variation
            .iter()
            .map(|t| match t {
                VariationToken::Move(san) => san.to_string(),
                VariationToken::Nag(n) => format!("${n}"),
                VariationToken::Comment(c) => format!("{{{c}}}"),
                VariationToken::Open => "(".to_owned(),
                VariationToken::Close => ")".to_owned(),
            })
            .collect()
    }

    /// The messages of the variations `game` left out.
    fn left_out(game: &ConvertedGame) -> Vec<(u64, Code, &str)> {
        game.left_out
            .iter()
            .map(|f| (f.line, f.code, f.message.as_str()))
            .collect()
    }

    #[test]
    fn variations_are_replayed_from_the_position_before_the_move_they_replace() {
        // Nested: (1... Nf6) replaces d5 of its parent line; (2. c4) and
        // (2. Nf3) both replace 2. Bf4; NAGs and comments stay in order.
        let game = convert(
            "1. e4 (1. d4 d5 (1... Nf6 2. c4) 2. Bf4 (2. c4 $1 {QG}) (2. Ng1f3) e6) 1... e5 *",
        );
        assert!(game.left_out.is_empty(), "{:?}", game.left_out);
        assert_eq!(
            words(&game.plies[0].notes().variations[0]).join(" "),
            "( d4 d5 ( Nf6 c4 ) Bf4 ( c4 $1 {QG} ) ( Nf3 ) e6 )"
        );
        // Suffixes come from the position: a missing mate sign is added.
        let mate = convert("1. f3 e5 2. g4 (2. Kf2 Qh4+) 2... Qh4 *");
        assert_eq!(
            words(&mate.plies[2].notes().variations[0]),
            ["(", "Kf2", "Qh4+", ")"]
        );
        let mate = convert("1. f3 e5 2. a3 (2. g4 Qh4) *");
        assert_eq!(
            words(&mate.plies[2].notes().variations[0]),
            ["(", "g4", "Qh4#", ")"]
        );
    }

    #[test]
    fn a_variation_that_does_not_replay_is_left_out_whole() {
        // Legal first moves, then an illegal one: the whole variation goes.
        let game = convert("1. e4 (1. d4 d5 2. Ke3) (1. c4) e5 *");
        assert_eq!(game.plies[0].notes().variations.len(), 1);
        assert_eq!(
            words(&game.plies[0].notes().variations[0]),
            ["(", "c4", ")"]
        );
        assert_eq!(
            left_out(&game),
            [(
                1,
                Code::IllegalMove,
                "`Ke3` is not a legal move: the variation on 1.e4 is left out"
            )]
        );
        // A bad nested variation goes alone; its parent stays.
        let game = convert("1. e4 e5 (1... c5 (1... Zz9) 2. Nf3) *");
        assert_eq!(
            words(&game.plies[1].notes().variations[0]).join(" "),
            "( c5 Nf3 )"
        );
        assert_eq!(left_out(&game)[0].1, Code::Syntax);
        assert!(
            left_out(&game)[0]
                .2
                .ends_with("the variation on 1...e5 is left out")
        );
        // Before any move there is no move to replace; nor is there one
        // for a variation that opens a variation.
        let game = convert("(1. d4) 1. e4 *");
        assert!(game.pre.is_empty() && game.plies[0].notes().is_empty());
        assert_eq!(
            left_out(&game),
            [(
                1,
                Code::Syntax,
                "a variation before the first move of its line replaces no move: \
                 the variation before the first move is left out"
            )]
        );
        let game = convert("1. e4 ((1. c4) 1. d4) *");
        assert_eq!(
            words(&game.plies[0].notes().variations[0]),
            ["(", "d4", ")"]
        );
        assert!(
            left_out(&game)[0].2.ends_with(
                "replaces no move: a variation inside the variation on 1.e4 is left out"
            )
        );
        // Ambiguous and null moves are not legal moves either.
        let game = convert(
            "1. Nf3 d5 2. Nc3 d4 3. e3 (3. Ne4 c5 4. Ke3) (3. Ne4 c5 4. Ng5) (3. Nb5 --) \
             (3. Ne4 c5 4. Nfg5 Nf6) *",
        );
        let codes: Vec<Code> = game.left_out.iter().map(|f| f.code).collect();
        assert_eq!(
            codes,
            [Code::IllegalMove, Code::AmbiguousMove, Code::NullMove]
        );
        assert_eq!(
            words(&game.plies[4].notes().variations[0]).join(" "),
            "( Ne4 c5 Nfg5 Nf6 )"
        );
    }

    #[test]
    fn keep_invalid_keeps_the_variation_as_text() {
        let pgn = b"1. e4 (1. Qh5xh8 {a {b} c} $2 Kxe1) (1. d4 (1. c4 d5 (1... Zz9 ; }x\n))) *";
        let options = ConvertOptions {
            keep_invalid: true,
            ..ConvertOptions::default()
        };
        let game = convert_game(&scan(pgn, true).games[0], options);
        // The first variation as a comment after the move's comments; the
        // nested one as a comment where it stood.
        assert_eq!(
            game.plies[0].notes().comments,
            [
                "pgnkit: variation on 1.e4 not replayed (illegal-move: `Qh5xh8` is not a \
              legal move): (Qh5xh8 <a {b> c $2 Kxe1)"
            ]
        );
        assert_eq!(
            words(&game.plies[0].notes().variations[0]),
            [
                "(",
                "d4",
                "(",
                "c4",
                "d5",
                "{pgnkit: a variation not replayed (syntax: `Zz9` is not a move in SAN): \
                 (Zz9 <}x>)}",
                ")",
                ")"
            ]
        );
        assert_eq!(
            left_out(&game),
            [
                (
                    1,
                    Code::IllegalMove,
                    "`Qh5xh8` is not a legal move: the variation on 1.e4 is kept as a comment"
                ),
                (
                    1,
                    Code::Syntax,
                    "`Zz9` is not a move in SAN: a variation inside the variation on 1.e4 \
                     is kept as a comment"
                )
            ]
        );
    }

    #[test]
    fn an_unclosed_variation_is_dropped() {
        let game = convert("1. e4 e5 (1... c5 (1... e6) 2. Nf3");
        assert_eq!(sans(&game), ["e4", "e5"]);
        assert!(game.plies[1].notes().is_empty());
        // The scanner says it: no finding of its own.
        assert!(game.left_out.is_empty());
    }

    #[test]
    fn two_hundred_thousand_nested_variations() {
        let n = 200_000;
        let mut text = String::from("1. e4 ");
        for _ in 0..n {
            text.push_str("(1. d4 ");
        }
        text.push_str(&")".repeat(n));
        text.push_str(" e5 *");
        let game = convert(&text);
        assert!(game.left_out.is_empty());
        let variation = &game.plies[0].notes().variations[0];
        assert_eq!(variation.len(), 3 * n);
        let moves = variation
            .iter()
            .filter(|t| matches!(t, VariationToken::Move(_)))
            .count();
        assert_eq!(moves, n);
    }

    #[test]
    fn normalised_san_matches_shakmaty_on_random_games() {
        let mut rng = Rng(0x005e_ed0f_5a17);
        let mut chess960_plies = 0;
        for _ in 0..200 {
            let game = random_game(&mut rng);
            // Each game from its own start, Chess960 ones included.
            let mut pos = game.start;
            for mv in game.moves {
                assert_normalised_san_agrees(&pos);
                pos.play_unchecked(mv);
                if game.mode == CastlingMode::Chess960 {
                    chess960_plies += 1;
                }
            }
            assert_normalised_san_agrees(&pos);
        }
        assert!(chess960_plies > 1000, "{chess960_plies}");
    }

    #[test]
    fn san_is_normalised() {
        let game =
            convert("1. e4 e5 2. Ng1f3 Nb8c6 3. Bb5 a6 4. Bxc6 dxc6 5. Nxe5 Qd4 6. Nf3 Qxe4 *");
        assert_eq!(
            sans(&game),
            [
                "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6", "Nxe5", "Qd4", "Nf3",
                "Qxe4+"
            ]
        );
        // A missing mate suffix is added, a wrong check suffix dropped.
        let game = convert("1. f3 e5+ 2. g4 Qh4 0-1");
        assert_eq!(sans(&game), ["f3", "e5", "g4", "Qh4#"]);
    }

    #[test]
    fn annotations_hang_on_the_ply_they_follow() {
        let game = convert(
            "{intro} 1. e4 $1 {good} (1. d4 {also} d5 (1... Nf6)) 1... e5 ; rest of line\n 2. Nf3 {last} *",
        );
        assert_eq!(game.pre.comments, ["intro"]);
        assert_eq!(game.plies[0].notes().nags, [1]);
        assert_eq!(game.plies[0].notes().comments, ["good"]);
        assert_eq!(
            words(&game.plies[0].notes().variations[0]),
            ["(", "d4", "{also}", "d5", "(", "Nf6", ")", ")"]
        );
        assert_eq!(game.plies[1].notes().comments, [" rest of line"]);
        assert_eq!(game.plies[2].notes().comments, ["last"]);
        let bare = convert_game(
            &scan(b"{intro} 1. e4 $1 {good} (1. d4) e5 *", true).games[0],
            ConvertOptions {
                san: true,
                comments: false,
                nags: false,
                variations: false,
                keep_invalid: false,
                commands: false,
                openings: None,
            },
        );
        assert!(bare.pre.is_empty() && bare.plies.iter().all(|p| p.notes().is_empty()));
    }

    #[test]
    fn an_invalid_game_keeps_its_legal_prefix() {
        let game = convert("1. e4 {a} e5 {b} 2. Ke3 {c} Nc6 *");
        assert_eq!(sans(&game), ["e4", "e5"]);
        assert_eq!(game.plies[1].notes().comments, ["b"]);
        let err = game.error.as_ref().unwrap();
        assert_eq!((err.code, err.ply), (Code::IllegalMove, Some(3)));
        assert_eq!(
            game.break_comment().unwrap(),
            "pgnkit: not replayed from ply 3 (Ke3): illegal-move: `Ke3` is not a legal move"
        );
        let bad = convert("[FEN \"8/8/8 w - -\"]\n\n1. e4 *");
        assert!(bad.start.is_none());
        assert_eq!(bad.error.unwrap().code, Code::InvalidFen);
    }

    #[test]
    fn en_passant_square_only_when_a_capture_is_legal() {
        let game = convert("1. e4 *");
        assert_eq!(
            fen(&game.final_position().unwrap(), CastlingMode::Standard),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        );
        let game = convert("1. e4 a6 2. e5 d5 *");
        assert_eq!(
            fen(&game.final_position().unwrap(), CastlingMode::Standard),
            "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
        );
    }

    #[test]
    fn chess960_uses_king_to_rook_and_shredder_fen() {
        let pgn = "[Variant \"Chess960\"]\n[FEN \"nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1\"]\n\n\
                   1. Ng3 d5 2. O-O Bf5 3. d3 O-O-O *";
        let game = convert(pgn);
        assert!(game.error.is_none(), "{:?}", game.error);
        let ucis: Vec<String> = game
            .plies
            .iter()
            .map(|p| uci(p.mv, game.mode()).to_string())
            .collect();
        assert_eq!(ucis.join(" "), "f1g3 d7d5 e1g1 c8f5 d2d3 e8d8");
        assert_eq!(sans(&game)[5], "O-O-O");
        let start = game.start.as_ref().unwrap();
        assert_eq!(
            fen(&start.pos, start.mode),
            "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w GDgd - 0 1"
        );
        assert_eq!(
            fen(&game.final_position().unwrap(), game.mode()),
            "nbkr1nrq/ppp1pppp/8/3p1b2/8/3P2N1/PPP1PPPP/NBBR1RKQ w - - 1 4"
        );
        // Read back: the Shredder letters say Chess960.
        let line = format!(
            "fen {} moves {}",
            fen(&start.pos, start.mode),
            ucis.join(" ")
        );
        let back = game_from_uci_line(&line, 1);
        assert_eq!(back.mode(), CastlingMode::Chess960);
        assert_eq!(sans(&back), sans(&game));
        assert_eq!(back.tag("Variant"), Some("Chess960"));
    }

    #[test]
    fn lan_forms() {
        let game = convert(
            "1. e4 d5 2. exd5 Nf6 3. d4 Nxd5 4. c4 Nb4 5. a3 N4c6 6. d5 e5 7. dxe6 Bxe6 8. Qxd8+ Kxd8 *",
        );
        let lans: Vec<String> = game.plies.iter().map(|p| lan(p.mv, p.san.suffix)).collect();
        assert_eq!(
            lans.join(" "),
            "e2-e4 d7-d5 e4xd5 Ng8-f6 d2-d4 Nf6xd5 c2-c4 Nd5-b4 a2-a3 Nb4-c6 d4-d5 e7-e5 \
             d5xe6 Bc8xe6 Qd1xd8+ Ke8xd8"
        );
    }

    /// A small deterministic PRNG (xorshift64*) for the property tests.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// A random legal game.
    struct RandomGame {
        /// As PGN (with a FEN tag for Chess960 starts, comments and NAGs).
        pgn: String,
        start: Chess,
        moves: Vec<Move>,
        end: Chess,
        mode: CastlingMode,
    }

    /// A random legal game, from the standard start or (one in four) from
    /// a random Chess960 start.
    fn random_game(rng: &mut Rng) -> RandomGame {
        let (mut pos, mode, mut pgn) = match rng.below(4) {
            0 => {
                // A random Chess960 start (of the 960, via the Scharnagl number).
                let n = rng.below(960);
                let fen_text = chess960_fen(n);
                let (pos, mode) = parse_fen(&fen_text, true).unwrap();
                let pgn = format!("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{fen_text}\"]\n");
                (pos, mode, pgn)
            }
            _ => (Chess::default(), CastlingMode::Standard, String::new()),
        };
        pgn.push_str("[Event \"random\"]\n[Annotator \"q\\\"uote\"]\n\n");
        let start = pos.clone();
        let mut moves = Vec::new();
        let length = rng.below(120);
        for _ in 0..length {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = legal[rng.below(legal.len())];
            let san = SanPlus::from_move_and_play_unchecked(&mut pos, mv);
            pgn.push_str(&san.to_string());
            match rng.below(10) {
                0 => pgn.push_str(" {a comment}"),
                1 => pgn.push_str(" $14"),
                _ => {}
            }
            pgn.push(' ');
            moves.push(mv);
        }
        pgn.push_str("*\n");
        RandomGame {
            pgn,
            start,
            moves,
            end: pos,
            mode,
        }
    }

    /// The Chess960 start position number `n` (Scharnagl numbering).
    fn chess960_fen(n: usize) -> String {
        let mut rank = [' '; 8];
        let mut n = n;
        rank[(n % 4) * 2 + 1] = 'B';
        n /= 4;
        rank[(n % 4) * 2] = 'B';
        n /= 4;
        let free = |rank: &mut [char; 8], k: usize, piece: char| {
            let i = (0..8).filter(|&i| rank[i] == ' ').nth(k).unwrap();
            rank[i] = piece;
        };
        free(&mut rank, n % 6, 'Q');
        n /= 6;
        let (a, b) = [
            (0, 1),
            (0, 2),
            (0, 3),
            (0, 4),
            (1, 2),
            (1, 3),
            (1, 4),
            (2, 3),
            (2, 4),
            (3, 4),
        ][n];
        free(&mut rank, b, 'N');
        free(&mut rank, a, 'N');
        free(&mut rank, 0, 'R');
        free(&mut rank, 0, 'K');
        free(&mut rank, 0, 'R');
        let white: String = rank.iter().collect();
        let black = white.to_ascii_lowercase();
        format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1")
    }

    #[test]
    fn property_pgn_to_uci_and_back_keeps_moves_and_final_fen() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..300 {
            let RandomGame {
                pgn,
                moves,
                end,
                mode,
                ..
            } = random_game(&mut rng);
            let game = convert(&pgn);
            assert!(
                game.error.is_none(),
                "round {round}: {:?}\n{pgn}",
                game.error
            );
            assert_eq!(
                game.plies.iter().map(|p| p.mv).collect::<Vec<_>>(),
                moves,
                "{pgn}"
            );
            assert_eq!(game.mode(), mode);
            let final_fen = fen(&end, mode);
            assert_eq!(fen(&game.final_position().unwrap(), mode), final_fen);
            // pgn → uci line → game: same moves, same final FEN.
            let start = game.start.as_ref().unwrap();
            let ucis: Vec<String> = game
                .plies
                .iter()
                .map(|p| uci(p.mv, mode).to_string())
                .collect();
            let line = if start.from_fen || mode == CastlingMode::Chess960 {
                format!("fen {} moves {}", fen(&start.pos, mode), ucis.join(" "))
            } else {
                ucis.join(" ")
            };
            let back = game_from_uci_line(&line, 1);
            assert!(back.error.is_none(), "{line}: {:?}", back.error);
            assert_eq!(
                back.plies.iter().map(|p| p.mv).collect::<Vec<_>>(),
                moves,
                "{line}"
            );
            assert_eq!(sans(&back), sans(&game));
            assert_eq!(
                fen(&back.final_position().unwrap(), back.mode()),
                final_fen,
                "{line}"
            );
            // Every comment survives conversion, on the ply it follows.
            let comments = game
                .plies
                .iter()
                .map(|p| p.notes().comments.len())
                .sum::<usize>();
            assert_eq!(comments, pgn.matches("{a comment}").count());
        }
    }
}
