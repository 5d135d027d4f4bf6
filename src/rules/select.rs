//! Selection: whether a game is one of those asked for, by its tags, its
//! players, its date, its opening, its moves, the positions it reaches and
//! their material (`pgnkit select`, and the same criteria on `convert` and
//! `annotate-outcome`).
//!
//! Each criterion is a type that reads itself from the command line's text
//! (`FromStr`, an error naming what is wrong) and tests one game.
//! [`Criteria`] holds them all: every kind given must hold, and the values
//! of one kind (the flag repeated) mean "any of". Criteria on tags are
//! decided before any move is read; the rest during one replay of the main
//! line, which stops as soon as the answer is known ([`Criteria::judge`]).
//!
//! A replay criterion is judged on the moves that can be replayed: a match
//! found before an unreadable or illegal move counts (the game did reach
//! that position), and a game whose replay stops before a criterion is
//! decided is not judged ([`Verdict::Unjudged`]). A game stops being able
//! to reach a position once it has fewer pieces of a kind than the position
//! has (captures are for ever; a promotion needs a pawn), and its replay
//! stops there.

use std::borrow::Cow;
use std::str::FromStr;

use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::{Bitboard, Board, ByColor, Chess, Color, EnPassantMode, Move, Position, Role};

use super::game::{RawGame, recorded_result};
use super::openings::{Classifier, OpeningTable};
use super::san::{parse_san, resolve_with_check};
use super::setup::start_position;

/// An inclusive range of numbers: `MIN..MAX`, `MIN..`, `..MAX` or `N`.
///
/// ```
/// use pgnkit::rules::select::Span;
/// let s: Span = "20..80".parse().unwrap();
/// assert!(s.contains(20) && s.contains(80) && !s.contains(81));
/// assert!("..10".parse::<Span>().unwrap().contains(0));
/// assert!("9..3".parse::<Span>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub min: u32,
    pub max: u32,
}

impl Span {
    pub fn contains(self, n: u32) -> bool {
        self.min <= n && n <= self.max
    }
}

impl FromStr for Span {
    type Err = String;

    fn from_str(text: &str) -> Result<Span, String> {
        let number = |s: &str, default: u32| -> Result<u32, String> {
            let s = s.trim();
            if s.is_empty() {
                return Ok(default);
            }
            s.parse().map_err(|_| {
                format!("`{s}` is not a whole number (give MIN..MAX, MIN.., ..MAX or N)")
            })
        };
        let (min, max) = match text.split_once("..") {
            Some((a, b)) => (number(a, 0)?, number(b, u32::MAX)?),
            None => {
                let n = number(text, 0)?;
                if text.trim().is_empty() {
                    return Err("give MIN..MAX, MIN.., ..MAX or N".into());
                }
                (n, n)
            }
        };
        if min > max {
            return Err(format!(
                "{min}..{max} is empty: the first bound is above the second"
            ));
        }
        Ok(Span { min, max })
    }
}

/// Text folded for comparing names: lower case, accents and other marks
/// taken off (`Émile` is `emile`, `Łukasz` is `lukasz`, `Groß` is
/// `gross`), every character that is not a letter or a digit a space.
///
/// ```
/// use pgnkit::rules::select::fold;
/// assert_eq!(fold("Nepomniachtchi, Ian"), "nepomniachtchi  ian");
/// assert_eq!(fold("Åström-Łęcki"), "astrom lecki");
/// ```
pub fn fold(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    use unicode_normalization::char::is_combining_mark;
    let mut out = String::with_capacity(text.len());
    if text.is_ascii() {
        out.extend(text.chars().map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                ' '
            }
        }));
        return out;
    }
    for c in text.nfd() {
        if is_combining_mark(c) {
            continue;
        }
        match c {
            'ł' | 'Ł' => out.push('l'),
            'ø' | 'Ø' => out.push('o'),
            'đ' | 'Đ' | 'ð' | 'Ð' => out.push('d'),
            'ß' => out.push_str("ss"),
            'æ' | 'Æ' => out.push_str("ae"),
            'œ' | 'Œ' => out.push_str("oe"),
            'þ' | 'Þ' => out.push_str("th"),
            'ı' => out.push('i'),
            c if c.is_alphanumeric() => out.extend(c.to_lowercase()),
            _ => out.push(' '),
        }
    }
    out
}

/// A name asked for (`--player`, `--white`, `--black`): its words, folded
/// ([`fold`]). A player's name matches when each word asked for begins a
/// word of it, in any order, or is that word's initial: `carlsen` finds
/// "Carlsen, Magnus" and "Carlsen, M", `magnus carlsen` finds both and
/// "Magnus Carlsen".
///
/// ```
/// use pgnkit::rules::select::Name;
/// let carlsen: Name = "carlsen".parse().unwrap();
/// assert!(carlsen.matches("Carlsen, Magnus") && carlsen.matches("Carlsen, M"));
/// let full: Name = "Magnus Carlsen".parse().unwrap();
/// assert!(full.matches("Carlsen, M") && !full.matches("Carlsen, Henrik"));
/// assert!("Ribli".parse::<Name>().unwrap().matches("RIBLI, Zoltán"));
/// assert!(!carlsen.matches("Carlssen, Magnus"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    words: Vec<String>,
}

impl FromStr for Name {
    type Err = String;

    fn from_str(text: &str) -> Result<Name, String> {
        let words: Vec<String> = fold(text).split_whitespace().map(str::to_owned).collect();
        if words.is_empty() {
            return Err("give a name with at least one letter or digit".into());
        }
        Ok(Name {
            text: text.to_owned(),
            words,
        })
    }
}

impl Name {
    /// Whether the player called `name` is this one.
    pub fn matches(&self, name: &str) -> bool {
        let folded = fold(name);
        let theirs: Vec<&str> = folded.split_whitespace().collect();
        self.words.iter().all(|asked| {
            theirs
                .iter()
                .any(|w| w.starts_with(asked.as_str()) || (w.len() == 1 && asked.starts_with(w)))
        })
    }
}

/// A test of one tag (`--tag NAME=VALUE`, `--tag NAME~REGEX`). A tag the
/// game lacks has the empty value, so `Annotator~.` asks for an annotator.
#[derive(Debug, Clone)]
pub struct TagTest {
    pub name: String,
    pub test: TagValue,
}

/// What a tag's value must be.
#[derive(Debug, Clone)]
pub enum TagValue {
    /// Exactly this text.
    Is(String),
    /// Text in which this regular expression finds a match.
    Matches(regex::Regex),
}

impl PartialEq for TagTest {
    fn eq(&self, other: &TagTest) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Eq for TagTest {}

impl std::fmt::Display for TagTest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.test {
            TagValue::Is(v) => write!(f, "{}={v}", self.name),
            TagValue::Matches(r) => write!(f, "{}~{}", self.name, r.as_str()),
        }
    }
}

impl FromStr for TagTest {
    type Err = String;

    /// ```
    /// use pgnkit::rules::select::TagTest;
    /// assert!("Round=5".parse::<TagTest>().unwrap().matches(Some("5")));
    /// assert!("Event~(?i)olympiad".parse::<TagTest>().unwrap().matches(Some("44th Olympiad")));
    /// assert!("Annotator=".parse::<TagTest>().unwrap().matches(None));
    /// assert!("Round~(".parse::<TagTest>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<TagTest, String> {
        let at = text
            .find(['=', '~'])
            .ok_or("give NAME=VALUE (exactly that value) or NAME~REGEX (a regular expression)")?;
        let (name, rest) = text.split_at(at);
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(format!(
                "`{name}` is not a tag name (letters, digits and `_`)"
            ));
        }
        let value = &rest[1..];
        let test = if rest.starts_with('=') {
            TagValue::Is(value.to_owned())
        } else {
            TagValue::Matches(regex::Regex::new(value).map_err(|e| e.to_string())?)
        };
        Ok(TagTest {
            name: name.to_owned(),
            test,
        })
    }
}

impl TagTest {
    /// Whether a tag of this value (`None`: missing) passes.
    pub fn matches(&self, value: Option<&str>) -> bool {
        let value = value.unwrap_or("");
        match &self.test {
            TagValue::Is(v) => value == v,
            TagValue::Matches(r) => r.is_match(value),
        }
    }
}

/// A game result asked for (`--result`): `1-0`, `0-1`, `1/2-1/2` (or
/// `1/2`), `*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultIs(pub super::game::GameResult);

impl FromStr for ResultIs {
    type Err = String;

    fn from_str(text: &str) -> Result<ResultIs, String> {
        let text = if text == "1/2" { "1/2-1/2" } else { text };
        super::game::GameResult::from_ascii(text.as_bytes())
            .map(ResultIs)
            .ok_or_else(|| "give 1-0, 0-1, 1/2-1/2 (or 1/2) or *".into())
    }
}

/// A day as `(year, month, day)`.
type Day = (u32, u32, u32);

/// A range of dates (`--date FROM..TO`): each end a year, a month or a day
/// (`2019`, `2019.05`, `2019.05.17`; `.`, `-` or `/` between the parts),
/// either end left out. A year as an end stands for its whole year: `2019`
/// alone is all of 2019, `2018..2019` two years.
///
/// ```
/// use pgnkit::rules::select::{DateRange, DateMatch};
/// let r: DateRange = "2019.03..2019.06".parse().unwrap();
/// assert_eq!(r.test("2019.04.01"), DateMatch::Yes);
/// assert_eq!(r.test("2019.??.??"), DateMatch::Partial);
/// assert_eq!(r.test("2019.07.??"), DateMatch::No);
/// assert_eq!(r.test("????.??.??"), DateMatch::No);
/// assert!("2020..2019".parse::<DateRange>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateRange {
    pub from: Day,
    pub to: Day,
}

/// How a game's date falls in a [`DateRange`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateMatch {
    /// Inside it.
    Yes,
    /// A partial date (`2019.??.??`) of which some days are inside and
    /// some outside.
    Partial,
    /// Outside it, or no year.
    No,
}

/// The first and last days a date (partial or not) can be, from its text:
/// `None` without a year.
fn date_bounds(text: &str) -> Option<(Day, Day)> {
    let mut parts = text.trim().split(['.', '-', '/']);
    let part = |p: Option<&str>| -> Option<u32> {
        let p = p?.trim();
        (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    let year = part(parts.next())?;
    let month = part(parts.next()).filter(|m| (1..=12).contains(m));
    let day = month.and(part(parts.next()).filter(|d| (1..=31).contains(d)));
    Some(match (month, day) {
        (Some(m), Some(d)) => ((year, m, d), (year, m, d)),
        (Some(m), None) => ((year, m, 1), (year, m, 31)),
        _ => ((year, 1, 1), (year, 12, 31)),
    })
}

impl FromStr for DateRange {
    type Err = String;

    fn from_str(text: &str) -> Result<DateRange, String> {
        let bound = |s: &str| -> Result<Option<(Day, Day)>, String> {
            if s.trim().is_empty() {
                return Ok(None);
            }
            let bad = || format!("`{s}` is not a date (give YYYY, YYYY.MM or YYYY.MM.DD)");
            let parts: Vec<&str> = s.trim().split(['.', '-', '/']).collect();
            if parts.len() > 3
                || parts
                    .iter()
                    .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
            {
                return Err(bad());
            }
            let bounds = date_bounds(s).ok_or_else(bad)?;
            // A month or day out of range was dropped: refuse it.
            let given = match parts.len() {
                1 => bounds.0.0 == bounds.1.0 && bounds.0.1 == 1 && bounds.1.1 == 12,
                2 => bounds.0.1 == bounds.1.1 && bounds.0.2 == 1,
                _ => bounds.0 == bounds.1,
            };
            if !given {
                return Err(bad());
            }
            Ok(Some(bounds))
        };
        let (from, to) = match text.split_once("..") {
            Some((a, b)) => (bound(a)?.map(|b| b.0), bound(b)?.map(|b| b.1)),
            None => match bound(text)? {
                Some((a, b)) => (Some(a), Some(b)),
                None => return Err("give FROM..TO, FROM.., ..TO or one date".into()),
            },
        };
        let range = DateRange {
            from: from.unwrap_or((0, 0, 0)),
            to: to.unwrap_or((u32::MAX, 12, 31)),
        };
        if range.from > range.to {
            return Err(format!("`{text}` is empty: FROM is after TO"));
        }
        Ok(range)
    }
}

impl DateRange {
    /// How the date `text` (a `Date` tag) falls in the range.
    pub fn test(&self, text: &str) -> DateMatch {
        let Some((first, last)) = date_bounds(text) else {
            return DateMatch::No;
        };
        if last < self.from || first > self.to {
            DateMatch::No
        } else if first >= self.from && last <= self.to {
            DateMatch::Yes
        } else {
            DateMatch::Partial
        }
    }
}

/// A range of ECO codes (`--eco`): `B90..B99`, one code `C42`, or a prefix
/// standing for its codes (`B9` is B90..B99, `E` is E00..E99).
///
/// ```
/// use pgnkit::rules::select::EcoRange;
/// let r: EcoRange = "A00..B99".parse().unwrap();
/// assert!(r.contains("B33") && !r.contains("C00"));
/// assert!("B9".parse::<EcoRange>().unwrap().contains("B97"));
/// assert!("F00".parse::<EcoRange>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EcoRange {
    first: u16,
    last: u16,
}

/// An ECO code or its prefix as the first and last codes it stands for
/// (`A00` is 0, `E99` 499).
fn eco_bounds(text: &str) -> Option<(u16, u16)> {
    let b = text.trim().as_bytes();
    let letter = u16::from(
        b.first()?
            .to_ascii_uppercase()
            .checked_sub(b'A')
            .filter(|l| *l < 5)?,
    );
    let digits = &b[1..];
    if digits.len() > 2 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits
        .iter()
        .fold(0u16, |n, d| n * 10 + u16::from(d - b'0'));
    let (lo, hi) = match digits.len() {
        0 => (0, 99),
        1 => (n * 10, n * 10 + 9),
        _ => (n, n),
    };
    Some((letter * 100 + lo, letter * 100 + hi))
}

impl FromStr for EcoRange {
    type Err = String;

    fn from_str(text: &str) -> Result<EcoRange, String> {
        let bad = |s: &str| format!("`{s}` is not an ECO code (A00 to E99, or a prefix: B9, E)");
        let (first, last) = match text.split_once("..") {
            Some((a, b)) => (
                eco_bounds(a).ok_or_else(|| bad(a))?.0,
                eco_bounds(b).ok_or_else(|| bad(b))?.1,
            ),
            None => eco_bounds(text).ok_or_else(|| bad(text))?,
        };
        if first > last {
            return Err(format!(
                "`{text}` is empty: the first code is after the second"
            ));
        }
        Ok(EcoRange { first, last })
    }
}

impl EcoRange {
    /// Whether the code `eco` is in the range.
    pub fn contains(&self, eco: &str) -> bool {
        eco.len() == 3
            && eco_bounds(eco).is_some_and(|(code, _)| self.first <= code && code <= self.last)
    }
}

/// Which side a criterion is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    White,
    Black,
}

impl FromStr for Side {
    type Err = String;

    fn from_str(text: &str) -> Result<Side, String> {
        match text.to_ascii_lowercase().as_str() {
            "white" | "w" => Ok(Side::White),
            "black" | "b" => Ok(Side::Black),
            _ => Err("give white or black".into()),
        }
    }
}

impl Side {
    pub fn color(self) -> Color {
        match self {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

/// A move asked for (`--move`): SAN, by either side, or by one with
/// `white:` or `black:` before it. It matches a move that SAN would write
/// so: what the SAN leaves out (the file or rank a piece came from) may be
/// anything, what it says must hold (a capture, a promotion, `+` a check,
/// `#` a mate).
///
/// ```
/// use pgnkit::rules::select::MoveTest;
/// let m: MoveTest = "black:O-O-O".parse().unwrap();
/// assert!("Nf3".parse::<MoveTest>().is_ok());
/// assert!("white:Qxf7#".parse::<MoveTest>().is_ok());
/// assert!("Zz9".parse::<MoveTest>().is_err());
/// assert!("--".parse::<MoveTest>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveTest {
    pub text: String,
    side: Option<Color>,
    san: San,
    suffix: Option<Suffix>,
}

impl FromStr for MoveTest {
    type Err = String;

    fn from_str(text: &str) -> Result<MoveTest, String> {
        let (side, san) = match text.split_once(':') {
            Some((s, san)) => match s.parse::<Side>() {
                Ok(side) => (Some(side.color()), san),
                Err(_) => return Err(format!("`{s}:` is not a side (give white: or black:)")),
            },
            None => (None, text),
        };
        let san = san.trim().replace('0', "O");
        let parsed: SanPlus = parse_san(san.as_bytes()).map_err(|e| e.to_string())?;
        if matches!(parsed.san, San::Null | San::Put { .. }) {
            return Err(format!("`{san}` is not a move"));
        }
        Ok(MoveTest {
            text: text.to_owned(),
            side,
            san: parsed.san,
            suffix: parsed.suffix,
        })
    }
}

impl MoveTest {
    /// Whether `mv`, played by `mover` to `after`, is this move.
    pub fn matches(&self, mv: &Move, mover: Color, after: &Chess, check: bool) -> bool {
        if self.side.is_some_and(|s| s != mover) {
            return false;
        }
        let played = match self.san {
            San::Castle(side) => mv.castling_side() == Some(side),
            San::Normal {
                role,
                file,
                rank,
                capture,
                to,
                promotion,
            } => {
                !mv.is_castle()
                    && mv.role() == role
                    && mv.to() == to
                    && mv.is_capture() == capture
                    && mv.promotion() == promotion
                    && file.is_none_or(|f| mv.from().is_some_and(|s| s.file() == f))
                    && rank.is_none_or(|r| mv.from().is_some_and(|s| s.rank() == r))
            }
            San::Put { .. } | San::Null => false,
        };
        played
            && match self.suffix {
                None => true,
                Some(Suffix::Check) => check,
                Some(Suffix::Checkmate) => check && after.is_checkmate(),
            }
    }
}

/// How many pieces of each kind each side has, at least: what a position
/// needs of the game that is to reach it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Needs(ByColor<[u8; 6]>);

impl Needs {
    /// Whether `board` still can become a position with these pieces: each
    /// side has as many pawns, and enough pawns left over to promote into
    /// the pieces it lacks (nothing else ever adds a piece).
    fn reachable(&self, board: &Board) -> bool {
        Color::ALL.into_iter().all(|c| {
            let need = self.0.get(c);
            let have = |r: Role| board.by_piece(r.of(c)).count() as u32;
            let pawns = have(Role::Pawn);
            let need_pawns = u32::from(need[0]);
            if pawns < need_pawns {
                return false;
            }
            let lacking: u32 = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
                .into_iter()
                .map(|r| u32::from(need[r as usize - 1]).saturating_sub(have(r)))
                .sum();
            lacking <= pawns - need_pawns
        })
    }

    /// What `board`'s pieces need.
    fn of(board: &Board) -> Needs {
        let mut needs = Needs::default();
        for (sq, piece) in board {
            let _ = sq;
            needs.0.get_mut(piece.color)[piece.role as usize - 1] += 1;
        }
        needs
    }
}

/// A position asked for (`--position FEN`): the same pieces on the same
/// squares, the same side to move, castling rights and en-passant file as
/// the Polyglot key counts them ([`super::setup::polyglot_key`]); the move
/// counters do not count.
#[derive(Debug, Clone)]
pub struct PositionTest {
    pub fen: String,
    board: Board,
    turn: Color,
    castling: Bitboard,
    ep: Option<shakmaty::Square>,
    needs: Needs,
}

/// Equality by the text a criterion was read from: two criteria read from
/// one text are one criterion (what options compare).
macro_rules! eq_by_text {
    ($($t:ty => $field:ident),* $(,)?) => {$(
        impl PartialEq for $t {
            fn eq(&self, other: &$t) -> bool {
                self.$field == other.$field
            }
        }

        impl Eq for $t {}
    )*};
}

eq_by_text!(PositionTest => fen, SubFen => fen);

impl FromStr for PositionTest {
    type Err = String;

    /// ```
    /// use pgnkit::rules::select::PositionTest;
    /// assert!("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".parse::<PositionTest>().is_ok());
    /// assert!("startpos".parse::<PositionTest>().is_ok());
    /// assert!("8/8/8/8/8/8/8/8 w - - 0 1".parse::<PositionTest>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<PositionTest, String> {
        let pos = if text.trim() == "startpos" {
            Chess::default()
        } else {
            super::setup::parse_fen(text.trim(), false)
                .map_err(|e| e.to_string())?
                .0
        };
        Ok(PositionTest {
            fen: text.trim().to_owned(),
            board: pos.board().clone(),
            turn: pos.turn(),
            castling: pos.castles().castling_rights(),
            ep: pos.ep_square(EnPassantMode::PseudoLegal),
            needs: Needs::of(pos.board()),
        })
    }
}

impl PositionTest {
    fn matches(&self, pos: &Chess) -> bool {
        pos.board() == &self.board
            && pos.turn() == self.turn
            && pos.castles().castling_rights() == self.castling
            && pos.ep_square(EnPassantMode::PseudoLegal) == self.ep
    }
}

/// Pieces on squares (`--sub-fen`): a FEN board (anything after its first
/// field is ignored) whose empty squares may hold anything: the position
/// has at least these pieces on these squares.
#[derive(Debug, Clone)]
pub struct SubFen {
    pub fen: String,
    /// Each kind of piece asked for, and its squares.
    pieces: Vec<(shakmaty::Piece, Bitboard)>,
    needs: Needs,
}

impl FromStr for SubFen {
    type Err = String;

    /// ```
    /// use pgnkit::rules::select::SubFen;
    /// assert!("8/8/8/8/3PP3/8/8/8".parse::<SubFen>().is_ok());
    /// assert!("8/8/8/8/8/8/8/8".parse::<SubFen>().is_err());
    /// assert!("8/8/8/9/8/8/8/8".parse::<SubFen>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<SubFen, String> {
        let field = text.split_whitespace().next().unwrap_or("");
        let board = Board::from_ascii_board_fen(field.as_bytes()).map_err(|e| e.to_string())?;
        let mut pieces: Vec<(shakmaty::Piece, Bitboard)> = Vec::new();
        for (sq, piece) in &board {
            match pieces.iter_mut().find(|(p, _)| *p == piece) {
                Some((_, squares)) => squares.add(sq),
                None => pieces.push((piece, Bitboard::from_square(sq))),
            }
        }
        if pieces.is_empty() {
            return Err("it names no piece: every game would match".into());
        }
        Ok(SubFen {
            fen: field.to_owned(),
            pieces,
            needs: Needs::of(&board),
        })
    }
}

impl SubFen {
    fn matches(&self, board: &Board) -> bool {
        self.pieces
            .iter()
            .all(|(p, squares)| board.by_piece(*p).is_superset(*squares))
    }
}

/// Material (`--material`, `--final-material`): how many pieces of each
/// kind each side has. Either one word, White's pieces in capitals and
/// Black's in small letters (`KRPkr`, scoutfish's form), or two words,
/// White's then Black's, letters of either case (`rp nb`, pgn-extract's
/// form). After a letter, a count: a digit `R2` (or the letter repeated,
/// `RR`), `*` any number, `+` one or more, `2+` two or more, `2-` two or
/// fewer. A kind not named must be absent; kings need not be named.
///
/// ```
/// use pgnkit::rules::select::Material;
/// assert!("KRPkr".parse::<Material>().is_ok());
/// assert!("qr2p* qr2p*".parse::<Material>().is_ok());
/// assert!("RP1-kr".parse::<Material>().is_ok());
/// assert!("KXk".parse::<Material>().is_err());
/// assert!("R3-2".parse::<Material>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Material {
    pub text: String,
    /// For each side, for each kind but the king (pawn, knight, bishop,
    /// rook, queen), the fewest and most.
    counts: ByColor<[(u8, u8); 5]>,
}

impl FromStr for Material {
    type Err = String;

    fn from_str(text: &str) -> Result<Material, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let mut counts: ByColor<[Option<(u8, u8)>; 5]> = ByColor::default();
        match words[..] {
            [one] => side_counts(one, None, &mut counts)?,
            [white, black] => {
                side_counts(white, Some(Color::White), &mut counts)?;
                side_counts(black, Some(Color::Black), &mut counts)?;
            }
            _ => {
                return Err(
                    "give one word (White in capitals, Black in small letters: KRPkr) or two (White's then Black's: rp nb)"
                        .into(),
                );
            }
        }
        Ok(Material {
            text: text.to_owned(),
            counts: counts.map(|side| side.map(|c| c.unwrap_or((0, 0)))),
        })
    }
}

/// Reads one side's (or with `side` `None`, both sides' by case) piece
/// letters and counts into `counts`.
fn side_counts(
    text: &str,
    side: Option<Color>,
    counts: &mut ByColor<[Option<(u8, u8)>; 5]>,
) -> Result<(), String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let letter = bytes[i];
        let role = Role::from_char(char::from(letter.to_ascii_lowercase())).ok_or_else(|| {
            format!(
                "`{}` is not a piece letter (K, Q, R, B, N, P)",
                char::from(letter)
            )
        })?;
        let color = side.unwrap_or(if letter.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        });
        i += 1;
        let digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        let n: Option<u8> = if digits > 0 {
            let n = text[i..i + digits]
                .parse()
                .ok()
                .filter(|n| *n <= 10)
                .ok_or_else(|| format!("`{}` is too many", &text[i..i + digits]))?;
            i += digits;
            Some(n)
        } else {
            None
        };
        let (lo, hi) = match (n, bytes.get(i)) {
            (None, Some(b'*')) => (0, u8::MAX),
            (None, Some(b'+')) => (1, u8::MAX),
            (Some(n), Some(b'+')) => (n, u8::MAX),
            (Some(n), Some(b'-')) => (0, n),
            (Some(n), _) => (n, n),
            (None, _) => (1, 1),
        };
        if matches!(bytes.get(i), Some(b'*' | b'+' | b'-')) {
            i += 1;
        }
        if bytes.get(i).is_some_and(u8::is_ascii_digit)
            || matches!(bytes.get(i), Some(b'*' | b'+' | b'-'))
        {
            return Err(format!("`{text}`: a count after a count"));
        }
        if role == Role::King {
            continue;
        }
        let slot = &mut counts.get_mut(color)[role as usize - 1];
        *slot = Some(match *slot {
            // A letter repeated adds to its count (`RR` is two rooks).
            Some((a, b)) => (a.saturating_add(lo), b.saturating_add(hi)),
            None => (lo, hi),
        });
    }
    Ok(())
}

impl Material {
    fn matches(&self, board: &Board) -> bool {
        Color::ALL.into_iter().all(|c| {
            let counts = self.counts.get(c);
            Role::ALL[..5].iter().all(|&r| {
                let n = board.by_piece(r.of(c)).count();
                let (lo, hi) = counts[r as usize - 1];
                usize::from(lo) <= n && n <= usize::from(hi)
            })
        })
    }

    fn needs(&self) -> Needs {
        Needs(self.counts.map(|side| {
            let mut needs = [0; 6];
            for (i, (lo, _)) in side.iter().enumerate() {
                needs[i] = *lo;
            }
            needs
        }))
    }
}

/// Every criterion of a run: each kind given must hold, and the values of
/// one kind are "any of" (two `--tag`s of one tag name are "any of"; of two
/// names, both must hold).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Criteria {
    pub tags: Vec<TagTest>,
    pub players: Vec<Name>,
    pub white: Vec<Name>,
    pub black: Vec<Name>,
    pub results: Vec<ResultIs>,
    pub dates: Vec<DateRange>,
    /// Both players' ratings in range.
    pub elo: Vec<Span>,
    pub eco: Vec<EcoRange>,
    /// Folded words the opening's name holds ([`fold`]).
    pub openings: Vec<Name>,
    pub plies: Vec<Span>,
    pub moves: Vec<MoveTest>,
    pub positions: Vec<PositionTest>,
    pub sub_fens: Vec<SubFen>,
    pub material: Vec<Material>,
    pub final_material: Vec<Material>,
    pub side_to_move: Option<Side>,
    pub invert: bool,
}

/// What selection says of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Selected; the ply of the position (or move) that matched, when a
    /// criterion is about one (0: the start position).
    Selected {
        ply: Option<u32>,
    },
    Rejected,
    /// A replay criterion could not be decided: the main line stopped (a
    /// move not legal, the setup refused) before it was.
    Unjudged,
}

/// A game's verdict, and whether only a partial date let it in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judged {
    pub verdict: Verdict,
    /// The game passed `--date` by a partial date (`2019.??.??`) that may
    /// fall in the range.
    pub partial_date: bool,
}

impl Criteria {
    /// Whether there is nothing to select by: every game is selected.
    pub fn is_empty(&self) -> bool {
        !self.needs_tags() && !self.needs_replay() && !self.invert
    }

    fn needs_tags(&self) -> bool {
        !(self.tags.is_empty()
            && self.players.is_empty()
            && self.white.is_empty()
            && self.black.is_empty()
            && self.results.is_empty()
            && self.dates.is_empty()
            && self.elo.is_empty())
    }

    /// Whether a criterion needs the moves replayed.
    pub fn needs_replay(&self) -> bool {
        !(self.eco.is_empty()
            && self.openings.is_empty()
            && self.plies.is_empty()
            && self.moves.is_empty()
            && self.final_material.is_empty()
            && self.side_to_move.is_none()
            && !self.positional())
    }

    /// Whether a criterion is about one position of the game.
    fn positional(&self) -> bool {
        !(self.positions.is_empty() && self.sub_fens.is_empty() && self.material.is_empty())
    }

    /// Whether the criteria need an openings table ([`Criteria::judge`]).
    pub fn needs_openings(&self) -> bool {
        !(self.eco.is_empty() && self.openings.is_empty())
    }

    /// The tag criteria: `Some(partial date)` when they all hold.
    fn tags_pass(&self, game: &RawGame<'_>) -> Option<bool> {
        let text = |name: &str| game.tag_text(name);
        // Tests of one tag name are any-of; of two names, all.
        for (i, t) in self.tags.iter().enumerate() {
            if self.tags[..i].iter().any(|u| u.name == t.name) {
                continue;
            }
            let value = text(&t.name);
            let any = self
                .tags
                .iter()
                .filter(|u| u.name == t.name)
                .any(|u| u.matches(value.as_deref()));
            if !any {
                return None;
            }
        }
        let named = |names: &[Name], tag: &str| -> bool {
            names.is_empty() || text(tag).is_some_and(|v| names.iter().any(|n| n.matches(&v)))
        };
        if !named(&self.white, "White") || !named(&self.black, "Black") {
            return None;
        }
        if !self.players.is_empty() {
            let either = ["White", "Black"]
                .into_iter()
                .filter_map(text)
                .any(|v| self.players.iter().any(|n| n.matches(&v)));
            if !either {
                return None;
            }
        }
        if !self.results.is_empty() {
            let result = recorded_result(game)?;
            if !self.results.iter().any(|r| r.0 == result) {
                return None;
            }
        }
        if !self.elo.is_empty() {
            let rating = |tag| text(tag).and_then(|v| v.trim().parse::<u32>().ok());
            let (w, b) = (rating("WhiteElo")?, rating("BlackElo")?);
            if !self.elo.iter().any(|s| s.contains(w) && s.contains(b)) {
                return None;
            }
        }
        let mut partial = false;
        if !self.dates.is_empty() {
            let date = text("Date")?;
            let best = self
                .dates
                .iter()
                .map(|r| r.test(&date))
                .min_by_key(|m| match m {
                    DateMatch::Yes => 0,
                    DateMatch::Partial => 1,
                    DateMatch::No => 2,
                })?;
            match best {
                DateMatch::Yes => {}
                DateMatch::Partial => partial = true,
                DateMatch::No => return None,
            }
        }
        Some(partial)
    }

    /// Judges `game`: its tags first, then (if a criterion needs them) its
    /// moves, replayed no further than the answer needs. `openings` is the
    /// table `--eco` and `--opening` classify by.
    pub fn judge(&self, game: &RawGame<'_>, openings: Option<&OpeningTable>) -> Judged {
        let verdict = |v: Verdict, partial_date: bool| Judged {
            verdict: match (self.invert, v) {
                (false, v) | (true, v @ Verdict::Unjudged) => v,
                (true, Verdict::Selected { .. }) => Verdict::Rejected,
                (true, Verdict::Rejected) => Verdict::Selected { ply: None },
            },
            partial_date,
        };
        let Some(partial) = (if self.needs_tags() {
            self.tags_pass(game)
        } else {
            Some(false)
        }) else {
            return verdict(Verdict::Rejected, false);
        };
        if !self.needs_replay() {
            return verdict(Verdict::Selected { ply: None }, partial);
        }
        verdict(self.replay(game, openings), partial)
    }

    /// The replay criteria, on the moves of `game`.
    fn replay(&self, game: &RawGame<'_>, openings: Option<&OpeningTable>) -> Verdict {
        let Ok(start) = start_position(game) else {
            return Verdict::Unjudged;
        };
        let mut state = Replay::new(self, &start.pos, openings);
        let hit = state.position(0, &start.pos);
        if let Some(v) = state.done() {
            return v;
        }
        if !hit && state.unreachable(start.pos.board()) {
            return Verdict::Rejected;
        }
        let mut pos = start.pos;
        let mut in_check = pos.is_check();
        let mut ply = 0;
        for token in game.main_line() {
            ply += 1;
            let Some(mv) = parse_san(token.text)
                .ok()
                .and_then(|san| resolve_with_check(&pos, &san.san, in_check).ok())
            else {
                return state.stopped();
            };
            let mover = pos.turn();
            let material = mv.is_capture() || mv.is_promotion();
            pos.play_unchecked(mv);
            in_check = pos.is_check();
            state.after_move(ply, &mv, mover, &pos, in_check);
            let hit = state.position(ply, &pos);
            if let Some(v) = state.done() {
                return v;
            }
            if !hit && material && state.unreachable(pos.board()) {
                return Verdict::Rejected;
            }
        }
        state.end(ply, &pos)
    }
}

/// Where a replay's criteria stand.
struct Replay<'c, 't> {
    criteria: &'c Criteria,
    /// The first ply whose position matched (when a criterion is about a
    /// position).
    position: Option<u32>,
    /// The first ply whose move matched.
    moved: Option<u32>,
    classifier: Option<Classifier<'t>>,
    /// The classifier's depth: past it, the opening is known.
    depth: u32,
    /// The plies played.
    plies: u32,
    /// What the positions asked for need, each kind's weakest.
    needs: Vec<Vec<Needs>>,
}

impl<'c, 't> Replay<'c, 't> {
    fn new(criteria: &'c Criteria, start: &Chess, openings: Option<&'t OpeningTable>) -> Self {
        let classifier = criteria
            .needs_openings()
            .then_some(openings)
            .flatten()
            .map(|t| Classifier::new(t, start));
        let mut needs = Vec::new();
        if !criteria.positions.is_empty() {
            needs.push(criteria.positions.iter().map(|p| p.needs).collect());
        }
        if !criteria.sub_fens.is_empty() {
            needs.push(criteria.sub_fens.iter().map(|p| p.needs).collect());
        }
        if !criteria.material.is_empty() {
            needs.push(criteria.material.iter().map(Material::needs).collect());
        }
        Replay {
            criteria,
            position: None,
            moved: None,
            depth: openings.map_or(0, OpeningTable::depth),
            classifier,
            plies: 0,
            needs,
        }
    }

    /// After the move of ply `ply`.
    fn after_move(&mut self, ply: u32, mv: &Move, mover: Color, after: &Chess, check: bool) {
        self.plies = ply;
        if let Some(c) = self.classifier.as_mut() {
            c.push(ply, after);
        }
        if self.moved.is_none()
            && self
                .criteria
                .moves
                .iter()
                .any(|m| m.matches(mv, mover, after, check))
        {
            self.moved = Some(ply);
        }
    }

    /// Tests the position after ply `ply`: whether it is the first to
    /// match.
    fn position(&mut self, ply: u32, pos: &Chess) -> bool {
        let c = self.criteria;
        if self.position.is_some() || !c.positional() {
            return false;
        }
        let board = pos.board();
        let hit = (c.positions.is_empty() || c.positions.iter().any(|p| p.matches(pos)))
            && (c.sub_fens.is_empty() || c.sub_fens.iter().any(|s| s.matches(board)))
            && (c.material.is_empty() || c.material.iter().any(|m| m.matches(board)))
            && c.side_to_move.is_none_or(|s| s.color() == pos.turn());
        if hit {
            self.position = Some(ply);
        }
        hit
    }

    /// Whether no later position can match: some kind of position asked
    /// for needs pieces the board can no longer have.
    fn unreachable(&self, board: &Board) -> bool {
        self.position.is_none()
            && self
                .needs
                .iter()
                .any(|kind| !kind.iter().any(|n| n.reachable(board)))
    }

    /// Whether the opening is one asked for: `None` while it is not
    /// known (the game is still within the table's depth, and not `ended`).
    fn opening_ok(&self, ended: bool) -> Option<bool> {
        let c = self.criteria;
        if !c.needs_openings() {
            return Some(true);
        }
        let Some(classifier) = self.classifier else {
            return Some(false);
        };
        if !ended && self.plies < self.depth {
            return None;
        }
        let opening = classifier.opening();
        Some(
            (c.eco.is_empty() || opening.is_some_and(|o| c.eco.iter().any(|e| e.contains(o.eco))))
                && (c.openings.is_empty()
                    || opening
                        .is_some_and(|o| c.openings.iter().any(|n| n.matches_within(o.name)))),
        )
    }

    /// Whether every criterion that looks for something in the moves found
    /// it.
    fn found(&self) -> bool {
        let c = self.criteria;
        (!c.positional() || self.position.is_some()) && (c.moves.is_empty() || self.moved.is_some())
    }

    /// Whether a criterion is about the game's end (its length, its final
    /// material, the side to move at its end).
    fn needs_end(&self) -> bool {
        let c = self.criteria;
        !c.plies.is_empty()
            || !c.final_material.is_empty()
            || (c.side_to_move.is_some() && !c.positional())
    }

    /// The verdict, if it is known before the game's end: the opening is
    /// not the one asked for, or every criterion that looks for something
    /// found it and none is about the end.
    fn done(&self) -> Option<Verdict> {
        match self.opening_ok(false)? {
            false => Some(Verdict::Rejected),
            true => (self.found() && !self.needs_end()).then(|| self.selected()),
        }
    }

    fn selected(&self) -> Verdict {
        Verdict::Selected {
            ply: self.position.or(self.moved),
        }
    }

    /// The replay stopped at an unreadable move: what is already known.
    fn stopped(&self) -> Verdict {
        self.done().unwrap_or(Verdict::Unjudged)
    }

    /// The game's end, after `plies` plies at `pos`.
    fn end(&self, plies: u32, pos: &Chess) -> Verdict {
        let c = self.criteria;
        let ok = self.found()
            && self.opening_ok(true) == Some(true)
            && (c.plies.is_empty() || c.plies.iter().any(|s| s.contains(plies)))
            && (c.final_material.is_empty()
                || c.final_material.iter().any(|m| m.matches(pos.board())))
            && (c.positional() || c.side_to_move.is_none_or(|s| s.color() == pos.turn()));
        if ok {
            self.selected()
        } else {
            Verdict::Rejected
        }
    }
}

impl Name {
    /// Whether `text` holds each word of this one as the start of one of
    /// its words (an opening's name: `sicilian najdorf`).
    fn matches_within(&self, text: &str) -> bool {
        let folded = fold(text);
        let words: Vec<&str> = folded.split_whitespace().collect();
        self.words
            .iter()
            .all(|asked| words.iter().any(|w| w.starts_with(asked.as_str())))
    }
}

/// The flags [`flags`] writes (and `--limit`): what tells a run that
/// selects.
pub const FLAGS: &[&str] = &[
    "--tag",
    "--player",
    "--white",
    "--black",
    "--opening",
    "--result",
    "--date",
    "--elo",
    "--plies",
    "--eco",
    "--move",
    "--position",
    "--sub-fen",
    "--material",
    "--final-material",
    "--side-to-move",
    "--invert",
    "--limit",
];

/// The criteria of a run as the flags that give them, canonically spelt
/// (what a shard's rerun is given).
pub fn flags(c: &Criteria) -> Vec<String> {
    let mut out = Vec::new();
    let mut add = |flag: &str, value: Cow<'_, str>| {
        out.push(flag.to_owned());
        out.push(value.into_owned());
    };
    for t in &c.tags {
        add("--tag", t.to_string().into());
    }
    for (flag, names) in [
        ("--player", &c.players),
        ("--white", &c.white),
        ("--black", &c.black),
        ("--opening", &c.openings),
    ] {
        for n in names {
            add(flag, Cow::Borrowed(&n.text));
        }
    }
    for r in &c.results {
        add("--result", r.0.as_str().into());
    }
    for d in &c.dates {
        let day = |(y, m, dd): Day| format!("{y:04}.{m:02}.{dd:02}");
        add("--date", format!("{}..{}", day(d.from), day(d.to)).into());
    }
    for (flag, spans) in [("--elo", &c.elo), ("--plies", &c.plies)] {
        for s in spans {
            add(flag, format!("{}..{}", s.min, s.max).into());
        }
    }
    for e in &c.eco {
        let code = |n: u16| format!("{}{:02}", char::from(b'A' + (n / 100) as u8), n % 100);
        add(
            "--eco",
            format!("{}..{}", code(e.first), code(e.last)).into(),
        );
    }
    for m in &c.moves {
        add("--move", Cow::Borrowed(&m.text));
    }
    for p in &c.positions {
        add("--position", Cow::Borrowed(&p.fen));
    }
    for s in &c.sub_fens {
        add("--sub-fen", Cow::Borrowed(&s.fen));
    }
    for (flag, list) in [
        ("--material", &c.material),
        ("--final-material", &c.final_material),
    ] {
        for m in list {
            add(flag, Cow::Borrowed(&m.text));
        }
    }
    if let Some(side) = c.side_to_move {
        add("--side-to-move", side.color().to_string().into());
    }
    if c.invert {
        out.push("--invert".to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::scan::scan;

    fn judge(criteria: &Criteria, pgn: &str) -> Verdict {
        let scanned = scan(pgn.as_bytes(), true);
        criteria
            .judge(&scanned.games[0], Some(OpeningTable::lichess()))
            .verdict
    }

    const SCHOLAR: &str = "[White \"Åström, Émile\"]\n[Black \"Carlsen, M\"]\n[Date \"2019.??.??\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";

    #[test]
    fn tags_and_names() {
        let mut c = Criteria {
            players: vec!["magnus carlsen".parse().unwrap()],
            ..Criteria::default()
        };
        assert_eq!(judge(&c, SCHOLAR), Verdict::Selected { ply: None });
        c.white = vec!["astrom".parse().unwrap()];
        assert_eq!(judge(&c, SCHOLAR), Verdict::Selected { ply: None });
        c.black = vec!["emile".parse().unwrap()];
        assert_eq!(judge(&c, SCHOLAR), Verdict::Rejected);
        c.invert = true;
        assert_eq!(judge(&c, SCHOLAR), Verdict::Selected { ply: None });
    }

    #[test]
    fn a_partial_date_is_said() {
        let c = Criteria {
            dates: vec!["2019.05..2019.06".parse().unwrap()],
            ..Criteria::default()
        };
        let scanned = scan(SCHOLAR.as_bytes(), true);
        let j = c.judge(&scanned.games[0], None);
        assert!(j.partial_date);
        assert!(matches!(j.verdict, Verdict::Selected { .. }));
    }

    #[test]
    fn moves_positions_and_material() {
        let mate = Criteria {
            moves: vec!["white:Qxf7#".parse().unwrap()],
            ..Criteria::default()
        };
        assert_eq!(judge(&mate, SCHOLAR), Verdict::Selected { ply: Some(7) });
        let black = Criteria {
            moves: vec!["black:Qxf7#".parse().unwrap()],
            ..Criteria::default()
        };
        assert_eq!(judge(&black, SCHOLAR), Verdict::Rejected);
        let after_e4 = Criteria {
            positions: vec![
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
                    .parse()
                    .unwrap(),
            ],
            ..Criteria::default()
        };
        assert_eq!(
            judge(&after_e4, SCHOLAR),
            Verdict::Selected { ply: Some(1) }
        );
        let sub = Criteria {
            sub_fens: vec!["8/8/2n2n2/4p3/2B1P3/8/8/8".parse().unwrap()],
            side_to_move: Some(Side::White),
            ..Criteria::default()
        };
        assert_eq!(judge(&sub, SCHOLAR), Verdict::Selected { ply: Some(6) });
        let pawn_down = Criteria {
            material: vec!["QR2B2N2P8 qr2b2n2p7".parse().unwrap()],
            ..Criteria::default()
        };
        assert_eq!(
            judge(&pawn_down, SCHOLAR),
            Verdict::Selected { ply: Some(7) }
        );
        let plies = Criteria {
            plies: vec!["8..".parse().unwrap()],
            ..Criteria::default()
        };
        assert_eq!(judge(&plies, SCHOLAR), Verdict::Rejected);
    }

    #[test]
    fn an_unreachable_position_stops_the_replay() {
        // Once a pawn is taken, the position after 1.Nf3 is out of reach:
        // the game is rejected there, whatever comes later.
        let c = Criteria {
            positions: vec![
                "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"
                    .parse()
                    .unwrap(),
            ],
            ..Criteria::default()
        };
        let pgn = "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qxd2+ 4. Qxd2 Zz9 *\n";
        assert_eq!(judge(&c, pgn), Verdict::Rejected);
        let broken = "1. e4 d5 2. Ke3 *\n";
        let c = Criteria {
            moves: vec!["Nf3".parse().unwrap()],
            ..Criteria::default()
        };
        assert_eq!(judge(&c, broken), Verdict::Unjudged);
        let c = Criteria {
            moves: vec!["d5".parse().unwrap()],
            ..Criteria::default()
        };
        assert_eq!(judge(&c, broken), Verdict::Selected { ply: Some(2) });
    }

    #[test]
    fn openings_by_code_and_name() {
        let c = Criteria {
            eco: vec!["C20..C29".parse().unwrap()],
            openings: vec!["wayward queen".parse().unwrap()],
            ..Criteria::default()
        };
        // 1.e4 e5 2.Qh5: the Wayward Queen Attack (C20).
        assert_eq!(judge(&c, SCHOLAR), Verdict::Selected { ply: None });
    }

    #[test]
    fn flags_read_back_as_the_same_criteria() {
        let c = Criteria {
            tags: vec!["Round~^5".parse().unwrap()],
            dates: vec!["2019".parse().unwrap()],
            eco: vec!["B9".parse().unwrap()],
            material: vec!["KRPkr".parse().unwrap()],
            ..Criteria::default()
        };
        let f = flags(&c);
        assert_eq!(
            f,
            [
                "--tag",
                "Round~^5",
                "--date",
                "2019.01.01..2019.12.31",
                "--eco",
                "B90..B99",
                "--material",
                "KRPkr"
            ]
        );
        assert_eq!(f[3].parse::<DateRange>().unwrap(), c.dates[0]);
        assert_eq!(f[5].parse::<EcoRange>().unwrap(), c.eco[0]);
    }
}
