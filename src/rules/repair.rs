//! The move that was probably meant: repairs of the first main-line move
//! that could not be played, each verified by replaying the rest of the
//! recorded game.
//!
//! A scoresheet slip leaves a clue: the moves after it still fit the game
//! that was played. For the token at ply `k` that is illegal, ambiguous or
//! not a move, [`repairs`] tries
//! - the legal moves the token could stand for ([`Kind::Reading`]): another
//!   piece to the same square, the same piece to a neighbouring square,
//!   each reading of an ambiguous move, another promotion piece, a capture
//!   or check mark that does not fit, castling to the other side, and any
//!   legal move whose SAN is one typing slip (one character added, left
//!   out or changed) away from the token;
//! - a move missing before it ([`Kind::Missing`]): a legal move of the side
//!   to move after which the recorded token is legal (the token was the
//!   other side's move, written in the wrong column or after a move left
//!   out);
//! - the token and the next one written in the wrong order ([`Kind::Swapped`]),
//!   or the token and the same side's next move ([`Kind::SwappedOneSide`]);
//! - a move of each side left out, when the token's written move number
//!   says two plies more than it stands at ([`Kind::MissingPair`]);
//! - the token written by mistake ([`Kind::Extra`]): the game goes on
//!   without it.
//!
//! Each candidate is scored by how many of the recorded moves after it then
//! replay; one that replays them all, with the recorded result agreeing
//! with the position it ends in, is a full repair. At most
//! [`PLY_BUDGET`] plies are replayed per finding, so that a hostile input
//! of many broken games costs a bounded time each.

use shakmaty::san::{San, SanPlus};
use shakmaty::{Chess, Color, Move, Position, Role};

use super::game::{GameResult, Token};
use super::notation::move_name;
use super::san::{parse_san, resolve_with_check};

/// At most this many plies are replayed to score the candidates of one
/// finding.
pub const PLY_BUDGET: u32 = 3000;

/// How many recorded moves after a missing pair must replay for the pair
/// to be a candidate.
const PAIR_SCREEN: usize = 8;

/// At most this many repairs are proposed.
pub const SHOWN: usize = 3;

/// What a repair supposes happened on the scoresheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// The token stands for another legal move.
    Reading,
    /// The token and the next were written in the wrong order.
    Swapped,
    /// The token and the same side's next move were written in the wrong
    /// order (`12.Ne4 … 13.Nxf6+` for `12.Nxf6+ … 13.Ne4`).
    SwappedOneSide,
    /// A move is missing before the token.
    Missing,
    /// A move of each side is missing before the token, as its written
    /// move number says (`21.` where `20.` is due).
    MissingPair,
    /// The token was written by mistake.
    Extra,
}

/// A change of the recorded movetext that applies a repair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenEdit {
    /// The token written as `with` instead.
    Replace { token: usize, with: String },
    /// `with` written before the token (a missing move, in SAN; a missing
    /// move pair with its number, `6. Nge2 a6`, before the token's own
    /// number).
    InsertBefore {
        token: usize,
        with: String,
        pair: bool,
    },
    /// The token written by mistake, removed.
    Delete { token: usize },
}

/// One verified repair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repair {
    pub kind: Kind,
    /// The moves played instead of the recorded ones, as the scoresheet
    /// writes them (`23...Nbd7`, `24.Nf3`); empty for [`Kind::Extra`].
    pub moves: Vec<String>,
    /// The recorded moves after the repaired ones.
    pub remaining: u32,
    /// How many of those replay.
    pub replayed: u32,
    /// Whether the recorded result agrees with the position the replay
    /// ends in (always `true` when it does not replay to the end).
    pub result_agrees: bool,
    /// Whether that position explains the result: a mate for a win, a
    /// stalemate for a draw.
    pub result_explained: bool,
    /// The recorded move where the replay stops again, as the scoresheet
    /// names it after the repair, when it does not reach the end: the game
    /// holds another error, which is not looked at.
    pub stops_at: Option<String>,
    /// How many of the recorded moves the repair plays stand at another
    /// ply than the move number written before them says (`25.` where
    /// `24...` is due): the scoresheet's own count as evidence.
    pub numbers_disagree: u32,
    /// Whether the repair keeps the token's own piece and square (a reading
    /// of an ambiguous move, a capture, check or promotion mark mended):
    /// among repairs the replay cannot tell apart, the closest wins.
    pub exact: bool,
    /// How far what the repair plays is from what was written, to order a
    /// tie (not to break it): 0 for the written moves in another order,
    /// for a reading the characters changed (one more for another piece
    /// letter), then the moves missing or written by mistake.
    pub distance: u32,
    /// The repair as changes of the recorded tokens (indices into the
    /// tokens the repair was asked about), to apply it to the record.
    pub edits: Vec<TokenEdit>,
    /// The token as written, named at its ply (`8.Bd2`), when the repair
    /// changes a move before the one that could not be played: the slip
    /// was legal and was caught later.
    pub earlier: Option<String>,
}

impl Repair {
    /// Every recorded move after the repair replays and the result agrees.
    pub fn is_full(&self) -> bool {
        self.replayed == self.remaining && self.result_agrees
    }

    /// How the repair ranks: full repairs first, then fewer recorded moves
    /// left unplayed, then fewer move numbers contradicted, then a result
    /// the final position explains, then the closest reading. Equal keys
    /// are ties.
    pub fn key(&self) -> (bool, u32, u32, bool, bool) {
        (
            !self.is_full(),
            self.remaining - self.replayed,
            self.numbers_disagree,
            !self.result_explained,
            !self.exact,
        )
    }

    /// `23...Nbd7`, `23...Nbd7 (missing) 24.Nf3`, `without 24.Nf3`.
    pub fn describe(&self) -> String {
        match self.kind {
            Kind::Reading => match &self.earlier {
                Some(written) => format!("{} for the {written} written", self.moves.join(" ")),
                None => self.moves.join(" "),
            },
            Kind::Swapped => match self.moves.as_slice() {
                // `2.Nf3 Nc6`: Black's reply without its number.
                [first, second] if !first.contains("...") => {
                    let reply = second.split_once("...").map_or(second.as_str(), |(_, m)| m);
                    format!("{first} {reply} (in the other order)")
                }
                moves => format!("{} (in the other order)", moves.join(" ")),
            },
            Kind::SwappedOneSide => {
                let side = match self.moves.first() {
                    Some(m) if m.contains("...") => "Black",
                    _ => "White",
                };
                format!(
                    "{} (the two {side} moves in the other order)",
                    joined(&self.moves)
                )
            }
            Kind::Missing => match self.moves.as_slice() {
                [missing, token] => format!("{missing} (missing) {token}"),
                moves => moves.join(" "),
            },
            Kind::MissingPair => match self.moves.as_slice() {
                [first, second, token] => {
                    format!(
                        "{} (missing) {token}",
                        joined(&[first.clone(), second.clone()])
                    )
                }
                moves => moves.join(" "),
            },
            Kind::Extra => format!("{} (written by mistake)", self.moves.join(" ")),
        }
    }

    /// `the remaining 45 plies replay`, `12 of the remaining 45 plies
    /// replay`, with the result when it disagrees.
    pub fn evidence(&self) -> String {
        let mut s = if self.remaining == 0 {
            "it is the last move".to_owned()
        } else if self.replayed == self.remaining {
            match self.remaining {
                1 => "the remaining ply replays".to_owned(),
                n => format!("the remaining {n} plies replay"),
            }
        } else {
            // Partial: at least one replays, and at least one more is left.
            format!(
                "{} of the remaining {} plies replay{}",
                self.replayed,
                self.remaining,
                if self.replayed == 1 { "s" } else { "" }
            )
        };
        if let Some(stop) = &self.stops_at {
            s.push_str(&format!(", to {stop}, which is not looked at"));
        }
        if !self.result_agrees {
            s.push_str(", but the result disagrees with the final position");
        }
        s
    }
}

/// Moves as a scoresheet line: a Black move after a White one without its
/// number (`12.Nxf6+ Bxf6 13.Ne4`).
fn joined(moves: &[String]) -> String {
    let mut out = String::new();
    let mut after_white = false;
    for m in moves {
        if !out.is_empty() {
            out.push(' ');
        }
        match m.split_once("...") {
            Some((_, black)) if after_white => out.push_str(black),
            _ => out.push_str(m),
        }
        after_white = !m.contains("...");
    }
    out
}

/// The repairs of one finding: every repair of the best rank (the report
/// shows the first [`SHOWN`] and counts the others).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Repairs {
    pub best: Vec<Repair>,
    /// Whether the ply budget ran out before every candidate was scored.
    pub budget_spent: bool,
}

impl Repairs {
    /// The rank of the best repairs ([`Repair::key`]), if there are any.
    pub fn rank(&self) -> Option<(bool, u32, u32, bool, bool)> {
        self.best.first().map(Repair::key)
    }

    /// The report's text: `23...Nbd7 (the remaining 45 plies replay)`,
    /// several joined by `; or `, ties said to be ties; `None` when there is
    /// no repair.
    pub fn text(&self) -> Option<String> {
        if self.best.is_empty() {
            return None;
        }
        let mut s = self
            .best
            .iter()
            .take(SHOWN)
            .map(|r| format!("{} ({})", r.describe(), r.evidence()))
            .collect::<Vec<_>>()
            .join("; or ");
        if self.best.len() > 1 {
            s.push_str(" (a tie");
            if self.best.len() > SHOWN {
                let more = self.best.len() - SHOWN;
                s.push_str(&format!(", with {more} more as good"));
            }
            s.push(')');
        }
        if self.budget_spent {
            s.push_str("; not every candidate was replayed");
        }
        Some(s)
    }
}

/// The recorded main line from the failing token on, read once.
struct Line<'t, 'a> {
    tokens: &'t [&'t Token<'a>],
    parsed: Vec<Option<Option<San>>>,
}

impl Line<'_, '_> {
    fn san(&mut self, i: usize) -> Option<San> {
        if self.parsed[i].is_none() {
            self.parsed[i] = Some(parse_san(self.tokens[i].text).ok().map(|s| s.san));
        }
        self.parsed[i].flatten()
    }

    /// Token `i` as a move in `pos`, if it is a legal one there.
    fn resolve(&mut self, pos: &Chess, i: usize) -> Option<Move> {
        let san = self.san(i)?;
        resolve_with_check(pos, &san, pos.is_check()).ok()
    }

    /// Plays token `i` in `pos`, if it is a legal move there.
    fn play(&mut self, pos: &mut Chess, i: usize) -> bool {
        match self.resolve(pos, i) {
            Some(mv) => {
                pos.play_unchecked(mv);
                true
            }
            None => false,
        }
    }
}

/// Where the repairs start: the position before the failing move and how
/// moves are numbered.
#[derive(Debug, Clone, Copy)]
pub struct At<'p> {
    pub pos: &'p Chess,
    /// 1-based ply of the failing move.
    pub ply: u32,
    /// Fullmove number and side to move at the game's start.
    pub first_move: (u32, Color),
}

/// The repairs of the failing main-line token `tokens[0]` (the rest of
/// `tokens` is the recorded main line after it), played from `at`, judged
/// against the recorded `result`.
///
/// # Examples
///
/// ```
/// use pgnkit::input::scan::scan;
/// use pgnkit::rules::repair::{At, repairs};
/// use shakmaty::{Chess, Color, Position};
/// // 2. Nc3 was written Nc4: the knight to a neighbouring square. Only
/// // the knight on c3 can go on to b5.
/// let scan = scan(b"1. e4 e5 2. Nc4 Nc6 3. Nb5 Nf6 *", true);
/// let tokens: Vec<_> = scan.games[0].main_line().collect();
/// let mut pos = Chess::default();
/// for t in &tokens[..2] {
///     let san = shakmaty::san::San::from_ascii(t.text).unwrap();
///     pos.play_unchecked(san.to_move(&pos).unwrap());
/// }
/// let at = At { pos: &pos, ply: 3, first_move: (1, Color::White) };
/// let found = repairs(at, &tokens[2..], None);
/// assert_eq!(found.best.len(), 1);
/// assert_eq!(found.best[0].moves, ["2.Nc3"]);
/// assert!(found.best[0].is_full());
/// ```
pub fn repairs(at: At<'_>, tokens: &[&Token<'_>], result: Option<GameResult>) -> Repairs {
    numbered_repairs(at, tokens, &[], result)
}

/// [`repairs`], with the ply each token's written move number says it is
/// (`numbers[j]` for `tokens[j]`, [`crate::rules::game::RawGame::numbered_ply`];
/// shorter than `tokens`, or empty, where none was written): a repair
/// that contradicts fewer of them ranks first.
pub fn numbered_repairs(
    at: At<'_>,
    tokens: &[&Token<'_>],
    numbers: &[Option<u32>],
    result: Option<GameResult>,
) -> Repairs {
    if tokens.is_empty() {
        return Repairs::default();
    }
    let mut line = Line {
        tokens,
        parsed: vec![None; tokens.len()],
    };
    let mut budget = PLY_BUDGET;
    let mut found: Vec<Repair> = Vec::new();
    let mut spent = false;
    let name = |ply: u32, pos: &Chess, mv: Move| {
        let san = SanPlus::from_move(pos.clone(), mv);
        move_name(ply, at.first_move, &san.to_string())
    };
    let legal = at.pos.legal_moves();

    // Candidates in order of plausibility: (kind, moves played, index of
    // the first recorded token after them).
    let mut candidates: Vec<(Kind, Vec<Move>, usize)> = Vec::new();
    let readings = reading_moves(at.pos, &legal, tokens[0].text);
    let exact = exact_readings(at.pos, &readings, tokens[0].text);
    // Looking back from a later failure, the move as written is no repair.
    let written = line.resolve(at.pos, 0);
    for &mv in readings.iter().filter(|&&mv| Some(mv) != written) {
        candidates.push((Kind::Reading, vec![mv], 1));
    }
    if tokens.len() >= 2
        && let Some(first) = line.resolve(at.pos, 1)
    {
        let mut pos = at.pos.clone();
        pos.play_unchecked(first);
        if let Some(second) = line.resolve(&pos, 0) {
            candidates.push((Kind::Swapped, vec![first, second], 2));
        }
    }
    // The same side's next move first: tokens 2, 1, 0 in that order.
    if tokens.len() >= 3
        && let Some(third) = line.resolve(at.pos, 2)
    {
        let mut pos = at.pos.clone();
        pos.play_unchecked(third);
        if let Some(reply) = line.resolve(&pos, 1) {
            pos.play_unchecked(reply);
            if let Some(first) = line.resolve(&pos, 0) {
                candidates.push((Kind::SwappedOneSide, vec![third, reply, first], 3));
            }
        }
    }
    for &mv in &legal {
        let mut pos = at.pos.clone();
        pos.play_unchecked(mv);
        if let Some(token) = line.resolve(&pos, 0) {
            candidates.push((Kind::Missing, vec![mv, token], 1));
        }
    }
    // A move pair left out, when the token's written number says so: the
    // pairs after which the token and the next few recorded moves are
    // legal (each pair tried for at most PAIR_SCREEN plies, so that the
    // hundreds of pairs cost a bounded time).
    if numbers.first() == Some(&Some(at.ply + 2)) {
        for &first in &legal {
            let mut pos = at.pos.clone();
            pos.play_unchecked(first);
            for second in pos.legal_moves() {
                let mut after = pos.clone();
                after.play_unchecked(second);
                let Some(token) = line.resolve(&after, 0) else {
                    continue;
                };
                let mut screen = after.clone();
                screen.play_unchecked(token);
                let ahead = PAIR_SCREEN.min(tokens.len() - 1);
                if (1..=ahead).all(|i| line.play(&mut screen, i)) {
                    candidates.push((Kind::MissingPair, vec![first, second, token], 1));
                }
            }
        }
    }
    candidates.push((Kind::Extra, Vec::new(), 1));

    for (kind, moves, next) in candidates {
        let mut pos = at.pos.clone();
        let mut names = Vec::with_capacity(moves.len());
        let mut sans = Vec::with_capacity(moves.len());
        for (i, &mv) in moves.iter().enumerate() {
            sans.push(SanPlus::from_move(pos.clone(), mv).to_string());
            names.push(name(at.ply + i as u32, &pos, mv));
            pos.play_unchecked(mv);
        }
        let written = |i: usize| String::from_utf8_lossy(tokens[i].text).into_owned();
        let edits = match kind {
            Kind::Reading => vec![TokenEdit::Replace {
                token: 0,
                with: sans[0].clone(),
            }],
            Kind::Swapped => vec![
                TokenEdit::Replace {
                    token: 0,
                    with: written(1),
                },
                TokenEdit::Replace {
                    token: 1,
                    with: written(0),
                },
            ],
            Kind::SwappedOneSide => vec![
                TokenEdit::Replace {
                    token: 0,
                    with: written(2),
                },
                TokenEdit::Replace {
                    token: 2,
                    with: written(0),
                },
            ],
            Kind::Missing => vec![TokenEdit::InsertBefore {
                token: 0,
                with: sans[0].clone(),
                pair: false,
            }],
            Kind::MissingPair => vec![TokenEdit::InsertBefore {
                token: 0,
                with: joined(&names[..2]),
                pair: true,
            }],
            Kind::Extra => vec![TokenEdit::Delete { token: 0 }],
        };
        if kind == Kind::Extra {
            names.push(move_name(
                at.ply,
                at.first_move,
                &String::from_utf8_lossy(tokens[0].text),
            ));
        }
        let remaining = (tokens.len() - next) as u32;
        let mut replayed = 0;
        while (replayed as usize) < remaining as usize && budget > 0 {
            budget -= 1;
            if !line.play(&mut pos, next + replayed as usize) {
                break;
            }
            replayed += 1;
        }
        if budget == 0 && replayed < remaining {
            spent = true;
        }
        // A candidate must carry the game further than the record does:
        // at least one recorded move after it replays.
        let end = replayed == remaining;
        let (result_agrees, result_explained) = match end {
            true => judge(&pos, result),
            false => (true, false),
        };
        // The last move has only the result for evidence: a repair of it
        // must mate (or stalemate) as the result says.
        let further = replayed > 0 || remaining == 0 && kind != Kind::Extra && result_explained;
        if !further {
            if spent {
                break;
            }
            continue;
        }
        let exact = kind == Kind::Reading && exact.contains(&moves[0]);
        let distance = match kind {
            Kind::Swapped | Kind::SwappedOneSide => 0,
            Kind::Reading if exact => 0,
            Kind::Reading => written_distance(at.pos, moves[0], tokens[0].text),
            Kind::Missing | Kind::MissingPair | Kind::Extra => u32::MAX,
        };
        let stop = next + replayed as usize;
        let numbers_disagree = (0..stop)
            .filter(|&j| {
                let Some(&Some(written)) = numbers.get(j) else {
                    return false;
                };
                let j = j as u32;
                let ply = match (kind, j) {
                    (Kind::Reading, _)
                    | (Kind::Swapped, 2..)
                    // The numbers are the slots': moves of one side in
                    // another order keep them.
                    | (Kind::SwappedOneSide, _) => at.ply + j,
                    (Kind::Swapped, 0) | (Kind::Missing, _) => at.ply + j + 1,
                    (Kind::Swapped, _) => at.ply,

                    (Kind::MissingPair, _) => at.ply + j + 2,
                    // The token written by mistake stands at no ply.
                    (Kind::Extra, 0) => return false,
                    (Kind::Extra, _) => at.ply + j - 1,
                };
                ply != written
            })
            .count() as u32;
        let stops_at = (!end && stop < tokens.len()).then(|| {
            // The plies before, the repair's own, those replayed.
            let ply = at.ply + moves.len() as u32 + replayed;
            move_name(
                ply,
                at.first_move,
                &String::from_utf8_lossy(tokens[stop].text),
            )
        });
        found.push(Repair {
            kind,
            exact,
            distance,
            earlier: None,
            edits,
            numbers_disagree,
            stops_at,
            moves: names,
            remaining,
            replayed,
            result_agrees,
            result_explained,
        });
        if spent {
            break;
        }
    }
    select(found, spent)
}

/// Whether a recorded result agrees with the final position, and whether
/// that position explains it: a mate gives the win to the side that mated,
/// a stalemate a draw; any result agrees with a position that ends nothing
/// (and none is explained by it).
fn judge(pos: &Chess, result: Option<GameResult>) -> (bool, bool) {
    let due = if pos.is_checkmate() {
        match pos.turn() {
            Color::White => GameResult::BlackWins,
            Color::Black => GameResult::WhiteWins,
        }
    } else if pos.is_stalemate() {
        GameResult::Draw
    } else {
        return (true, false);
    };
    match result {
        Some(r) => (r == due, r == due),
        None => (true, false),
    }
}

/// The best repairs: those of the best rank, in order of plausibility, a
/// tie ordered by how close each is to what was written.
fn select(mut found: Vec<Repair>, spent: bool) -> Repairs {
    found.sort_by_key(|r| (r.key(), r.distance));
    // Only the best: a repair the replay ranks lower is not a repair
    // beside it. Ties are all as good.
    let best = found.first().map(Repair::key);
    let keep: Vec<Repair> = found
        .into_iter()
        .filter(|r| Some(r.key()) == best)
        .collect();
    Repairs {
        best: keep,
        budget_spent: spent,
    }
}

/// The legal moves `text` could stand for.
fn reading_moves(pos: &Chess, legal: &[Move], text: &[u8]) -> Vec<Move> {
    let body = normalised(text);
    let body = body.as_slice();
    let parsed = parse_loosely(text);
    let mut out: Vec<Move> = Vec::new();
    for &mv in legal {
        let near = match &parsed {
            Some(San::Normal {
                role,
                to,
                promotion,
                ..
            }) => {
                let to_near = mv.to().distance(*to) <= 1;
                (mv.role() == *role && to_near)
                    || mv.to() == *to
                    || (promotion.is_some() || *role == Role::Pawn)
                        && mv.role() == Role::Pawn
                        && mv.to().file() == to.file()
                        && mv.is_promotion()
            }
            Some(San::Castle(_)) => mv.is_castle(),
            _ => false,
        };
        if near || one_slip(body, &spellings(pos, mv)) {
            out.push(mv);
        }
    }
    out
}

/// The readings that keep the token's piece and destination (and so
/// differ from it only in the marks, the square of origin or the
/// promotion piece), or that it spells but for the marks and the letter
/// of castling.
fn exact_readings(pos: &Chess, readings: &[Move], text: &[u8]) -> Vec<Move> {
    let body = normalised(text);
    let same = |mv: &Move| match parse_loosely(text) {
        Some(San::Normal { role, to, .. }) => mv.role() == role && mv.to() == to,
        _ => spellings(pos, *mv)
            .iter()
            .any(|s| s.as_bytes() == body.as_slice()),
    };
    readings.iter().copied().filter(same).collect()
}

/// How many characters of `text` (without its marks) differ from the SAN
/// of `mv`, one more when the piece letter is another: `Ng3` is 1 from
/// `Nh3` and 2 from `Bg3`.
fn written_distance(pos: &Chess, mv: Move, text: &[u8]) -> u32 {
    let written = normalised(text);
    let san = San::from_move(pos, mv).to_string();
    let san = san.as_bytes();
    let changed = if written.len() == san.len() {
        written.iter().zip(san).filter(|(a, b)| a != b).count()
    } else {
        // One added or left out, or more: at least the difference in length.
        written.len().abs_diff(san.len()).max(1)
    };
    let letter = |b: &[u8]| b.first().copied().filter(u8::is_ascii_uppercase);
    let other_piece = letter(&written) != letter(san);
    changed as u32 + u32::from(other_piece)
}

/// The token read as SAN, or without its marks when they are what is
/// wrong with it (`Nf3++`, `e4!!!`).
fn parse_loosely(text: &[u8]) -> Option<San> {
    parse_san(text)
        .or_else(|_| parse_san(&normalised(text)))
        .ok()
        .map(|s| s.san)
}

/// The token as SAN would write it, where only its spelling is wrong:
/// without marks or `e.p.`, figurines as letters, castling with `O`.
fn normalised(text: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(text);
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        s.push(match c {
            '♔' | '♚' => 'K',
            '♕' | '♛' => 'Q',
            '♖' | '♜' => 'R',
            '♗' | '♝' => 'B',
            '♘' | '♞' => 'N',
            c => c,
        });
    }
    let s = s.strip_suffix("e.p.").unwrap_or(&s);
    castling_letters(strip_marks(s.as_bytes()))
}

/// Castling written with `o` or `0` (`o-o`, `0-0-O`) as with `O`, so that
/// only real slips count as slips.
fn castling_letters(body: &[u8]) -> Vec<u8> {
    let castling = !body.is_empty() && body.iter().all(|b| matches!(b, b'o' | b'O' | b'0' | b'-'));
    body.iter()
        .map(|&b| if castling && b != b'-' { b'O' } else { b })
        .collect()
}

/// The token without the check, mate and annotation marks.
fn strip_marks(text: &[u8]) -> &[u8] {
    let mut end = text.len();
    while end > 0 && matches!(text[end - 1], b'+' | b'#' | b'!' | b'?') {
        end -= 1;
    }
    &text[..end]
}

/// How `mv` may be written: standard SAN, and with the full square of
/// origin (`Ng1f3`, `e2e4`).
fn spellings(pos: &Chess, mv: Move) -> [String; 2] {
    let san = San::from_move(pos, mv).to_string();
    let long = match mv {
        // `Ng1f3`: the long form without its hyphen.
        Move::Normal { .. } => super::notation::lan(mv, None).replace('-', ""),
        _ => san.clone(),
    };
    [san, long]
}

/// Whether `text` is one of `spellings`, or one added, missing or changed
/// character from one.
fn one_slip(text: &[u8], spellings: &[String; 2]) -> bool {
    spellings.iter().any(|s| {
        let s = s.as_bytes();
        match text.len() as isize - s.len() as isize {
            0 => text.iter().zip(s).filter(|(a, b)| a != b).count() <= 1,
            1 => deletes_to(text, s),
            -1 => deletes_to(s, text),
            _ => false,
        }
    })
}

/// Whether removing one byte of `long` gives `short`.
fn deletes_to(long: &[u8], short: &[u8]) -> bool {
    let i = long.iter().zip(short).take_while(|(a, b)| a == b).count();
    long[i + 1..] == short[i..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::scan::scan;
    use crate::rules::replay::replay;

    /// The repairs of the first failing move of `movetext` (from the
    /// standard position).
    fn repaired(movetext: &str) -> Repairs {
        let scan = scan(movetext.as_bytes(), true);
        let game = &scan.games[0];
        let done = replay(game, Chess::default(), |_| {});
        let error = done.error.expect("a failing move");
        let ply = error.ply.unwrap();
        let tokens: Vec<&Token<'_>> = game.main_line().skip(ply as usize - 1).collect();
        let at = At {
            pos: &done.pos,
            ply,
            first_move: (1, Color::White),
        };
        repairs(at, &tokens, crate::rules::game::recorded_result(game))
    }

    fn best(movetext: &str) -> Vec<String> {
        repaired(movetext)
            .best
            .iter()
            .map(Repair::describe)
            .collect()
    }

    const GAME: &str = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 *";

    #[test]
    fn each_slip_is_repaired_to_the_move_played() {
        for (from, to, want) in [
            ("3. Bb5", "3. Bc5", "3.Bb5"),   // neighbouring square
            ("3. Bb5", "3. Nb5", "3.Bb5"),   // another piece letter
            ("2. Nf3", "2. Nf33", "2.Nf3"),  // a typing slip
            ("2. Nf3", "2. Nxf3", "2.Nf3"),  // a capture mark that does not fit
            ("5. O-O", "5. O-O-O", "5.O-O"), // the other castling
        ] {
            let game = GAME.replacen(from, to, 1);
            let found = repaired(&game);
            assert_eq!(found.best[0].describe(), want, "{to}");
            assert!(found.best[0].is_full(), "{to}: {found:?}");
        }
    }

    #[test]
    fn a_missing_move_and_an_extra_move() {
        // 4. Ba4 left out: Black's 4...Nf6 is written as White's 4th move.
        let game = GAME.replacen("4. Ba4 Nf6", "4. Nf6", 1);
        let found = repaired(&game);
        assert!(
            found
                .best
                .iter()
                .any(|r| r.describe() == "4.Ba4 (missing) 4...Nf6" && r.is_full()),
            "{found:?}"
        );
        // 6...b5 written twice.
        let game = GAME.replacen("6. Re1 b5", "6. Re1 b5 b5", 1);
        let found = repaired(&game);
        assert_eq!(
            found.best[0].describe(),
            "7.b5 (written by mistake)",
            "{found:?}"
        );
        assert!(found.best[0].is_full());
    }

    #[test]
    fn swapped_moves() {
        let game = GAME.replacen("2. Nf3 Nc6", "2. Nc6 Nf3", 1);
        let found = repaired(&game);
        assert_eq!(found.best[0].describe(), "2.Nf3 Nc6 (in the other order)");
        assert!(found.best[0].is_full());
    }

    #[test]
    fn an_ambiguous_move_has_its_readings_scored() {
        // 10...Nbd7 written Nd7: only the b8 knight's reading leaves the
        // f6 knight where 11...Nh5 needs it.
        let game = GAME.replacen("10. d4 Nbd7 *", "10. d4 Nd7 11. Nbd2 Nh5 *", 1);
        let found = repaired(&game);
        assert_eq!(found.best[0].describe(), "10...Nbd7", "{found:?}");
    }

    #[test]
    fn no_guess_when_nothing_replays_further() {
        // Nothing a knight of b1 can do makes `Qh8` and what follows legal.
        let found = repaired("1. e4 e5 2. Qh8 Qh4 3. Qxh7 Qxh2 4. Qxg8 Qxg1 *");
        assert!(found.best.iter().all(|r| r.replayed > 0), "{found:?}");
        let found = repaired("1. e4 e5 2. Zz9 Zz9 Zz9 *");
        assert!(found.best.is_empty(), "{found:?}");
        assert_eq!(found.text(), None);
    }

    #[test]
    fn the_result_decides_between_mates() {
        // 4. Qxf7# written Qf7: the capture is the only reading; it mates,
        // and 1-0 agrees.
        let found = repaired("1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qf7 1-0");
        assert_eq!(
            best("1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qf7 1-0")[0],
            "4.Qxf7#"
        );
        assert!(found.best[0].is_full());
        // Recorded 0-1, the mate does not agree.
        let found = repaired("1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qf7 0-1");
        let mate = found.best.iter().find(|r| r.describe() == "4.Qxf7#");
        assert!(mate.is_none_or(|r| !r.is_full()), "{found:?}");
    }

    #[test]
    fn the_budget_bounds_the_work() {
        // A long game whose failing token fits after every White move: many
        // candidates, each replaying far; the budget stops it.
        let mut game = String::from("1. e4 e5 2. Nc6 ");
        for _ in 0..200 {
            game.push_str("Nf3 Nf6 Ng1 Ng8 ");
        }
        game.push('*');
        let found = repaired(&game);
        assert!(found.budget_spent, "{found:?}");
        assert!(
            found
                .text()
                .unwrap()
                .ends_with("not every candidate was replayed")
        );
    }

    #[test]
    fn texts() {
        let found = repaired(&GAME.replacen("3. Bb5", "3. Bc5", 1));
        assert_eq!(
            found.text().unwrap(),
            "3.Bb5 (the remaining 15 plies replay)"
        );
    }
}
