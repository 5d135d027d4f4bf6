//! Where a game starts: the standard position, or the `FEN` tag, with
//! standard or Chess960 castling as the `Variant` tag or the FEN require.

use std::fmt;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, PositionErrorKinds};

use super::finding::{Code, Finding};
use super::game::RawGame;

/// Why a position could not be set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupError {
    /// The `Variant` tag names a variant pgnkit does not replay.
    UnsupportedVariant(String),
    /// The FEN does not parse or is not a legal setup.
    InvalidFen { fen: String, reason: String },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::UnsupportedVariant(v) => write!(f, "variant \"{v}\" is not supported"),
            SetupError::InvalidFen { fen, reason } => write!(f, "{reason}: \"{fen}\""),
        }
    }
}

impl std::error::Error for SetupError {}

impl SetupError {
    /// The finding that reports this error for `game`, at the line of the
    /// tag to blame (`Variant` or `FEN`).
    pub fn finding(&self, game: &RawGame<'_>) -> Finding {
        let (code, tag) = match self {
            SetupError::UnsupportedVariant(_) => (Code::UnsupportedVariant, "Variant"),
            SetupError::InvalidFen { .. } => (Code::InvalidFen, "FEN"),
        };
        let line = game.tag(tag).map_or(game.line, |t| t.line);
        Finding::game(code, line, self.to_string())
    }
}

/// The starting position of a game and the castling rules it is played with.
#[derive(Debug, Clone)]
pub struct Start {
    pub pos: Chess,
    pub mode: CastlingMode,
    /// Whether the game starts from a `FEN` tag.
    pub from_fen: bool,
}

/// Reads a `Variant` tag value: `Ok(true)` for Chess960, `Ok(false)` for
/// standard chess, `Err` for anything else. Case-insensitive, and accepts
/// the spellings found in real archives.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::setup::variant_is_chess960;
/// assert_eq!(variant_is_chess960("Fischer Random"), Ok(true));
/// assert_eq!(variant_is_chess960("From Position"), Ok(false));
/// assert!(variant_is_chess960("crazyhouse").is_err());
/// ```
pub fn variant_is_chess960(value: &str) -> Result<bool, UnknownVariant> {
    let v = value.trim().to_ascii_lowercase();
    match v.as_str() {
        "" | "standard" | "normal" | "from position" | "chess" => Ok(false),
        "chess960" | "chess 960" | "chess-960" | "960" | "fischerandom" | "fischer random"
        | "fischer-random" | "fischerrandom" | "frc" => Ok(true),
        _ => Err(UnknownVariant),
    }
}

/// A `Variant` tag value that names neither standard chess nor Chess960.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownVariant;

/// Parses a FEN (missing trailing fields default) into a legal position.
/// Standard castling is tried first unless `chess960`; a FEN whose castling
/// rights only make sense in Chess960 (X-FEN or Shredder-FEN on rooks that
/// are not in the corners) is set up as Chess960.
///
/// # Errors
///
/// [`SetupError::InvalidFen`] when the text is not a FEN or the position is
/// not legal (missing king, pawns on the back rank, side not to move in
/// check, …).
///
/// # Examples
///
/// ```
/// use pgnkit::rules::setup::parse_fen;
/// use shakmaty::{CastlingMode, Position};
/// let (pos, mode) = parse_fen("8/8/8/8/8/8/8/K1k5 w - -", false).unwrap();
/// assert_eq!(mode, CastlingMode::Standard);
/// assert_eq!(pos.legal_moves().len(), 1); // Ka2: b1 and b2 are covered
/// assert!(parse_fen("8/8/8 w - -", false).is_err());
/// ```
pub fn parse_fen(text: &str, chess960: bool) -> Result<(Chess, CastlingMode), SetupError> {
    let invalid = |reason: String| SetupError::InvalidFen {
        fen: text.to_owned(),
        reason,
    };
    let fen = Fen::from_ascii(text.trim().as_bytes()).map_err(|e| invalid(e.to_string()))?;
    let first = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    match fen.clone().into_position::<Chess>(first) {
        Ok(pos) => Ok((pos, first)),
        Err(err)
            if first == CastlingMode::Standard
                && err.kinds() == PositionErrorKinds::INVALID_CASTLING_RIGHTS =>
        {
            fen.into_position::<Chess>(CastlingMode::Chess960)
                .map(|pos| (pos, CastlingMode::Chess960))
                .map_err(|e| invalid(e.to_string()))
        }
        Err(err) => Err(invalid(err.to_string())),
    }
}

/// The starting position of `game`, from its `Variant` and `FEN` tags.
///
/// # Errors
///
/// [`SetupError`] for an unsupported variant or an invalid FEN.
pub fn start_position(game: &RawGame<'_>) -> Result<Start, SetupError> {
    let chess960 = match game.tag_text("Variant") {
        Some(v) => variant_is_chess960(&v)
            .map_err(|UnknownVariant| SetupError::UnsupportedVariant(v.into_owned()))?,
        None => false,
    };
    match game.tag_text("FEN") {
        Some(fen) => {
            let (pos, mode) = parse_fen(&fen, chess960)?;
            Ok(Start {
                pos,
                mode,
                from_fen: true,
            })
        }
        None => Ok(Start {
            pos: Chess::default(),
            mode: if chess960 {
                CastlingMode::Chess960
            } else {
                CastlingMode::Standard
            },
            from_fen: false,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    #[test]
    fn shredder_fen_on_inner_rooks_is_chess960() {
        let (pos, mode) = parse_fen(
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            false,
        )
        .unwrap();
        assert_eq!(mode, CastlingMode::Chess960);
        assert_eq!(pos.legal_moves().len(), 21);
    }

    #[test]
    fn illegal_setups_are_rejected_with_a_reason() {
        let err = parse_fen("8/8/8/8/8/8/8/8 w - - 0 1", false).unwrap_err();
        assert!(err.to_string().contains("illegal position"), "{err}");
        assert!(
            parse_fen(
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
                false
            )
            .is_err()
        );
    }
}
