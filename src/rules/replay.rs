//! Replaying the main line of a game: SAN tokens → legal moves, stopping at
//! the first token that is not a legal move.
//!
//! What a replay is used for (checks, outcomes, conversion) is up to the
//! caller, which sees every ply through a callback. Reading and resolving
//! one SAN token is [`super::san`]'s; this module turns its errors into
//! findings.

use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position};

use super::finding::{Code, Finding};
use super::game::{RawGame, Token};
use super::san::{parse_san, resolve_with_check};
// Shim for callers of the old path (check.rs, input/scan.rs); the lead
// removes it at merge.

/// One ply as it was played.
#[derive(Debug)]
pub struct PlyEvent<'e, 'a> {
    /// 1-based ply number.
    pub ply: u32,
    pub token: &'e Token<'a>,
    pub san: SanPlus,
    pub mv: Move,
    /// The position after the move.
    pub after: &'e Chess,
    /// Whether the move gives check.
    pub check: bool,
}

/// The end of a replay.
#[derive(Debug, Clone)]
pub struct Replayed {
    /// The position after the last legal move.
    pub pos: Chess,
    /// Legal main-line plies played.
    pub plies: u32,
    /// The token that stopped the replay, if one did.
    pub error: Option<Finding>,
}

/// Replays the main line of `game` from `start`, calling `on_ply` after
/// every legal move.
///
/// # Examples
///
/// ```
/// use pgnkit::input::scan::scan;
/// use pgnkit::rules::replay::replay;
/// use shakmaty::Chess;
/// let scan = scan(b"1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0", true);
/// let done = replay(&scan.games[0], Chess::default(), |_| {});
/// assert_eq!(done.plies, 7);
/// assert!(done.error.is_none());
/// ```
pub fn replay<'a>(
    game: &RawGame<'a>,
    start: Chess,
    mut on_ply: impl FnMut(&PlyEvent<'_, 'a>),
) -> Replayed {
    let mut in_check = start.is_check();
    let mut pos = start;
    let mut ply = 0u32;
    for token in game.main_line() {
        ply += 1;
        let shown = || String::from_utf8_lossy(token.text).into_owned();
        let san = match parse_san(token.text) {
            Ok(san) => san,
            Err(err) => {
                let message = match uci_hint(token.text, &pos) {
                    Some(hint) => format!("{err} ({hint})"),
                    None => err.to_string(),
                };
                return stopped(
                    pos,
                    ply,
                    Finding::at_ply(Code::Syntax, token.line, ply, shown(), message),
                );
            }
        };
        let mv = match resolve_with_check(&pos, &san.san, in_check) {
            Ok(mv) => mv,
            Err(err) => {
                let finding = match (err, san.san) {
                    (_, San::Null) => Finding::at_ply(
                        Code::NullMove,
                        token.line,
                        ply,
                        shown(),
                        "a null move is not a legal move",
                    ),
                    (SanError::AmbiguousSan, _) => Finding::at_ply(
                        Code::AmbiguousMove,
                        token.line,
                        ply,
                        shown(),
                        format!("`{}` matches several legal moves", shown()),
                    ),
                    _ => {
                        let mut message = format!("`{}` is not a legal move", shown());
                        if let Some(hint) = uci_hint(token.text, &pos) {
                            message = format!("`{}` is not SAN ({hint})", shown());
                            return stopped(
                                pos,
                                ply,
                                Finding::at_ply(Code::Syntax, token.line, ply, shown(), message),
                            );
                        }
                        if in_check {
                            message.push_str(" (the side to move is in check)");
                        }
                        Finding::at_ply(Code::IllegalMove, token.line, ply, shown(), message)
                    }
                };
                return stopped(pos, ply, finding);
            }
        };
        pos.play_unchecked(mv);
        in_check = pos.is_check();
        on_ply(&PlyEvent {
            ply,
            token,
            san,
            mv,
            after: &pos,
            check: in_check,
        });
    }
    Replayed {
        pos,
        plies: ply,
        error: None,
    }
}

fn stopped(pos: Chess, ply: u32, finding: Finding) -> Replayed {
    Replayed {
        pos,
        plies: ply - 1,
        error: Some(finding),
    }
}

/// Whether `text` is a legal move in UCI notation (`g1f3`) in `pos`: a game
/// written in UCI, not a slip.
pub fn is_uci_move(text: &[u8], pos: &Chess) -> bool {
    uci_hint(text, pos).is_some()
}

/// When `text` is a legal move in UCI notation (`g1f3`), says so.
fn uci_hint(text: &[u8], pos: &Chess) -> Option<&'static str> {
    let looks_uci = matches!(text.len(), 4 | 5)
        && text[0].is_ascii_lowercase()
        && text[1].is_ascii_digit()
        && text[2].is_ascii_lowercase()
        && text[3].is_ascii_digit();
    if !looks_uci {
        return None;
    }
    let uci = UciMove::from_ascii(text).ok()?;
    uci.to_move(pos).ok().map(|_| "a move in UCI notation")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::scan::scan;

    fn run(movetext: &str) -> Replayed {
        let scan = scan(movetext.as_bytes(), true);
        replay(&scan.games[0], Chess::default(), |_| {})
    }

    #[test]
    fn forty_three_moves_one_mate() {
        let done = run("1.e4 e5 2.Bc4 Nc6 3.Qh5 Nf6 *");
        let moves = done.pos.legal_moves();
        assert_eq!(moves.len(), 43);
        let mates: Vec<String> = moves
            .iter()
            .filter(|m| {
                let mut p = done.pos.clone();
                p.play_unchecked(**m);
                p.is_checkmate()
            })
            .map(|m| San::from_move(&done.pos, *m).to_string())
            .collect();
        assert_eq!(mates, ["Qxf7"]);
    }

    #[test]
    fn dropped_tokens_are_named() {
        for (text, want) in [
            (
                "1. e4 Nf6 2. e5 Nd5 3. c4 Nb6 4. c5 Nd5 5. Bc4 Nb6 6. cxb6 d5 7. exd6e.p. *",
                "exd6e.p.",
            ),
            ("1. Nf3++ *", "Nf3++"),
            ("1. o-o *", "o-o"),
            ("1. \u{2658}f3 *", "\u{2658}f3"),
        ] {
            let err = run(text).error.unwrap();
            assert_eq!(err.code, Code::Syntax, "{text}");
            assert_eq!(err.san.as_deref(), Some(want));
        }
    }

    #[test]
    fn uci_moves_are_syntax_not_illegal() {
        let err = run("1. g1f3 g8f6 *").error.unwrap();
        assert_eq!(err.code, Code::Syntax);
        assert!(err.message.contains("UCI"), "{}", err.message);
    }

    #[test]
    fn ambiguous_and_illegal() {
        let err = run("1. d4 d5 2. Nf3 Nf6 3. Nd2 *").error.unwrap();
        assert_eq!((err.code, err.ply), (Code::AmbiguousMove, Some(5)));
        let err = run("1. e4 e5 2. Ke3 *").error.unwrap();
        assert_eq!((err.code, err.ply), (Code::IllegalMove, Some(3)));
    }

    #[test]
    fn queenside_castling_through_attacked_b1_is_legal() {
        // The black rook attacks b1, which the white rook crosses: only the
        // king's squares count (3.8.2.2).
        let scan = scan(b"1. O-O-O *", true);
        let (pos, _) =
            crate::rules::setup::parse_fen("1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1", false).unwrap();
        let done = replay(&scan.games[0], pos, |_| {});
        assert!(done.error.is_none(), "{:?}", done.error);
    }

    #[test]
    fn a_pinned_piece_still_gives_check() {
        // The knight on e7 is pinned to its king by the rook on e1, yet the
        // white king may not step onto d5, which it attacks (3.9.1).
        let (start, _) =
            crate::rules::setup::parse_fen("4k3/4n3/8/8/3K4/8/8/4R3 w - - 0 1", false).unwrap();
        for (text, legal) in [("1. Kd5 *", false), ("1. Kc4 *", true)] {
            let scan = scan(text.as_bytes(), true);
            let done = replay(&scan.games[0], start.clone(), |_| {});
            assert_eq!(done.error.is_none(), legal, "{text}");
        }
    }

    #[test]
    fn en_passant_only_immediately() {
        let ok = run("1. e4 a6 2. e5 d5 3. exd6 *");
        assert!(ok.error.is_none());
        let late = run("1. e4 a6 2. e5 d5 3. a3 a5 4. exd6 *").error.unwrap();
        assert_eq!((late.code, late.ply), (Code::IllegalMove, Some(7)));
    }

    #[test]
    fn underpromotion_avoids_stalemate() {
        // f8=Q stalemates; f8=R, f8=B and f8=N+ do not.
        let (start, _) =
            crate::rules::setup::parse_fen("8/5P1k/8/5K2/8/8/8/8 w - - 0 1", false).unwrap();
        for (san, stalemate) in [
            ("f8=Q", true),
            ("f8=R", false),
            ("f8=B", false),
            ("f8=N+", false),
        ] {
            let text = format!("1. {san} *");
            let scan = scan(text.as_bytes(), true);
            let done = replay(&scan.games[0], start.clone(), |_| {});
            assert!(done.error.is_none());
            assert_eq!(done.pos.is_stalemate(), stalemate, "{san}");
        }
    }
}
