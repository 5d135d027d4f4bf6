//! The position perft walks: a copyable set of bitboards with its own
//! legal move generator, bulk counter, move player and Zobrist key.
//!
//! This module owns counting's inner loop. A [`Node`] is the board (six
//! role and two colour bitboards), the side to move, the castling rights as
//! the squares of the rooks that may still castle, the en passant square
//! when a pawn of the side to move attacks it, and a 128-bit Zobrist key
//! kept up to date move by move (only when the caller asks: `play::<true>`).
//! [`Node::generate`] finds the legal moves from check and pin masks, so no
//! move is ever played to test it, and hands them to a [`Moves`] sink: the
//! same generator counts them ([`Node::count`], bulk counting at the last
//! ply) or plays them ([`Node::for_each_child`]).
//!
//! What a position is and which positions exist stays with shakmaty: a node
//! is made only from a [`Chess`] that shakmaty set up (one king a side, no
//! pawn on a back rank), and castling paths come from shakmaty's
//! [`Castles`](shakmaty::Castles) at the root, since rights are only ever
//! lost further down. Castling follows shakmaty's generator to the letter,
//! Chess960 included. The unit tests hold the generator, the player and the
//! key equal to shakmaty's moves, positions and a key computed afresh, on
//! every node of several trees.

use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, EnPassantMode, File, Position, Rank, Role, Square,
    attacks,
};

/// The castling rooks and paths of the root, for the rights that
/// [`Node::castling`] still holds. Indexed by colour, then side (king side
/// first); a rook set is empty where the root has no such right.
#[derive(Debug, Clone, Copy)]
pub(super) struct Castling {
    rook: [[Bitboard; 2]; 2],
    path: [[Bitboard; 2]; 2],
}

const SIDES: [CastlingSide; 2] = [CastlingSide::KingSide, CastlingSide::QueenSide];

impl Castling {
    pub(super) fn of(pos: &Chess) -> Castling {
        let castles = pos.castles();
        let mut castling = Castling {
            rook: [[Bitboard::EMPTY; 2]; 2],
            path: [[Bitboard::EMPTY; 2]; 2],
        };
        for color in [Color::Black, Color::White] {
            for (i, side) in SIDES.into_iter().enumerate() {
                castling.rook[color as usize][i] = castles
                    .rook(color, side)
                    .map_or(Bitboard::EMPTY, Bitboard::from);
                castling.path[color as usize][i] = castles.path(color, side);
            }
        }
        castling
    }
}

/// A position of the tree (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Node {
    /// Pieces by role, `Role as usize - 1`.
    roles: [Bitboard; 6],
    /// Pieces by colour, `Color as usize`.
    colors: [Bitboard; 2],
    /// Squares of the rooks that may still castle.
    castling: Bitboard,
    /// The en passant square, only when a pawn of the side to move attacks
    /// it (shakmaty's `EnPassantMode::PseudoLegal`).
    ep: Option<Square>,
    turn: Color,
    /// The Zobrist key ([`Node::key_afresh`]), when kept up to date.
    key: u128,
}

/// A legal move as the generator found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Move {
    /// A piece other than a pawn moves (or captures).
    Piece {
        role: Role,
        from: Square,
        to: Square,
    },
    /// A pawn pushes one square or captures, without promoting.
    Pawn {
        from: Square,
        to: Square,
    },
    /// A pawn pushes two squares.
    Double {
        from: Square,
        to: Square,
    },
    Promotion {
        from: Square,
        to: Square,
        role: Role,
    },
    EnPassant {
        from: Square,
        to: Square,
    },
    Castle {
        king: Square,
        rook: Square,
        side: CastlingSide,
    },
}

/// Where [`Node::generate`] sends the moves it finds, several at a time.
pub(super) trait Moves {
    /// The piece of `role` (not a pawn) on `from` moves to each of `to`.
    fn piece(&mut self, role: Role, from: Square, to: Bitboard);
    /// A pawn moves to each of `to` from `back` squares behind (the square
    /// index difference), as `kind` says.
    fn pawns(&mut self, to: Bitboard, back: i32, kind: PawnMove);
    fn en_passant(&mut self, from: Square, to: Square);
    fn castle(&mut self, king: Square, rook: Square, side: CastlingSide);
}

/// What pawn moves to a set of squares are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PawnMove {
    /// One-square pushes or captures that do not promote.
    Plain,
    /// Two-square pushes.
    Double,
    /// Pushes or captures onto the last rank: four moves each.
    Promotion,
}

const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Counts moves set-wise (bulk counting).
struct Count(u64);

impl Moves for Count {
    #[inline(always)]
    fn piece(&mut self, _: Role, _: Square, to: Bitboard) {
        self.0 += to.count() as u64;
    }
    #[inline(always)]
    fn pawns(&mut self, to: Bitboard, _: i32, kind: PawnMove) {
        let each = if kind == PawnMove::Promotion { 4 } else { 1 };
        self.0 += each * to.count() as u64;
    }
    #[inline(always)]
    fn en_passant(&mut self, _: Square, _: Square) {
        self.0 += 1;
    }
    #[inline(always)]
    fn castle(&mut self, _: Square, _: Square, _: CastlingSide) {
        self.0 += 1;
    }
}

/// Hands each move, one by one, to a closure.
struct Each<F>(F);

impl<F: FnMut(Move)> Moves for Each<F> {
    #[inline(always)]
    fn piece(&mut self, role: Role, from: Square, to: Bitboard) {
        for to in to {
            (self.0)(Move::Piece { role, from, to });
        }
    }
    #[inline(always)]
    fn pawns(&mut self, to: Bitboard, back: i32, kind: PawnMove) {
        for to in to {
            let from = to.offset(back).expect("a pawn move starts on the board");
            match kind {
                PawnMove::Plain => (self.0)(Move::Pawn { from, to }),
                PawnMove::Double => (self.0)(Move::Double { from, to }),
                PawnMove::Promotion => {
                    for role in PROMOTIONS {
                        (self.0)(Move::Promotion { from, to, role });
                    }
                }
            }
        }
    }
    #[inline(always)]
    fn en_passant(&mut self, from: Square, to: Square) {
        (self.0)(Move::EnPassant { from, to });
    }
    #[inline(always)]
    fn castle(&mut self, king: Square, rook: Square, side: CastlingSide) {
        (self.0)(Move::Castle { king, rook, side });
    }
}

#[inline(always)]
fn ix(role: Role) -> usize {
    role as usize - 1
}

/// The colour that `WHITE` names.
#[inline(always)]
const fn color_of<const WHITE: bool>() -> Color {
    if WHITE { Color::White } else { Color::Black }
}

/// The square offset of one pawn step forward for `color`.
#[inline(always)]
fn step(color: Color) -> i32 {
    color.fold_wb(8, -8)
}

impl Node {
    /// The node of a position shakmaty set up, with its key.
    pub(super) fn of(pos: &Chess) -> Node {
        let board = pos.board();
        let mut node = Node {
            roles: [
                board.pawns(),
                board.knights(),
                board.bishops(),
                board.rooks(),
                board.queens(),
                board.kings(),
            ],
            colors: [board.black(), board.white()],
            castling: pos.castles().castling_rights(),
            ep: pos.ep_square(EnPassantMode::PseudoLegal),
            turn: pos.turn(),
            key: 0,
        };
        node.key = node.key_afresh();
        node
    }

    #[inline(always)]
    fn role(&self, role: Role) -> Bitboard {
        self.roles[ix(role)]
    }

    #[inline(always)]
    fn color(&self, color: Color) -> Bitboard {
        self.colors[color as usize]
    }

    /// The 128-bit Zobrist key, kept by `play::<true>`.
    #[inline(always)]
    pub(super) fn key(&self) -> u128 {
        self.key
    }

    /// The pieces of `attacker` that attack `sq` when the board holds
    /// `occ`.
    #[inline(always)]
    fn attackers(&self, sq: Square, attacker: Color, occ: Bitboard) -> Bitboard {
        let queens = self.role(Role::Queen);
        ((attacks::rook_attacks(sq, occ) & (self.role(Role::Rook) | queens))
            | (attacks::bishop_attacks(sq, occ) & (self.role(Role::Bishop) | queens))
            | (attacks::knight_attacks(sq) & self.role(Role::Knight))
            | (attacks::king_attacks(sq) & self.role(Role::King))
            | (attacks::pawn_attacks(!attacker, sq) & self.role(Role::Pawn)))
            & self.color(attacker)
    }

    /// Finds every legal move and hands it to `sink`.
    ///
    /// Check and pins are known first: with `checkers` the enemy pieces
    /// giving check, a move other than the king's must land on `check_mask`
    /// (the checker or a square between it and the king), and a pinned
    /// piece must stay on the line through its king. The king may go to any
    /// square no enemy attacks once the king has left its square. En
    /// passant, which takes a piece from a square it does not land on, is
    /// tested on the board after it; castling is shakmaty's rule.
    ///
    /// `WHITE` says who is to move (the caller dispatches on
    /// [`Node::turn`]): compiled once per colour, pawn directions, ranks
    /// and table rows are constants.
    #[inline(always)]
    fn generate<const WHITE: bool>(&self, castling: &Castling, sink: &mut impl Moves) {
        let us = color_of::<WHITE>();
        debug_assert_eq!(self.turn, us);
        let them = !us;
        let ours = self.color(us);
        let theirs = self.color(them);
        let occ = ours | theirs;
        let king = (self.role(Role::King) & ours)
            .first()
            .expect("shakmaty sets up one king a side");
        let checkers = self.attackers(king, them, occ);

        let without_king = occ.without(king);
        let mut king_to = Bitboard::EMPTY;
        for to in attacks::king_attacks(king) & !ours {
            if self.attackers(to, them, without_king).is_empty() {
                king_to.add(to);
            }
        }
        sink.piece(Role::King, king, king_to);

        if let Some(ep) = self.ep {
            let taken = Square::from_coords(ep.file(), us.relative_rank(Rank::Fifth));
            for from in attacks::pawn_attacks(them, ep) & self.role(Role::Pawn) & ours {
                let after = occ.without(from).without(taken).with(ep);
                if (self.attackers(king, them, after).without(taken)).is_empty() {
                    sink.en_passant(from, ep);
                }
            }
        }

        if checkers.more_than_one() {
            return;
        }
        let check_mask = match checkers.first() {
            None => Bitboard::FULL,
            Some(checker) => attacks::between(king, checker).with(checker),
        };
        let target = !ours & check_mask;
        let pinned = self.pinned(us, king, occ);
        let pin_line = |sq: Square| {
            if pinned.contains(sq) {
                attacks::ray(king, sq)
            } else {
                Bitboard::FULL
            }
        };

        // A pinned knight can never move.
        for from in self.role(Role::Knight) & ours & !pinned {
            sink.piece(Role::Knight, from, attacks::knight_attacks(from) & target);
        }
        for from in self.role(Role::Bishop) & ours {
            let to = attacks::bishop_attacks(from, occ) & target & pin_line(from);
            sink.piece(Role::Bishop, from, to);
        }
        for from in self.role(Role::Rook) & ours {
            let to = attacks::rook_attacks(from, occ) & target & pin_line(from);
            sink.piece(Role::Rook, from, to);
        }
        for from in self.role(Role::Queen) & ours {
            let to = attacks::queen_attacks(from, occ) & target & pin_line(from);
            sink.piece(Role::Queen, from, to);
        }

        // Pawns set-wise: the free ones together, each pinned one alone.
        let pawns = self.role(Role::Pawn) & ours;
        self.pawn_moves::<WHITE, _>(pawns & !pinned, check_mask, occ, sink);
        for from in pawns & pinned {
            let line = check_mask & attacks::ray(king, from);
            self.pawn_moves::<WHITE, _>(Bitboard::from(from), line, occ, sink);
        }

        if checkers.is_empty() && (self.castling & Bitboard::from_rank(us.backrank())).any() {
            self.castles::<WHITE>(castling, king, occ, sink);
        }
    }

    /// Pushes and captures of `pawns` (of the side to move) that land on
    /// `mask`. Pawns on the seventh rank go apart, so that the rest are
    /// counted without asking which of their moves promote.
    #[inline(always)]
    fn pawn_moves<const WHITE: bool, S: Moves>(
        &self,
        pawns: Bitboard,
        mask: Bitboard,
        occ: Bitboard,
        sink: &mut S,
    ) {
        let us = color_of::<WHITE>();
        let forward = step(us);
        let theirs = self.color(!us) & mask;
        let seventh = Bitboard::from_rank(us.relative_rank(Rank::Seventh));
        let moves = |pawns: Bitboard, sink: &mut S, push: PawnMove, capture: PawnMove| {
            let single = pawns.shift(forward) & !occ;
            sink.pawns(single & mask, -forward, push);
            let towards_a = (pawns & !Bitboard::from_file(File::A)).shift(forward - 1);
            let towards_h = (pawns & !Bitboard::from_file(File::H)).shift(forward + 1);
            sink.pawns(towards_a & theirs, 1 - forward, capture);
            sink.pawns(towards_h & theirs, -1 - forward, capture);
            single
        };
        let single = moves(pawns & !seventh, sink, PawnMove::Plain, PawnMove::Plain);
        let third = Bitboard::from_rank(us.relative_rank(Rank::Third));
        let double = (single & third).shift(forward) & !occ & mask;
        sink.pawns(double, -2 * forward, PawnMove::Double);
        let promoting = pawns & seventh;
        if promoting.any() {
            moves(promoting, sink, PawnMove::Promotion, PawnMove::Promotion);
        }
    }

    /// The pieces of `us` pinned to their king on `king`.
    #[inline(always)]
    fn pinned(&self, us: Color, king: Square, occ: Bitboard) -> Bitboard {
        let them = self.color(!us);
        let queens = self.role(Role::Queen);
        let snipers = ((attacks::rook_attacks(king, Bitboard::EMPTY)
            & (self.role(Role::Rook) | queens))
            | (attacks::bishop_attacks(king, Bitboard::EMPTY)
                & (self.role(Role::Bishop) | queens)))
            & them;
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let between = attacks::between(sniper, king) & occ;
            if !between.more_than_one() {
                pinned |= between;
            }
        }
        pinned & self.color(us)
    }

    /// Castling, as shakmaty's generator decides it: path empty, king
    /// destination safe once king and rook have moved, no square the king
    /// crosses attacked. The side to move is not in check.
    #[inline(always)]
    fn castles<const WHITE: bool>(
        &self,
        castling: &Castling,
        king: Square,
        occ: Bitboard,
        sink: &mut impl Moves,
    ) {
        let us = color_of::<WHITE>() as usize;
        // Unrolled, so that each side's squares are constants; a right
        // whose path is blocked (most of them) costs two tests.
        for (i, side) in SIDES.into_iter().enumerate() {
            let rook = castling.rook[us][i] & self.castling;
            if rook.is_empty() || (castling.path[us][i] & occ).any() {
                continue;
            }
            let rook = rook.first().expect("just tested");
            self.castle::<WHITE>(side, king, rook, occ, sink);
        }
    }

    /// One castling move whose right is held and whose path is empty.
    #[inline(always)]
    fn castle<const WHITE: bool>(
        &self,
        side: CastlingSide,
        king: Square,
        rook: Square,
        occ: Bitboard,
        sink: &mut impl Moves,
    ) {
        let us = color_of::<WHITE>();
        let them = !us;
        let king_to = side.king_to(us);
        let after = occ ^ king ^ rook ^ side.rook_to(us);
        if self.attackers(king_to, them, after).any() {
            return;
        }
        let without_king = occ ^ king;
        if attacks::between(king, king_to)
            .into_iter()
            .all(|sq| self.attackers(sq, them, without_king).is_empty())
        {
            sink.castle(king, rook, side);
        }
    }

    /// The number of legal moves (bulk counting: none is played).
    #[inline(always)]
    pub(super) fn count(&self, castling: &Castling) -> u64 {
        let mut count = Count(0);
        match self.turn {
            Color::White => self.generate::<true>(castling, &mut count),
            Color::Black => self.generate::<false>(castling, &mut count),
        }
        count.0
    }

    /// Calls `f` with the node after each legal move, keeping the key up
    /// to date when `KEY`.
    #[inline(always)]
    pub(super) fn for_each_child<const KEY: bool>(
        &self,
        castling: &Castling,
        mut f: impl FnMut(&Node),
    ) {
        match self.turn {
            Color::White => {
                self.generate::<true>(
                    castling,
                    &mut Each(|m| {
                        let mut child = *self;
                        child.make::<KEY, true>(m);
                        f(&child);
                    }),
                );
            }
            Color::Black => {
                self.generate::<false>(
                    castling,
                    &mut Each(|m| {
                        let mut child = *self;
                        child.make::<KEY, false>(m);
                        f(&child);
                    }),
                );
            }
        }
    }

    /// Plays the legal move `m` of `WHITE` or Black, in place (the
    /// caller copies the node first); the key is updated only when `KEY`
    /// (otherwise it is left stale).
    #[inline(always)]
    fn make<const KEY: bool, const WHITE: bool>(&mut self, m: Move) {
        let us = color_of::<WHITE>();
        debug_assert_eq!(self.turn, us);
        let them = !us;
        let (old_castling, old_ep) = (self.castling, self.ep);
        let n = self;
        n.turn = them;
        n.ep = None;
        let mut key = n.key ^ keys::SIDE;
        if KEY && let Some(ep) = old_ep {
            key ^= keys::EP[ep.file() as usize];
        }
        match m {
            Move::Piece { .. }
            | Move::Pawn { .. }
            | Move::Double { .. }
            | Move::Promotion { .. } => {
                let (from, to, role, placed) = match m {
                    Move::Piece { role, from, to } => (from, to, role, role),
                    Move::Promotion { from, to, role } => (from, to, Role::Pawn, role),
                    Move::Pawn { from, to } | Move::Double { from, to } => {
                        (from, to, Role::Pawn, Role::Pawn)
                    }
                    Move::EnPassant { .. } | Move::Castle { .. } => {
                        unreachable!("matched by the arms below")
                    }
                };
                if n.color(them).contains(to) {
                    let captured = n.role_at(to);
                    n.roles[ix(captured)].discard(to);
                    n.colors[them as usize].discard(to);
                    if KEY {
                        key ^= keys::piece(them, captured, to);
                    }
                }
                n.roles[ix(role)].discard(from);
                n.roles[ix(placed)].add(to);
                n.colors[us as usize] ^= Bitboard::from(from) | Bitboard::from(to);
                n.castling &= !(Bitboard::from(from) | Bitboard::from(to));
                if role == Role::King {
                    n.castling &= !Bitboard::from_rank(us.backrank());
                }
                if KEY {
                    key ^= keys::piece(us, role, from) ^ keys::piece(us, placed, to);
                }
                if let Move::Double { .. } = m {
                    let ep = from
                        .offset(step(us))
                        .expect("between two squares of the board");
                    if (attacks::pawn_attacks(us, ep) & n.role(Role::Pawn) & n.color(them)).any() {
                        n.ep = Some(ep);
                    }
                }
            }
            Move::EnPassant { from, to } => {
                let taken = Square::from_coords(to.file(), from.rank());
                n.roles[ix(Role::Pawn)] ^=
                    Bitboard::from(from) | Bitboard::from(to) | Bitboard::from(taken);
                n.colors[us as usize] ^= Bitboard::from(from) | Bitboard::from(to);
                n.colors[them as usize].discard(taken);
                if KEY {
                    key ^= keys::piece(us, Role::Pawn, from)
                        ^ keys::piece(us, Role::Pawn, to)
                        ^ keys::piece(them, Role::Pawn, taken);
                }
            }
            Move::Castle { king, rook, side } => {
                let (king_to, rook_to) = (side.king_to(us), side.rook_to(us));
                n.roles[ix(Role::King)].discard(king);
                n.roles[ix(Role::Rook)].discard(rook);
                n.roles[ix(Role::King)].add(king_to);
                n.roles[ix(Role::Rook)].add(rook_to);
                let ours = &mut n.colors[us as usize];
                *ours = ours.without(king).without(rook).with(king_to).with(rook_to);
                n.castling &= !Bitboard::from_rank(us.backrank());
                if KEY {
                    key ^= keys::piece(us, Role::King, king)
                        ^ keys::piece(us, Role::Rook, rook)
                        ^ keys::piece(us, Role::King, king_to)
                        ^ keys::piece(us, Role::Rook, rook_to);
                }
            }
        }
        if KEY {
            for sq in old_castling ^ n.castling {
                key ^= keys::CASTLING[sq as usize];
            }
            if let Some(ep) = n.ep {
                key ^= keys::EP[ep.file() as usize];
            }
            n.key = key;
        }
    }

    /// The role of the piece on `sq`, which is occupied.
    #[inline(always)]
    fn role_at(&self, sq: Square) -> Role {
        const ROLES: [Role; 5] = [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ];
        ROLES
            .into_iter()
            .find(|&role| self.role(role).contains(sq))
            .unwrap_or(Role::King)
    }

    /// The Zobrist key computed from the whole node: one key per piece on
    /// its square, per castling rook square, per en passant file, and one
    /// for Black to move. Castling rights are keyed by rook square, so
    /// Chess960 positions that differ only in which rook may castle get
    /// different keys.
    pub(super) fn key_afresh(&self) -> u128 {
        let mut key = 0;
        for color in [Color::Black, Color::White] {
            for role in Role::ALL {
                for sq in self.role(role) & self.color(color) {
                    key ^= keys::piece(color, role, sq);
                }
            }
        }
        for sq in self.castling {
            key ^= keys::CASTLING[sq as usize];
        }
        if let Some(ep) = self.ep {
            key ^= keys::EP[ep.file() as usize];
        }
        if self.turn == Color::Black {
            key ^= keys::SIDE;
        }
        key
    }
}

/// The random numbers of [`Node::key_afresh`], fixed at compile time
/// (splitmix64 from a constant seed).
mod keys {
    use shakmaty::{Color, Role, Square};

    const fn splitmix64(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    const fn random<const N: usize>(seed: u64) -> [u128; N] {
        let mut state = seed;
        let mut out = [0; N];
        let mut i = 0;
        while i < N {
            let hi = splitmix64(&mut state);
            let lo = splitmix64(&mut state);
            out[i] = (hi as u128) << 64 | lo as u128;
            i += 1;
        }
        out
    }

    /// Indexed by `(color * 6 + role - 1) * 64 + square`.
    static PIECES: [u128; 768] = random(0x7067_6e6b_6974_0001);
    pub(super) static CASTLING: [u128; 64] = random(0x7067_6e6b_6974_0002);
    pub(super) static EP: [u128; 8] = random(0x7067_6e6b_6974_0003);
    pub(super) const SIDE: u128 = 0x8f1b_bcdc_ca62_c1d6_6e0a_4dc3_95af_3a57;

    #[inline(always)]
    pub(super) fn piece(color: Color, role: Role, sq: Square) -> u128 {
        PIECES[(color as usize * 6 + role as usize - 1) * 64 + sq as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::perft::parse_position;
    use shakmaty::fen::Fen;

    /// Walks shakmaty's tree from `pos` and checks, at every node, the
    /// count, the children (as shakmaty plays the same moves) and the keys
    /// kept move by move (as computed afresh).
    fn assert_walk(pos: &Chess, castling: &Castling, depth: u32) {
        let fen = Fen::from_position(pos, EnPassantMode::Always);
        let node = Node::of(pos);
        let moves = pos.legal_moves();
        assert_eq!(node.count(castling), moves.len() as u64, "{fen}");
        let mut ours = Vec::new();
        node.for_each_child::<true>(castling, |child| ours.push(*child));
        let mut theirs: Vec<Node> = moves
            .iter()
            .map(|&m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                Node::of(&child)
            })
            .collect();
        ours.sort_by_key(|n| n.key_afresh());
        theirs.sort_by_key(|n| n.key);
        for child in &ours {
            assert_eq!(child.key, child.key_afresh(), "{fen}");
        }
        assert_eq!(ours, theirs, "{fen}");
        if depth > 0 {
            for &m in &moves {
                let mut child = pos.clone();
                child.play_unchecked(m);
                assert_walk(&child, castling, depth - 1);
            }
        }
    }

    #[test]
    fn generator_player_and_key_match_shakmaty() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -",
            "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ -",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ -",
            "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq -",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
            "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1",
            // Kings already on their castling squares, rooks beside them.
            "rk4r1/8/8/8/8/8/8/RK4R1 w GAga - 0 1",
            "1b1k4/8/8/1rPpK3/8/8/8/8 w - d6",
            "8/8/8/2k5/2pP4/8/B7/4K3 b - d3",
            "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - -",
            "2b5/kpPp4/1p1P4/1P6/6p1/4p1P1/4PpPK/5B2 w - -",
        ];
        // Depth 3 takes seconds at the test profile's opt-level: it runs
        // when `PGNKIT_LONG_TESTS` is set (CI sets it), depth 2 otherwise.
        let depth = if crate::long_tests() { 3 } else { 2 };
        for fen in fens {
            let pos = parse_position(fen, false).unwrap();
            assert_walk(&pos, &Castling::of(&pos), depth);
        }
    }

    #[test]
    fn castling_rights_are_keyed_by_rook_square() {
        // Same pieces, same (colour, side) rights, different castling rook:
        // queen-side castling with the a1 rook vs. the b1 rook.
        let outer = parse_position("4k3/8/8/8/8/8/8/RR2K3 w A -", false).unwrap();
        let inner = parse_position("4k3/8/8/8/8/8/8/RR2K3 w B -", false).unwrap();
        assert_ne!(Node::of(&outer).key(), Node::of(&inner).key());
    }
}
