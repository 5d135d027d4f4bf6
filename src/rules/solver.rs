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
//! believed. A panic inside chasolver is caught and reported as undetermined
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

use super::dead::{Mateability, UndeterminedReason};

/// chasolver's full search for `side`: a mating line (replayed with
/// shakmaty before it is believed), a proof that none exists, or
/// [`Mateability::Undetermined`] with the reason (castling rights the
/// `chess` board cannot hold, a failed conversion, the node limit, a solver
/// panic or a line that does not mate).
pub fn winnability(pos: &Chess, side: Color) -> Mateability {
    match to_solver_board(pos) {
        Ok(board) => solve(pos, &board, side),
        Err(reason) => Mateability::Undetermined(reason),
    }
}

/// Whether chasolver's fast check proves that `side` cannot mate (sound,
/// incomplete: `false` means "not proven"). `false` too for a position the
/// solver cannot hold (Chess960 castling) or a solver panic.
pub fn is_unwinnable_fast(pos: &Chess, side: Color) -> bool {
    let Ok(board) = to_solver_board(pos) else {
        return false;
    };
    let color = solver_color(side);
    quietly(|| chasolver::is_unwinnable_fast(&board, color)).unwrap_or(false)
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

/// chasolver's full search for `side`. `pos` and `board` are the same
/// position; a mating line is replayed on `pos` before it is believed.
fn solve(pos: &Chess, board: &chess::Board, side: Color) -> Mateability {
    let color = solver_color(side);
    let board = *board;
    // chasolver has no documented panics, but it unwraps and `expect`s
    // internally; one bad position must not take down a whole run.
    let answer = quietly(|| chasolver::winnability(&board, color));
    match answer {
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
