//! Notation other than SAN: writing positions as FEN and EPD and moves as
//! UCI and LAN, and playing a list of UCI moves.
//!
//! FEN and EPD are written with the en passant square only when a capture
//! is legal, and with `KQkq` castling in standard chess or Shredder-FEN
//! (rook files, `HAha`) in Chess960; UCI castling is king to rook in
//! Chess960 and king two squares in standard chess. Reading a FEN is
//! [`super::setup`]'s, SAN is [`super::san`]'s, and the byte layout of whole
//! records is `output`'s.

use std::fmt;

use shakmaty::fen::{Epd, Fen};
use shakmaty::san::Suffix;
use shakmaty::uci::UciMove;
use shakmaty::{
    CastlingMode, CastlingSide, Chess, Color, EnPassantMode, Move, Position, Role, Square,
};

/// The move in UCI notation: king to rook for Chess960 castling (as engines
/// in `UCI_Chess960` mode expect), king two squares for standard chess.
pub fn uci(mv: Move, mode: CastlingMode) -> UciMove {
    UciMove::from_move(mv, mode)
}

/// Appends [`uci`]'s text of the move to `out`, byte for byte what
/// `uci(mv, mode).append_ascii_to(out)` writes, the squares in one
/// four-byte write: the record formats write a million moves for 12,000
/// games, and shakmaty's writer goes byte by byte through a trait.
pub fn push_uci(mv: Move, mode: CastlingMode, out: &mut Vec<u8>) {
    let (from, to, promotion) = match mv {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => (from, to, promotion),
        Move::EnPassant { from, to } => (from, to, None),
        Move::Castle { king, rook } => match mode {
            CastlingMode::Chess960 => (king, rook, None),
            CastlingMode::Standard => {
                let side = CastlingSide::from_king_side(king < rook);
                (
                    king,
                    Square::from_coords(side.king_to_file(), king.rank()),
                    None,
                )
            }
        },
        Move::Put { .. } => return uci(mv, mode).append_ascii_to(out),
    };
    let [a, b] = square_bytes(from);
    let [c, d] = square_bytes(to);
    // A constant length, so that the copy is one store rather than a call.
    out.extend_from_slice(&[a, b, c, d]);
    if let Some(role) = promotion {
        out.push(role.char() as u8);
    }
}

/// A square's two bytes, `e4`.
fn square_bytes(sq: Square) -> [u8; 2] {
    // File and rank characters are ASCII letters and digits.
    [sq.file().char() as u8, sq.rank().char() as u8]
}

/// `12.Nf3` or `12...Nf3` for ply `ply` of a game starting at `first`: a
/// move as the scoresheet names it.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::notation::move_name;
/// use shakmaty::Color;
/// assert_eq!(move_name(1, (1, Color::White), "e4"), "1.e4");
/// assert_eq!(move_name(108, (1, Color::White), "Nxg2"), "54...Nxg2");
/// assert_eq!(move_name(1, (30, Color::Black), "Kg7"), "30...Kg7");
/// // A FEN's largest move number does not wrap to 0.
/// assert_eq!(move_name(3, (u32::MAX, Color::White), "Kb1"), "4294967296.Kb1");
/// ```
pub fn move_name(ply: u32, first: (u32, Color), san: &str) -> String {
    // In u64: a FEN may start at move 4294967295, and a ply count is a u32.
    let index = u64::from(ply.max(1) - 1) + u64::from(first.1 == Color::Black);
    let number = u64::from(first.0) + index / 2;
    let dots = if index % 2 == 1 { "..." } else { "." };
    format!("{number}{dots}{san}")
}

/// The ply and the move of a move named as [`move_name`] names it
/// (`12...Nxf6+`), in a game starting at `first`: the inverse of
/// [`move_name`], to place a move a repair names (`31.Qd1`) in the game.
/// `None` for a word that is no number, dots and a move, or whose number
/// names a ply before the game's first (or past a ply count).
///
/// # Examples
///
/// ```
/// use pgnkit::rules::notation::named_ply;
/// use shakmaty::Color;
/// assert_eq!(named_ply("1.e4", (1, Color::White)), Some((1, "e4")));
/// assert_eq!(named_ply("54...Nxg2", (1, Color::White)), Some((108, "Nxg2")));
/// // A game from a FEN with Black to move at move 30.
/// assert_eq!(named_ply("30...Kg7", (30, Color::Black)), Some((1, "Kg7")));
/// assert_eq!(named_ply("29.Qd1", (30, Color::Black)), None);
/// assert_eq!(named_ply("Nf3", (1, Color::White)), None);
/// assert_eq!(named_ply("(missing)", (1, Color::White)), None);
/// ```
pub fn named_ply(word: &str, first: (u32, Color)) -> Option<(u32, &str)> {
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    let number: u64 = word[..digits].parse().ok()?;
    let rest = &word[digits..];
    let (black, san) = if let Some(san) = rest.strip_prefix("...") {
        (true, san)
    } else {
        (false, rest.strip_prefix('.')?)
    };
    if san.is_empty() || san.starts_with('.') {
        return None;
    }
    // As move_name counts: the index from the game's first ply, in u64.
    let index = (number.checked_sub(u64::from(first.0))? * 2 + u64::from(black))
        .checked_sub(u64::from(first.1 == Color::Black))?;
    let ply = u32::try_from(index.checked_add(1)?).ok()?;
    Some((ply, san))
}

/// The move in long algebraic notation with piece letters: `Ng1-f3`,
/// `e4xd5`, `e7-e8=Q`, `O-O`, with the check suffix of `san`.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::notation::lan;
/// use shakmaty::{Chess, Position, uci::UciMove};
/// let pos = Chess::default();
/// let mv = UciMove::from_ascii(b"g1f3").unwrap().to_move(&pos).unwrap();
/// assert_eq!(lan(mv, None), "Ng1-f3");
/// ```
pub fn lan(mv: Move, suffix: Option<Suffix>) -> String {
    let mut s = String::with_capacity(8);
    match mv {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            if role != Role::Pawn {
                s.push(role.upper_char());
            }
            push_square(&mut s, from);
            s.push(if capture.is_some() { 'x' } else { '-' });
            push_square(&mut s, to);
            if let Some(p) = promotion {
                s.push('=');
                s.push(p.upper_char());
            }
        }
        Move::EnPassant { from, to } => {
            push_square(&mut s, from);
            s.push('x');
            push_square(&mut s, to);
        }
        Move::Castle { king, rook } => {
            s.push_str(if king < rook { "O-O" } else { "O-O-O" });
        }
        Move::Put { role, to } => {
            s.push(role.upper_char());
            s.push('@');
            push_square(&mut s, to);
        }
    }
    if let Some(suffix) = suffix {
        s.push(suffix.char());
    }
    s
}

fn push_square(s: &mut String, sq: Square) {
    s.push(sq.file().char());
    s.push(sq.rank().char());
}

/// The position as FEN: the en passant square only when an en passant
/// capture is legal, castling as `KQkq` in standard chess and as
/// Shredder-FEN (rook files, `HAha`) in Chess960.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::notation::fen;
/// use shakmaty::{CastlingMode, Chess};
/// let start = fen(&Chess::default(), CastlingMode::Standard);
/// assert_eq!(start, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
/// let c960 = fen(&Chess::default(), CastlingMode::Chess960);
/// assert_eq!(c960, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1");
/// ```
pub fn fen(pos: &Chess, mode: CastlingMode) -> String {
    match mode {
        // Written once into a string of a FEN's usual length, not through
        // `Display` into one that grows.
        CastlingMode::Standard => {
            let mut out = Vec::with_capacity(92);
            append_fen(pos, mode, &mut out);
            String::from_utf8(out).expect("a FEN is ASCII")
        }
        CastlingMode::Chess960 => with_castling(
            Fen::from_position(pos, EnPassantMode::Legal).to_string(),
            pos,
            mode,
        ),
    }
}

/// Appends [`fen`] to `out`, without an intermediate string for standard
/// chess (the hot path of `--to jsonl`, which writes a FEN after every move).
pub fn append_fen(pos: &Chess, mode: CastlingMode, out: &mut Vec<u8>) {
    match mode {
        CastlingMode::Standard => {
            Fen::from_position(pos, EnPassantMode::Legal).append_ascii_to(out);
        }
        CastlingMode::Chess960 => out.extend_from_slice(fen(pos, mode).as_bytes()),
    }
}

/// The position as the four fields of EPD, written as [`fen`] writes them.
pub fn epd(pos: &Chess, mode: CastlingMode) -> String {
    with_castling(
        Epd::from_position(pos, EnPassantMode::Legal).to_string(),
        pos,
        mode,
    )
}

/// Rewrites the castling field (the third) of a FEN or EPD as Shredder-FEN
/// for Chess960. shakmaty writes X-FEN, which is `KQkq` whenever the rooks
/// are the outermost ones; standard positions need no change.
fn with_castling(text: String, pos: &Chess, mode: CastlingMode) -> String {
    if mode == CastlingMode::Standard {
        return text;
    }
    let rights = pos.castles().castling_rights();
    let mut field = String::new();
    for color in Color::ALL {
        for rook in (rights & color.backrank()).into_iter().rev() {
            let c = rook.file().char();
            field.push(color.fold_wb(c.to_ascii_uppercase(), c));
        }
    }
    if field.is_empty() {
        return text;
    }
    let mut fields: Vec<&str> = text.split(' ').collect();
    fields[2] = &field;
    fields.join(" ")
}

/// A move of a UCI move list that could not be played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UciMoveError<'w> {
    /// 1-based place of the move in the list (its ply from the start).
    pub ply: u32,
    /// The move as given.
    pub text: &'w str,
    /// Whether the text is not UCI at all or a UCI move that is not legal.
    pub kind: UciMoveErrorKind,
}

/// Why a UCI move could not be played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UciMoveErrorKind {
    /// The text is not a move in UCI notation.
    Syntax,
    /// A UCI move, but not a legal one in the position reached.
    Illegal,
}

impl fmt::Display for UciMoveError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            UciMoveErrorKind::Syntax => write!(f, "`{}` is not a move in UCI notation", self.text),
            UciMoveErrorKind::Illegal => write!(f, "`{}` is not a legal move", self.text),
        }
    }
}

impl std::error::Error for UciMoveError<'_> {}

/// Plays the UCI moves `words` from `pos`, one after the other, the one UCI
/// move-list player (`perft --moves`, `convert --from uci`). Each word is
/// read as UCI, checked legal in the position reached, and handed to
/// `play`, which must play it on the position it is given (it may look at
/// the position before and after, to write SAN say). Castling is read in
/// both forms, king to rook (`e1h1`) and, in standard chess, king two
/// squares (`e1g1`).
///
/// # Errors
///
/// [`UciMoveError`] for the first word that is not UCI or not legal; `pos`
/// is then the position it was tried in.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::notation::{UciMoveErrorKind, play_uci_moves};
/// use shakmaty::{Chess, Position};
/// let mut pos = Chess::default();
/// play_uci_moves(&mut pos, ["e2e4", "e7e5"], |p, m| p.play_unchecked(m)).unwrap();
/// assert_eq!(pos.fullmoves().get(), 2);
/// let err = play_uci_moves(&mut pos, ["g1f3", "e7e5"], |p, m| p.play_unchecked(m)).unwrap_err();
/// assert_eq!((err.ply, err.kind), (2, UciMoveErrorKind::Illegal));
/// ```
pub fn play_uci_moves<'w>(
    pos: &mut Chess,
    words: impl IntoIterator<Item = &'w str>,
    mut play: impl FnMut(&mut Chess, Move),
) -> Result<(), UciMoveError<'w>> {
    for (text, ply) in words.into_iter().zip(1u32..) {
        let error = |kind| UciMoveError { ply, text, kind };
        let uci =
            UciMove::from_ascii(text.as_bytes()).map_err(|_| error(UciMoveErrorKind::Syntax))?;
        let mv = uci
            .to_move(pos)
            .map_err(|_| error(UciMoveErrorKind::Illegal))?;
        play(pos, mv);
    }
    Ok(())
}

/// `moves` (UCI) played from `pos`, written as a scoresheet writes a line:
/// SAN with move numbers (`57...Kb3 58.Qc2#`); `None` when one is not
/// legal.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::notation::numbered_line;
/// use shakmaty::{Chess, uci::UciMove};
/// let moves: Vec<UciMove> = ["f2f3", "e7e5", "g2g4", "d8h4"].iter().map(|m| m.parse().unwrap()).collect();
/// assert_eq!(numbered_line(&Chess::default(), &moves).unwrap(), "1.f3 e5 2.g4 Qh4#");
/// assert_eq!(numbered_line(&Chess::default(), &moves[1..]), None);
/// ```
pub fn numbered_line(pos: &Chess, moves: &[UciMove]) -> Option<String> {
    let mut pos = pos.clone();
    let mut words = Vec::with_capacity(moves.len());
    for (i, uci) in moves.iter().enumerate() {
        let mv = uci.to_move(&pos).ok()?;
        let (number, turn) = (pos.fullmoves().get(), pos.turn());
        let san = shakmaty::san::SanPlus::from_move_and_play_unchecked(&mut pos, mv);
        words.push(match turn {
            Color::White => format!("{number}.{san}"),
            Color::Black if i == 0 => format!("{number}...{san}"),
            Color::Black => san.to_string(),
        });
    }
    Some(words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `push_uci` writes shakmaty's text for every legal move three plies
    /// deep, and `fen` shakmaty's FEN for every position reached, from
    /// positions with castling both ways (standard and Chess960, king and
    /// rook side by side), en passant and promotions with capture.
    #[test]
    fn push_uci_writes_what_shakmaty_writes() {
        fn walk(pos: &Chess, mode: CastlingMode, depth: u32, seen: &mut usize) {
            // `fen` writes what shakmaty's `Display` writes (with the
            // Shredder castling field in Chess960).
            let display = Fen::from_position(pos, EnPassantMode::Legal).to_string();
            assert_eq!(fen(pos, mode), with_castling(display, pos, mode));
            for m in pos.legal_moves() {
                let mut ours = b"x ".to_vec();
                push_uci(m, mode, &mut ours);
                let mut theirs = b"x ".to_vec();
                uci(m, mode).append_ascii_to(&mut theirs);
                assert_eq!(ours, theirs, "{m:?} in {}", fen(pos, mode));
                *seen += 1;
                if depth > 1 {
                    let mut next = pos.clone();
                    next.play_unchecked(m);
                    walk(&next, mode, depth - 1, seen);
                }
            }
        }
        let fens = [
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                CastlingMode::Standard,
            ),
            (
                "1rqbkrbn/1ppppp1p/1n6/p1N3p1/8/2P4P/PP1PPPP1/1RQBKRBN w FBfb - 0 9",
                CastlingMode::Chess960,
            ),
            (
                "rk2r3/8/8/8/8/8/8/RK2R3 w AEae - 0 1",
                CastlingMode::Chess960,
            ),
        ];
        let mut seen = 0;
        for (text, mode) in fens {
            let setup: Fen = text.parse().expect("a FEN");
            let pos: Chess = setup.into_position(mode).expect("a legal position");
            walk(&pos, mode, 3, &mut seen);
        }
        assert!(seen > 100_000, "{seen} moves");
    }

    #[test]
    fn uci_move_lists_stop_at_the_first_bad_word() {
        let mut pos = Chess::default();
        let mut played = Vec::new();
        let err = play_uci_moves(&mut pos, "e2e4 e7e5 e1g1 x".split(' '), |p, m| {
            played.push(m);
            p.play_unchecked(m);
        })
        .unwrap_err();
        assert_eq!(played.len(), 2);
        assert_eq!(
            (err.ply, err.text, err.kind),
            (3, "e1g1", UciMoveErrorKind::Illegal)
        );
        assert_eq!(err.to_string(), "`e1g1` is not a legal move");
        assert_eq!(
            fen(&pos, CastlingMode::Standard),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
        );
        let err = play_uci_moves(&mut pos, ["Nf3"], |p, m| p.play_unchecked(m)).unwrap_err();
        assert_eq!(err.kind, UciMoveErrorKind::Syntax);
        assert_eq!(err.to_string(), "`Nf3` is not a move in UCI notation");
    }

    #[test]
    fn chess960_fen_and_epd_use_shredder_castling() {
        let pos = Chess::default();
        assert_eq!(
            epd(&pos, CastlingMode::Chess960),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha -"
        );
        let mut out = b"> ".to_vec();
        append_fen(&pos, CastlingMode::Chess960, &mut out);
        assert_eq!(
            out,
            b"> rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"
        );
    }
}
