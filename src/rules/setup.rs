//! Where a game starts: the standard position, or the `FEN` tag, with
//! standard or Chess960 castling as the `Variant` tag or the FEN require;
//! and the one FEN reader ([`read_fen`]), which every caller (the `FEN`
//! tag, `convert`'s FEN, EPD and UCI lines, `perft`) calls with its own
//! [`FenLeniency`], stated exactly there.
//!
//! Writing FEN is [`super::notation`]'s; playing moves from the position
//! is the caller's.

use std::borrow::Cow;
use std::fmt;

use shakmaty::fen::{Fen, ParseFenError};
use shakmaty::{CastlingMode, Chess, FromSetup, PositionError, PositionErrorKinds};

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
    /// The error for `text`, read under `leniency`, failing with `err`.
    fn invalid_fen(text: &str, leniency: FenLeniency, err: &FenError) -> SetupError {
        SetupError::InvalidFen {
            fen: leniency.quoted(text),
            reason: err.to_string(),
        }
    }

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

/// Why a FEN gives no position.
#[derive(Debug, Clone)]
pub enum FenError {
    /// Nothing but whitespace (only under [`FenFields::AnyWhitespace`];
    /// the other readers report an empty text as [`FenError::Syntax`]).
    Empty,
    /// A field is syntactically wrong.
    Syntax(ParseFenError),
    /// A field is wrong in a way shakmaty's reader lets pass or names
    /// vaguely: a board that is not eight ranks of eight squares, two
    /// digits in a row, Crazyhouse pockets or Three-check counters, a clock
    /// that is not a number, a field after the sixth. Says what is wrong.
    Field(String),
    /// The FEN is well formed but the position is illegal (missing king,
    /// pawns on the back rank, castling rights without their rook, …).
    Position(Box<PositionError<Chess>>),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => f.write_str("empty fen"),
            FenError::Syntax(err) => err.fmt(f),
            FenError::Field(what) => f.write_str(what),
            FenError::Position(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for FenError {}

/// How [`read_fen`] finds the fields of a FEN in the text it is given.
///
/// Under every variant the fields themselves are read by shakmaty's FEN
/// parser, which is relaxed: castling may be standard (`KQkq`), X-FEN or
/// Shredder-FEN (`HAha`), in any order, repeated, or without a matching
/// rook; missing fields after the board default to `w - - 0 1`; a
/// fullmove number of 0 reads as 1. What it would let pass beyond that is
/// refused first (`check_fields`): the board must be eight ranks of
/// eight squares with one digit for each run of empty squares, and the
/// clocks numbers; Crazyhouse pockets, Three-check counters and any field
/// after the sixth are errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FenFields {
    /// The text trimmed of whitespace at both ends; inside it, fields are
    /// separated by runs of spaces or underscores (a tab is not a
    /// separator).
    Trimmed,
    /// Any run of whitespace, or of underscores, separates fields; a text
    /// of whitespace only is [`FenError::Empty`].
    AnyWhitespace,
    /// An EPD record or a FEN line: fields are separated by runs of ASCII
    /// whitespace; the first four are the position, the next two are read
    /// as the clocks only when both are numbers, and everything after the
    /// four fields that is not read as clocks (EPD operations such as
    /// `bm Bb5;`) is ignored.
    Epd,
}

/// When [`read_fen`] sets castling up as Chess960, besides when its caller
/// asks for Chess960.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chess960When {
    /// Standard castling is tried first, Chess960 only when the castling
    /// rights are the one thing wrong with the position in standard chess
    /// (X-FEN or Shredder-FEN naming rooks that are not in the corners, or
    /// a king that is not on the e-file).
    StandardRightsInvalid,
    /// Chess960 alone (without a standard attempt) when the castling field,
    /// the third field, holds a letter other than `K`, `Q`, `k`, `q` or `-`
    /// (Shredder-FEN, even `HAha` on the corner rooks, or X-FEN naming an
    /// inner rook); otherwise as [`Chess960When::StandardRightsInvalid`].
    CastlingLetters,
    /// Chess960 when the castling rights name other rooks under Chess960
    /// than under standard chess (shakmaty's `CastlingMode::detect`), with
    /// no second attempt: `HAha` on the corner rooks stays standard.
    Detect,
}

/// What a FEN reader accepts beyond a full, legal, six-field FEN written
/// with single spaces: how its fields are found, when its castling is
/// Chess960, and whether an impossible position is accepted. Each caller
/// has its constant; they differ, and the unit tests pin the differences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FenLeniency {
    pub fields: FenFields,
    pub chess960: Chess960When,
    /// Accept positions that shakmaty calls impossible but can still
    /// generate moves for: an impossible check (too many or misplaced
    /// checkers) and impossibly much material (ten queens).
    pub impossible: bool,
}

impl FenLeniency {
    /// The `FEN` tag of a game (validate, annotate-outcome, convert): text
    /// trimmed, fields separated by spaces or underscores, at most six;
    /// standard castling unless the `Variant` tag asks for Chess960 or the
    /// rights only make sense in Chess960; a legal position only.
    pub const TAG: FenLeniency = FenLeniency {
        fields: FenFields::Trimmed,
        chess960: Chess960When::StandardRightsInvalid,
        impossible: false,
    };
    /// The FEN of a `convert --from uci` line (`fen <FEN> moves …`, the
    /// fields given joined by single spaces): as [`FenLeniency::TAG`], but
    /// castling letters other than `KQkq` mean Chess960.
    pub const UCI_LINE: FenLeniency = FenLeniency {
        chess960: Chess960When::CastlingLetters,
        ..FenLeniency::TAG
    };
    /// A line of `convert --from fen|epd`: the four position fields, the
    /// clocks when both are numbers, EPD operations ignored; castling
    /// letters other than `KQkq` mean Chess960; a legal position only.
    pub const EPD_LINE: FenLeniency = FenLeniency {
        fields: FenFields::Epd,
        ..FenLeniency::UCI_LINE
    };
    /// A line of `convert --from fen`: as [`FenLeniency::EPD_LINE`], but
    /// the line is a FEN and nothing else: any whitespace separates its
    /// fields, and a field after the sixth (an EPD operation, trailing
    /// junk) is an error, as it is for `perft`'s FEN.
    pub const FEN_LINE: FenLeniency = FenLeniency {
        fields: FenFields::AnyWhitespace,
        ..FenLeniency::EPD_LINE
    };
    /// A position to count (`perft`, its `--fen` and suites): any
    /// whitespace separates fields, Chess960 as shakmaty detects it, and
    /// impossible checks and material are accepted, since moves can still
    /// be generated for them.
    pub const PERFT: FenLeniency = FenLeniency {
        fields: FenFields::AnyWhitespace,
        chess960: Chess960When::Detect,
        impossible: true,
    };

    /// The FEN text that [`read_fen`] parses out of `text`.
    fn fen_text(self, text: &str) -> Cow<'_, str> {
        match self.fields {
            FenFields::Trimmed => Cow::Borrowed(text.trim()),
            FenFields::AnyWhitespace => Cow::Owned(normalize_fen(text)),
            FenFields::Epd => {
                let fields: Vec<&str> = text.split_ascii_whitespace().collect();
                let numeric = |i: usize| fields.get(i).is_some_and(|f| f.parse::<u32>().is_ok());
                let take = if numeric(4) && numeric(5) {
                    6
                } else {
                    4.min(fields.len())
                };
                Cow::Owned(fields[..take].join(" "))
            }
        }
    }

    /// The text an error quotes: the FEN fields read from an EPD line, the
    /// text as given otherwise.
    fn quoted(self, text: &str) -> String {
        match self.fields {
            FenFields::Epd => self.fen_text(text).into_owned(),
            FenFields::Trimmed | FenFields::AnyWhitespace => text.to_owned(),
        }
    }
}

/// Reads a position from a FEN, as `leniency` says (see [`FenLeniency`]
/// for each caller's), with Chess960 castling when `chess960`, and returns
/// it with the castling mode it was set up with.
///
/// # Errors
///
/// [`FenError`] when the FEN is malformed or the position illegal.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::setup::{FenLeniency, read_fen};
/// use shakmaty::{CastlingMode, Position};
/// let ten_queens = "kBQQQQQQ/BR5Q/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - -";
/// assert!(read_fen(ten_queens, false, FenLeniency::TAG).is_err());
/// let (pos, mode) = read_fen(ten_queens, false, FenLeniency::PERFT).unwrap();
/// assert_eq!((pos.legal_moves().len(), mode), (270, CastlingMode::Standard));
/// ```
pub fn read_fen(
    text: &str,
    chess960: bool,
    leniency: FenLeniency,
) -> Result<(Chess, CastlingMode), FenError> {
    let fen = leniency.fen_text(text);
    if leniency.fields == FenFields::AnyWhitespace && fen.is_empty() {
        return Err(FenError::Empty);
    }
    check_fields(&fen).map_err(FenError::Field)?;
    let setup = Fen::from_ascii(fen.as_bytes())
        .map_err(FenError::Syntax)?
        .into_setup();
    let chess960 = chess960
        || (leniency.chess960 == Chess960When::CastlingLetters && has_castling_letters(&fen));
    let first = match (chess960, leniency.chess960) {
        (true, _) => CastlingMode::Chess960,
        (false, Chess960When::Detect) => CastlingMode::detect(&setup),
        (false, _) => CastlingMode::Standard,
    };
    let set_up = |setup: shakmaty::Setup, mode: CastlingMode| {
        let pos = Chess::from_setup(setup, mode);
        let pos = if leniency.impossible {
            pos.or_else(PositionError::ignore_impossible_check)
                .or_else(PositionError::ignore_too_much_material)
        } else {
            pos
        };
        pos.map_err(Box::new)
    };
    let second_chance = leniency.chess960 != Chess960When::Detect && !chess960;
    match set_up(setup.clone(), first) {
        Ok(pos) => Ok((pos, first)),
        Err(err) if second_chance && err.kinds() == PositionErrorKinds::INVALID_CASTLING_RIGHTS => {
            set_up(setup, CastlingMode::Chess960)
                .map(|pos| (pos, CastlingMode::Chess960))
                .map_err(FenError::Position)
        }
        Err(err) => Err(FenError::Position(err)),
    }
}

/// Refuses what shakmaty's FEN reader would let pass in standard chess or
/// name vaguely (see [`FenError::Field`]), with a message that says what
/// is wrong. `fen` holds the fields as the reader will see them, separated
/// by spaces or underscores.
fn check_fields(fen: &str) -> Result<(), String> {
    let mut fields = fen.split([' ', '_']).filter(|f| !f.is_empty());
    let Some(board) = fields.next() else {
        return Ok(()); // shakmaty names an empty FEN
    };
    check_board(board)?;
    // The turn, castling and en passant fields are shakmaty's to read.
    for (i, field) in fields.enumerate().skip(3) {
        if field.contains('+') {
            return Err(format!(
                "`{field}` is a Three-check counter, which standard chess does not have"
            ));
        }
        let digits = field.bytes().all(|b| b.is_ascii_digit());
        match i {
            // Other malformed clocks are shakmaty's to name.
            3 | 4 if digits && field.parse::<u32>().is_err() => {
                let clock = if i == 3 {
                    "halfmove clock"
                } else {
                    "fullmove number"
                };
                return Err(format!(
                    "the {clock} `{field}` is not a whole number from 0 to {}",
                    u32::MAX
                ));
            }
            3 | 4 => {}
            _ => return Err(format!("`{field}` follows the six fields of a FEN")),
        }
    }
    Ok(())
}

/// The board field: eight ranks of pieces and digits, each covering eight
/// squares, one digit for each run of empty squares.
fn check_board(board: &str) -> Result<(), String> {
    let piece_or_digit = |c: char| "pnbrqkPNBRQK12345678/".contains(c);
    if let Some(c) = board.chars().find(|&c| !piece_or_digit(c)) {
        let crazyhouse = if matches!(c, '[' | ']' | '~') {
            " (a Crazyhouse pocket or promoted piece, which standard chess does not have)"
        } else {
            ""
        };
        return Err(format!(
            "the board holds {c:?}, which is not a piece, a digit 1 to 8 or `/`{crazyhouse}"
        ));
    }
    let ranks = board.split('/').count();
    if ranks != 8 {
        return Err(format!("the board has {ranks} ranks, not 8"));
    }
    for (i, rank) in board.split('/').enumerate() {
        let name = 8 - i;
        if rank
            .as_bytes()
            .windows(2)
            .any(|w| w.iter().all(u8::is_ascii_digit))
        {
            return Err(format!(
                "rank {name} (`{rank}`) has two digits in a row: a run of empty squares is one digit"
            ));
        }
        let width: u32 = rank
            .bytes()
            .map(|b| {
                if b.is_ascii_digit() {
                    u32::from(b - b'0')
                } else {
                    1
                }
            })
            .sum();
        if width != 8 {
            return Err(format!(
                "rank {name} (`{rank}`) covers {width} squares, not 8"
            ));
        }
    }
    Ok(())
}

/// Whether the castling field (the third) holds Shredder-FEN or X-FEN
/// letters, anything other than `KQkq-`.
fn has_castling_letters(fen: &str) -> bool {
    let castling = fen.split_ascii_whitespace().nth(2).unwrap_or("-");
    castling.bytes().any(|b| !b"KQkq-".contains(&b))
}

/// The text with every whitespace run turned into one space, trimmed.
pub fn normalize_fen(fen: &str) -> String {
    fen.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Parses the `FEN` tag of a game ([`FenLeniency::TAG`]): missing trailing
/// fields default; standard castling is tried first unless `chess960`, and
/// a FEN whose castling rights only make sense in Chess960 (X-FEN or
/// Shredder-FEN on rooks that are not in the corners) is set up as
/// Chess960.
///
/// # Errors
///
/// [`SetupError::InvalidFen`] when the text is not a FEN or the position is
/// not legal (missing king, pawns on the back rank, side not to move in
/// check, …); it quotes the text as given.
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
    read_fen(text, chess960, FenLeniency::TAG)
        .map_err(|err| SetupError::invalid_fen(text, FenLeniency::TAG, &err))
}

/// The start of a game read from one line of input (`convert --from
/// fen|epd|uci`): the position `text` holds under `leniency`.
///
/// # Errors
///
/// [`SetupError::InvalidFen`], quoting the FEN fields read from an EPD
/// line, or else the text as given.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::setup::{FenLeniency, read_start};
/// use shakmaty::CastlingMode;
/// let line = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w HAha - bm Bb5;";
/// let start = read_start(line, FenLeniency::EPD_LINE).unwrap();
/// assert_eq!(start.mode, CastlingMode::Chess960);
/// assert!(read_start(line, FenLeniency::UCI_LINE).is_err());
/// ```
pub fn read_start(text: &str, leniency: FenLeniency) -> Result<Start, SetupError> {
    let (pos, mode) = read_fen(text, false, leniency)
        .map_err(|err| SetupError::invalid_fen(text, leniency, &err))?;
    Ok(Start {
        pos,
        mode,
        from_fen: true,
    })
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

/// The Polyglot Zobrist key of `pos`: the opening books' key, and
/// python-chess's `chess.polyglot.zobrist_hash`, whose en passant square
/// counts when a pawn of the side to move stands beside the pawn that
/// moved two squares, whether or not the capture is legal.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::setup::polyglot_key;
/// use shakmaty::{CastlingMode, Chess, Position, fen::Fen, uci::UciMove};
/// assert_eq!(polyglot_key(&Chess::default()), 0x463b_9618_1691_fc9c);
/// // After c7c5 the en passant capture b5xc6 would expose the king to the
/// // rook: illegal, yet the key counts the file, as python-chess's does.
/// let fen: Fen = "8/2p5/8/KP5r/8/8/8/4k3 b - - 0 1".parse().unwrap();
/// let mut pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
/// let mv = "c7c5".parse::<UciMove>().unwrap().to_move(&pos).unwrap();
/// pos.play_unchecked(mv);
/// assert_eq!(polyglot_key(&pos), 0x3d66_5cc1_f5da_1059);
/// ```
pub fn polyglot_key(pos: &shakmaty::Chess) -> u64 {
    use shakmaty::Position;
    pos.zobrist_hash::<shakmaty::zobrist::Zobrist64>(shakmaty::EnPassantMode::PseudoLegal)
        .0
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

    const ALL: [FenLeniency; 4] = [
        FenLeniency::TAG,
        FenLeniency::UCI_LINE,
        FenLeniency::EPD_LINE,
        FenLeniency::PERFT,
    ];

    /// Which of TAG, UCI_LINE, EPD_LINE and PERFT accept `fen`, and with
    /// which castling mode (`S` standard, `9` Chess960, `-` rejected).
    fn modes(fen: &str) -> String {
        ALL.iter()
            .map(|&l| match read_fen(fen, false, l) {
                Ok((_, CastlingMode::Standard)) => 'S',
                Ok((_, CastlingMode::Chess960)) => '9',
                Err(_) => '-',
            })
            .collect()
    }

    #[test]
    fn each_caller_reads_a_fen_as_it_always_has() {
        // A full, legal FEN: everyone, standard.
        assert_eq!(
            modes("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            "SSSS"
        );
        // Missing fields default everywhere.
        assert_eq!(modes("4k3/8/8/8/8/8/8/4K2R w K"), "SSSS");
        // Tabs separate fields only for EPD lines and perft.
        assert_eq!(modes("4k3/8/8/8/8/8/8/4K2R\tw \t K"), "--SS");
        // Underscores separate fields everywhere (shakmaty).
        assert_eq!(modes("4k3/8/8/8/8/8/8/4K2R_w_K_-"), "SSSS");
        // EPD operations: only EPD lines skip them.
        assert_eq!(
            modes("4k3/8/8/8/8/8/8/4K2R w K - bm Kf1; id \"x\";"),
            "--S-"
        );
        // Shredder letters on the corner rooks: Chess960 for convert's
        // lines, standard for the tag and for perft.
        assert_eq!(
            modes("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"),
            "S99S"
        );
        // Rights that only make sense in Chess960: Chess960 everywhere.
        assert_eq!(
            modes("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"),
            "9999"
        );
        // X-FEN `Q` naming the outermost rook, which is not in the corner.
        assert_eq!(
            modes("r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq -"),
            "9999"
        );
        // Impossible material and an impossible check: perft only.
        assert_eq!(
            modes("kBQQQQQQ/BR5Q/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - -"),
            "---S"
        );
        // Two knights giving check at once.
        assert_eq!(modes("4k3/8/8/8/8/3n1n2/8/4K3 w - - 0 1"), "---S");
        // Nothing at all: empty for perft, a syntax error elsewhere.
        assert!(matches!(
            read_fen(" ", false, FenLeniency::PERFT),
            Err(FenError::Empty)
        ));
        for leniency in [
            FenLeniency::TAG,
            FenLeniency::UCI_LINE,
            FenLeniency::EPD_LINE,
        ] {
            assert!(matches!(
                read_fen(" ", false, leniency),
                Err(FenError::Syntax(_))
            ));
        }
    }

    #[test]
    fn what_shakmaty_lets_pass_is_refused_by_every_reader_with_a_reason() {
        // Which readers refuse `fen` (as `modes` shows them), and why.
        let refused = |fen: &str, reason: &str, readers: &str| {
            assert_eq!(modes(fen), readers, "{fen}");
            let err = read_fen(fen, false, FenLeniency::PERFT).unwrap_err();
            assert!(err.to_string().contains(reason), "{fen}: {err}");
        };
        // The board: every reader.
        for (fen, reason) in [
            ("4k3/8/8/8/8/8/8/4K3[Qq] w - - 0 1", "the board holds '['"),
            (
                "4k3/8/8/8/8/8/8/4K3~ w - - 0 1",
                "a Crazyhouse pocket or promoted piece",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3/ w - - 0 1",
                "the board has 9 ranks, not 8",
            ),
            (
                "4k3/8/8/8/8/8/4K3 w - - 0 1",
                "the board has 7 ranks, not 8",
            ),
            (
                "4k3/8/44/8/8/8/8/4K3 w - - 0 1",
                "rank 6 (`44`) has two digits in a row",
            ),
            (
                "4k3/8/8/8/8/8/8/4K4 w - - 0 1",
                "rank 1 (`4K4`) covers 9 squares, not 8",
            ),
            (
                "4k3/8/8/8/8/8/8/4K2 w - - 0 1",
                "rank 1 (`4K2`) covers 7 squares, not 8",
            ),
        ] {
            refused(fen, reason, "----");
        }
        // After the fourth field: every reader but the EPD line's, which
        // takes the clocks only when both are numbers and ignores the rest
        // as operations.
        for (fen, reason) in [
            (
                "4k3/8/8/8/8/8/8/4K3 w - - 0 1 +3+3",
                "`+3+3` is a Three-check counter",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w - - 3+3 0 1",
                "`3+3` is a Three-check counter",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w - - 4294967296 1",
                "the halfmove clock `4294967296` is not a whole number",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w - - 0 99999999999999999999",
                "the fullmove number `99999999999999999999` is not",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra",
                "`extra` follows the six fields of a FEN",
            ),
        ] {
            refused(fen, reason, "--S-");
        }
        // The largest clocks still read.
        let most = "4k3/8/8/8/8/8/8/4K3 w - - 4294967295 4294967295";
        assert_eq!(modes(most), "SSSS");
    }

    #[test]
    fn epd_lines_take_the_clocks_only_when_both_are_numbers() {
        let clocks = |line: &str| {
            let (pos, _) = read_fen(line, false, FenLeniency::EPD_LINE).unwrap();
            (pos.halfmoves(), pos.fullmoves().get())
        };
        assert_eq!(clocks("4k3/8/8/8/8/8/8/4K3 b - - 5 40"), (5, 40));
        assert_eq!(clocks("4k3/8/8/8/8/8/8/4K3 b - - 5"), (0, 1));
        assert_eq!(clocks("4k3/8/8/8/8/8/8/4K3 b - - 5 40 bm Kd7;"), (5, 40));
        assert_eq!(clocks("4k3/8/8/8/8/8/8/4K3 b - - bm Kd7;"), (0, 1));
        // The tag reader takes a lone halfmove clock.
        let (pos, _) = read_fen("4k3/8/8/8/8/8/8/4K3 b - - 5", false, FenLeniency::TAG).unwrap();
        assert_eq!(pos.halfmoves(), 5);
    }

    #[test]
    fn errors_quote_what_each_reader_read() {
        let err = parse_fen(" 8/8/8/8/8/8/8/8 w - - ", false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "illegal position: empty board, missing king: \" 8/8/8/8/8/8/8/8 w - - \""
        );
        let err = read_start("8/8/8/8/8/8/8/8  w -   - bm x;", FenLeniency::EPD_LINE).unwrap_err();
        assert!(
            err.to_string().ends_with(": \"8/8/8/8/8/8/8/8 w - -\""),
            "{err}"
        );
        // A Variant tag's Chess960 gets no standard attempt.
        assert!(parse_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1", true).is_ok());
    }
}
