//! The legality kernel: what attack tables say about a position.
//!
//! This module owns the questions every fast path in the rules core asks
//! before it plays a move: which squares a colour attacks with a given
//! occupancy, which pieces are pinned to their king or would give a
//! discovered check, where pawns push and which pawns can push to a square,
//! whether a move leaves its own king safe, whether a normal move is legal
//! at all, and whether the side to move is checkmated. Every answer is
//! computed from shakmaty's attack tables on a [`Board`], without building a
//! move list, and each one is exactly what shakmaty's generator would say
//! (the unit tests compare them on every position of random games).
//!
//! Move generation, castling and en passant rules, and playing moves are
//! left to shakmaty; choosing which moves to test is left to the callers
//! (SAN resolution, normalisation, the helpmate prover, perft).

use shakmaty::{Bitboard, Board, Chess, Color, EnPassantMode, Move, Position, Rank, Role, Square};
use shakmaty::{File, attacks};

/// The square offset of one pawn step forward for `color`.
#[inline(always)]
pub fn pawn_step(color: Color) -> i32 {
    color.fold_wb(8, -8)
}

/// The squares attacked by the pawns of `color` on `pawns`, towards the
/// a-file and towards the h-file (a square attacked twice is in both).
#[inline]
pub fn pawn_attack_sets(pawns: Bitboard, color: Color) -> [Bitboard; 2] {
    let towards_a = pawns & !Bitboard::from_file(File::A);
    let towards_h = pawns & !Bitboard::from_file(File::H);
    match color {
        Color::White => [towards_a.shift(7), towards_h.shift(9)],
        Color::Black => [towards_a.shift(-9), towards_h.shift(-7)],
    }
}

/// The squares attacked by the pawns of `color` on `pawns`.
#[inline]
pub fn pawn_attacks(pawns: Bitboard, color: Color) -> Bitboard {
    let [a, h] = pawn_attack_sets(pawns, color);
    a | h
}

/// The pushes of a pawn of `color` on `from` with occupancy `occ`: one step
/// onto an empty square, two from the pawn's start rank when both squares
/// are empty. Captures and en passant are not pushes.
#[inline]
pub fn pawn_pushes(color: Color, from: Square, occ: Bitboard) -> Bitboard {
    let [single, double] = pawn_push_sets(Bitboard::from(from), color, occ);
    single | double
}

/// The pushes of all the pawns of `color` on `pawns`, set-wise: the squares
/// reached by one step, and those reached by two (see [`pawn_pushes`]).
#[inline]
pub fn pawn_push_sets(pawns: Bitboard, color: Color, occ: Bitboard) -> [Bitboard; 2] {
    let single = pawns.shift(pawn_step(color)) & !occ;
    let third = Bitboard::from_rank(color.relative_rank(Rank::Third));
    [single, (single & third).shift(pawn_step(color)) & !occ]
}

/// The pawn among `pawns` (of `color`) that can push to the empty square
/// `to` with occupancy `occ`: the pawn one step behind, or, when that square
/// is empty and `to` is on the fourth rank, the pawn two steps behind.
#[inline(always)]
pub fn pawn_pusher(pawns: Bitboard, color: Color, to: Square, occ: Bitboard) -> Option<Square> {
    let back = -pawn_step(color);
    let one = to.offset(back)?;
    if pawns.contains(one) {
        return Some(one);
    }
    if !occ.contains(one) && to.rank() == color.relative_rank(Rank::Fourth) {
        return one.offset(back).filter(|&two| pawns.contains(two));
    }
    None
}

/// All squares attacked by `color` with occupancy `occ`.
pub fn attacked_by(b: &Board, color: Color, occ: Bitboard) -> Bitboard {
    let us = b.by_color(color);
    let mut a = pawn_attacks(b.pawns() & us, color);
    for sq in b.knights() & us {
        a |= attacks::knight_attacks(sq);
    }
    for sq in b.bishops_and_queens() & us {
        a |= attacks::bishop_attacks(sq, occ);
    }
    for sq in b.rooks_and_queens() & us {
        a |= attacks::rook_attacks(sq, occ);
    }
    for sq in b.kings() & us {
        a |= attacks::king_attacks(sq);
    }
    a
}

/// The pieces of `blocker` that stand alone between `king` and a slider of
/// `slider` aimed at it (occupancy `occ`). With `slider` the king's enemy
/// these are the pinned pieces ([`pinned`]); with `slider` the king's enemy
/// and `blocker` the same colour, the pieces that give a discovered check
/// when they leave the line ([`discoverers`]).
#[inline]
pub fn blockers(b: &Board, king: Square, slider: Color, blocker: Color, occ: Bitboard) -> Bitboard {
    let snipers = (attacks::rook_attacks(king, Bitboard::EMPTY) & b.rooks_and_queens()
        | attacks::bishop_attacks(king, Bitboard::EMPTY) & b.bishops_and_queens())
        & b.by_color(slider);
    let mut found = Bitboard::EMPTY;
    for sniper in snipers {
        let between = attacks::between(sniper, king) & occ;
        if !between.more_than_one() {
            found |= between & b.by_color(blocker);
        }
    }
    found
}

/// The pieces of `color` pinned to its king on `king` (occupancy `occ`).
#[inline]
pub fn pinned(b: &Board, king: Square, color: Color, occ: Bitboard) -> Bitboard {
    blockers(b, king, !color, color, occ)
}

/// The pieces of `color` that would give a discovered check to the enemy
/// king on `king` by leaving the line to one of `color`'s sliders.
#[inline]
pub fn discoverers(b: &Board, color: Color, king: Square) -> Bitboard {
    blockers(b, king, color, color, b.occupied())
}

/// The squares a piece on `sq` may move to without leaving the line
/// through its king on `king`: the whole board unless it is `pinned`.
#[inline]
pub fn pin_line(king: Square, pinned: Bitboard, sq: Square) -> Bitboard {
    if pinned.contains(sq) {
        attacks::ray(king, sq)
    } else {
        Bitboard::FULL
    }
}

/// Whether `a` and `b` share a rank, a file or a diagonal (only a piece on
/// such a line with its king can be pinned).
#[inline(always)]
pub fn is_on_a_line(a: Square, b: Square) -> bool {
    let df = i32::from(a.file()) - i32::from(b.file());
    let dr = i32::from(a.rank()) - i32::from(b.rank());
    df == 0 || dr == 0 || df == dr || df == -dr
}

/// The pieces of `color` other than the king that can move to the empty
/// square `sq` (occupancy `occ`), pins aside: the candidates to interpose.
#[inline]
pub fn movers_to_empty(b: &Board, color: Color, sq: Square, occ: Bitboard) -> Bitboard {
    let us = b.by_color(color);
    let pieces = (attacks::knight_attacks(sq) & b.knights())
        | (attacks::bishop_attacks(sq, occ) & b.bishops_and_queens())
        | (attacks::rook_attacks(sq, occ) & b.rooks_and_queens());
    let pusher = pawn_pusher(b.pawns() & us, color, sq, occ);
    (pieces & us) | pusher.map_or(Bitboard::EMPTY, Bitboard::from)
}

/// Whether the square `sq` is attacked by no enemy of `color` when the
/// occupancy is `occ` and the piece on `captured` (if any) is taken.
#[inline(always)]
pub fn is_safe(b: &Board, sq: Square, color: Color, occ: Bitboard, captured: Square) -> bool {
    (b.attacks_to(sq, !color, occ) & !Bitboard::from_square(captured)).is_empty()
}

/// Whether the pseudo-legal normal move of `role` from `from` to `to` by
/// `color` leaves `color`'s king (on `king`) safe.
#[inline(always)]
pub fn is_safe_normal(
    b: &Board,
    color: Color,
    king: Square,
    from: Square,
    to: Square,
    role: Role,
) -> bool {
    let occ = b.occupied().without(from);
    if role == Role::King {
        is_safe(b, to, color, occ, to)
    } else {
        is_safe(b, king, color, occ.with(to), to)
    }
}

/// [`is_safe_normal`] when the king's square is not at hand; `false` when
/// `color` has no king.
#[inline]
pub fn is_safe_normal_move(b: &Board, color: Color, from: Square, to: Square, role: Role) -> bool {
    b.king_of(color)
        .is_some_and(|king| is_safe_normal(b, color, king, from, to, role))
}

/// Whether a pseudo-legal normal or en passant move of the side to move
/// (king on `king`) leaves its king safe; `false` for castling and drops,
/// which this kernel does not judge.
///
/// Kept out of line: it is the slow path of [`is_pseudo_legal_safe`], which
/// is inlined into the SAN resolver's loop.
#[inline(never)]
pub fn leaves_king_safe(pos: &Chess, king: Square, m: &Move) -> bool {
    let b = pos.board();
    let turn = pos.turn();
    match *m {
        Move::Normal { role, from, to, .. } => is_safe_normal(b, turn, king, from, to, role),
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            let after = b.occupied().without(from).without(taken).with(to);
            is_safe(b, king, turn, after, taken)
        }
        Move::Castle { .. } | Move::Put { .. } => false,
    }
}

/// [`leaves_king_safe`] with the fast path that settles most moves: a side
/// not in check (`in_check`) moving a piece other than its king cannot
/// expose it unless a slider of the other side stands on the line through
/// the king and the piece.
#[inline(always)]
pub fn is_pseudo_legal_safe(pos: &Chess, king: Square, in_check: bool, m: &Move) -> bool {
    if let Move::Normal { role, from, .. } = *m
        && !in_check
        && role != Role::King
    {
        // A pin needs a slider of the other side on the line through the
        // king and the piece.
        let b = pos.board();
        let sliders = b.by_color(!pos.turn()) & (b.bishops_and_queens() | b.rooks_and_queens());
        if (shakmaty::attacks::ray(king, from) & sliders).is_empty() {
            return true;
        }
    }
    leaves_king_safe(pos, king, m)
}

/// Exact legality of `m` in `pos`, as `pos.is_legal(m)`.
///
/// Normal moves are judged here: piece and colour on `from`, movement rules
/// (pawn pushes, captures and promotions, a clear sliding path), a
/// `capture` field that names what stands on `to`, and the own king safe
/// afterwards. Castling, en passant and drops go to shakmaty.
pub fn is_legal(pos: &Chess, m: Move) -> bool {
    match m {
        Move::Normal { .. } => is_legal_normal(pos.board(), pos.turn(), m),
        _ => pos.is_legal(m),
    }
}

/// [`is_legal`] for a normal move of `us`, to move on `b`: the castling
/// rights and the en passant square of a position change nothing about
/// whether a normal move is legal, so the board decides. `false` for any
/// other kind of move.
pub fn is_legal_normal(b: &Board, us: Color, m: Move) -> bool {
    let Move::Normal {
        role,
        from,
        capture,
        to,
        promotion,
    } = m
    else {
        return false;
    };
    if b.piece_at(from) != Some(role.of(us))
        || b.by_color(us).contains(to)
        || b.kings().contains(to)
    {
        return false;
    }
    let enemy = b.by_color(!us).contains(to);
    if capture != (if enemy { b.role_at(to) } else { None }) {
        return false;
    }
    let occ = b.occupied();
    let moves = match role {
        Role::Pawn => {
            let last = to.rank() == us.relative_rank(Rank::Eighth);
            if last != promotion.is_some() || matches!(promotion, Some(Role::Pawn | Role::King)) {
                return false;
            }
            if enemy {
                attacks::pawn_attacks(us, from).contains(to)
            } else {
                pawn_pushes(us, from, occ).contains(to)
            }
        }
        _ => promotion.is_none() && attacks::attacks(from, role.of(us), occ).contains(to),
    };
    moves && is_safe_normal_move(b, us, from, to, role)
}

/// Whether `color`'s king stands in check on `b`.
#[inline]
pub fn is_in_check(b: &Board, color: Color) -> bool {
    b.king_of(color)
        .is_some_and(|king| b.attacks_to(king, !color, b.occupied()).any())
}

/// Whether `side`, to move on `b`, is checkmated, judged from attack tables
/// alone: in check, no piece but the king can take a single checker or
/// interpose without leaving a pin, and every square around the king is
/// either `side`'s own or attacked (with the king gone from its square).
/// The cheapest refutations are tried first.
///
/// Exact except for en passant: a capture en passant that answers the check
/// is not seen ([`is_checkmate`] adds it).
pub fn is_checkmate_static(b: &Board, side: Color) -> bool {
    let Some(king) = b.king_of(side) else {
        return false;
    };
    let occ = b.occupied();
    let ours = b.by_color(side);
    let checkers = b.attacks_to(king, !side, occ);
    if checkers.is_empty() {
        return false;
    }
    let single = checkers.single_square();
    let mut pins: Option<Bitboard> = None;
    let mut has_free = |candidates: Bitboard| {
        candidates.any()
            && (candidates & !*pins.get_or_insert_with(|| pinned(b, king, side, occ))).any()
    };
    if let Some(checker) = single
        && has_free(b.attacks_to(checker, side, occ) & ours & !b.kings())
    {
        return false;
    }
    if (attacks::king_attacks(king) & !ours & !attacked_by(b, !side, occ.without(king))).any() {
        return false;
    }
    if let Some(checker) = single
        && (b.sliders() & checkers).any()
    {
        for sq in attacks::between(checker, king) {
            if has_free(movers_to_empty(b, side, sq, occ)) {
                return false;
            }
        }
    }
    true
}

/// Whether the side to move in `pos` is checkmated, as `pos.is_checkmate()`.
///
/// Most checks in real games leave the king a free square, so that is
/// looked for first, one square at a time; then [`is_checkmate_static`],
/// and no legal capture en passant.
#[inline]
pub fn is_checkmate(pos: &Chess) -> bool {
    let b = pos.board();
    let turn = pos.turn();
    if let Some(king) = b.king_of(turn) {
        let without_king = b.occupied().without(king);
        let flights = attacks::king_attacks(king) & !b.by_color(turn);
        if flights
            .into_iter()
            .any(|sq| b.attacks_to(sq, !turn, without_king).is_empty())
        {
            return false;
        }
    }
    is_checkmate_static(b, turn) && pos.ep_square(EnPassantMode::Legal).is_none()
}

#[cfg(test)]
#[allow(clippy::result_large_err)] // shakmaty's PositionError, in test set-up only
mod tests {
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, MoveList, PositionError};

    use super::*;

    /// xorshift64*: a fixed sequence, so a failure names a reproducible game.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
        }
    }

    /// The position of `fen`, in Chess960 mode when the castling rights
    /// need it; a check no last move could have given is accepted (one
    /// tricky position has it).
    fn pos(fen: &str) -> Chess {
        let f: Fen = fen.parse().expect("fen");
        f.clone()
            .into_position(CastlingMode::Standard)
            .or_else(|_| f.into_position(CastlingMode::Chess960))
            .or_else(PositionError::ignore_impossible_check)
            .expect("legal position")
    }

    /// Tricky positions: pins, an en passant capture that would expose the
    /// king along the rank, castling through check, checks that only a
    /// capture en passant answers, Chess960 castling, promotions.
    const TRICKY: &[&str] = &[
        "4k3/8/8/3pP3/8/8/8/R3K2R w KQ d6 0 2",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",
        "8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1",
        "1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1",
        "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/8/5q2/8/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/1b6/8/8/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
        "1rk4r/8/8/8/8/8/8/1RK4R w KQkq - 0 1",
        "6k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 0 1",
        "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
        "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1",
        "2b5/kpPp4/1p1P4/1P6/6p1/4p1P1/4PpPK/5B2 w - - 0 1",
        "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
    ];

    /// Every position of `games` random games from each tricky position.
    fn positions(games: usize) -> Vec<Chess> {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut out = Vec::new();
        for fen in TRICKY {
            for _ in 0..games {
                let mut p = pos(fen);
                for _ in 0..120 {
                    out.push(p.clone());
                    let moves = p.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    p.play_unchecked(moves[rng.below(moves.len())]);
                }
            }
        }
        out
    }

    /// The normal moves worth asking about in `p`: for each piece of the
    /// side to move, every square it attacks or pushes to, with and without
    /// the capture field and with each promotion, legal or not.
    fn candidates(p: &Chess) -> Vec<Move> {
        let b = p.board();
        let us = p.turn();
        let mut out = Vec::new();
        for from in b.by_color(us) {
            let role = b.role_at(from).expect("a piece");
            let reach = attacks::attacks(from, role.of(us), b.occupied())
                | attacks::attacks(from, role.of(us), Bitboard::EMPTY)
                | Bitboard::from(from).shift(pawn_step(us))
                | Bitboard::from(from).shift(2 * pawn_step(us));
            for to in reach {
                for promotion in [
                    None,
                    Some(Role::Queen),
                    Some(Role::Rook),
                    Some(Role::Bishop),
                    Some(Role::Knight),
                    Some(Role::King),
                ] {
                    for capture in [None, b.role_at(to)]
                        .into_iter()
                        .take(1 + usize::from(b.occupied().contains(to)))
                    {
                        out.push(Move::Normal {
                            role,
                            from,
                            capture,
                            to,
                            promotion,
                        });
                    }
                }
            }
        }
        out
    }

    /// Is the normal move `m` pseudo-legal: the piece is there, it moves
    /// that way, the capture field names what stands on `to`, and `to` is
    /// neither ours nor a king? The definition, written out as the oracle
    /// for the king-safety tests.
    fn is_pseudo_legal(p: &Chess, m: Move) -> bool {
        let Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } = m
        else {
            return false;
        };
        let b = p.board();
        let us = p.turn();
        let occ = b.occupied();
        let enemy = b.by_color(!us).contains(to);
        if b.piece_at(from) != Some(role.of(us))
            || b.by_color(us).contains(to)
            || b.kings().contains(to)
            || capture != b.role_at(to)
        {
            return false;
        }
        if role != Role::Pawn {
            return promotion.is_none() && attacks::attacks(from, role.of(us), occ).contains(to);
        }
        let last = to.rank() == us.relative_rank(Rank::Eighth);
        if last != promotion.is_some() || matches!(promotion, Some(Role::Pawn | Role::King)) {
            return false;
        }
        let step = |sq: Square, n: i32| sq.offset(n * pawn_step(us));
        if enemy {
            attacks::pawn_attacks(us, from).contains(to)
        } else {
            step(from, 1) == Some(to)
                || (from.rank() == us.relative_rank(Rank::Second)
                    && step(from, 2) == Some(to)
                    && step(from, 1).is_some_and(|mid| !occ.contains(mid)))
        }
    }

    #[test]
    fn legality_matches_shakmaty() {
        for p in positions(3) {
            let fen = Fen::from_position(&p, EnPassantMode::Always);
            let king = p.board().king_of(p.turn()).expect("a king");
            let in_check = p.is_check();
            let mut ours = MoveList::new();
            for m in candidates(&p) {
                let legal = p.is_legal(m);
                assert_eq!(is_legal(&p, m), legal, "{fen} {m:?}");
                if legal {
                    ours.push(m);
                }
                // A pseudo-legal move is legal exactly when the kernel calls
                // it safe.
                if is_pseudo_legal(&p, m) {
                    assert_eq!(leaves_king_safe(&p, king, &m), legal, "{fen} {m:?}");
                    assert_eq!(is_pseudo_legal_safe(&p, king, in_check, &m), legal);
                }
            }
            // En passant: every capture a pawn could make.
            if let Some(ep) = p.ep_square(EnPassantMode::Always) {
                let pawns = p.board().pawns() & p.board().by_color(p.turn());
                for from in attacks::pawn_attacks(!p.turn(), ep) & pawns {
                    let m = Move::EnPassant { from, to: ep };
                    assert_eq!(leaves_king_safe(&p, king, &m), p.is_legal(m), "{fen} {m:?}");
                    assert_eq!(is_pseudo_legal_safe(&p, king, in_check, &m), p.is_legal(m));
                }
            }
            let mut legal = p.legal_moves();
            legal.retain(|m| !m.is_castle() && !m.is_en_passant());
            assert_eq!(ours.len(), legal.len(), "{fen}");
        }
    }

    /// [`is_legal`] agrees with shakmaty on every normal move shape (each
    /// piece of the side to move to each square, with every promotion and
    /// capture field) in the tricky positions.
    #[test]
    fn every_move_shape_matches_shakmaty() {
        for fen in TRICKY {
            let p = pos(fen);
            let b = p.board();
            for from in b.by_color(p.turn()) {
                let role = b.role_at(from).expect("a piece");
                for to in Bitboard::FULL {
                    for promotion in [
                        None,
                        Some(Role::Queen),
                        Some(Role::Knight),
                        Some(Role::King),
                    ] {
                        for capture in [None, b.role_at(to)] {
                            let m = Move::Normal {
                                role,
                                from,
                                capture,
                                to,
                                promotion,
                            };
                            assert_eq!(is_legal(&p, m), p.is_legal(m), "{fen} {m:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn checkmate_matches_shakmaty() {
        let mut mates = 0;
        for p in positions(3) {
            // The positions after every legal move, where checks and mates are.
            for m in p.legal_moves() {
                let mut after = p.clone();
                after.play_unchecked(m);
                let fen = Fen::from_position(&after, EnPassantMode::Always);
                let mate = after.is_checkmate();
                mates += usize::from(mate);
                assert_eq!(is_checkmate(&after), mate, "{fen}");
                if after.ep_square(EnPassantMode::Legal).is_none() {
                    assert_eq!(
                        is_checkmate_static(after.board(), after.turn()),
                        mate,
                        "{fen}"
                    );
                }
                assert_eq!(is_in_check(after.board(), after.turn()), after.is_check());
            }
        }
        assert!(mates > 50, "{mates} mates seen");
        // Mate unless the checking pawn is taken en passant.
        let p = pos("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1");
        assert!(!p.is_checkmate());
        assert!(!is_checkmate(&p));
    }

    #[test]
    fn attacks_and_pins_match_shakmaty() {
        for p in positions(1) {
            let b = p.board();
            let occ = b.occupied();
            let fen = Fen::from_position(&p, EnPassantMode::Always);
            for color in Color::ALL {
                let attacked = attacked_by(b, color, occ);
                for sq in Bitboard::FULL {
                    assert_eq!(attacked.contains(sq), b.attacks_to(sq, color, occ).any());
                }
                let pawns = b.pawns() & b.by_color(color);
                let by_pawns: Bitboard = pawns.into_iter().fold(Bitboard::EMPTY, |a, sq| {
                    a | attacks::pawn_attacks(color, sq)
                });
                assert_eq!(pawn_attacks(pawns, color), by_pawns, "{fen}");
                let Some(king) = b.king_of(color) else {
                    continue;
                };
                // Pinned: taking the piece off the board exposes the king to
                // a slider it does not see now.
                let sliders = b.sliders() & b.by_color(!color);
                let seen = b.attacks_to(king, !color, occ) & sliders;
                for sq in b.by_color(color).without(king) {
                    let exposed = (b.attacks_to(king, !color, occ.without(sq)) & sliders) != seen;
                    assert_eq!(
                        pinned(b, king, color, occ).contains(sq),
                        exposed,
                        "{fen} {sq}"
                    );
                }
                let Some(enemy_king) = b.king_of(!color) else {
                    continue;
                };
                let ours = b.sliders() & b.by_color(color);
                let seen = b.attacks_to(enemy_king, color, occ) & ours;
                for sq in b.by_color(color) {
                    let opens = (b.attacks_to(enemy_king, color, occ.without(sq)) & ours)
                        .without(sq)
                        != seen.without(sq);
                    assert_eq!(
                        discoverers(b, color, enemy_king).contains(sq),
                        opens,
                        "{fen} {sq}"
                    );
                }
            }
        }
    }

    #[test]
    fn pawn_geometry_matches_shakmaty() {
        for p in positions(1) {
            let b = p.board();
            let us = p.turn();
            let occ = b.occupied();
            let pawns = b.pawns() & b.by_color(us);
            let [single, double] = pawn_push_sets(pawns, us, occ);
            let mut all = Bitboard::EMPTY;
            for from in pawns {
                let pushes = pawn_pushes(us, from, occ);
                all |= pushes;
                // A push is legal exactly when the kernel says the pawn
                // goes there and its king stays safe.
                for to in Bitboard::FULL {
                    let promotion =
                        (to.rank() == us.relative_rank(Rank::Eighth)).then_some(Role::Queen);
                    let m = Move::Normal {
                        role: Role::Pawn,
                        from,
                        capture: None,
                        to,
                        promotion,
                    };
                    let kernel =
                        pushes.contains(to) && is_safe_normal_move(b, us, from, to, Role::Pawn);
                    assert_eq!(kernel, p.is_legal(m), "{m:?}");
                }
            }
            assert_eq!(single | double, all);
            for to in !occ {
                let pushers = pawns
                    .into_iter()
                    .filter(|&from| pawn_pushes(us, from, occ).contains(to))
                    .fold(Bitboard::EMPTY, Bitboard::with);
                let pusher = pawn_pusher(pawns, us, to, occ);
                assert_eq!(pusher.map_or(Bitboard::EMPTY, Bitboard::from), pushers);
            }
        }
    }
}
