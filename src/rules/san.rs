//! SAN, the one place it is understood: reading a token as SAN
//! ([`parse_san`], with a typed error saying what the token likely meant),
//! resolving it to the legal move it stands for ([`resolve`]), the SAN a
//! move should have been written with ([`normalised_san`]), and writing SAN
//! as ASCII ([`san_ascii`], [`append_san`]).
//!
//! shakmaty's `San::to_move` is exact but builds a whole move list per call
//! (a 2 KB array returned by value), which is most of the cost of replaying a
//! game. [`resolve`] reaches the same answer from attack tables: it finds the
//! pieces that could make the move and tests only those for legality. Its
//! semantics are shakmaty's exactly (a capture must be written as one, a
//! promotion must be written, `Kxe5` does not match a quiet move); a test
//! compares the two, and the normaliser with `San::from_move`, on every
//! move of the games under `fixtures/`.
//!
//! Replaying a whole game is [`super::replay`]'s; FEN, UCI and LAN are
//! [`super::notation`]'s.

use std::fmt;

use shakmaty::attacks;

use super::attacks::{is_pseudo_legal_safe, is_safe, pawn_pusher};
use shakmaty::san::{San, SanError, SanPlus, Suffix};
use shakmaty::{Bitboard, CastlingSide, Chess, File, Move, Position, Rank, Role, Square};

/// A movetext token that is not SAN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseSanError {
    /// The token (bytes that are not UTF-8 replaced by U+FFFD).
    pub text: String,
    /// What the token likely meant, where it can be told.
    pub kind: ParseSanErrorKind,
}

/// Why a token is not SAN, as far as it can be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseSanErrorKind {
    /// Figurines or other non-ASCII notation (`♘f3`).
    NonAscii,
    /// A doubled check suffix (`Nf3++`).
    DoubledCheck,
    /// `e.p.` after an en passant capture (`exd6e.p.`).
    EnPassantMark,
    /// Castling written with a lowercase `o` (`o-o`).
    LowercaseCastling,
    /// A promotion without its `=` (`e8Q`).
    PromotionWithoutEquals,
    /// Nothing more specific.
    Malformed,
}

impl fmt::Display for ParseSanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hint = match self.kind {
            ParseSanErrorKind::NonAscii => " (figurine or non-ASCII notation)",
            ParseSanErrorKind::DoubledCheck => " (doubled check suffix)",
            ParseSanErrorKind::EnPassantMark => " (`e.p.` is not part of SAN)",
            ParseSanErrorKind::LowercaseCastling => " (castling is written with capital O)",
            ParseSanErrorKind::PromotionWithoutEquals => {
                " (promotion is written with `=`, as in e8=Q)"
            }
            ParseSanErrorKind::Malformed => "",
        };
        write!(f, "`{}` is not a move in SAN{hint}", self.text)
    }
}

impl std::error::Error for ParseSanError {}

/// Parses a movetext token as SAN, with the suffix. Zero-castling (`0-0`)
/// is read as castling, as most software does. Accepts what shakmaty's
/// `SanPlus::from_ascii` accepts (a test compares them), except piece drops
/// (`N@f3`), which no standard game has; it is several times faster.
///
/// # Errors
///
/// [`ParseSanError`], naming the likely intent where it can (lowercase
/// castling, double suffix, `e.p.`, figurines, promotion without `=`).
///
/// # Examples
///
/// ```
/// use pgnkit::rules::san::{ParseSanErrorKind, parse_san};
/// assert_eq!(parse_san(b"exd8=Q+").unwrap().to_string(), "exd8=Q+");
/// assert_eq!(parse_san(b"0-0-0").unwrap().to_string(), "O-O-O");
/// let err = parse_san(b"Nf3++").unwrap_err();
/// assert_eq!(err.kind, ParseSanErrorKind::DoubledCheck);
/// assert_eq!(err.to_string(), "`Nf3++` is not a move in SAN (doubled check suffix)");
/// ```
#[inline]
pub fn parse_san(text: &[u8]) -> Result<SanPlus, ParseSanError> {
    match parse_san_fast(text) {
        Some(san) => Ok(san),
        None => Err(not_san(text)),
    }
}

/// Why `text` is not SAN: kept out of line, since the replay inlines
/// [`parse_san`] on every ply and almost every token is SAN.
#[cold]
#[inline(never)]
fn not_san(text: &[u8]) -> ParseSanError {
    ParseSanError {
        text: String::from_utf8_lossy(text).into_owned(),
        kind: why_not_san(text),
    }
}

#[inline]
fn parse_san_fast(text: &[u8]) -> Option<SanPlus> {
    let (body, suffix) = match text.split_last()? {
        (b'+', body) => (body, Some(Suffix::Check)),
        (b'#', body) => (body, Some(Suffix::Checkmate)),
        _ => (text, None),
    };
    // The shapes nearly every move has (`e4`, `Nf3`, `exd5`, `Nxe5`,
    // `Nbd7`, `R1e2`), read without the general matching below.
    if let Some(san) = common_shape(body) {
        return Some(SanPlus { san, suffix });
    }
    let san = match body {
        b"O-O" | b"0-0" => San::Castle(CastlingSide::KingSide),
        b"O-O-O" | b"0-0-0" => San::Castle(CastlingSide::QueenSide),
        b"--" | b"Z0" => San::Null,
        _ => parse_normal(body)?,
    };
    Some(SanPlus { san, suffix })
}

/// A move of two to four bytes ending on its square, without promotion:
/// `e4`, `Nf3`, `exd5`, `Nxe5`, `Nbd7`, `R1e2`; `None` for any other shape
/// (which [`parse_normal`] reads, or rejects).
#[inline(always)]
fn common_shape(body: &[u8]) -> Option<San> {
    let &[.., f, r] = body else { return None };
    let (fi, ri) = (f.wrapping_sub(b'a'), r.wrapping_sub(b'1'));
    if fi >= 8 || ri >= 8 {
        return None;
    }
    let to = Square::from_coords(File::new(u32::from(fi)), Rank::new(u32::from(ri)));
    let normal = |role, file, rank, capture| {
        Some(San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion: None,
        })
    };
    match *body {
        [_, _] => normal(Role::Pawn, None, None, false),
        [p, _, _] => normal(piece(p)?, None, None, false),
        [a, b'x', _, _] => match piece(a) {
            Some(role) => normal(role, None, None, true),
            None => normal(Role::Pawn, Some(file(a)?), None, true),
        },
        [p, d, _, _] => {
            let role = piece(p)?;
            match (file(d), rank(d)) {
                (Some(f), _) => normal(role, Some(f), None, false),
                (None, Some(r)) => normal(role, None, Some(r), false),
                _ => None,
            }
        }
        _ => None,
    }
}

#[inline]
fn parse_normal(body: &[u8]) -> Option<San> {
    let (role, rest) = match body.split_first()? {
        (b'P', rest) => (Role::Pawn, rest),
        (&c, rest) => match piece(c) {
            Some(role) => (role, rest),
            None => (Role::Pawn, body),
        },
    };
    let (rest, promotion) = match rest {
        [head @ .., b'=', p] => (head, Some(Role::from_char(char::from(*p))?)),
        _ => (rest, None),
    };
    let [head @ .., f, r] = rest else { return None };
    let to = Square::from_coords(file(*f)?, rank(*r)?);
    let (head, capture) = match head {
        [head @ .., b'x'] => (head, true),
        _ => (head, false),
    };
    let (file, rank) = match *head {
        [] => (None, None),
        [c] => match (file(c), rank(c)) {
            (Some(f), _) => (Some(f), None),
            (None, Some(r)) => (None, Some(r)),
            _ => return None,
        },
        [f, r] => (Some(file(f)?), Some(rank(r)?)),
        _ => return None,
    };
    Some(San::Normal {
        role,
        file,
        rank,
        capture,
        to,
        promotion,
    })
}

/// The piece a SAN move's first letter names, pawns aside.
#[inline(always)]
fn piece(c: u8) -> Option<Role> {
    match c {
        b'N' => Some(Role::Knight),
        b'B' => Some(Role::Bishop),
        b'R' => Some(Role::Rook),
        b'Q' => Some(Role::Queen),
        b'K' => Some(Role::King),
        _ => None,
    }
}

fn file(c: u8) -> Option<File> {
    (b'a'..=b'h')
        .contains(&c)
        .then(|| File::new(u32::from(c - b'a')))
}

fn rank(c: u8) -> Option<Rank> {
    (b'1'..=b'8')
        .contains(&c)
        .then(|| Rank::new(u32::from(c - b'1')))
}

fn why_not_san(text: &[u8]) -> ParseSanErrorKind {
    if !text.is_ascii() {
        ParseSanErrorKind::NonAscii
    } else if text.ends_with(b"++") {
        ParseSanErrorKind::DoubledCheck
    } else if text.windows(4).any(|w| w.eq_ignore_ascii_case(b"e.p.")) {
        ParseSanErrorKind::EnPassantMark
    } else if text.starts_with(b"o-o") || text.starts_with(b"o-O") {
        ParseSanErrorKind::LowercaseCastling
    } else if text.last().is_some_and(|c| b"QRBN".contains(c))
        && parse_san_fast(&text[..text.len() - 1]).is_some_and(|s| {
            matches!(s.san, San::Normal { role: Role::Pawn, promotion: None, to, .. }
                if matches!(to.rank(), Rank::First | Rank::Eighth))
        })
    {
        ParseSanErrorKind::PromotionWithoutEquals
    } else {
        ParseSanErrorKind::Malformed
    }
}

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
                if is_pseudo_legal_safe(pos, king, in_check, &m) {
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
                } else if captured.is_none()
                    && let Some(from) = pawn_pusher(pawns, turn, to, occupied)
                {
                    consider(Move::Normal {
                        role,
                        from,
                        capture: None,
                        to,
                        promotion,
                    })?;
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

/// The SAN of `mv` with minimal disambiguation, exactly as
/// `San::from_move` gives it in the position before the move, computed from
/// `after`, the position after it, and `written`, the SAN it was resolved
/// from.
///
/// `San::from_move` lists the legal moves of the piece type to the target
/// square (a 2 KB move list) for every piece move, and needs the position
/// before the move, which the replay has already played on. Only a piece
/// move that the input disambiguated can have a rival: one that resolved
/// without a file or rank has none. For those, the rivals are found from
/// attack tables on the board before the move (the moved piece back on its
/// square), each tested for leaving its king attacked.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::san::normalised_san;
/// use shakmaty::{Chess, Position, san::San};
/// let pos = Chess::default();
/// let written = San::from_ascii(b"Ng1f3").unwrap();
/// let mv = written.to_move(&pos).unwrap();
/// let after = pos.play(mv).unwrap();
/// assert_eq!(normalised_san(&after, &written, mv).to_string(), "Nf3");
/// ```
pub fn normalised_san(after: &Chess, written: &San, mv: Move) -> San {
    let mut rivals = shakmaty::MoveList::new();
    if let (
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion: None,
        },
        San::Normal { file, rank, .. },
    ) = (mv, written)
        && !matches!(role, Role::Pawn | Role::King)
        && (file.is_some() || rank.is_some())
    {
        let board = after.board();
        let us = !after.turn();
        let piece = shakmaty::Piece { color: us, role };
        let to_bb = Bitboard::from(to);
        let occupied = board.occupied() | Bitboard::from(from);
        let candidates = attacks::attacks(to, piece, occupied) & board.by_piece(piece);
        for rival in candidates & !to_bb {
            // The rival on `to` instead: is its king attacked then? The
            // opponent's pieces are those after the move (what stood on
            // `to` is captured either way).
            let legal = board
                .king_of(us)
                .is_none_or(|king| is_safe(board, king, us, occupied.without(rival).with(to), to));
            if legal {
                rivals.push(Move::Normal {
                    role,
                    from: rival,
                    capture,
                    to,
                    promotion: None,
                });
            }
        }
    }
    match mv {
        // What `San::disambiguate` gives without rivals, built directly:
        // this runs for every move.
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } if rivals.is_empty() => San::Normal {
            role,
            file: (role == Role::Pawn && capture.is_some()).then(|| from.file()),
            rank: None,
            capture: capture.is_some(),
            to,
            promotion,
        },
        _ => San::disambiguate(mv, &rivals),
    }
}

/// Room for any SAN with its suffix: the longest is 9 bytes (`Na1xb2=Q#`).
pub type SanBuf = [u8; 12];

/// Writes `san` into `buf` as its `Display` writes it, without the
/// formatting machinery (the PGN writer does this for every move), and
/// returns the bytes written. SAN is ASCII, so their number is also the
/// number of characters.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::san::{SanBuf, san_ascii};
/// use shakmaty::san::SanPlus;
/// let san = SanPlus::from_ascii(b"exd8=Q#").unwrap();
/// assert_eq!(san_ascii(&san, &mut SanBuf::default()), b"exd8=Q#");
/// ```
#[inline]
pub fn san_ascii<'b>(san: &SanPlus, buf: &'b mut SanBuf) -> &'b [u8] {
    fn role(r: Role) -> u8 {
        b"PNBRQK"[r as usize - 1]
    }
    fn square(sq: Square, buf: &mut SanBuf, n: &mut usize) {
        buf[*n] = b'a' + sq.file() as u8;
        buf[*n + 1] = b'1' + sq.rank() as u8;
        *n += 2;
    }
    let mut n = 0;
    match san.san {
        San::Normal {
            role: r,
            file,
            rank,
            capture,
            to,
            promotion,
        } => {
            if r != Role::Pawn {
                buf[n] = role(r);
                n += 1;
            }
            if let Some(file) = file {
                buf[n] = b'a' + file as u8;
                n += 1;
            }
            if let Some(rank) = rank {
                buf[n] = b'1' + rank as u8;
                n += 1;
            }
            if capture {
                buf[n] = b'x';
                n += 1;
            }
            square(to, buf, &mut n);
            if let Some(p) = promotion {
                buf[n] = b'=';
                buf[n + 1] = role(p);
                n += 2;
            }
        }
        San::Castle(CastlingSide::KingSide) => {
            buf[..3].copy_from_slice(b"O-O");
            n = 3;
        }
        San::Castle(CastlingSide::QueenSide) => {
            buf[..5].copy_from_slice(b"O-O-O");
            n = 5;
        }
        San::Put { role: r, to } => {
            if r != Role::Pawn {
                buf[n] = role(r);
                n += 1;
            }
            buf[n] = b'@';
            n += 1;
            square(to, buf, &mut n);
        }
        San::Null => {
            buf[..2].copy_from_slice(b"--");
            n = 2;
        }
    }
    match san.suffix {
        Some(Suffix::Check) => {
            buf[n] = b'+';
            n += 1;
        }
        Some(Suffix::Checkmate) => {
            buf[n] = b'#';
            n += 1;
        }
        None => {}
    }
    &buf[..n]
}

/// Appends `san` to `out` as ASCII ([`san_ascii`]).
#[inline]
pub fn append_san(san: &SanPlus, out: &mut Vec<u8>) {
    out.extend_from_slice(san_ascii(san, &mut SanBuf::default()));
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::input::scan::scan;
    use crate::rules::attacks::is_checkmate;
    use crate::rules::setup::start_position;

    /// Every SAN form of every legal move, plus malformed variants, must
    /// resolve exactly as shakmaty resolves it.
    fn agrees_everywhere(pos: &Chess) {
        let mut sans: Vec<San> = Vec::new();
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            if after.is_check() {
                assert_eq!(is_checkmate(&after), after.is_checkmate(), "{m}");
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
            is_checkmate(&pos)
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

    #[test]
    fn san_parser_agrees_with_shakmaty() {
        // Every string of up to five symbols from an alphabet that covers
        // SAN, plus longer real forms.
        let alphabet: &[u8] = b"NKQPaeh18x=+#O-0";
        let mut words: Vec<Vec<u8>> = vec![Vec::new()];
        let mut all = Vec::new();
        for _ in 0..5 {
            let mut next = Vec::new();
            for w in &words {
                for &c in alphabet {
                    let mut v = w.clone();
                    v.push(c);
                    next.push(v);
                }
            }
            all.extend(next.iter().cloned());
            words = next;
        }
        for long in [
            "exd8=Q+", "Ng1f3", "Qh4xe1#", "e8=N", "O-O-O+", "Z0", "--", "bxa1=R#",
        ] {
            all.push(long.as_bytes().to_vec());
        }
        for w in all {
            let ours = parse_san_fast(&w);
            let theirs = SanPlus::from_ascii(&w).ok();
            // shakmaty reads `0-0` only through pgn-reader; we read it too.
            if w.starts_with(b"0-0") {
                continue;
            }
            assert_eq!(ours, theirs, "{}", String::from_utf8_lossy(&w));
        }
    }

    #[test]
    fn parse_errors_name_the_likely_intent() {
        for (text, kind, message) in [
            (
                "\u{2658}f3",
                ParseSanErrorKind::NonAscii,
                "`\u{2658}f3` is not a move in SAN (figurine or non-ASCII notation)",
            ),
            (
                "Nf3++",
                ParseSanErrorKind::DoubledCheck,
                "`Nf3++` is not a move in SAN (doubled check suffix)",
            ),
            (
                "exd6e.p.",
                ParseSanErrorKind::EnPassantMark,
                "`exd6e.p.` is not a move in SAN (`e.p.` is not part of SAN)",
            ),
            (
                "o-o",
                ParseSanErrorKind::LowercaseCastling,
                "`o-o` is not a move in SAN (castling is written with capital O)",
            ),
            (
                "e8Q",
                ParseSanErrorKind::PromotionWithoutEquals,
                "`e8Q` is not a move in SAN (promotion is written with `=`, as in e8=Q)",
            ),
            (
                "e5Q",
                ParseSanErrorKind::Malformed,
                "`e5Q` is not a move in SAN",
            ),
            (
                "Nf3!",
                ParseSanErrorKind::Malformed,
                "`Nf3!` is not a move in SAN",
            ),
        ] {
            let err = parse_san(text.as_bytes()).unwrap_err();
            assert_eq!(err.kind, kind, "{text}");
            assert_eq!(err.to_string(), message);
        }
        let err = parse_san(b"\xe9f3").unwrap_err();
        assert_eq!(
            err.to_string(),
            "`\u{fffd}f3` is not a move in SAN (figurine or non-ASCII notation)"
        );
    }

    /// `normalised_san` against `San::from_move` for every legal move of
    /// `pos`, whether the input wrote the move fully disambiguated or not.
    pub(crate) fn assert_normalised_san_agrees(pos: &Chess) {
        for mv in pos.legal_moves() {
            let want = San::from_move(pos, mv);
            let mut after = pos.clone();
            after.play_unchecked(mv);
            let full = match mv {
                Move::Normal {
                    role,
                    from,
                    capture,
                    to,
                    promotion,
                } => San::Normal {
                    role,
                    file: Some(from.file()),
                    rank: Some(from.rank()),
                    capture: capture.is_some(),
                    to,
                    promotion,
                },
                _ => want,
            };
            for written in [full, want] {
                assert_eq!(
                    normalised_san(&after, &written, mv),
                    want,
                    "{} {mv:?} written {written}",
                    shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
                );
            }
        }
    }

    #[test]
    fn normalised_san_matches_shakmaty_on_pins_blocks_and_checks() {
        for text in [
            // Knights on e2 (pinned) and h3 both reach f4: only Nhf4 is legal.
            "4r1k1/8/8/8/8/7N/4N3/4K3 w - - 0 1",
            // The rook on a1 is behind the one on a2: Ra5 needs no file.
            "4k3/8/8/8/8/8/R7/R3K3 w - - 0 1",
            // In check: only a rival that blocks or captures is legal.
            "4k3/8/8/8/1b6/8/3N1N2/R3K2R w KQ - 0 1",
            // Three queens, rivals on a file, a rank and a diagonal.
            "6k1/8/8/8/Q6Q/8/8/Q3K3 w - - 0 1",
            "1k6/8/8/2N1N3/1N3N2/8/1N3N2/K7 w - - 0 1",
        ] {
            let (pos, _) = crate::rules::setup::parse_fen(text, true).unwrap();
            assert_normalised_san_agrees(&pos);
        }
    }

    /// Every `.pgn` file under `dir`, recursively, sorted.
    fn pgn_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("fixtures/ is readable")
            .map(|e| e.expect("fixtures/ is readable").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                pgn_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "pgn") {
                out.push(path);
            }
        }
    }

    /// The resolver against `San::to_move` and the normaliser against
    /// `San::from_move` (and the ASCII writer against `Display`) on every
    /// ply of the main line of every game under `fixtures/`, each from the
    /// game's own start position, up to its first move that is not legal SAN.
    #[test]
    fn resolver_and_normaliser_agree_with_shakmaty_on_every_fixture_ply() {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures"));
        let mut files = Vec::new();
        pgn_files(root, &mut files);
        assert!(files.len() >= 20, "{files:?}");
        let mut plies = 0usize;
        let mut chess960_plies = 0usize;
        for path in &files {
            let bytes = std::fs::read(path).expect("fixture is readable");
            for game in &scan(&bytes, true).games {
                let Ok(start) = start_position(game) else {
                    continue;
                };
                let mut pos = start.pos;
                for token in game.main_line() {
                    let Ok(written) = parse_san(token.text) else {
                        break;
                    };
                    let ours = resolve(&pos, &written.san);
                    let theirs = written.san.to_move(&pos);
                    assert_eq!(ours, theirs, "{}: {written}", path.display());
                    let Ok(mv) = ours else {
                        break;
                    };
                    let before = pos.clone();
                    let want = SanPlus::from_move_and_play_unchecked(&mut pos, mv);
                    assert_eq!(
                        normalised_san(&pos, &written.san, mv),
                        want.san,
                        "{}: {written} in {}",
                        path.display(),
                        shakmaty::fen::Fen::from_position(&before, shakmaty::EnPassantMode::Legal)
                    );
                    if pos.is_check() {
                        assert_eq!(is_checkmate(&pos), pos.is_checkmate());
                    }
                    let mut buf = SanBuf::default();
                    assert_eq!(san_ascii(&want, &mut buf), want.to_string().as_bytes());
                    plies += 1;
                    if start.mode == shakmaty::CastlingMode::Chess960 {
                        chess960_plies += 1;
                    }
                }
            }
        }
        // The fixtures hold thousands of real plies, Chess960 ones among them.
        assert!(plies > 2_500, "{plies}");
        assert!(chess960_plies > 0);
    }

    #[test]
    fn san_ascii_writes_what_display_writes() {
        let mut sans = vec![
            San::Null,
            San::Put {
                role: Role::Knight,
                to: Square::F3,
            },
            San::Put {
                role: Role::Pawn,
                to: Square::E4,
            },
        ];
        for fen in [
            "r3k2r/pPpp1ppp/1b3nbN/nP2p3/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "1k6/8/8/2N1N3/1N3N2/8/1N3N2/K7 w - - 0 1",
            "r3k2r/8/8/3pP3/8/8/1p6/R3K2R w KQkq d6 0 1",
        ] {
            let (pos, _) = crate::rules::setup::parse_fen(fen, false).unwrap();
            for m in pos.legal_moves() {
                sans.push(San::from_move(&pos, m));
            }
        }
        // The longest: both disambiguators, a capture and a promotion.
        sans.push(San::Normal {
            role: Role::Knight,
            file: Some(File::A),
            rank: Some(Rank::First),
            capture: true,
            to: Square::B2,
            promotion: Some(Role::Queen),
        });
        for san in sans {
            for suffix in [None, Some(Suffix::Check), Some(Suffix::Checkmate)] {
                let san = SanPlus { san, suffix };
                let mut buf = SanBuf::default();
                assert_eq!(san_ascii(&san, &mut buf), san.to_string().as_bytes());
                let mut out = b"x ".to_vec();
                append_san(&san, &mut out);
                assert_eq!(out, format!("x {san}").into_bytes());
            }
        }
    }
}
