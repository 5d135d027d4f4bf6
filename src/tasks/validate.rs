//! The checks of `validate`: every finding about one game, from its tags,
//! its moves, its end and its result, and the control characters the
//! scanner keeps in tag values and comments.
//!
//! Dead positions are judged here by material alone (the three patterns
//! that are always dead under FIDE 5.2.2); the full analysis belongs to
//! `annotate-outcome`. The end of the game is tracked by
//! [`crate::rules::ends::EndTracker`], the game facts (roster, recorded result)
//! come from [`crate::rules::game`].
//!
//! Each game is judged by the Laws [`crate::rules::laws`] says judge it: under
//! Laws without 9.6 a fifth repetition or a 75th move ends nothing, and a
//! finding about a later end says under which Laws it was judged.

use shakmaty::san::Suffix;
use shakmaty::{CastlingSide, Chess, Color, Move, Position};

use crate::rules::commands::{self, Commands, may_hold_command};
use crate::rules::ends::{End, EndKind, EndRules, EndTracker, Step};
use crate::rules::finding::{Code, Finding};
use crate::rules::game::{
    Edit, GameResult, RawGame, SEVEN_TAG_ROSTER, Token, TokenKind, recorded_result,
};
use crate::rules::identity::{GameKey, encode_move};
use crate::rules::laws::{Laws, LawsChoice};
use crate::rules::movetext::marker_finding;
use crate::rules::openings::{Classifier, Opening, OpeningTable};
use crate::rules::repair::{At, Repair, TokenEdit, numbered_repairs};
use crate::rules::replay::{is_uci_move, replay};
use crate::rules::san::parse_san;
use crate::rules::setup::start_position;
use crate::rules::time_control;

/// Everything `validate` found about one game.
#[derive(Debug, Clone)]
pub struct GameCheck {
    /// Findings in input order (by line, then ply).
    pub findings: Vec<Finding>,
    /// Legal main-line plies replayed.
    pub plies: u32,
    /// Fullmove number and side to move of the starting position, to write
    /// ply numbers as `12... Nf3`.
    pub first_move: (u32, Color),
    /// The game's identity ([`GameKey`]), when it was asked for, the main
    /// line has a move and every move was played.
    pub key: Option<GameKey>,
    /// The full repairs found (one, not a tie), as edits of the game's
    /// bytes (`validate --fix`): sorted, none overlapping.
    pub fixes: Vec<Edit>,
}

/// Runs every check on `game`, judged by the Laws `laws` chooses for it.
pub fn check_game(game: &RawGame<'_>, laws: LawsChoice) -> GameCheck {
    check_game_keyed(game, laws, false, None)
}

/// [`check_game`], and with `key` the game's identity: what tells a
/// repeated game (`duplicate-game`); with `openings`, whether its `ECO` and
/// `Opening` tags agree with the opening that table gives it
/// (`eco-mismatch`).
pub fn check_game_keyed(
    game: &RawGame<'_>,
    laws: LawsChoice,
    key: bool,
    openings: Option<&'static OpeningTable>,
) -> GameCheck {
    let mut findings = game.findings.clone();
    check_tags(game, &mut findings);

    let start = start_position(game);
    // The moves of an unsupported variant are not checked at all.
    let non_standard_seen = check_tokens(
        game,
        start.as_ref().ok().map(|s| s.pos.turn()),
        &mut findings,
    );
    let start = match start {
        Ok(start) => start,
        Err(err) => {
            findings.push(err.finding(game));
            check_result_marker(game, &mut findings);
            return finish(findings, 0, (1, Color::White), None);
        }
    };
    let first_move = (start.pos.fullmoves().get(), start.pos.turn());

    let laws = Laws::for_game(game, laws);
    ENDS.with_borrow_mut(|ends| {
        MOVES.with_borrow_mut(|moves| {
            moves.clear();
            let keyed = key.then_some(moves);
            let openings = openings.map(|t| Classifier::new(t, &start.pos));
            check_moves(
                game,
                &start,
                (first_move, laws, non_standard_seen),
                findings,
                ends,
                (keyed, openings),
            )
        })
    })
}

thread_local! {
    /// One end tracker per thread, reused game after game.
    static ENDS: std::cell::RefCell<EndTracker> =
        std::cell::RefCell::new(EndTracker::new(&Chess::default(), 5, EndRules::FIDE));
    /// The moves of the game, encoded for its key, reused game after game.
    static MOVES: std::cell::RefCell<Vec<u16>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn check_moves(
    game: &RawGame<'_>,
    start: &crate::rules::setup::Start,
    // Where moves are numbered from, the Laws, and whether a move is in a
    // form the export format does not use.
    (first_move, laws, non_standard_seen): ((u32, Color), Laws, bool),
    mut findings: Vec<Finding>,
    ends: &mut EndTracker,
    // The moves for the game's key, and its opening, when asked for.
    (mut key, mut openings): (Option<&mut Vec<u16>>, Option<Classifier<'static>>),
) -> GameCheck {
    // Repetition counts need only be exact from five: validate reports the
    // automatic ends, not the claims.
    ends.reset(&start.pos, 5, EndRules::fide(laws));
    // Only the first move after the end is reported.
    let mut after_end_reported = false;
    // The suffix of a check waits for the next move: a position followed by
    // a legal move is not mate, so mate is looked for once, at the end.
    let mut pending: Option<PendingSuffix<'_>> = None;
    let mut fixes = Vec::new();
    let at = |ply| game.after_ply(ply, first_move);
    let done = replay(game, start.pos.clone(), |ev| {
        if let Some(p) = pending.take() {
            p.resolve(false, &mut findings);
        }
        if let Some(moves) = key.as_mut() {
            moves.push(encode_move(&ev.mv));
        }
        if let Some(c) = openings.as_mut() {
            c.push(ev.ply, ev.after);
        }
        if let Step::After(end) = ends.push(ev.ply, ev.after, ev.mv)
            && !after_end_reported
        {
            after_end_reported = true;
            findings.push(Finding::at_ply(
                Code::MoveAfterEnd,
                ev.token.line,
                ev.ply,
                String::from_utf8_lossy(ev.token.text),
                end.move_after_message(&at),
            ));
        }
        if non_standard_seen && let Some(message) = non_standard(ev.token.text, ev.mv) {
            findings.push(Finding::at_ply(
                Code::Notation,
                ev.token.line,
                ev.ply,
                String::from_utf8_lossy(ev.token.text),
                message,
            ));
        }
        pending = Some(PendingSuffix {
            line: ev.token.line,
            ply: ev.ply,
            text: ev.token.text,
            written: ev.san.suffix,
            check: ev.check,
        });
    });

    let closed = ends.close(&done.pos, done.plies);
    if let Some(p) = pending.take() {
        p.resolve(closed.is_mate(), &mut findings);
    }
    // A game without moves (a forfeit, a bye, a pairing not yet played)
    // records no game: it repeats none.
    let key = key
        .filter(|_| done.error.is_none() && done.plies > 0)
        .map(|moves| GameKey::of_encoded(&start.pos, start.mode, moves));
    let replayed = done.error.is_none();
    if let Some(mut error) = done.error {
        // The illegal move after mate or stalemate is reported as a move
        // after the end, unless one was already.
        let after_end = closed.mark_move_after_end(&mut error, &at);
        if !after_end {
            let (text, edits) = suggest(game, (&start.pos, &done.pos), first_move, &error);
            error.suggestion = text;
            fixes = edits;
        }
        if !after_end || !after_end_reported {
            findings.push(error);
        }
    }

    check_result_marker(game, &mut findings);
    if let Some(c) = openings.filter(|_| replayed) {
        findings.extend(eco_mismatch(game, c.opening()));
    }
    check_result_against_board(game, closed.end, first_move, &mut findings);
    played_on(game, closed.end, first_move.1, &mut findings);
    if closed
        .end
        .is_some_and(|e| matches!(e.kind, EndKind::Checkmate | EndKind::Stalemate))
    {
        fixes.extend(drop_after_end(game, first_move, &mut findings));
    }
    // Under today's Laws the game would have ended at the suspended end:
    // what is said about a later end depends on the Laws that judged it.
    if let Some(suspended) = ends.suspended() {
        let note = suspended.suspended_note(laws, &at);
        for f in &mut findings {
            if matches!(
                f.code,
                Code::MoveAfterEnd | Code::PlayedOn | Code::WrongResult
            ) {
                f.message.push_str(&note);
            }
        }
    }
    let mut check = finish(findings, done.plies, first_move, key);
    check.fixes = fixes;
    check
}

/// The `eco-mismatch` note of a game whose `ECO` or `Opening` tag
/// disagrees with `opening`, the one the table gives it (a tag of `?` or
/// empty says nothing).
pub fn eco_mismatch(game: &RawGame<'_>, opening: Option<Opening<'_>>) -> Option<Finding> {
    let said = |name: &str| {
        game.tag(name)
            .filter(|t| !matches!(t.value.trim_ascii(), b"" | b"?"))
    };
    let (eco, named) = (said("ECO"), said("Opening"));
    let differs = |tag: Option<&crate::rules::game::Tag<'_>>, value: Option<&str>| {
        tag.is_some_and(|t| value.is_none_or(|v| t.text() != v))
    };
    if !differs(eco, opening.map(|o| o.eco)) && !differs(named, opening.map(|o| o.name)) {
        return None;
    }
    let written: Vec<String> = [("ECO", eco), ("Opening", named)]
        .into_iter()
        .filter_map(|(n, t)| t.map(|t| format!("{n} \"{}\"", t.text())))
        .collect();
    let table = match opening {
        Some(o) => format!(
            "the openings table gives {} \"{}\" (after ply {})",
            o.eco, o.name, o.ply
        ),
        None => "the openings table names no position the game reached".to_owned(),
    };
    let line = eco.or(named).map_or(game.line, |t| t.line);
    Some(Finding::game(
        Code::EcoMismatch,
        line,
        format!("{}: {table}", written.join(" and ")),
    ))
}

/// The repairs of the move `error` says could not be played from `pos`
/// ([`crate::rules::repair`]), as the report writes them; the game starts
/// from `start`.
///
/// The move numbers written on the scoresheet are a clue twice over: each
/// repair is ranked by how many it contradicts, and where they break off
/// before the failing move (`25.` standing where `24...` was due), the
/// repairs of the move there are tried as well: a move left out a few
/// plies earlier often replays, with the colours swapped, until later.
fn suggest(
    game: &RawGame<'_>,
    (start, pos): (&Chess, &Chess),
    first_move: (u32, Color),
    error: &Finding,
) -> (Option<String>, Vec<Edit>) {
    let Some(ply) = error.ply else {
        return (None, Vec::new());
    };
    let main: Vec<_> = game.main_line().collect();
    let Some(tokens) = main.get(ply as usize - 1..) else {
        return (None, Vec::new());
    };
    // A game written in UCI is told so; its moves are not slips.
    if tokens.first().is_none_or(|t| is_uci_move(t.text, pos)) {
        return (None, Vec::new());
    }
    let at = At {
        pos,
        ply,
        first_move,
    };
    let result = recorded_result(game);
    let numbers = game.numbered_plies(first_move);
    let here = numbered_repairs(at, tokens, &numbers[ply as usize - 1..], result);
    // The first move whose number says another ply than it stands at,
    // after the last one whose number agrees, not far before the failing
    // move (numbers wrong all along say nothing).
    let mut earlier = None;
    let mut agreed = false;
    for (i, written) in numbers[..ply as usize - 1]
        .iter()
        .enumerate()
        .rev()
        .take(EARLIER)
    {
        match *written {
            Some(n) if n == i as u32 + 1 => {
                agreed = true;
                break;
            }
            Some(_) => earlier = Some(i),
            None => {}
        }
    }
    // The moves before are tried too: the one whose number first
    // disagrees, and the last few (a legal but wrong move is often caught
    // a few plies later: 8.Qd3 for 8.Bd3 stops at 9.O-O). A repair there
    // must do strictly better than the best here.
    // A full repair here that no written number contradicts is not looked
    // behind: the window only pays where the failing move has no such
    // explanation of its own.
    let explained = here
        .best
        .first()
        .is_some_and(|r| r.is_full() && r.numbers_disagree == 0);
    let window = if explained { 0 } else { LOOK_BACK };
    let mut back: Vec<u32> = (ply.saturating_sub(1 + window)..ply - 1).collect();
    if let Some(m) = earlier.filter(|_| agreed) {
        back.push(m as u32);
    }
    let earlier = earlier.filter(|_| agreed);
    back.sort_unstable();
    back.dedup();
    let numbered = earlier;
    // What the record leaves unplayed: the failing move and all after it.
    let unplayed = (main.len() + 1 - ply as usize) as u32;
    // Repairs at different plies are compared on the same written
    // numbers: those of the moves kept as recorded between the first ply
    // looked at and the repair count against it.
    let lo = back.first().map_or(ply as usize - 1, |&m| m as usize);
    let kept_disagree = |m: usize| -> u32 {
        (lo..m)
            .filter(|&j| {
                numbers
                    .get(j)
                    .is_some_and(|n| n.is_some_and(|n| n != j as u32 + 1))
            })
            .count() as u32
    };
    let mut here = here;
    for repair in &mut here.best {
        repair.numbers_disagree += kept_disagree(ply as usize - 1);
    }
    let mut best = here;
    let mut best_at = ply as usize - 1;
    for d in crate::rules::diagram::diagrams(game, start, &back) {
        let m = d.plies as usize;
        if !back.contains(&d.plies) || m >= main.len() {
            continue;
        }
        let at = At {
            pos: &d.pos,
            ply: d.plies + 1,
            first_move,
        };
        let mut there = numbered_repairs(at, &main[m..], &numbers[m..], result);
        for repair in &mut there.best {
            repair.numbers_disagree += kept_disagree(m);
        }
        // A repair before the failing move must carry the game further than
        // the record does; in the window of the last few plies, to its end.
        let further = there.best.first().is_some_and(|r| {
            r.remaining - r.replayed < unplayed && (r.is_full() || numbered == Some(m))
        });
        if further
            && there
                .rank()
                .is_some_and(|r| best.rank().is_none_or(|h| r < h))
        {
            let written = crate::rules::notation::move_name(
                d.plies + 1,
                first_move,
                &String::from_utf8_lossy(main[m].text),
            );
            for repair in &mut there.best {
                repair.earlier = Some(written.clone());
            }
            best = there;
            best_at = m;
        }
    }
    // One full repair, no tie: what `--fix` applies.
    let edits = match best.best.as_slice() {
        [only] if only.is_full() => repair_edits(game, &main[best_at..], only),
        _ => Vec::new(),
    };
    (best.text(), edits)
}

/// `6.Nge2 a6` as `6. Nge2 a6`: a space after each move number.
fn spaced_numbers(moves: &str) -> String {
    moves
        .split(' ')
        .map(|word| {
            let digits = word.bytes().take_while(u8::is_ascii_digit).count();
            let dots = word[digits..].bytes().take_while(|&b| b == b'.').count();
            if digits > 0 && dots > 0 && digits + dots < word.len() {
                format!("{} {}", &word[..digits + dots], &word[digits + dots..])
            } else {
                word.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where the move number written before the token at `start` begins
/// (`7. Be3`, `7.Be3`), or `start` when none is.
fn number_before(text: &[u8], start: usize) -> usize {
    let mut i = start;
    while i > 0 && text[i - 1].is_ascii_whitespace() {
        i -= 1;
    }
    let dots = i;
    while i > 0 && text[i - 1] == b'.' {
        i -= 1;
    }
    let digits = i;
    while i > 0 && text[i - 1].is_ascii_digit() {
        i -= 1;
    }
    if dots > digits && digits > i {
        i
    } else {
        start
    }
}

/// Where `token` lies in the game's text, as byte offsets.
fn token_span(game: &RawGame<'_>, token: &Token<'_>) -> Option<(usize, usize)> {
    let start = (token.text.as_ptr() as usize).checked_sub(game.text.as_ptr() as usize)?;
    let end = start + token.text.len();
    (end <= game.text.len()).then_some((start, end))
}

/// `repair` of the recorded `tokens` as edits of the game's bytes: the
/// tokens it changes, and a comment after them saying what was written and
/// why it changed.
fn repair_edits(game: &RawGame<'_>, tokens: &[&Token<'_>], repair: &Repair) -> Vec<Edit> {
    let span = |i: usize| tokens.get(i).and_then(|t| token_span(game, t));
    let mut edits = Vec::new();
    let mut touched = Vec::new();
    for edit in &repair.edits {
        let token = match edit {
            TokenEdit::Replace { token, .. }
            | TokenEdit::InsertBefore { token, .. }
            | TokenEdit::Delete { token } => *token,
        };
        let Some((start, end)) = span(token) else {
            return Vec::new();
        };
        touched.push(token);
        edits.push(match edit {
            TokenEdit::Replace { with, .. } => Edit {
                start,
                end,
                with: with.clone().into_bytes(),
            },
            // A missing pair goes before the token's own move number (`7.
            // Be3`), numbered as the file numbers its moves (`6. Nge2`).
            TokenEdit::InsertBefore { with, pair, .. } => {
                let at = if *pair {
                    number_before(game.text, start)
                } else {
                    start
                };
                let spaced = at < start
                    && game.text[at..start]
                        .last()
                        .is_some_and(u8::is_ascii_whitespace);
                let with = if spaced {
                    spaced_numbers(with)
                } else {
                    with.clone()
                };
                Edit {
                    start: at,
                    end: at,
                    with: format!("{with} ").into_bytes(),
                }
            }
            TokenEdit::Delete { .. } => Edit {
                start,
                end,
                with: Vec::new(),
            },
        });
    }
    let written: Vec<String> = {
        let mut t = touched.clone();
        t.sort_unstable();
        t.dedup();
        t.iter()
            .filter_map(|&i| tokens.get(i))
            .map(|t| String::from_utf8_lossy(t.text).into_owned())
            .collect()
    };
    let Some(last) = touched.iter().max().and_then(|&i| span(i)) else {
        return Vec::new();
    };
    let note = format!(
        "pgnkit: written {}; repaired to {} ({})",
        written.join(" "),
        repair.describe(),
        repair.evidence()
    )
    .replace('}', ")");
    edits.push(Edit {
        start: last.1,
        end: last.1,
        with: format!(" {{{note}}}").into_bytes(),
    });
    edits.sort_by_key(|e| (e.start, e.end));
    edits
}

/// How many plies before a failing move are looked at for the slip that
/// caused it.
const LOOK_BACK: u32 = 6;

/// How many plies before a failing move a break in the move numbers is
/// looked for (a move pair left out may go unnoticed for twenty moves).
const EARLIER: usize = 48;

fn finish(
    mut findings: Vec<Finding>,
    plies: u32,
    first_move: (u32, Color),
    key: Option<GameKey>,
) -> GameCheck {
    findings.sort_by_key(|f| (f.line, f.ply.unwrap_or(0)));
    GameCheck {
        findings,
        plies,
        first_move,
        key,
        fixes: Vec::new(),
    }
}

/// What is not the export format's in a move that was read (PGN standard
/// 8.2.3: castling with capital O, no letter for a pawn), and how the
/// format writes `mv`. Asked only of games whose token pass saw such a
/// move ([`check_tokens`]), so that the replay of others pays nothing.
fn non_standard(text: &[u8], mv: Move) -> Option<String> {
    let what = match text.first()? {
        b'0' => "castling written with zeros",
        b'P' => "a pawn move written with its letter",
        _ => return None,
    };
    let standard = match (mv.castling_side(), mv) {
        (Some(CastlingSide::KingSide), _) => "O-O".to_owned(),
        (Some(CastlingSide::QueenSide), _) => "O-O-O".to_owned(),
        (
            None,
            Move::Normal {
                from,
                capture,
                to,
                promotion,
                ..
            },
        ) => {
            let mut san = String::new();
            if capture.is_some() {
                san.push(from.file().char());
                san.push('x');
            }
            san.push_str(&to.to_string());
            if let Some(role) = promotion {
                san.push('=');
                san.push(role.upper_char());
            }
            san
        }
        (None, Move::EnPassant { from, to }) => format!("{}x{to}", from.file().char()),
        _ => return None,
    };
    Some(format!(
        "{what} (`{}`): the export format writes `{standard}`",
        String::from_utf8_lossy(text)
    ))
}

/// A move whose check suffix is judged once it is known whether it mated.
struct PendingSuffix<'a> {
    line: u64,
    ply: u32,
    text: &'a [u8],
    written: Option<Suffix>,
    check: bool,
}

impl PendingSuffix<'_> {
    #[inline]
    fn resolve(self, mate: bool, findings: &mut Vec<Finding>) {
        if !self.check && self.written.is_none() {
            return;
        }
        self.report(mate, findings);
    }

    fn report(self, mate: bool, findings: &mut Vec<Finding>) {
        let message = match (self.written, self.check, mate) {
            (None, true, true) => "checkmate not marked with `#`",
            (None, true, false) => "check not marked with `+`",
            (Some(Suffix::Check), _, true) => "checkmate marked with `+` instead of `#`",
            (Some(Suffix::Checkmate), true, false) => "`#` on a check that is not mate",
            (Some(_), false, _) => "check suffix on a move that gives no check",
            _ => return,
        };
        findings.push(Finding::at_ply(
            Code::CheckSuffix,
            self.line,
            self.ply,
            String::from_utf8_lossy(self.text),
            message,
        ));
    }
}

fn check_tags(game: &RawGame<'_>, findings: &mut Vec<Finding>) {
    if !game.has_tags {
        return;
    }
    for tag in &game.tags {
        if may_hold_control(&tag.value) {
            findings.extend(control_finding(
                &tag.value,
                tag.value_line,
                Holder::TagValue,
            ));
        }
    }
    // One finding names every missing tag, in roster order: a game without
    // tags is one problem, not six. A missing Result tag is a
    // result-mismatch error, not reported twice.
    let missing: Vec<&str> = SEVEN_TAG_ROSTER
        .into_iter()
        .filter(|&name| name != "Result" && game.tag(name).is_none())
        .collect();
    if !missing.is_empty() {
        let (tags, verb) = match missing.len() {
            1 => ("tag", "is"),
            _ => ("tags", "are"),
        };
        findings.push(Finding::game(
            Code::MissingTag,
            game.line,
            format!(
                "{tags} {} of the Seven Tag Roster {verb} missing",
                missing.join(", ")
            ),
        ));
    }
    for tag in &game.tags {
        // Raw bytes: only a tag with a problem is decoded.
        let value: &[u8] = &tag.value;
        let problem = match tag.name {
            b"Date" if !is_pgn_date(value) => {
                Some("is not a date of the form YYYY.MM.DD (`?` for unknown digits)")
            }
            b"Event" | b"Site" | b"Round" | b"White" | b"Black"
                if value.trim_ascii().is_empty() =>
            {
                Some("is empty (`?` stands for unknown)")
            }
            b"SetUp" if !matches!(value, b"0" | b"1") => Some("is not 0 or 1"),
            b"TimeControl" => {
                if let Err(problem) = time_control::parse(&tag.text()) {
                    findings.push(time_control::tag_finding(tag, &problem));
                }
                None
            }
            _ => None,
        };
        if let Some(problem) = problem {
            findings.push(Finding::game(
                Code::InvalidTag,
                tag.line,
                format!(
                    "{} \"{}\" {problem}",
                    String::from_utf8_lossy(tag.name),
                    tag.text()
                ),
            ));
        }
    }
    if game.tag("SetUp").is_some_and(|t| *t.value == *b"1") && game.tag("FEN").is_none() {
        let line = game.tag("SetUp").map_or(game.line, |t| t.line);
        findings.push(Finding::game(
            Code::MissingTag,
            line,
            "SetUp \"1\" without a FEN tag",
        ));
    }
}

/// `YYYY.MM.DD` with `?` for unknown digits (PGN standard 8.1.1.3).
fn is_pgn_date(b: &[u8]) -> bool {
    if b.len() != 10 || b[4] != b'.' || b[7] != b'.' {
        return false;
    }
    let part_ok = |part: &[u8], lo: u32, hi: u32| {
        if part.iter().all(|&c| c == b'?') {
            return true;
        }
        if !part.iter().all(u8::is_ascii_digit) {
            return false;
        }
        let n: u32 = part.iter().fold(0, |n, &c| n * 10 + u32::from(c - b'0'));
        (lo..=hi).contains(&n)
    };
    part_ok(&b[0..4], 0, 9999) && part_ok(&b[5..7], 1, 12) && part_ok(&b[8..10], 1, 31)
}

/// One walk over the movetext tokens: the SAN of the moves in variations
/// (the main line's are checked by the replay), when `moves` (the game has
/// a start position), and the control characters of comments
/// ([`control_finding`]).
/// Returns whether a main-line move is written in a form the export format
/// does not use (`0-0`, `Pe4`): the replay names each only then.
fn check_tokens(game: &RawGame<'_>, first: Option<Color>, findings: &mut Vec<Finding>) -> bool {
    let mut non_standard_seen = false;
    let moves = first.is_some();
    // The main-line move a depth-0 comment follows, as (ply, text).
    let mut last_move: Option<(u32, &[u8])> = None;
    let mut plies = 0u32;
    // The clock and evaluation the main line's comments gave since its
    // last move (issue 43: the first readable value counts).
    let mut said = Commands::default();
    // The clock after each main-line ply, once one ply has one.
    let mut clocks: Vec<Option<f64>> = Vec::new();
    for token in &game.tokens {
        match token.kind {
            TokenKind::Move if token.depth == 0 => {
                plies = plies.saturating_add(1);
                last_move = Some((plies, token.text));
                said = Commands::default();
                non_standard_seen |= matches!(token.text.first(), Some(b'0' | b'P'));
            }
            TokenKind::Move if moves => {
                if let Err(message) = parse_san(token.text) {
                    findings.push(Finding {
                        line: token.line,
                        ply: None,
                        san: Some(String::from_utf8_lossy(token.text).into_owned()),
                        code: Code::Syntax,
                        message: format!("{message} (in a variation)"),
                        suggestion: None,
                    });
                }
            }
            TokenKind::Comment => {
                if may_hold_control(token.text) {
                    findings.extend(control_finding(token.text, token.line, Holder::Comment));
                }
                if may_hold_command(token.text) {
                    let san = last_move
                        .filter(|_| token.depth == 0)
                        .map(|(ply, text)| (ply, String::from_utf8_lossy(text)));
                    let on = san.as_ref().map(|(ply, text)| (*ply, text.as_ref()));
                    // The main line's comments after one move share their
                    // values; a variation's comment stands alone.
                    let problems = if token.depth == 0 {
                        let problems = said.read(token.text);
                        if let (Some(ms), Some(ply)) = (said.clock, plies.checked_sub(1)) {
                            clocks.resize(clocks.len().max(plies as usize), None);
                            clocks[ply as usize] = Some(ms as f64 / 1000.0);
                        }
                        problems
                    } else {
                        Commands::default().read(token.text)
                    };
                    findings.extend(commands::findings(problems, token.line, on));
                }
            }
            _ => {}
        }
    }
    if !clocks.is_empty() {
        clocks.resize(plies as usize, None);
        if let Some(first) = first {
            check_clocks(game, first, &clocks, findings);
        }
    }
    non_standard_seen
}

/// The `clock-mismatch` findings of a game whose main line (first moved by
/// `first`) has the clocks `clocks`, when its time control has periods (a malformed one is an
/// `invalid-tag` finding of its own).
#[inline(never)]
fn check_clocks(
    game: &RawGame<'_>,
    first: Color,
    clocks: &[Option<f64>],
    findings: &mut Vec<Finding>,
) {
    let Some(tc) = game
        .tag("TimeControl")
        .and_then(|t| time_control::parse(&t.text()).ok())
    else {
        return;
    };
    if let Some((_, problems)) = time_control::time_spent(clocks, first == Color::White, &tc) {
        findings.extend(time_control::clock_findings(game, problems));
    }
}

/// Whether `text` holds a byte below 0x20 or DEL, eight bytes at a time
/// (the two word tests have no false negatives; a word they flag is looked
/// at byte by byte): comments are most of some archives' bytes.
fn may_hold_control(text: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    let is_control = |b: u8| b < 0x20 || b == 0x7f;
    let mut words = text.chunks_exact(8);
    let found = words.any(|word| {
        let x = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        let below_space = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
        let del = x ^ (ONES * 0x7f);
        let del = del.wrapping_sub(ONES) & !del & HIGH;
        below_space | del != 0 && word.iter().any(|&b| is_control(b))
    });
    found || words.remainder().iter().any(|&b| is_control(b))
}

/// What holds a control character, for [`control_finding`].
#[derive(Clone, Copy)]
enum Holder {
    /// A string, which holds printing characters only (PGN section 7).
    TagValue,
    /// A comment, which may hold tab, line feed, vertical tab and carriage
    /// return, the only control characters of PGN section 4.1.
    Comment,
}

/// The `layout` finding for the first control character `holder` may not
/// hold in `text` (which starts on `line`), on the line where it stands:
/// one per tag value or comment. The scanner keeps such bytes as they are.
#[cold]
fn control_finding(text: &[u8], line: u64, holder: Holder) -> Option<Finding> {
    let refused = |b: u8| match holder {
        Holder::TagValue => b < 0x20 || b == 0x7f,
        Holder::Comment => (b < 0x20 && !matches!(b, b'\t' | b'\n' | 0x0b | b'\r')) || b == 0x7f,
    };
    let at = text.iter().position(|&b| refused(b))?;
    let line = line + memchr::memchr_iter(b'\n', &text[..at]).count() as u64;
    let more = match text.iter().filter(|&&b| refused(b)).count() {
        1 => String::new(),
        n => format!(" ({n} in all)"),
    };
    let (what, rule) = match holder {
        Holder::TagValue => ("a tag value", "a PGN string holds printing characters only"),
        Holder::Comment => (
            "a comment",
            "PGN permits only tab, line feed, vertical tab and carriage return",
        ),
    };
    Some(Finding::game(
        Code::Layout,
        line,
        format!(
            "control character 0x{:02X} in {what}{more}: {rule}",
            text[at]
        ),
    ))
}

fn check_result_marker(game: &RawGame<'_>, findings: &mut Vec<Finding>) {
    let no_movetext = game.tokens.is_empty() && game.marker.is_none();
    if no_movetext {
        // A tag section without movetext: reported once, as layout.
        return;
    }
    let tag = game.tag("Result");
    let tag_result = tag.and_then(|t| GameResult::from_ascii(&t.value));
    if game.has_tags {
        match tag {
            None => findings.push(Finding::game(
                Code::ResultMismatch,
                game.line,
                "the Result tag is missing",
            )),
            Some(t) if tag_result.is_none() => findings.push(Finding::game(
                Code::ResultMismatch,
                t.line,
                format!(
                    "the Result tag \"{}\" is not 1-0, 0-1, 1/2-1/2 or *",
                    t.text()
                ),
            )),
            _ => {}
        }
    }
    findings.extend(marker_finding(game, tag_result));
}

/// Moves after the end of a game whose recorded result is the one that end
/// gives are `played-on` (a warning), not `move-after-end`: the record
/// says what happened, and more.
fn played_on(game: &RawGame<'_>, end: Option<End>, first: Color, findings: &mut [Finding]) {
    let (Some(result), Some(end)) = (recorded_result(game), end) else {
        return;
    };
    if result != end.result(first) {
        return;
    }
    for f in findings.iter_mut().filter(|f| f.code == Code::MoveAfterEnd) {
        f.code = Code::PlayedOn;
        f.message
            .push_str(&format!(", and the result {result} is the one it gives"));
    }
}

/// The repair of moves written after a mate or stalemate, where no move
/// can follow: the game as it ended, the plies after it dropped
/// (`36...fxg2# as the last move (the 2 plies after it dropped)`). Moves
/// played on after a dead position or a repetition are a true record of
/// what was played, and keep no repair.
fn drop_after_end(
    game: &RawGame<'_>,
    first_move: (u32, Color),
    findings: &mut [Finding],
) -> Option<Edit> {
    let f = findings.iter_mut().find(|f| {
        matches!(f.code, Code::MoveAfterEnd | Code::PlayedOn) && f.suggestion.is_none()
    })?;
    let first_after = f.ply.filter(|&p| p > 1)?;
    let main: Vec<&Token<'_>> = game.main_line().collect();
    let total = main.len() as u32;
    let last = *main.get(first_after as usize - 2)?;
    let dropped = total.saturating_sub(first_after - 1);
    let last = crate::rules::notation::move_name(
        first_after - 1,
        first_move,
        &crate::rules::game::decode_text(last.text),
    );
    f.suggestion = Some(match dropped {
        1 => format!("{last} as the last move (the ply after it dropped)"),
        n => format!("{last} as the last move (the {n} plies after it dropped)"),
    });
    // The edit: the plies after the end (with the first one's number)
    // replaced by a comment that keeps them.
    let (start, _) = token_span(game, main.get(first_after as usize - 1)?)?;
    let (_, end) = token_span(game, main.last()?)?;
    if start > end {
        return None;
    }
    let start = number_before(game.text, start);
    let written = String::from_utf8_lossy(&game.text[start..end]).replace('}', ")");
    let written = written.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(Edit {
        start,
        end,
        with: format!("{{pgnkit: written after {last} ended the game, dropped: {written}}}")
            .into_bytes(),
    })
}

fn check_result_against_board(
    game: &RawGame<'_>,
    end: Option<End>,
    first_move: (u32, Color),
    findings: &mut Vec<Finding>,
) {
    let (Some(result), Some(end)) = (recorded_result(game), end) else {
        return;
    };
    let due = end.result(first_move.1);
    if result != due {
        let line = game
            .tag("Result")
            .map(|t| t.line)
            .or(game.marker.map(|m| m.line))
            .unwrap_or(game.line);
        findings.push(Finding::game(
            Code::WrongResult,
            line,
            format!(
                "the game ended by {} {}, which gives {due}, but the result is {result}",
                end.kind.describe(),
                game.after_ply(end.ply, first_move)
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::scan::scan;

    #[test]
    fn control_characters_in_tag_values_and_comments_are_reported() {
        // ESC in a tag value; a tab in a tag value whose tag spans lines (a
        // string holds printing characters only); BEL on the second line
        // of a brace comment, two DELs in a `;` comment. Tab, vertical tab
        // and CR are permitted in comments.
        let pgn = "[Event \"a\u{1b}b\"]\n[Site\n  \"x\ty\"]\n\n\
                   1. e4 {one\r\nt\two\u{7}\u{b}} e5 ; x\u{7f}y\u{7f}\n2. Nf3 {\t\u{b}} *\n";
        let layout: Vec<(u64, String)> = findings(pgn)
            .into_iter()
            .filter(|f| f.code == Code::Layout)
            .map(|f| (f.line, f.message))
            .collect();
        let string = "a PGN string holds printing characters only";
        let comment = "PGN permits only tab, line feed, vertical tab and carriage return";
        assert_eq!(
            layout,
            [
                (
                    1,
                    format!("control character 0x1B in a tag value: {string}")
                ),
                (
                    3,
                    format!("control character 0x09 in a tag value: {string}")
                ),
                (6, format!("control character 0x07 in a comment: {comment}")),
                (
                    6,
                    format!("control character 0x7F in a comment (2 in all): {comment}")
                ),
            ]
        );
        // The scanner keeps them as they are.
        let scan = scan(pgn.as_bytes(), true);
        assert_eq!(scan.games[0].tag_text("Event").as_deref(), Some("a\u{1b}b"));
    }

    #[test]
    fn the_word_test_finds_every_control_byte_at_every_position() {
        for len in 0..20usize {
            let clean: Vec<u8> = (0..len).map(|i| b' ' + (i % 95) as u8).collect();
            assert!(!may_hold_control(&clean), "{len}");
            for at in 0..len {
                for b in 0u8..=0xff {
                    let mut text = clean.clone();
                    text[at] = b;
                    let control = b < 0x20 || b == 0x7f;
                    assert_eq!(may_hold_control(&text), control, "{b:#x} at {at} of {len}");
                }
            }
        }
    }

    /// The findings of the first game of `pgn`.
    fn findings(pgn: &str) -> Vec<Finding> {
        check_game(&scan(pgn.as_bytes(), true).games[0], LawsChoice::GameDate).findings
    }

    fn codes(pgn: &str) -> Vec<(&'static str, Option<u32>)> {
        findings(pgn)
            .iter()
            .map(|f| (f.code.as_str(), f.ply))
            .collect()
    }

    const ROSTER: &str = "[Event \"e\"]\n[Site \"s\"]\n[Date \"2024.01.02\"]\n[Round \"1\"]\n[White \"w\"]\n[Black \"b\"]\n";

    #[test]
    fn clean_game_has_no_findings() {
        let pgn =
            format!("{ROSTER}[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n");
        assert_eq!(codes(&pgn), []);
    }

    #[test]
    fn inserted_moves_are_numbered_as_the_file_numbers_them() {
        assert_eq!(spaced_numbers("6.Nge2 a6"), "6. Nge2 a6");
        assert_eq!(spaced_numbers("20...Qe7 21.Rd1"), "20... Qe7 21. Rd1");
        assert_eq!(spaced_numbers("e4 10."), "e4 10.");
    }

    #[test]
    fn non_standard_notation_is_read_and_named() {
        let pgn = format!(
            "{ROSTER}[Result \"*\"]\n\n1. Pe4 d5 2. Pexd5 Qxd5 3. Nf3 Bg4 4. Be2 Nc6 5. 0-0 0-0-0+ 6. d4 e5 7. Pdxe5 *\n"
        );
        let found = findings(&pgn);
        let notes: Vec<(Option<u32>, &str)> = found
            .iter()
            .filter(|f| f.code == Code::Notation)
            .map(|f| (f.ply, f.message.as_str()))
            .collect();
        assert_eq!(
            notes,
            [
                (
                    Some(1),
                    "a pawn move written with its letter (`Pe4`): the export format writes `e4`"
                ),
                (
                    Some(3),
                    "a pawn move written with its letter (`Pexd5`): the export format writes `exd5`"
                ),
                (
                    Some(9),
                    "castling written with zeros (`0-0`): the export format writes `O-O`"
                ),
                (
                    Some(10),
                    "castling written with zeros (`0-0-0+`): the export format writes `O-O-O`"
                ),
                (
                    Some(13),
                    "a pawn move written with its letter (`Pdxe5`): the export format writes `dxe5`"
                ),
            ]
        );
        // The same moves in the export format: nothing to say.
        let standard = pgn
            .replace("0-0-0+", "O-O-O+")
            .replace("0-0", "O-O")
            .replace(" P", " ");
        assert!(findings(&standard).iter().all(|f| f.code != Code::Notation));
        assert_eq!(
            Code::Notation.severity(),
            crate::rules::finding::Severity::Warning
        );
    }

    #[test]
    fn mate_scored_otherwise_is_wrong_result() {
        let pgn = format!(
            "{ROSTER}[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1/2-1/2\n"
        );
        assert_eq!(codes(&pgn), [("wrong-result", None)]);
    }

    #[test]
    fn move_after_mate() {
        let pgn = format!(
            "{ROSTER}[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# Ke7 1-0\n"
        );
        assert_eq!(codes(&pgn), [("played-on", Some(8))]);
        // Scored otherwise: the moves after the end are an error.
        let pgn = pgn.replace("1-0", "0-1");
        assert_eq!(
            codes(&pgn),
            [("wrong-result", None), ("move-after-end", Some(8))]
        );
    }

    #[test]
    fn fivefold_then_moves() {
        let pgn = format!(
            "{ROSTER}[Result \"*\"]\n\n1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 Ng8 5.Nf3 Nf6 6.Ng1 Ng8 7.Nf3 Nf6 8.Ng1 Ng8 9.e4 *\n"
        );
        assert_eq!(
            codes(&pgn),
            [("wrong-result", None), ("move-after-end", Some(17))]
        );
    }

    #[test]
    fn missing_check_suffix() {
        let pgn = format!("{ROSTER}[Result \"*\"]\n\n1. e4 e5 2. Bc4 d6 3. Bxf7 *\n");
        assert_eq!(codes(&pgn), [("check-suffix", Some(5))]);
    }

    /// The messages of the first game's findings.
    fn messages(pgn: &str) -> Vec<(&'static str, String)> {
        findings(pgn)
            .into_iter()
            .map(|f| (f.code.as_str(), f.message))
            .collect()
    }

    #[test]
    fn missing_roster_tags_are_one_finding() {
        assert_eq!(
            messages("[Result \"*\"]\n\n1. e4 *\n"),
            [(
                "missing-tag",
                "tags Event, Site, Date, Round, White, Black of the Seven Tag Roster are missing"
                    .to_owned()
            )]
        );
        assert_eq!(
            messages(
                "[Event \"e\"]\n[Site \"s\"]\n[Date \"????.??.??\"]\n[Round \"1\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1. e4 *\n"
            ),
            [(
                "missing-tag",
                "tag White of the Seven Tag Roster is missing".to_owned()
            )]
        );
        // SetUp "1" without a FEN stays a finding of its own.
        let pgn = format!("{ROSTER}[Result \"*\"]\n[SetUp \"1\"]\n\n1. e4 *\n");
        assert_eq!(
            messages(&pgn),
            [("missing-tag", "SetUp \"1\" without a FEN tag".to_owned())]
        );
    }

    #[test]
    fn dates() {
        assert!(is_pgn_date(b"2024.01.31"));
        assert!(is_pgn_date(b"????.??.??"));
        assert!(is_pgn_date(b"1993.??.??"));
        assert!(!is_pgn_date(b"1993.13.01"));
        assert!(!is_pgn_date(b"1993-01-01"));
        assert!(!is_pgn_date(b"93.01.01"));
    }

    /// No input makes the scanner or the checks panic: random mutations of
    /// real PGN (byte flips, cuts, splices, PGN punctuation) and random bytes.
    #[test]
    fn no_input_panics() {
        let seeds: [&[u8]; 4] = [
            include_bytes!("../../fixtures/pgn/twic1599_excerpt.pgn"),
            include_bytes!("../../fixtures/pgn/chess960.pgn"),
            include_bytes!("../../fixtures/pgn/hoover_parsertest.pgn"),
            include_bytes!("../../fixtures/pgn/nul_glued_tag.pgn"),
        ];
        let alphabet = b"[]{}();%$!?*\"\\\n\r\t 0123456789-=+#xOKQRBNPabcdefgh/.\0\xef\xbb\xbf\xff";
        // xorshift: deterministic, no dependency.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..20_000 {
            let seed = seeds[round % seeds.len()];
            let start = (next() as usize) % seed.len();
            let len = (next() as usize) % 3000;
            let mut input = seed[start..(start + len).min(seed.len())].to_vec();
            for _ in 0..(next() % 12) {
                if input.is_empty() {
                    break;
                }
                let at = (next() as usize) % input.len();
                match next() % 4 {
                    0 => input[at] = alphabet[(next() as usize) % alphabet.len()],
                    1 => input.insert(at, alphabet[(next() as usize) % alphabet.len()]),
                    2 => {
                        input.remove(at);
                    }
                    _ => input[at] = next() as u8,
                }
            }
            if round % 10 == 0 {
                input = (0..(next() % 400))
                    .map(|_| alphabet[(next() as usize) % alphabet.len()])
                    .collect();
            }
            for at_end in [true, false] {
                for game in &scan(&input, at_end).games {
                    let _ = check_game(game, LawsChoice::GameDate);
                }
            }
        }
    }
}
