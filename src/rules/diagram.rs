//! What a board diagram of a game's position marks: the position after a
//! number of plies, the move that led there, the king in check, and a move
//! as written (legal or not) where its squares can be told.
//!
//! The arbiter's page ([`crate::output::html`]) draws these; nothing here
//! knows how.

use shakmaty::san::San;
use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, EnPassantMode, Move, Position, Role, Square, attacks,
};

use super::game::RawGame;
use super::replay::replay;
use super::san::{parse_san, resolve};

/// A position of a game as a diagram shows it.
#[derive(Debug, Clone)]
pub struct Diagram {
    /// Plies played from the game's start to reach it.
    pub plies: u32,
    pub pos: Chess,
    /// The squares of the move that led to it (none at the start).
    pub last: Option<(Square, Square)>,
}

impl Diagram {
    /// The position's FEN.
    pub fn fen(&self) -> String {
        shakmaty::fen::Fen::from_position(&self.pos, EnPassantMode::Legal).to_string()
    }

    /// The square of the king in check, if the side to move is in check.
    pub fn check(&self) -> Option<Square> {
        if self.pos.is_check() {
            self.pos.board().king_of(self.pos.turn())
        } else {
            None
        }
    }
}

/// The diagrams of `game`'s main line (replayed from `start`) after each
/// of `plies` plies, in that order; a number beyond what replays gives the
/// last position reached (so `u32::MAX` is the final position).
///
/// # Examples
///
/// ```
/// use pgnkit::input::scan::scan;
/// use pgnkit::rules::diagram::diagrams;
/// use shakmaty::{Chess, Square};
/// let game = &scan(b"1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qf7 1-0", true).games[0];
/// let [start, third, last] = &diagrams(game, &Chess::default(), &[0, 3, u32::MAX])[..] else {
///     panic!()
/// };
/// assert_eq!((start.plies, start.last), (0, None));
/// assert_eq!(third.last, Some((Square::D1, Square::H5)));
/// // 4.Qf7 is not legal: the last position reached is after 3...Nf6.
/// assert_eq!((last.plies, last.last), (6, Some((Square::G8, Square::F6))));
/// ```
pub fn diagrams(game: &RawGame<'_>, start: &Chess, plies: &[u32]) -> Vec<Diagram> {
    let mut found: Vec<Option<Diagram>> = vec![None; plies.len()];
    let at_start = Diagram {
        plies: 0,
        pos: start.clone(),
        last: None,
    };
    // The slots in the order of their plies, walked once as the replay
    // goes: linear in the plies and the diagrams asked for (a game with
    // 400,000 findings asks for as many).
    let mut order: Vec<usize> = (0..plies.len()).collect();
    order.sort_by_key(|&i| plies[i]);
    let mut next = order.iter().peekable();
    let mut last = None;
    let done = replay(game, start.clone(), |ev| {
        let squares = (ev.mv.from().unwrap_or(ev.mv.to()), ev.mv.to());
        last = Some(squares);
        while next.next_if(|&&i| plies[i] < ev.ply).is_some() {}
        while let Some(&i) = next.next_if(|&&i| plies[i] == ev.ply) {
            found[i] = Some(Diagram {
                plies: ev.ply,
                pos: ev.after.clone(),
                last: Some(squares),
            });
        }
    });
    found
        .into_iter()
        .zip(plies)
        .map(|(slot, &n)| {
            slot.unwrap_or_else(|| {
                if n == 0 {
                    at_start.clone()
                } else {
                    Diagram {
                        plies: done.plies,
                        pos: done.pos.clone(),
                        last: if done.plies == 0 { None } else { last },
                    }
                }
            })
        })
        .collect()
}

/// The squares of `written`, a move as written, in `pos`: its own squares
/// when it is legal; for an illegal or ambiguous move, the one piece of
/// the kind it names (on the file or rank it names) that could reach its
/// square on an empty road, if only one could; `None` when that cannot be
/// told (no such piece, several, unreadable text, a null move).
///
/// # Examples
///
/// ```
/// use pgnkit::rules::diagram::written_squares;
/// use shakmaty::{Chess, Square};
/// let start = Chess::default();
/// assert_eq!(written_squares(&start, b"Nf3"), Some((Square::G1, Square::F3)));
/// // Not legal (the pawn on e2 is in the way), and still drawn.
/// assert_eq!(written_squares(&start, b"Bc4"), Some((Square::F1, Square::C4)));
/// // No knight reaches e5; both rooks could go to d1 on an empty board.
/// assert_eq!(written_squares(&start, b"Ne5"), None);
/// assert_eq!(written_squares(&start, b"Rd1"), None);
/// assert_eq!(written_squares(&start, b"Rad1"), Some((Square::A1, Square::D1)));
/// ```
pub fn written_squares(pos: &Chess, written: &[u8]) -> Option<(Square, Square)> {
    let san = parse_san(written).ok()?.san;
    if let Ok(mv) = san.to_move(pos) {
        return move_squares(&mv);
    }
    let us = pos.turn();
    let board = pos.board();
    match san {
        San::Castle(side) => {
            let king = board.king_of(us)?;
            Some((king, side.king_to(us)))
        }
        San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            ..
        } => {
            // A pawn changes file only by capturing: `d5` is a push, `exd5`
            // or `ed5` a capture.
            let pawn_capture = capture || file.is_some_and(|f| f != to.file());
            let mut from = board.by_piece(role.of(us));
            if let Some(file) = file {
                from &= Bitboard::from_file(file);
            }
            if let Some(rank) = rank {
                from &= Bitboard::from_rank(rank);
            }
            let reaches = |sq: Square| match role {
                Role::Pawn => pawn_reaches(us, sq, to, pawn_capture),
                _ => attacks::attacks(sq, role.of(us), Bitboard::EMPTY).contains(to),
            };
            let mut candidates = from.into_iter().filter(|&sq| reaches(sq));
            match (candidates.next(), candidates.next()) {
                (Some(one), None) => Some((one, to)),
                _ => None,
            }
        }
        San::Put { .. } | San::Null => None,
    }
}

/// The squares of `written`, a move in SAN, when it is legal in `pos`
/// (what a repair proposes is): as [`move_squares`] draws it.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::diagram::legal_squares;
/// use shakmaty::{Chess, Square};
/// assert_eq!(legal_squares(&Chess::default(), b"Nh3"), Some((Square::G1, Square::H3)));
/// // Not legal: drawn only as written, by [`written_squares`].
/// assert_eq!(legal_squares(&Chess::default(), b"Bc4"), None);
/// ```
pub fn legal_squares(pos: &Chess, written: &[u8]) -> Option<(Square, Square)> {
    let san = parse_san(written).ok()?.san;
    move_squares(&resolve(pos, &san).ok()?)
}

/// The squares a move is drawn from and to: a castling king's own two
/// squares (shakmaty's castling move goes to the rook, which no reader
/// of `O-O` looks at); none for a drop.
pub fn move_squares(mv: &Move) -> Option<(Square, Square)> {
    match *mv {
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            Some((king, Square::from_coords(side.king_to_file(), king.rank())))
        }
        _ => Some((mv.from()?, mv.to())),
    }
}

/// Whether a pawn of `us` on `from` moves to `to` by a capture (with
/// `capture`) or a push.
fn pawn_reaches(us: Color, from: Square, to: Square, capture: bool) -> bool {
    if capture {
        return attacks::pawn_attacks(us, from).contains(to);
    }
    let forward = match us {
        Color::White => 1,
        Color::Black => -1,
    };
    let steps = i32::from(to.rank()) - i32::from(from.rank());
    let home = match us {
        Color::White => shakmaty::Rank::Second,
        Color::Black => shakmaty::Rank::Seventh,
    };
    from.file() == to.file() && (steps == forward || (steps == 2 * forward && from.rank() == home))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::scan::scan;

    #[test]
    fn diagrams_follow_the_main_line_and_stop_where_the_replay_stops() {
        let game = &scan(b"1. e4 (1. d4) e5 2. Ke3 *", true).games[0];
        let d = diagrams(game, &Chess::default(), &[1, 2, 3, 9]);
        assert_eq!(d[0].last, Some((Square::E2, Square::E4)));
        assert_eq!(d[1].last, Some((Square::E7, Square::E5)));
        assert_eq!(
            d[1].fen(),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
        );
        // 2.Ke3 does not replay: plies 3 and 9 are the position after 1...e5.
        assert_eq!((d[2].plies, d[3].plies), (2, 2));
        assert_eq!(d[3].fen(), d[1].fen());
    }

    #[test]
    fn a_king_in_check_is_marked() {
        let game = &scan(b"1. e4 f5 2. Qh5+ *", true).games[0];
        let d = diagrams(game, &Chess::default(), &[3, 2]);
        assert_eq!(d[0].check(), Some(Square::E8));
        assert_eq!(d[1].check(), None);
    }

    #[test]
    fn written_moves_are_drawn_when_one_piece_fits() {
        let game = &scan(b"1. e4 e5 2. Nf3 Nc6 *", true).games[0];
        let pos = diagrams(game, &Chess::default(), &[4])[0].pos.clone();
        // A legal castling is drawn as the king goes, not to the rook.
        let ready = &scan(b"1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 *", true).games[0];
        let ready = diagrams(ready, &Chess::default(), &[6])[0].pos.clone();
        assert_eq!(
            written_squares(&ready, b"O-O"),
            Some((Square::E1, Square::G1))
        );
        assert_eq!(
            legal_squares(&ready, b"O-O"),
            Some((Square::E1, Square::G1))
        );
        assert_eq!(legal_squares(&ready, b"O-O-O"), None);
        // Castling through the bishop on f1: the king's squares.
        assert_eq!(
            written_squares(&pos, b"O-O"),
            Some((Square::E1, Square::G1))
        );
        assert_eq!(
            written_squares(&pos, b"O-O-O"),
            Some((Square::E1, Square::C1))
        );
        // A pawn push too far, and a pawn capture of nothing.
        assert_eq!(written_squares(&pos, b"d5"), None);
        assert_eq!(
            written_squares(&pos, b"dxe3"),
            Some((Square::D2, Square::E3))
        );
        assert_eq!(written_squares(&pos, b"d4"), Some((Square::D2, Square::D4)));
        // The file named picks the piece; a queen that no road leads from.
        assert_eq!(written_squares(&pos, b"Rd1"), None);
        assert_eq!(
            written_squares(&pos, b"Rhf1"),
            Some((Square::H1, Square::F1))
        );
        assert_eq!(written_squares(&pos, b"Qa5"), None);
        assert_eq!(
            written_squares(&pos, b"Qh5"),
            Some((Square::D1, Square::H5))
        );
        assert_eq!(written_squares(&pos, b"--"), None);
        assert_eq!(written_squares(&pos, b"zz9"), None);
    }

    /// Issue 43, defect 1: the diagrams asked for in any order, many at the
    /// same ply, are the ones asked for in order.
    #[test]
    fn diagrams_in_any_order_and_repeated() {
        let game = &scan(b"1. e4 e5 2. Nf3 Nc6 3. Bb5 *", true).games[0];
        let asked = [5, 0, 2, 2, 9, 1, 5];
        let got = diagrams(game, &Chess::default(), &asked);
        for (d, &n) in got.iter().zip(&asked) {
            let alone = &diagrams(game, &Chess::default(), &[n])[0];
            assert_eq!(
                (d.plies, d.fen(), d.last),
                (alone.plies, alone.fen(), alone.last),
                "{n}"
            );
        }
        assert_eq!(got[4].plies, 5);
    }
}
