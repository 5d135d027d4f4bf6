//! The adapter to chasolver, the exact helpmate solver, and the `chess`
//! crate whose board it works on: the only module that names either.
//!
//! This module owns converting a shakmaty position for the solver, asking
//! its fast unwinnability check ([`is_unwinnable_fast`]) and its full search
//! ([`winnability`]), and checking what comes back. The verdicts built on
//! these answers (dead positions, the order in which cheaper tests are
//! asked) belong to [`super::dead`].
//!
//! chasolver works on the `chess` crate's `Board`, so positions are converted
//! through a full six-field FEN. `chess` knows only standard castling, so a
//! position holding castling rights that are not "king on the e-file, rook in
//! the corner" is never analysed and is reported as undetermined, never dead.
//! Every mating line the solver returns is replayed with shakmaty before it is
//! believed.
//!
//! Each call is bounded by a count of work units (positions searched,
//! squares examined by the static analysis), never by time, so answers are
//! the same on any machine and any thread: [`FAST_CHECK_UNITS`] for the fast
//! check, which is otherwise exponential, and [`SEARCH_UNITS`] for the full
//! search. A fast check past its bound proves nothing and leaves the
//! question to the full search; a full search past its bound is reported as
//! undetermined (`search_limit`), as when it stops at its own node limits.
//! The units are counted inside chasolver, which pgnkit vendors for that
//! (`vendor/chasolver/PATCHES.md`).
//!
//! A panic inside chasolver is caught and reported as undetermined
//! (`solver_failure`; this needs `panic = "unwind"`, the crate's setting).
//! Its message never reaches stderr: the first call installs, once per
//! process, a panic hook that stays silent for a panic raised inside a
//! solver call on the panicking thread and hands every other panic to the
//! hook that was there before.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::str::FromStr;
use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingSide, Chess, Color, EnPassantMode, File, Position, Rank, Square};

use super::mateability::{Mateability, UndeterminedReason};

/// Work units the fast check may spend on one question.
///
/// The largest need measured is 46,037 units on the final positions of
/// pgnmentor's 412,347 games (12,438 fast checks), so no answer on real games
/// changes. The D3-Chess vector has fast checks of up to 17.7 million units
/// that prove a side cannot mate: cut here, each of these is settled by the
/// full search instead within 121,148 units, so no labelled answer changes
/// either. Without the bound the check spent 26 million units (2.5 s) on
/// `kb6/b1p2p1p/1pP5/1P6/8/8/5P1P/5K2 w - -` without proving anything; a
/// unit costs about 100 ns.
pub const FAST_CHECK_UNITS: u64 = 1 << 17;

/// Work units the full search may spend on one question.
///
/// The largest need measured is 115,413 units on pgnmentor's final positions
/// (5,236 full searches) and 9,226,695 units on the D3-Chess vector (a
/// mating line in `k1b5/1p1p4/1P1Pb3/B7/8/8/8/K7 w - -`). chasolver's own
/// node limits stop its helpmate searches below about 18 million nodes; this
/// bound also stops the parts those limits do not cover (check-chain
/// search, static analysis).
pub const SEARCH_UNITS: u64 = 1 << 25;

/// chasolver's full search for `side`: a mating line (replayed with
/// shakmaty before it is believed), a proof that none exists, or
/// [`Mateability::Undetermined`] with the reason (castling rights the
/// `chess` board cannot hold, a failed conversion, a node limit or the
/// bound of [`SEARCH_UNITS`], a solver panic or a line that does not mate).
pub fn winnability(pos: &Chess, side: Color) -> Mateability {
    winnability_within(pos, side, SEARCH_UNITS)
}

/// [`winnability`] within `units` work units.
fn winnability_within(pos: &Chess, side: Color, units: u64) -> Mateability {
    match to_solver_board(pos) {
        Ok(board) => solve(pos, &board, side, units),
        Err(reason) => Mateability::Undetermined(reason),
    }
}

/// Whether chasolver's fast check proves that `side` cannot mate (sound,
/// incomplete: `false` means "not proven"), within [`FAST_CHECK_UNITS`].
/// `false` too past the bound, for a position the solver cannot hold
/// (Chess960 castling) or a solver panic.
pub fn is_unwinnable_fast(pos: &Chess, side: Color) -> bool {
    is_unwinnable_fast_within(pos, side, FAST_CHECK_UNITS)
}

/// [`is_unwinnable_fast`] within `units` work units.
fn is_unwinnable_fast_within(pos: &Chess, side: Color, units: u64) -> bool {
    let Ok(board) = to_solver_board(pos) else {
        return false;
    };
    let color = solver_color(side);
    // Past the bound a proof is not believed: the static analysis may have
    // been cut before its fixpoint.
    quietly(|| chasolver::is_unwinnable_fast_bounded(&board, color, units))
        .is_ok_and(|bounded| bounded.answer && !bounded.limit_reached)
}

thread_local! {
    /// Set while this thread is inside a solver call.
    static IN_SOLVER: Cell<bool> = const { Cell::new(false) };
}

/// Solver panics silenced so far in this process.
static SILENCED: AtomicU64 = AtomicU64::new(0);

/// How many solver panics were caught (and kept off stderr) so far.
#[cfg(test)]
fn silenced_panics() -> u64 {
    SILENCED.load(Ordering::Relaxed)
}

/// Runs `f`, a call into the solver, catching a panic without printing it.
fn quietly<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_SOLVER.with(Cell::get) {
                SILENCED.fetch_add(1, Ordering::Relaxed);
            } else {
                previous(info);
            }
        }));
    });
    IN_SOLVER.with(|flag| flag.set(true));
    let answer = catch_unwind(AssertUnwindSafe(f));
    IN_SOLVER.with(|flag| flag.set(false));
    answer
}

/// Converts to the `chess` crate's board through a full six-field FEN.
///
/// # Errors
///
/// [`UndeterminedReason::Chess960Castling`] when a castling right is not
/// standard; [`UndeterminedReason::Conversion`] when `chess` rejects the FEN.
pub(super) fn to_solver_board(pos: &Chess) -> Result<chess::Board, UndeterminedReason> {
    if !has_standard_castling(pos) {
        return Err(UndeterminedReason::Chess960Castling);
    }
    // `Legal` writes an en passant square only when the capture is legal:
    // `chess` keeps the square only when a capturing pawn stands next to the
    // pushed pawn, and would disagree about positions where it cannot be
    // played anyway.
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    chess::Board::from_str(&fen).map_err(|_| UndeterminedReason::Conversion)
}

/// Are all castling rights standard: king on its e-square, rook in a corner?
/// Only these survive the trip through `chess`, whose FEN reader silently
/// drops Shredder letters and whose board rejects other rook squares.
pub fn has_standard_castling(pos: &Chess) -> bool {
    let castles = pos.castles();
    Color::ALL.into_iter().all(|color| {
        let rank = color.fold_wb(Rank::First, Rank::Eighth);
        let king_home = pos.board().king_of(color) == Some(Square::from_coords(File::E, rank));
        [
            (CastlingSide::KingSide, File::H),
            (CastlingSide::QueenSide, File::A),
        ]
        .into_iter()
        .all(|(side, file)| match castles.rook(color, side) {
            None => true,
            Some(rook) => king_home && rook == Square::from_coords(file, rank),
        })
    })
}

/// chasolver's full search for `side` within `units` work units. `pos` and
/// `board` are the same position; a mating line is replayed on `pos` before
/// it is believed.
fn solve(pos: &Chess, board: &chess::Board, side: Color, units: u64) -> Mateability {
    let color = solver_color(side);
    let board = *board;
    // chasolver has no documented panics, but it unwraps and `expect`s
    // internally; one bad position must not take down a whole run.
    let answer = quietly(|| chasolver::winnability_bounded(&board, color, units));
    match answer.map(|bounded| bounded.answer.filter(|_| !bounded.limit_reached)) {
        Ok(Some(chasolver::Winnability::Unwinnable)) => Mateability::No,
        Ok(Some(chasolver::Winnability::Winnable { helpmate })) => {
            match checked_helpmate(pos, side, &helpmate) {
                Some(helpmate) => Mateability::Yes { helpmate },
                None => Mateability::Undetermined(UndeterminedReason::SolverFailure),
            }
        }
        Ok(None) => Mateability::Undetermined(UndeterminedReason::SearchLimit),
        Err(_) => Mateability::Undetermined(UndeterminedReason::SolverFailure),
    }
}

/// Converts a mating line to UCI and replays it with shakmaty; `None` unless
/// every move is legal and the last one mates the opponent of `side`.
///
/// Not only paranoia: chasolver 3.0.0's check-chain phase (reached only when
/// its node-limited searches fail) answers `Winnable` with an empty line, so
/// an unverified `Yes` could carry a line that mates nobody.
fn checked_helpmate(pos: &Chess, side: Color, line: &[chess::ChessMove]) -> Option<Vec<UciMove>> {
    let mut pos = pos.clone();
    let mut helpmate = Vec::with_capacity(line.len());
    for m in line {
        let uci = UciMove::from_ascii(m.to_string().as_bytes()).ok()?;
        let legal = uci.to_move(&pos).ok()?;
        pos.play_unchecked(legal);
        helpmate.push(uci);
    }
    (pos.is_checkmate() && pos.turn() != side).then_some(helpmate)
}

/// The `chess` crate's colour for `side`.
fn solver_color(side: Color) -> chess::Color {
    match side {
        Color::White => chess::Color::White,
        Color::Black => chess::Color::Black,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use shakmaty::{CastlingMode, fen::Fen};

    use super::*;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap_or_else(|e| panic!("{fen}: {e}"))
            .into_position(CastlingMode::Standard)
            .unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    /// The converted board has the same legal moves as the shakmaty position.
    pub(in crate::rules) fn assert_same_moves(pos: &Chess) {
        let board = to_solver_board(pos).expect("converts");
        let mut ours: Vec<String> = pos
            .legal_moves()
            .iter()
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect();
        let mut theirs: Vec<String> = chess::MoveGen::new_legal(&board)
            .map(|m| m.to_string())
            .collect();
        ours.sort();
        theirs.sort();
        let fen = Fen::from_position(pos, EnPassantMode::Always);
        assert_eq!(ours, theirs, "{fen}");
    }

    #[test]
    fn a_solver_panic_is_caught_silently() {
        let before = silenced_panics();
        assert!(quietly(|| -> u8 { panic!("inside the solver") }).is_err());
        assert_eq!(quietly(|| 7).ok(), Some(7));
        // The hook saw the panic and kept it off stderr; outside a solver
        // call the flag is down again.
        assert!(silenced_panics() > before);
        assert!(!IN_SOLVER.with(Cell::get));
    }

    /// Two bishops walled in by their own pawns: chasolver's fast check,
    /// unbounded, spends 26 million units here without proving anything;
    /// the full search proves in 190,000 units that White cannot mate.
    const WALLED_IN: &str = "kb6/b1p2p1p/1pP5/1P6/8/8/5P1P/5K2 w - - 0 1";

    #[test]
    fn the_fast_check_stops_at_its_bound_every_time() {
        let board = to_solver_board(&pos(WALLED_IN)).expect("converts");
        let bounded =
            chasolver::is_unwinnable_fast_bounded(&board, chess::Color::White, FAST_CHECK_UNITS);
        // Every search stops as soon as the budget is spent (the later
        // phases of the check each spend their one unit and return).
        assert!(bounded.limit_reached);
        assert!(
            (FAST_CHECK_UNITS + 1..FAST_CHECK_UNITS + 8).contains(&bounded.units),
            "{}",
            bounded.units
        );
        // The same count on another thread: the budget is per thread and
        // counted, not timed.
        let again = std::thread::spawn(move || {
            chasolver::is_unwinnable_fast_bounded(&board, chess::Color::White, FAST_CHECK_UNITS)
        })
        .join()
        .expect("no panic");
        assert_eq!(again, bounded);
        assert!(!is_unwinnable_fast(&pos(WALLED_IN), Color::White));
        // The same check proves a pawn wall dead well within the bound.
        let wall = pos("4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1");
        assert!(is_unwinnable_fast(&wall, Color::White));
        assert!(is_unwinnable_fast(&wall, Color::Black));
    }

    #[test]
    fn the_full_search_says_search_limit_past_its_bound() {
        let walled = pos(WALLED_IN);
        for units in [1, 1_000, 100_000] {
            assert_eq!(
                winnability_within(&walled, Color::White, units),
                Mateability::Undetermined(UndeterminedReason::SearchLimit),
                "{units}"
            );
        }
        assert_eq!(winnability(&walled, Color::White), Mateability::No);
        // A mating line found within the bound is kept.
        let open = pos("k7/2n5/8/1K6/8/8/8/4B3 w - - 0 1");
        assert!(matches!(
            winnability(&open, Color::White),
            Mateability::Yes { .. }
        ));
        // An unbounded query after a bounded one on the same thread is not
        // cut by the bound left behind.
        let board = to_solver_board(&walled).expect("converts");
        assert_eq!(
            chasolver::winnability(&board, chess::Color::White),
            Some(chasolver::Winnability::Unwinnable)
        );
    }

    #[test]
    fn en_passant_survives_the_conversion() {
        // A legal en passant capture is kept.
        let pos = pos("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 2");
        assert!(pos.legal_moves().iter().any(|m| m.is_en_passant()));
        assert_eq!(
            to_solver_board(&pos).unwrap().en_passant(),
            Some(chess::Square::E4)
        );
        assert_same_moves(&pos);
        // No capturing pawn: the square is dropped, not rejected.
        let pos = self::pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
        assert_eq!(to_solver_board(&pos).unwrap().en_passant(), None);
        assert_same_moves(&pos);
        // The capturing pawn is pinned: no legal capture, the square is
        // dropped although `chess` would have kept it.
        let pos = self::pos("8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1");
        assert!(!pos.legal_moves().iter().any(|m| m.is_en_passant()));
        assert_eq!(to_solver_board(&pos).unwrap().en_passant(), None);
        assert_same_moves(&pos);
    }
}
