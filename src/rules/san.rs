//! Resolving SAN to a legal move, fast.
//!
//! shakmaty's `San::to_move` is exact but builds a whole move list per call
//! (a 2 KB array returned by value), which is most of the cost of replaying a
//! game. [`resolve`] reaches the same answer from attack tables: it finds the
//! pieces that could make the move and tests only those for legality. Its
//! semantics are shakmaty's exactly (a capture must be written as one, a
//! promotion must be written, `Kxe5` does not match a quiet move); a test
//! compares the two on every move of real games.

use shakmaty::attacks;
use shakmaty::san::{San, SanError};
use shakmaty::{Bitboard, CastlingSide, Chess, Move, Position, Role, Square};

/// The legal move `san` stands for in `pos`.
///
/// # Errors
///
/// [`SanError::IllegalSan`] when no legal move matches,
/// [`SanError::AmbiguousSan`] when several do.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::san::resolve;
/// use shakmaty::{san::San, Chess, Square};
/// let m = resolve(&Chess::default(), &San::from_ascii(b"Nf3").unwrap()).unwrap();
/// assert_eq!(m.to(), Square::F3);
/// ```
pub fn resolve(pos: &Chess, san: &San) -> Result<Move, SanError> {
    resolve_with_check(pos, san, pos.is_check())
}

/// [`resolve`] for a caller that already knows whether the side to move is
/// in check (the replay does: it looked when it wrote the suffix).
///
/// # Errors
///
/// As [`resolve`].
#[inline]
pub fn resolve_with_check(pos: &Chess, san: &San, in_check: bool) -> Result<Move, SanError> {
    let Some(king) = pos.board().king_of(pos.turn()) else {
        return Err(SanError::IllegalSan);
    };
    match *san {
        San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        } => {
            let board = pos.board();
            let us = pos.us();
            if us.contains(to) {
                return Err(SanError::IllegalSan);
            }
            let captured = board.role_at(to);
            let mut from_mask = Bitboard::FULL;
            if let Some(f) = file {
                from_mask &= Bitboard::from_file(f);
            }
            if let Some(r) = rank {
                from_mask &= Bitboard::from_rank(r);
            }
            let occupied = board.occupied();
            let turn = pos.turn();
            let mut found: Option<Move> = None;
            let mut consider = |m: Move| -> Result<(), SanError> {
                if is_legal(pos, king, in_check, &m) {
                    if found.is_some() {
                        return Err(SanError::AmbiguousSan);
                    }
                    found = Some(m);
                }
                Ok(())
            };
            if role == Role::Pawn {
                let last_rank =
                    to.rank() == turn.fold_wb(shakmaty::Rank::Eighth, shakmaty::Rank::First);
                if last_rank != promotion.is_some()
                    || promotion.is_some_and(|p| matches!(p, Role::Pawn | Role::King))
                {
                    return Err(SanError::IllegalSan);
                }
                let pawns = pos.our(Role::Pawn) & from_mask;
                if capture {
                    let from = attacks::pawn_attacks(!turn, to) & pawns;
                    if captured.is_some() {
                        for from in from {
                            consider(Move::Normal {
                                role,
                                from,
                                capture: captured,
                                to,
                                promotion,
                            })?;
                        }
                    } else if pos.maybe_ep_square() == Some(to) {
                        for from in from {
                            consider(Move::EnPassant { from, to })?;
                        }
                    }
                } else if captured.is_none() {
                    let back = turn.fold_wb(-8, 8);
                    if let Some(one) = to.offset(back) {
                        if pawns.contains(one) {
                            consider(Move::Normal {
                                role,
                                from: one,
                                capture: None,
                                to,
                                promotion,
                            })?;
                        } else if !occupied.contains(one)
                            && to.rank()
                                == turn.fold_wb(shakmaty::Rank::Fourth, shakmaty::Rank::Fifth)
                            && let Some(two) = one.offset(back)
                            && pawns.contains(two)
                        {
                            consider(Move::Normal {
                                role,
                                from: two,
                                capture: None,
                                to,
                                promotion,
                            })?;
                        }
                    }
                }
            } else {
                if promotion.is_some() || capture != captured.is_some() {
                    return Err(SanError::IllegalSan);
                }
                let sources = match role {
                    Role::Knight => attacks::knight_attacks(to),
                    Role::Bishop => attacks::bishop_attacks(to, occupied),
                    Role::Rook => attacks::rook_attacks(to, occupied),
                    Role::Queen => attacks::queen_attacks(to, occupied),
                    Role::King => attacks::king_attacks(to),
                    Role::Pawn => Bitboard::EMPTY,
                };
                for from in sources & pos.our(role) & from_mask {
                    consider(Move::Normal {
                        role,
                        from,
                        capture: captured,
                        to,
                        promotion: None,
                    })?;
                }
            }
            found.ok_or(SanError::IllegalSan)
        }
        San::Castle(side) => castle(pos, side),
        San::Put { .. } | San::Null => Err(SanError::IllegalSan),
    }
}

fn castle(pos: &Chess, side: CastlingSide) -> Result<Move, SanError> {
    pos.castling_moves(side)
        .first()
        .copied()
        .ok_or(SanError::IllegalSan)
}

/// Whether a pseudo-legal move of the side to move leaves its king safe.
#[inline]
fn is_legal(pos: &Chess, king: Square, in_check: bool, m: &Move) -> bool {
    // Most moves: not in check, not the king, not on a line with the king,
    // so nothing can be pinned.
    if let Move::Normal { role, from, .. } = *m
        && !in_check
        && role != Role::King
        && !on_a_line(king, from)
    {
        return true;
    }
    is_legal_slow(pos, king, m)
}

/// Whether `a` and `b` share a rank, a file or a diagonal.
#[inline]
fn on_a_line(a: Square, b: Square) -> bool {
    let df = i32::from(a.file()) - i32::from(b.file());
    let dr = i32::from(a.rank()) - i32::from(b.rank());
    df == 0 || dr == 0 || df == dr || df == -dr
}

/// [`is_legal`] for the moves that need an attack test.
fn is_legal_slow(pos: &Chess, king: Square, m: &Move) -> bool {
    let board = pos.board();
    let turn = pos.turn();
    let occupied = board.occupied();
    match *m {
        Move::Normal {
            role: Role::King,
            from,
            to,
            ..
        } => (board.attacks_to(to, !turn, occupied.without(from)) & !Bitboard::from_square(to))
            .is_empty(),
        Move::Normal { from, to, .. } => {
            let after = occupied.without(from).with(to);
            (board.attacks_to(king, !turn, after) & !Bitboard::from_square(to)).is_empty()
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            let after = occupied.without(from).without(taken).with(to);
            (board.attacks_to(king, !turn, after) & !Bitboard::from_square(taken)).is_empty()
        }
        Move::Castle { .. } | Move::Put { .. } => false,
    }
}

/// Whether `pos`, whose side to move is in check, is checkmate: as
/// `pos.is_checkmate()`, but most checks are answered from attack tables
/// by a square the king can step to, without generating the legal moves.
pub fn is_mate_when_in_check(pos: &Chess) -> bool {
    let board = pos.board();
    let us = pos.turn();
    if let Some(king) = board.king_of(us) {
        let without_king = board.occupied() ^ Bitboard::from(king);
        let flight = attacks::king_attacks(king) & !pos.us();
        if flight
            .into_iter()
            .any(|sq| board.attacks_to(sq, !us, without_king).is_empty())
        {
            return false;
        }
    }
    pos.is_checkmate()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;
    use shakmaty::{File, Rank};

    /// Every SAN form of every legal move, plus malformed variants, must
    /// resolve exactly as shakmaty resolves it.
    fn agrees_everywhere(pos: &Chess) {
        let mut sans: Vec<San> = Vec::new();
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            if after.is_check() {
                assert_eq!(is_mate_when_in_check(&after), after.is_checkmate(), "{m}");
            }
            let san = San::from_move(pos, m);
            sans.push(san);
            if let San::Normal {
                role,
                capture,
                to,
                promotion,
                ..
            } = san
            {
                let from = m.from().expect("normal moves have a from square");
                for (file, rank) in [
                    (None, None),
                    (Some(from.file()), None),
                    (None, Some(from.rank())),
                    (Some(from.file()), Some(from.rank())),
                ] {
                    for capture in [capture, !capture] {
                        for promotion in [promotion, None, Some(Role::Queen), Some(Role::King)] {
                            sans.push(San::Normal {
                                role,
                                file,
                                rank,
                                capture,
                                to,
                                promotion,
                            });
                        }
                    }
                }
            }
        }
        // Moves to every square by every role, without disambiguation.
        for role in Role::ALL {
            for to in Square::ALL {
                for capture in [false, true] {
                    sans.push(San::Normal {
                        role,
                        file: None,
                        rank: None,
                        capture,
                        to,
                        promotion: None,
                    });
                }
            }
        }
        sans.push(San::Castle(CastlingSide::KingSide));
        sans.push(San::Castle(CastlingSide::QueenSide));
        sans.push(San::Normal {
            role: Role::Pawn,
            file: Some(File::E),
            rank: Some(Rank::Second),
            capture: false,
            to: Square::E4,
            promotion: None,
        });
        for san in sans {
            assert_eq!(
                resolve(pos, &san),
                san.to_move(pos),
                "{san} in {}",
                shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
            );
        }
    }

    #[test]
    fn mate_when_in_check() {
        let mate = |fen: &str| {
            let pos: Chess = fen
                .parse::<shakmaty::fen::Fen>()
                .unwrap()
                .into_position(shakmaty::CastlingMode::Standard)
                .unwrap();
            assert!(pos.is_check(), "{fen}");
            is_mate_when_in_check(&pos)
        };
        // Back rank, smothered, the queen defended next to the king.
        assert!(mate("3R2k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"));
        assert!(mate("6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1"));
        assert!(mate("7k/6Q1/5K2/8/8/8/8/8 b - - 0 1"));
        // The king takes an undefended checker, or steps aside.
        assert!(!mate("7k/6Q1/8/8/8/8/8/6K1 b - - 0 1"));
        assert!(!mate("3R2k1/5pp1/8/8/8/8/8/6K1 b - - 0 1"));
        // No flight square, but the check can be blocked or the checker taken.
        assert!(!mate("3R2k1/5ppp/8/8/8/8/4r3/6K1 b - - 0 1"));
        assert!(!mate("1r1R2k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"));
    }

    #[test]
    fn agrees_with_shakmaty_on_tricky_positions() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            // En passant that would expose the king along the rank.
            "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2",
            // Check by a knight, pinned pieces, evasions.
            "4k3/8/8/8/1b6/8/3N4/4K2R w K - 0 1",
            "4k3/8/5n2/8/8/8/3B4/R3K2R w KQ - 0 1",
            // Promotions with and without capture.
            "1n2k3/P1P5/8/8/8/8/8/4K3 w - - 0 1",
            // Two knights and two rooks that can reach the same squares.
            "4k3/8/8/8/8/2N1N3/8/R3K2R w KQ - 0 1",
        ] {
            let pos: Chess = shakmaty::fen::Fen::from_ascii(fen.as_bytes())
                .unwrap()
                .into_position(shakmaty::CastlingMode::Standard)
                .unwrap();
            agrees_everywhere(&pos);
            // And one ply deeper, to meet checks and en passant.
            for m in pos.legal_moves() {
                let mut next = pos.clone();
                next.play_unchecked(m);
                agrees_everywhere(&next);
            }
        }
    }
}
