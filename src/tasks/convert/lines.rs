//! `convert`'s line inputs (`--from uci|fen|epd`): one line, a game. A FEN
//! or EPD line is a game without moves from that position, a UCI line a
//! game of the moves it plays; each gets the Seven Tag Roster (and `SetUp`,
//! `FEN`, `Variant` as the start needs), the same [`ConvertedGame`] a PGN
//! game converts to. Telling the formats apart and splitting the input into
//! lines is [`crate::input::lines`]'s; reading a FEN is
//! [`crate::rules::setup`]'s, playing UCI moves [`crate::rules::notation`]'s.

use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, Position};

use super::{Annotations, ConvertedGame, ConvertedPly};
use crate::rules::finding::{Code, Finding};
use crate::rules::game::{GameResult, roster_with_result};
use crate::rules::notation::{UciMoveErrorKind, fen, play_uci_moves};
use crate::rules::setup::{FenLeniency, Start, read_start};

/// The seven tags every game made from a line gets, as PGN export needs.
fn roster(result: GameResult) -> Vec<(String, String)> {
    roster_with_result(result)
        .into_iter()
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect()
}

/// Tags for a game that starts from `start` (a line of FEN or UCI input).
fn line_tags(start: &Start, result: GameResult) -> Vec<(String, String)> {
    let mut tags = roster(result);
    if start.mode == CastlingMode::Chess960 {
        tags.push(("Variant".to_owned(), "Chess960".to_owned()));
    }
    if start.from_fen {
        tags.push(("SetUp".to_owned(), "1".to_owned()));
        tags.push(("FEN".to_owned(), fen(&start.pos, start.mode)));
    }
    tags
}

/// The result the rules give a final position: mate or stalemate, else `*`.
fn board_result(pos: &Chess) -> GameResult {
    if pos.is_checkmate() {
        GameResult::win_for(!pos.turn())
    } else if pos.is_stalemate() {
        GameResult::Draw
    } else {
        GameResult::Unfinished
    }
}

fn failed_game(tags: Vec<(String, String)>, finding: Finding) -> ConvertedGame {
    ConvertedGame {
        tags,
        start: None,
        pre: Annotations::default(),
        plies: Vec::new(),
        marker: None,
        error: Some(finding),
        left_out: Vec::new(),
        readings: Vec::new(),
        end: None,
        opening: None,
        time_control: None,
        time_spent: None,
        match_ply: None,
    }
}

/// A game without moves from one line of FEN or EPD input (`line` is its
/// line number). The first four fields are the position; two numbers after
/// them are the clocks, anything else (EPD operations) is ignored. The game
/// gets the Seven Tag Roster (`?`, Result `*`), `SetUp` and the normalised
/// `FEN`, and `Variant "Chess960"` for Shredder-FEN or X-FEN castling on
/// inner rooks.
///
/// # Examples
///
/// ```
/// use pgnkit::tasks::convert::lines::game_from_position_line;
/// use pgnkit::rules::notation::fen;
/// // The en passant square goes: no pawn can take on e3.
/// let game = game_from_position_line("4k3/8/8/8/4P3/8/8/4K3 b - e3 5 40", 1);
/// let start = game.start.unwrap();
/// assert_eq!(fen(&start.pos, start.mode), "4k3/8/8/8/4P3/8/8/4K3 b - - 5 40");
/// ```
pub fn game_from_position_line(text: &str, line: u64) -> ConvertedGame {
    game_from_line_position(text, line, FenLeniency::EPD_LINE)
}

/// A game without moves from one line of `--from fen` input: as
/// [`game_from_position_line`], but the line must be a FEN and nothing
/// else ([`FenLeniency::FEN_LINE`]).
///
/// # Examples
///
/// ```
/// use pgnkit::tasks::convert::lines::game_from_fen_line;
/// assert!(game_from_fen_line("8/8/8/8/8/8/8/K1k5 w - - 0 1", 1).error.is_none());
/// assert!(game_from_fen_line("8/8/8/8/8/8/8/K1k5 w - - 0 1 junk", 2).error.is_some());
/// ```
pub fn game_from_fen_line(text: &str, line: u64) -> ConvertedGame {
    game_from_line_position(text, line, FenLeniency::FEN_LINE)
}

fn game_from_line_position(text: &str, line: u64, leniency: FenLeniency) -> ConvertedGame {
    match read_start(text, leniency) {
        Ok(start) => ConvertedGame {
            tags: line_tags(&start, GameResult::Unfinished),
            end: Some(start.pos.clone()),
            opening: None,
            time_control: None,
            time_spent: None,
            match_ply: None,
            start: Some(start),
            pre: Annotations::default(),
            plies: Vec::new(),
            marker: Some(GameResult::Unfinished),
            error: None,
            left_out: Vec::new(),
            readings: Vec::new(),
        },
        Err(err) => failed_game(
            roster(GameResult::Unfinished),
            Finding::game(Code::InvalidFen, line, err.to_string()),
        ),
    }
}

/// A game from one line of UCI input (`line` is its line number): bare UCI
/// moves from the start position, or the UCI `position` syntax
/// (`startpos moves …`, `fen <FEN> moves …`), with or without a leading
/// `position`. An empty line is a game without moves. Castling is read in
/// both forms (`e1g1` and king to rook). The game gets the Seven Tag Roster
/// with the result a mate or stalemate gives (else `*`), and `SetUp`/`FEN`
/// (and `Variant "Chess960"`) when it starts from a FEN.
///
/// # Examples
///
/// ```
/// use pgnkit::tasks::convert::lines::game_from_uci_line;
/// let game = game_from_uci_line("position startpos moves e2e4 e7e5 g1f3", 1);
/// let sans: Vec<String> = game.plies.iter().map(|p| p.san.to_string()).collect();
/// assert_eq!(sans, ["e4", "e5", "Nf3"]);
/// assert!(game_from_uci_line("e2e5", 7).error.is_some());
/// ```
pub fn game_from_uci_line(text: &str, line: u64) -> ConvertedGame {
    let mut words = text.split_ascii_whitespace().peekable();
    if words.peek() == Some(&"position") {
        words.next();
    }
    let start = match words.peek().copied() {
        Some("startpos") => {
            words.next();
            Ok(Start {
                pos: Chess::default(),
                mode: CastlingMode::Standard,
                from_fen: false,
            })
        }
        Some("fen") => {
            words.next();
            let mut fields = Vec::new();
            while let Some(w) = words.next_if(|w| *w != "moves") {
                fields.push(w);
            }
            read_start(&fields.join(" "), FenLeniency::UCI_LINE)
        }
        _ => Ok(Start {
            pos: Chess::default(),
            mode: CastlingMode::Standard,
            from_fen: false,
        }),
    };
    let start = match start {
        Ok(start) => start,
        Err(err) => {
            return failed_game(
                roster(GameResult::Unfinished),
                Finding::game(Code::InvalidFen, line, err.to_string()),
            );
        }
    };
    if words.peek() == Some(&"moves") {
        words.next();
    }
    let mut pos = start.pos.clone();
    let mut plies = Vec::new();
    let played = play_uci_moves(&mut pos, words, |pos, mv| {
        let san = SanPlus::from_move_and_play_unchecked(pos, mv);
        plies.push(ConvertedPly {
            mv,
            san,
            annotations: None,
        });
    });
    let error = played.err().map(|err| {
        let mut message = err.to_string();
        let code = match err.kind {
            UciMoveErrorKind::Syntax => Code::Syntax,
            UciMoveErrorKind::Illegal => {
                if pos.is_check() {
                    message.push_str(" (the side to move is in check)");
                }
                Code::IllegalMove
            }
        };
        Finding::at_ply(code, line, err.ply, err.text, message)
    });
    let result = if error.is_some() {
        GameResult::Unfinished
    } else {
        board_result(&pos)
    };
    ConvertedGame {
        tags: line_tags(&start, result),
        start: Some(start),
        pre: Annotations::default(),
        plies,
        marker: Some(result),
        error,
        left_out: Vec::new(),
        readings: Vec::new(),
        end: Some(pos),
        opening: None,
        time_control: None,
        time_spent: None,
        match_ply: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sans(game: &ConvertedGame) -> Vec<String> {
        game.plies.iter().map(|p| p.san.to_string()).collect()
    }

    #[test]
    fn uci_lines() {
        for text in [
            "e2e4 e7e5",
            "startpos moves e2e4 e7e5",
            "position startpos moves e2e4 e7e5",
            "  moves e2e4 e7e5 ",
        ] {
            let game = game_from_uci_line(text, 1);
            assert!(game.error.is_none(), "{text}");
            assert_eq!(sans(&game), ["e4", "e5"], "{text}");
            assert!(game.tag("FEN").is_none());
        }
        let empty = game_from_uci_line("", 1);
        assert!(empty.plies.is_empty() && empty.error.is_none());
        let from_fen = game_from_uci_line("fen 4k3/8/8/8/8/8/8/R3K3 w Q - 0 1 moves e1c1", 1);
        assert_eq!(sans(&from_fen), ["O-O-O"]);
        assert_eq!(from_fen.tag("FEN"), Some("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"));
        let mate = game_from_uci_line("f2f3 e7e5 g2g4 d8h4", 1);
        assert_eq!(mate.result(), GameResult::BlackWins);
        let bad = game_from_uci_line("e2e4 e2e4", 9).error.unwrap();
        assert_eq!(
            (bad.code, bad.line, bad.ply),
            (Code::IllegalMove, 9, Some(2))
        );
        let junk = game_from_uci_line("e2e4 Nf3", 9).error.unwrap();
        assert_eq!(junk.code, Code::Syntax);
        let badfen = game_from_uci_line("fen 8/8 w - - moves", 3).error.unwrap();
        assert_eq!(badfen.code, Code::InvalidFen);
    }

    #[test]
    fn position_lines() {
        let game = game_from_position_line(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            1,
        );
        assert_eq!(
            game.tag("FEN"),
            Some("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
        );
        let epd = game_from_position_line(
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5; id \"x\";",
            2,
        );
        assert!(epd.error.is_none());
        let bad = game_from_position_line("8/8/8/8/8/8/8/8 w - - 0 1", 4);
        assert_eq!(bad.error.unwrap().code, Code::InvalidFen);
    }

    #[test]
    fn fen_lines_refuse_what_follows_the_fen() {
        // See issue 12: `--from fen` rejects trailing junk as perft does.
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
        assert!(game_from_fen_line(fen, 1).error.is_none());
        assert!(
            game_from_fen_line("8/8/8/8/8/8/8/K1k5 w - -", 1)
                .error
                .is_none()
        );
        for junk in [" junk", " bm Ka2;", " 0"] {
            let text = format!("{fen}{junk}");
            let err = game_from_fen_line(&text, 5).error.unwrap();
            assert_eq!((err.code, err.line), (Code::InvalidFen, 5), "{text}");
            // The EPD reading ignores (or reads) what follows the position.
            assert!(game_from_position_line(&text, 5).error.is_none(), "{text}");
        }
    }
}
