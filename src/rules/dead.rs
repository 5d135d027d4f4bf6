//! Dead positions (FIDE 5.2.2) and whether a side can still checkmate by any
//! series of legal moves (the exception in 5.1.2 and 6.9 that turns a
//! resignation or a loss on time into a draw).
//!
//! This module owns the question "can `side` ever deliver checkmate from here,
//! with both players cooperating?" and the verdicts built on it. It answers
//! from the cheapest source that settles the question:
//!
//! 1. the three material patterns that are always dead
//!    ([`is_dead_by_material`]), and a bare king, which can never mate;
//! 2. pgnkit's own helpmate prover ([`super::helpmate`]), a greedy search
//!    on shakmaty boards that finds a mating line for nearly every real
//!    position in a few µs, within [`HELPMATE_BUDGET`] nodes (it can only say
//!    yes);
//! 3. the exact solver's fast unwinnability check, sound but incomplete (it
//!    can only say no), within a bound on its work;
//! 4. the prover once more, with [`SECOND_BUDGET`] nodes spread over its
//!    mating plans (it can only say yes);
//! 5. the exact solver's full helpmate search, which either returns a mating
//!    line, proves none exists, or gives up at its node limits or at the
//!    bound on its work; about 1% of the final positions of decisive games
//!    get to step 4, and fewer than half of those to step 5.
//!
//! The bounds count positions, never time (see [`super::solver`]), so every
//! answer is the same on any machine and at any thread count.
//!
//! Talking to the exact solver (converting positions, catching its panics,
//! replaying its lines) is left to [`super::solver`], which also says which
//! positions it cannot hold (Chess960 castling rights): those are reported
//! as undetermined, never dead. Deciding which ending comes first
//! (checkmate and stalemate end the game before the question of a dead
//! position arises) is left to the caller.

use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, Position};

use super::helpmate::find_helpmate_spread;
use super::mateability::{Mateability, UndeterminedReason};
use super::solver;

/// Why a position is dead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeadReason {
    /// One of the three material patterns that are always dead (see
    /// [`is_dead_by_material`]). The `app` and `online` profiles recognise
    /// only this kind.
    Material,
    /// The solver proved that neither side can mate although mating material
    /// remains: typically a locked pawn wall, or a position (stalemate
    /// included) with no way forward.
    Unwinnable,
}

impl DeadReason {
    /// Both reasons.
    pub const ALL: [DeadReason; 2] = [DeadReason::Material, DeadReason::Unwinnable];

    /// A short snake_case name, stable for CSV and JSON output.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::dead::DeadReason;
    ///
    /// assert_eq!(DeadReason::Material.as_str(), "material");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            DeadReason::Material => "material",
            DeadReason::Unwinnable => "unwinnable",
        }
    }
}

/// Whether a position is dead (FIDE 5.2.2): neither side can checkmate by
/// any series of legal moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeadVerdict {
    /// Proven dead.
    Dead(DeadReason),
    /// Proven not dead: at least one side has a mating line (or the position
    /// is checkmate).
    Alive,
    /// Neither proven dead nor proven alive.
    Undetermined(UndeterminedReason),
}

/// Is the position dead by material alone (FIDE 5.2.2)? Exactly these three
/// patterns, whoever is to move:
///
/// - king against king;
/// - king and one bishop, or king and one knight, against king;
/// - kings and bishops only, every bishop on squares of one colour (any
///   number, either side).
///
/// Everything else is `false`, including positions that are dead for other
/// reasons and the cases often mistaken for dead: K+N+N v K, K+B v K+N,
/// K+N v K+N, bishops on opposite colours. Kings are not counted, so a board
/// without kings is judged by its other pieces.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::dead::is_dead_by_material;
/// use shakmaty::Board;
///
/// let board = |fen: &str| Board::from_ascii_board_fen(fen.as_bytes()).unwrap();
/// assert!(is_dead_by_material(&board("8/8/4k3/8/2B5/8/8/4K3")));
/// assert!(!is_dead_by_material(&board("8/8/4k3/8/8/8/8/1N2K1N1")));
/// ```
pub fn is_dead_by_material(board: &Board) -> bool {
    if (board.pawns() | board.rooks() | board.queens()).any() {
        return false;
    }
    let knights = board.knights().count();
    let bishops = board.bishops();
    match knights {
        0 => {
            bishops.is_subset(Bitboard::LIGHT_SQUARES) || bishops.is_subset(Bitboard::DARK_SQUARES)
        }
        1 => bishops.is_empty(),
        _ => false,
    }
}

/// Can `side` checkmate by some series of legal moves, both players
/// cooperating?
///
/// This is the test of FIDE 5.1.2 and 6.9: a player who resigns or loses on
/// time is drawn instead when the opponent cannot mate this way. Cheap tests
/// run first (checkmate on the board, the dead material patterns, a bare
/// king), then pgnkit's helpmate prover, the exact solver's fast check, and
/// its full search. See the module
/// docs for when the answer is [`Mateability::Undetermined`].
///
/// # Examples
///
/// ```
/// use pgnkit::rules::dead::can_mate;
/// use pgnkit::rules::mateability::Mateability;
/// use shakmaty::{CastlingMode, Chess, Color, fen::Fen};
///
/// // King and bishop against king and knight: mate exists, with help.
/// let pos: Chess = "k7/2n5/8/1K6/8/8/8/4B3 w - - 0 1"
///     .parse::<Fen>()?
///     .into_position(CastlingMode::Standard)?;
/// assert!(matches!(can_mate(&pos, Color::White), Mateability::Yes { .. }));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn can_mate(pos: &Chess, side: Color) -> Mateability {
    can_mate_quickly(pos, side).unwrap_or_else(|| can_mate_by_search(pos, side))
}

/// Nodes pgnkit's own helpmate prover ([`super::helpmate`]) may visit
/// before the question goes to the exact solver. It proves about 98% of the final
/// positions of decisive games at 100 nodes; a failed call costs the whole
/// budget, a full solver search several times more, and annotating pgnmentor
/// took the fewest instructions between 200 and 400 (60: +11%, 1000: +5%).
pub const HELPMATE_BUDGET: u32 = 250;

/// The most nodes of [`HELPMATE_BUDGET`] that the winner's question
/// ([`can_mate_quickly`]) gives one mating plan of the prover (a target
/// corner; see [`find_helpmate_spread`]), so that a corner the loser king
/// cannot reach does not take the budget of the corners after it. Against
/// one plan after another, each with all that is left, annotating the 8 MB
/// pgnmentor slice takes 1.1 % fewer instructions (1,676 M -> 1,658 M) and
/// a 30 MB slice from the corpus's middle 2.4 % fewer (60 nodes a plan:
/// about the same; 125: a third fewer nodes saved), and fewer questions
/// are left to the second try. Only lines change, never a verdict (the
/// prover is sound either way): on pgnmentor 5,122 of them, 202,412 plies
/// -> 112,730.
pub const WINNER_PLAN_BUDGET: u32 = 80;

/// The most nodes of [`HELPMATE_BUDGET`] that the dead question's dive
/// ([`is_dead_knowing`]) gives one mating plan of the prover (a target
/// corner; see [`find_helpmate_spread`]). On pgnmentor's 171,269 drawn final
/// positions, held to 60 nodes a plan the prover leaves 364 sides to the
/// exact solver's full search instead of 1,364 with one plan after another
/// (40 nodes a plan: 486; 80: 407), and the dead question takes 13% less
/// CPU time.
pub const DEAD_PLAN_BUDGET: u32 = 60;

/// Nodes of the prover's second try, for a question its first try and the
/// solver's fast check left open ([`can_mate_by_search`]), before the
/// exact solver's full search; at most [`SECOND_PLAN_BUDGET`] of them a
/// plan. On the 8 MB pgnmentor slice 56 questions got to the full search,
/// at 2.6 million instructions each (145 M of the run's 1,720 M); the
/// second try answers 31 of them for 30 M, and the run takes 1,676 M
/// (400/100 and 2,000/250 nodes: within 0.3 % of that; measured before
/// [`WINNER_PLAN_BUDGET`], which leaves it fewer questions: the full
/// search now takes 69 M of the run's 1,658 M). Both provers are
/// sound, so a question the second try answers is one the full search
/// answers yes: no verdict changes, only the line printed (on pgnmentor
/// 1,949 lines, a third shorter than the solver's). Where the full search
/// cannot answer (Chess960 castling rights, its node limits), an
/// undetermined answer may become yes; none does on pgnmentor.
pub const SECOND_BUDGET: u32 = 1000;

/// The most nodes of [`SECOND_BUDGET`] that one mating plan may take.
pub const SECOND_PLAN_BUDGET: u32 = 250;

/// The answers to "can `side` mate?" that cost a few µs: checkmate on the
/// board, dead material or a bare king (no), a helpmate found by pgnkit's
/// own prover within [`HELPMATE_BUDGET`] nodes, at most
/// [`WINNER_PLAN_BUDGET`] of them a mating plan (yes), the exact solver's
/// fast unwinnability check (no). `None` when only the full search can tell
/// ([`can_mate_by_search`]).
pub fn can_mate_quickly(pos: &Chess, side: Color) -> Option<Mateability> {
    if let Some(answer) = can_mate_cheaply(pos, side) {
        return Some(answer);
    }
    if let Some(line) = find_helpmate_spread(pos, side, HELPMATE_BUDGET, WINNER_PLAN_BUDGET) {
        return Some(mates_by(pos, &line));
    }
    solver::is_unwinnable_fast(pos, side).then_some(Mateability::No)
}

/// For a question [`can_mate_quickly`] left open: pgnkit's prover once
/// more, with [`SECOND_BUDGET`] nodes spread over its mating plans, then
/// the exact solver's full search ([`solver::winnability`]).
pub fn can_mate_by_search(pos: &Chess, side: Color) -> Mateability {
    match find_helpmate_spread(pos, side, SECOND_BUDGET, SECOND_PLAN_BUDGET) {
        Some(line) => mates_by(pos, &line),
        None => solver::winnability(pos, side),
    }
}

/// The answer a line of pgnkit's prover gives: yes, with the line in UCI
/// (Chess960 notation for castling when the position's rights are not
/// the standard ones).
fn mates_by(pos: &Chess, line: &[shakmaty::Move]) -> Mateability {
    let mode = if solver::has_standard_castling(pos) {
        CastlingMode::Standard
    } else {
        CastlingMode::Chess960
    };
    let helpmate = line.iter().map(|m| UciMove::from_move(*m, mode)).collect();
    Mateability::Yes { helpmate }
}

/// Is the position dead (FIDE 5.2.2)?
///
/// Dead when neither side can mate ([`can_mate`] is [`Mateability::No`] for
/// both); alive as soon as one side can. A checkmate position is alive (the
/// game ended by mate); a stalemate position is reported dead, since no
/// series of legal moves leads to mate from it: callers that care rank
/// stalemate (5.2.1) first.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::dead::{DeadReason, DeadVerdict, is_dead};
/// use shakmaty::{CastlingMode, Chess, fen::Fen};
///
/// // A locked pawn wall: the kings can never get through.
/// let pos: Chess = "4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1"
///     .parse::<Fen>()?
///     .into_position(CastlingMode::Standard)?;
/// assert_eq!(is_dead(&pos), DeadVerdict::Dead(DeadReason::Unwinnable));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn is_dead(pos: &Chess) -> DeadVerdict {
    is_dead_knowing(pos, None)
}

/// [`is_dead`] when one side's answer is already known (`annotate-outcome`
/// has asked whether the winner can mate): that answer is used instead of
/// asking again.
pub fn is_dead_knowing(pos: &Chess, known: Option<(Color, &Mateability)>) -> DeadVerdict {
    if is_dead_by_material(pos.board()) {
        return DeadVerdict::Dead(DeadReason::Material);
    }
    if pos.is_checkmate() {
        return DeadVerdict::Alive;
    }
    // Each side with its answer so far, in the order of `asking_order`.
    let mut asked = asking_order(pos).map(|side| {
        let answer = match known {
            Some((s, known)) if s == side => Some(known.clone()),
            _ => can_mate_cheaply(pos, side),
        };
        (side, answer)
    });
    if asked
        .iter()
        .any(|(_, a)| matches!(a, Some(Mateability::Yes { .. })))
    {
        return DeadVerdict::Alive;
    }
    // Only the verdict is wanted here, not whose line proves it, so the
    // prover spreads its budget over its mating plans: a corner the loser
    // king cannot reach no longer uses up the budget of the corners after
    // it. The line found may differ from the winner's question's, the
    // verdict cannot: both provers are sound, and every side they leave
    // open gets the full search.
    for (side, answer) in &mut asked {
        if answer.is_none() {
            if find_helpmate_spread(pos, *side, HELPMATE_BUDGET, DEAD_PLAN_BUDGET).is_some() {
                return DeadVerdict::Alive;
            }
            if solver::is_unwinnable_fast(pos, *side) {
                *answer = Some(Mateability::No);
            }
        }
    }
    // The sides still open get the full search, in the same order: one
    // mating line shows the position alive; dead needs both proven.
    let mut undetermined = None;
    for (side, answer) in asked {
        match answer.unwrap_or_else(|| can_mate_by_search(pos, side)) {
            Mateability::Yes { .. } => return DeadVerdict::Alive,
            Mateability::No => (),
            Mateability::Undetermined(reason) => undetermined = undetermined.or(Some(reason)),
        }
    }
    match undetermined {
        Some(reason) => DeadVerdict::Undetermined(reason),
        None => DeadVerdict::Dead(DeadReason::Unwinnable),
    }
}

/// The order in which [`is_dead_knowing`] asks the two sides: the side
/// with more pawns first, else the side that just moved, which in final
/// positions of real games is usually the one with a quick mating line.
///
/// Measured with `valgrind --tool=callgrind` on the dead question of the
/// 5,441 drawn final positions of the 8 MB pgnmentor slice: this order costs
/// 5 M instructions fewer than the side with more material first, 8 M fewer
/// than the side to move first and 15 M fewer than the side that moved. For
/// the positions left to the full search it is also the cheaper order: on
/// the 1,932 distinct final positions of pgnmentor that reached it before
/// the prover spread its budget over its plans (the costliest are a minor
/// piece against pawns, where the pawns' line is the quick one), chasolver
/// spent 16% fewer units than asking the side that moved first, and 24%
/// fewer than asking the side with more material first.
fn asking_order(pos: &Chess) -> [Color; 2] {
    let board = pos.board();
    let pawns = |side: Color| (board.pawns() & board.by_color(side)).count();
    let moved = !pos.turn();
    if pawns(pos.turn()) > pawns(moved) {
        [pos.turn(), moved]
    } else {
        [moved, pos.turn()]
    }
}

/// The first ply of a game whose position is proven dead, from the
/// positions after each ply (`positions[0]` is the start position,
/// `positions[i]` the position after ply `i`).
///
/// A convenience over [`first_dead_ply_by`] with [`is_dead`]; see there for
/// the search and how undetermined answers are treated.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::dead::{DeadReason, first_dead_ply};
/// use shakmaty::{CastlingMode, Chess, Position, fen::Fen, san::San};
///
/// // King and bishop against king and knight is alive; the knight falls on
/// // ply 1, and K+B v K is dead from then on.
/// let mut pos: Chess = "4k3/8/8/8/2B5/8/3n4/4K3 w - - 0 1"
///     .parse::<Fen>()?
///     .into_position(CastlingMode::Standard)?;
/// let mut positions = vec![pos.clone()];
/// for san in ["Kxd2", "Kd7", "Bb5+"] {
///     let m = san.parse::<San>()?.to_move(&pos)?;
///     pos.play_unchecked(m);
///     positions.push(pos.clone());
/// }
/// assert_eq!(first_dead_ply(&positions), Some((1, DeadReason::Material)));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn first_dead_ply(positions: &[Chess]) -> Option<(usize, DeadReason)> {
    first_dead_ply_by(positions.len(), |ply| is_dead(&positions[ply]))
}

/// The first index in `0..len` whose verdict is [`DeadVerdict::Dead`],
/// asking `verdict_at` only O(log len) times.
///
/// Dead is monotone along a game: every position reachable from a dead
/// position is dead. So the last index is asked first; if it is not proven
/// dead, `None` is returned at once (an earlier position that the solver
/// could prove dead would make the last one dead too, so this misses only
/// what the solver cannot prove at the end). Otherwise a binary search finds
/// the first index proven dead.
///
/// A [`DeadVerdict::Undetermined`] answer in the middle counts as "not
/// proven" and moves the search later, so the returned index is always one
/// whose verdict was `Dead`, but it can be later than the first position
/// that is dead in fact when the solver gave up on earlier ones.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::dead::{DeadReason, DeadVerdict, first_dead_ply_by};
///
/// let verdict = |ply: usize| {
///     if ply >= 7 { DeadVerdict::Dead(DeadReason::Material) } else { DeadVerdict::Alive }
/// };
/// assert_eq!(first_dead_ply_by(20, verdict), Some((7, DeadReason::Material)));
/// ```
pub fn first_dead_ply_by<F>(len: usize, mut verdict_at: F) -> Option<(usize, DeadReason)>
where
    F: FnMut(usize) -> DeadVerdict,
{
    let last = len.checked_sub(1)?;
    let DeadVerdict::Dead(reason) = verdict_at(last) else {
        return None;
    };
    // Invariant: `hi` is proven dead with `found`; no index below `lo` was
    // proven dead.
    let (mut lo, mut hi, mut found) = (0, last, reason);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match verdict_at(mid) {
            DeadVerdict::Dead(reason) => (hi, found) = (mid, reason),
            DeadVerdict::Alive | DeadVerdict::Undetermined(_) => lo = mid + 1,
        }
    }
    Some((hi, found))
}

/// The answers that need no solver, or `None` when the solver must decide.
fn can_mate_cheaply(pos: &Chess, side: Color) -> Option<Mateability> {
    if pos.is_checkmate() {
        return Some(if pos.turn() == side {
            Mateability::No
        } else {
            Mateability::Yes {
                helpmate: Vec::new(),
            }
        });
    }
    let board = pos.board();
    // A bare king can never give check, let alone mate.
    if is_dead_by_material(board) || board.by_color(side) == board.kings() & board.by_color(side) {
        return Some(Mateability::No);
    }
    None
}

#[cfg(test)]
mod tests {
    use shakmaty::{
        CastlingMode, CastlingSide, Chess, Color, EnPassantMode, Position, PositionError, fen::Fen,
        san::San, uci::UciMove,
    };

    use super::*;

    /// The D3-Chess labelled positions; see `fixtures/rules/README.md`.
    const VECTOR: &str = include_str!("../../fixtures/rules/d3-chess-test-vector.txt");

    fn pos(fen: &str) -> Chess {
        pos_in(fen, CastlingMode::Standard)
    }

    fn pos_in(fen: &str, mode: CastlingMode) -> Chess {
        fen.parse::<Fen>()
            .unwrap_or_else(|e| panic!("{fen}: {e}"))
            .into_position(mode)
            .unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    /// Plays `helpmate` on `pos` with shakmaty and asserts that it ends with
    /// `side` checkmating.
    fn assert_mates(pos: &Chess, side: Color, helpmate: &[UciMove]) {
        let mut pos = pos.clone();
        for uci in helpmate {
            let m = uci
                .to_move(&pos)
                .unwrap_or_else(|_| panic!("illegal {uci} in {helpmate:?}"));
            pos.play_unchecked(m);
        }
        assert!(pos.is_checkmate(), "no mate after {helpmate:?}");
        assert_eq!(pos.turn(), !side, "wrong side mated after {helpmate:?}");
    }

    fn assert_can_mate(pos: &Chess, side: Color) {
        match can_mate(pos, side) {
            Mateability::Yes { helpmate } => assert_mates(pos, side, &helpmate),
            other => panic!(
                "{side:?} should mate in {}: {other:?}",
                Fen::from_position(pos, EnPassantMode::Legal)
            ),
        }
    }

    #[test]
    fn the_second_try_answers_before_the_full_search() {
        // K+B+P v K+P and K+R v K+P: the first try, within HELPMATE_BUDGET
        // nodes, WINNER_PLAN_BUDGET a plan, finds nothing and the fast check
        // proves nothing; the second, with more nodes a plan, finds a line.
        for (fen, side) in [
            ("8/8/8/3K1k2/p4B2/P7/8/8 b - - 5 82", Color::White),
            ("7K/7P/6k1/8/6r1/8/8/8 w - - 1 88", Color::Black),
        ] {
            let p = pos(fen);
            assert!(
                find_helpmate_spread(&p, side, HELPMATE_BUDGET, WINNER_PLAN_BUDGET).is_none(),
                "{fen}"
            );
            assert_eq!(can_mate_quickly(&p, side), None, "{fen}");
            let second = find_helpmate_spread(&p, side, SECOND_BUDGET, SECOND_PLAN_BUDGET)
                .unwrap_or_else(|| panic!("no second-try line: {fen}"));
            let Mateability::Yes { helpmate } = can_mate(&p, side) else {
                panic!("{fen}: no mate");
            };
            assert_mates(&p, side, &helpmate);
            let expected: Vec<UciMove> = second
                .iter()
                .map(|m| UciMove::from_move(*m, CastlingMode::Standard))
                .collect();
            assert_eq!(helpmate, expected, "{fen}: not the second try's line");
        }
    }

    #[test]
    fn the_three_material_patterns_are_dead() {
        for fen in [
            // King against king.
            "8/8/4k3/8/8/8/8/4K3 w - - 0 1",
            // King and one bishop or one knight against king, either side.
            "8/8/4k3/8/2B5/8/8/4K3 b - - 0 1",
            "8/8/4k3/8/8/8/8/1N2K3 w - - 0 1",
            "8/8/4k3/5n2/8/8/8/4K3 w - - 0 1",
            "8/8/4kb2/8/8/8/8/4K3 b - - 0 1",
            // Bishops only, all on one colour, any number on either side.
            "8/8/2b1k3/8/8/8/8/4KB2 w - - 0 1",
            "8/1b6/4k3/3B4/2B5/1B6/8/4KB2 b - - 0 1",
        ] {
            let pos = pos(fen);
            assert!(is_dead_by_material(pos.board()), "{fen}");
            assert_eq!(
                is_dead(&pos),
                DeadVerdict::Dead(DeadReason::Material),
                "{fen}"
            );
            assert_eq!(can_mate(&pos, Color::White), Mateability::No, "{fen}");
            assert_eq!(can_mate(&pos, Color::Black), Mateability::No, "{fen}");
        }
    }

    #[test]
    fn often_mistaken_material_is_alive() {
        for (fen, mating_sides) in [
            // K+N+N v K: mate needs help, but exists.
            ("8/8/4k3/8/8/8/8/1N2K1N1 w - - 0 1", &[Color::White][..]),
            // K+B v K+N: both sides can mate.
            (
                "k7/2n5/8/1K6/8/8/8/4B3 w - - 0 1",
                &[Color::White, Color::Black][..],
            ),
            // K+N v K+N.
            (
                "k6n/8/8/1K6/8/8/8/4N3 b - - 0 1",
                &[Color::White, Color::Black][..],
            ),
            // Bishops on opposite colours, one each.
            (
                "k7/2b5/8/1K6/8/8/8/5B2 w - - 0 1",
                &[Color::White, Color::Black][..],
            ),
            // Same-colour bishops plus one of the other colour.
            ("4k3/8/8/8/2B5/8/8/2B1K3 w - - 0 1", &[Color::White][..]),
        ] {
            let pos = pos(fen);
            assert!(!is_dead_by_material(pos.board()), "{fen}");
            assert_eq!(is_dead(&pos), DeadVerdict::Alive, "{fen}");
            for side in Color::ALL {
                if mating_sides.contains(&side) {
                    assert_can_mate(&pos, side);
                } else {
                    assert_eq!(can_mate(&pos, side), Mateability::No, "{fen} {side:?}");
                }
            }
        }
    }

    #[test]
    fn material_is_exactly_the_three_patterns() {
        for fen in [
            "8/8/4k3/8/8/8/4P3/4K3",  // a pawn
            "8/8/4k3/8/8/8/8/R3K3",   // a rook
            "8/8/4k3/8/8/8/8/3QK3",   // a queen
            "8/8/4k3/8/8/8/8/1NB1K3", // knight and bishop
            "8/8/4k3/8/8/8/8/NN2K3",  // two knights
            "8/8/4kn2/8/8/8/8/2B1K3", // bishop v knight
            "8/8/4k3/8/8/8/8/2BBK3",  // bishop pair
        ] {
            let board = Board::from_ascii_board_fen(fen.as_bytes()).unwrap();
            assert!(!is_dead_by_material(&board), "{fen}");
        }
    }

    #[test]
    fn checkmate_on_the_board() {
        // K+B v K+N is not dead by material, and this is checkmate.
        let pos = pos("kn6/1B6/1K6/8/8/8/8/8 b - - 0 1");
        assert!(pos.is_checkmate());
        assert_eq!(
            can_mate(&pos, Color::White),
            Mateability::Yes {
                helpmate: Vec::new()
            }
        );
        assert_eq!(can_mate(&pos, Color::Black), Mateability::No);
        assert_eq!(is_dead(&pos), DeadVerdict::Alive);
    }

    #[test]
    fn stalemate_is_reported_dead() {
        let pos = pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
        assert!(pos.is_stalemate());
        assert_eq!(is_dead(&pos), DeadVerdict::Dead(DeadReason::Unwinnable));
    }

    #[test]
    fn a_bare_king_cannot_mate() {
        let pos = pos("8/8/4k3/8/8/8/8/3QK3 b - - 0 1");
        assert_eq!(can_mate(&pos, Color::Black), Mateability::No);
        assert_can_mate(&pos, Color::White);
    }

    #[test]
    fn locked_pawn_wall_is_dead() {
        let pos = pos("4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1");
        assert!(!is_dead_by_material(pos.board()));
        assert_eq!(is_dead(&pos), DeadVerdict::Dead(DeadReason::Unwinnable));
        // One pawn pair fewer and the kings get through.
        let pos = self::pos("4k3/8/8/p1p1p3/P1P1P3/8/8/4K3 w - - 0 1");
        assert_eq!(is_dead(&pos), DeadVerdict::Alive);
    }

    #[test]
    fn one_side_walled_in() {
        // The exact solver's README (lichess.org/ijyj0mHa): Black can never mate,
        // White can; a loss on time by White is a draw, by Black a loss.
        let pos = pos("5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 1");
        assert_eq!(can_mate(&pos, Color::Black), Mateability::No);
        assert_can_mate(&pos, Color::White);
        assert_eq!(is_dead(&pos), DeadVerdict::Alive);
    }

    #[test]
    fn helpmates_replay_for_both_sides_with_promotion_and_castling() {
        // Mate needs a promotion (UCI `a7a8q`-style moves).
        assert_can_mate(&pos("4k3/8/8/8/8/8/P7/4K3 w - - 0 1"), Color::White);
        assert_can_mate(&pos("4k3/p7/8/8/8/8/8/4K3 w - - 0 1"), Color::Black);
        // Castling rights survive the conversion; moves come back as e1g1.
        let pos = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        assert_can_mate(&pos, Color::White);
        assert_can_mate(&pos, Color::Black);
    }

    #[test]
    fn chess960_castling_is_left_to_pgnkits_prover() {
        // King on b1 with castling rights: `chess` cannot hold it, so
        // the exact solver is never asked; pgnkit's own prover works on shakmaty's
        // board and finds the mates (its second try too, where the full
        // search would have been asked: see the_second_try_answers_before_the_full_search).
        let pos = pos_in(
            "1rk4r/8/8/8/8/8/8/1RK4R w KQkq - 0 1",
            CastlingMode::Chess960,
        );
        let undetermined = UndeterminedReason::Chess960Castling;
        assert_eq!(
            solver::winnability(&pos, Color::White),
            Mateability::Undetermined(undetermined)
        );
        assert_can_mate(&pos, Color::White);
        assert_can_mate(&pos, Color::Black);
        assert_eq!(is_dead(&pos), DeadVerdict::Alive);
        // King on e1 but the queen-side rook on b1: `chess` would silently
        // drop the right. White mates; the bare black king cannot, and that
        // needs no solver.
        let pos = pos_in("4k3/8/8/8/8/8/8/1R2K3 w B - 0 1", CastlingMode::Chess960);
        assert!(pos.castles().has(Color::White, CastlingSide::QueenSide));
        assert_eq!(
            solver::winnability(&pos, Color::White),
            Mateability::Undetermined(undetermined)
        );
        assert_can_mate(&pos, Color::White);
        assert_eq!(can_mate(&pos, Color::Black), Mateability::No);
        assert_eq!(is_dead(&pos), DeadVerdict::Alive);
        // Chess960 mode with the standard squares converts fine.
        let pos = pos_in(
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            CastlingMode::Chess960,
        );
        assert!(solver::to_solver_board(&pos).is_ok());
        assert_eq!(is_dead(&pos), DeadVerdict::Alive);
        // Dead by material needs no solver, castling or not.
        let pos = pos_in("4k3/8/8/8/8/8/8/4K3 w - - 0 1", CastlingMode::Chess960);
        assert_eq!(is_dead(&pos), DeadVerdict::Dead(DeadReason::Material));
    }

    /// A fake game: `Dead` from `dead_from` on, `Undetermined` at the plies
    /// in `unknown`, alive before. Returns the answer and the number of calls.
    fn search(
        len: usize,
        dead_from: usize,
        unknown: &[usize],
    ) -> (Option<(usize, DeadReason)>, usize) {
        let mut calls = 0;
        let answer = first_dead_ply_by(len, |ply| {
            calls += 1;
            assert!(ply < len);
            if unknown.contains(&ply) {
                DeadVerdict::Undetermined(UndeterminedReason::SearchLimit)
            } else if ply >= dead_from {
                DeadVerdict::Dead(DeadReason::Unwinnable)
            } else {
                DeadVerdict::Alive
            }
        });
        (answer, calls)
    }

    #[test]
    fn first_dead_ply_is_found_with_log_calls() {
        let dead = DeadReason::Unwinnable;
        assert_eq!(search(0, 0, &[]), (None, 0));
        assert_eq!(search(1, 0, &[]), (Some((0, dead)), 1));
        assert_eq!(search(1, 1, &[]), (None, 1));
        // Not dead at the end: one call, whatever the length.
        assert_eq!(search(500, 500, &[]), (None, 1));
        for len in [2, 3, 7, 64, 65, 300] {
            for dead_from in 0..len {
                let (answer, calls) = search(len, dead_from, &[]);
                assert_eq!(
                    answer,
                    Some((dead_from, dead)),
                    "len {len} dead from {dead_from}"
                );
                let log = usize::BITS - (len - 1).leading_zeros();
                assert!(calls <= log as usize + 1, "{calls} calls for {len} plies");
            }
        }
    }

    #[test]
    fn first_dead_ply_reports_only_proven_plies() {
        let dead = DeadReason::Unwinnable;
        // Dead from ply 10 in fact, but plies 10..=15 are undetermined: the
        // answer is the first ply proven dead.
        let unknown: Vec<usize> = (10..=15).collect();
        assert_eq!(search(40, 10, &unknown).0, Some((16, dead)));
        // The final position undetermined: nothing is reported.
        assert_eq!(search(40, 10, &[39]).0, None);
        // An undetermined alive ply is harmless.
        assert_eq!(search(40, 30, &[3, 17, 29]).0, Some((30, dead)));
    }

    #[test]
    fn first_dead_ply_on_a_game() {
        // The g-pawns lock the last open files: dead once both have moved.
        let mut pos = pos("4k3/6p1/8/p1p1p3/P1P1P3/8/6P1/4K3 w - - 0 1");
        let mut positions = vec![pos.clone()];
        for san in ["g4", "g5", "Kf2", "Kf7", "Kg3", "Kg6"] {
            let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            positions.push(pos.clone());
        }
        let first = first_dead_ply(&positions);
        let linear = positions
            .iter()
            .position(|pos| matches!(is_dead(pos), DeadVerdict::Dead(_)));
        assert_eq!(first, linear.map(|ply| (ply, DeadReason::Unwinnable)));
        assert!(first.is_some_and(|(ply, _)| ply <= 2), "{first:?}");
        assert_eq!(is_dead(&positions[0]), DeadVerdict::Alive);
    }

    /// Checks labelled lines of the D3-Chess vector; returns how many.
    fn check_vector(keep: impl Fn(usize, &str) -> bool) -> usize {
        let mut checked = 0;
        let mut wrong = Vec::new();
        let lines = VECTOR
            .lines()
            .filter(|line| !line.starts_with('#') && !line.trim().is_empty());
        for (index, line) in lines.enumerate() {
            let (label, fen) = line.split_once(' ').expect("label and fen");
            if !keep(index, label) {
                continue;
            }
            checked += 1;
            // Missing FEN fields default (one line has only two). Some
            // positions are constructed, with more promoted pieces than
            // pawns could provide or checks no move could give: shakmaty
            // rejects them by default, the solver does not mind.
            let pos: Chess = fen
                .parse::<Fen>()
                .expect("fen parses")
                .into_position(CastlingMode::Standard)
                .or_else(PositionError::ignore_too_much_material)
                .or_else(PositionError::ignore_impossible_check)
                .unwrap_or_else(|e| panic!("{fen}: {e}"));
            for (side, expected) in [
                (Color::White, label.starts_with('W')),
                (Color::Black, label.ends_with('B')),
            ] {
                match can_mate(&pos, side) {
                    Mateability::Yes { helpmate } if expected => {
                        assert_mates(&pos, side, &helpmate)
                    }
                    Mateability::No if !expected => (),
                    other => wrong.push(format!("{line}: {side:?} {other:?}")),
                }
            }
            let verdict = is_dead(&pos);
            let expected = if label == "--" {
                DeadVerdict::Dead(DeadReason::Unwinnable)
            } else {
                DeadVerdict::Alive
            };
            if verdict != expected
                && !(label == "--" && verdict == DeadVerdict::Dead(DeadReason::Material))
            {
                wrong.push(format!("{line}: is_dead {verdict:?}"));
            }
            solver::tests::assert_same_moves(&pos);
        }
        assert!(
            wrong.is_empty(),
            "{} wrong:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
        checked
    }

    /// Every 10th labelled line: 181 positions, all four labels, a sixteenth
    /// of the solver time of the whole vector (whose slowest lines take
    /// seconds each).
    #[test]
    fn d3_chess_vector_sample() {
        // Every tenth vector when `PGNKIT_LONG_TESTS` is set (CI sets it),
        // every fortieth otherwise: seconds of solver time either way.
        let step = if crate::long_tests() { 10 } else { 40 };
        assert_eq!(
            check_vector(|index, _| index % step == 0),
            1803_usize.div_ceil(step)
        );
    }

    #[test]
    #[ignore = "minutes of solver time; run with --ignored"]
    fn d3_chess_vector_full() {
        assert_eq!(check_vector(|_, _| true), 1803);
    }
}
