//! The game as read from PGN, before any chess is played, and the facts of
//! a game that need no board: tags and the movetext tokens, each with the
//! line it stands on; the Seven Tag Roster and its values for the unknown;
//! the recorded result and who it says won.
//!
//! A [`RawGame`] borrows the bytes it was scanned from, so scanning a chunk of
//! a file allocates little; everything that is decoded (tag values) is
//! decoded on demand. What the board says about the result (mate, the
//! automatic draws) is left to [`super::ends`] and [`crate::tasks::annotate_outcome`].

use std::borrow::Cow;
use std::fmt;

use shakmaty::Color;

use super::finding::Finding;

/// A game result as PGN writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
    /// `*`: unfinished, unknown or abandoned.
    Unfinished,
}

impl GameResult {
    /// The four results, as PGN orders them in its specification.
    pub const ALL: [GameResult; 4] = [
        GameResult::WhiteWins,
        GameResult::BlackWins,
        GameResult::Draw,
        GameResult::Unfinished,
    ];

    /// Parses the four PGN result texts, nothing else.
    pub fn from_ascii(text: &[u8]) -> Option<GameResult> {
        match text {
            b"1-0" => Some(GameResult::WhiteWins),
            b"0-1" => Some(GameResult::BlackWins),
            b"1/2-1/2" => Some(GameResult::Draw),
            b"*" => Some(GameResult::Unfinished),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unfinished => "*",
        }
    }

    /// `true` for `1-0` and `0-1`.
    pub fn is_decisive(self) -> bool {
        matches!(self, GameResult::WhiteWins | GameResult::BlackWins)
    }

    /// The win for `side`: `1-0` for White, `0-1` for Black.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::game::GameResult;
    /// use shakmaty::Color;
    /// assert_eq!(GameResult::win_for(Color::Black), GameResult::BlackWins);
    /// ```
    #[inline]
    pub fn win_for(side: Color) -> GameResult {
        match side {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }

    /// The side this result says won: `None` for a draw or `*`.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::game::GameResult;
    /// use shakmaty::Color;
    /// assert_eq!(GameResult::WhiteWins.winner(), Some(Color::White));
    /// assert_eq!(GameResult::Draw.winner(), None);
    /// ```
    #[inline]
    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            GameResult::Draw | GameResult::Unfinished => None,
        }
    }

    /// The result a game records, from the value of its first `Result` tag
    /// and its termination marker: the tag when it is one of the four
    /// results, else the marker. The one rule every subcommand follows
    /// ([`recorded_result`] applies it to a [`RawGame`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::game::GameResult;
    /// let draw = Some(GameResult::Draw);
    /// assert_eq!(GameResult::recorded(Some(b"1-0"), draw), Some(GameResult::WhiteWins));
    /// assert_eq!(GameResult::recorded(Some(b"1-0 "), draw), draw);
    /// assert_eq!(GameResult::recorded(None, None), None);
    /// ```
    #[inline]
    pub fn recorded(tag: Option<&[u8]>, marker: Option<GameResult>) -> Option<GameResult> {
        tag.and_then(GameResult::from_ascii).or(marker)
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One `[Name "value"]` pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag<'a> {
    pub name: &'a [u8],
    /// The value with `\"` and `\\` escapes already resolved; raw bytes,
    /// which may be Latin-1 (see [`decode_text`]).
    pub value: Cow<'a, [u8]>,
    /// Relative line of the tag's `[`.
    pub line: u64,
    /// Relative line of the value (a tag may span lines).
    pub value_line: u64,
}

impl Tag<'_> {
    /// The value as text (UTF-8, or Latin-1 transcoded).
    pub fn text(&self) -> Cow<'_, str> {
        decode_text(&self.value)
    }
}

/// What a movetext token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// A move as written (SAN, or whatever stands in a move position).
    Move,
    /// A numeric annotation glyph; the text is its number (`$14` → `14`).
    Nag,
    /// A `{…}` or `;…` comment; the text is what is inside.
    Comment,
    /// `(`
    VariationStart,
    /// `)`
    VariationEnd,
}

/// One movetext token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    pub kind: TokenKind,
    pub text: &'a [u8],
    /// Relative line the token starts on.
    pub line: u64,
    /// Variation depth: 0 is the main line.
    pub depth: u32,
}

/// The termination marker at the end of the movetext.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker {
    pub result: GameResult,
    pub line: u64,
}

/// A game as scanned from PGN: tags, movetext tokens, the termination
/// marker, and the findings the scanner itself made (layout, syntax).
#[derive(Debug, Clone, Default)]
pub struct RawGame<'a> {
    /// Relative line of the game's first token.
    pub line: u64,
    /// Byte offset of the game's first byte in the scanned buffer.
    pub offset: usize,
    pub tags: Vec<Tag<'a>>,
    pub tokens: Vec<Token<'a>>,
    pub marker: Option<Marker>,
    /// `false` for a game whose movetext stood without a tag section.
    pub has_tags: bool,
    /// Findings of the scanner, in input order.
    pub findings: Vec<Finding>,
    /// The game's bytes as scanned, from its first tag to the end of its
    /// movetext (empty for a game made by hand): what the tokens are cut
    /// from, read again for the rare question the tokens do not answer
    /// (the move numbers, [`RawGame::numbered_ply`]).
    pub text: &'a [u8],
}

impl<'a> RawGame<'a> {
    /// The first tag called `name`, if any.
    pub fn tag(&self, name: &str) -> Option<&Tag<'a>> {
        self.tags.iter().find(|t| t.name == name.as_bytes())
    }

    /// The decoded value of the first tag called `name`.
    pub fn tag_text(&self, name: &str) -> Option<Cow<'_, str>> {
        self.tag(name).map(Tag::text)
    }

    /// The position after main-line ply `ply`, named by the move that led
    /// to it as written (`after 4.Qxf7#`), for a game whose moves start at
    /// `first_move`; `in the starting position` at ply 0.
    pub fn after_ply(&self, ply: u32, first_move: (u32, shakmaty::Color)) -> String {
        match ply
            .checked_sub(1)
            .and_then(|i| self.main_line().nth(i as usize))
        {
            Some(t) => format!(
                "after {}",
                super::notation::move_name(ply, first_move, &decode_text(t.text))
            ),
            None => "in the starting position".to_owned(),
        }
    }

    /// For each main-line move, the ply its written move number says it is
    /// (`24...` is ply 48 in a game from the start), for a game whose moves
    /// start at `first_move`; `None` where no number was written (or one
    /// that cannot be a ply of the game).
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::input::scan::scan;
    /// use shakmaty::Color;
    /// let game = &scan(b"1. e4 e5 2. Nf3 3.Bb5 a6 *", true).games[0];
    /// let plies = game.numbered_plies((1, Color::White));
    /// // `3.` stands where Black's second move was due.
    /// assert_eq!(plies, [Some(1), None, Some(3), Some(5), None]);
    /// ```
    pub fn numbered_plies(&self, first_move: (u32, shakmaty::Color)) -> Vec<Option<u32>> {
        self.main_line()
            .map(|t| self.numbered_ply(t, first_move))
            .collect()
    }

    /// The ply the move number written just before `token` (`24.`, `24...`,
    /// `24 ...`, glued or not) says it is, in a game whose moves start at
    /// `first_move` (fullmove number, side to move); `None` when none was
    /// written, or it names no ply of the game. The scanner does not keep
    /// move numbers (moves would pay for it); this reads them again from
    /// the game's bytes.
    pub fn numbered_ply(
        &self,
        token: &Token<'_>,
        (fullmove, turn): (u32, shakmaty::Color),
    ) -> Option<u32> {
        let base = self.text.as_ptr() as usize;
        let at = (token.text.as_ptr() as usize).checked_sub(base)?;
        let before = self.text.get(..at)?;
        let mut end = before.len();
        while end > 0 && before[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        let dots_end = end;
        while end > 0 && before[end - 1] == b'.' {
            end -= 1;
        }
        let mut dots = dots_end - end;
        // `12 ... e4`: the dots stand apart from the number.
        if dots > 0 {
            while end > 0 && before[end - 1].is_ascii_whitespace() {
                end -= 1;
            }
        }
        let digits_end = end;
        while end > 0 && before[end - 1].is_ascii_digit() {
            end -= 1;
        }
        let digits = &before[end..digits_end];
        // A number stands alone: not the end of a move (`Nf3`) or a glyph.
        let alone = end == 0
            || before[end - 1].is_ascii_whitespace()
            || matches!(before[end - 1], b')' | b'(' | b'}' | b']');
        if digits.is_empty() || digits.len() > 4 || !alone {
            return None;
        }
        if dots_end == digits_end {
            dots = 0;
        }
        let number = digits
            .iter()
            .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
        let black = i64::from(dots >= 2);
        let ply = 2 * (number - i64::from(fullmove)) + black + 1
            - i64::from(turn == shakmaty::Color::Black);
        u32::try_from(ply).ok().filter(|&p| p >= 1)
    }

    /// The main-line move tokens, in order.
    pub fn main_line(&self) -> impl Iterator<Item = &Token<'a>> {
        self.tokens
            .iter()
            .filter(|t| t.depth == 0 && t.kind == TokenKind::Move)
    }
}

/// The recorded result of `game`: its `Result` tag when valid, else its
/// termination marker ([`GameResult::recorded`]).
pub fn recorded_result(game: &RawGame<'_>) -> Option<GameResult> {
    GameResult::recorded(
        game.tag("Result").map(|t| &*t.value),
        game.marker.map(|m| m.result),
    )
}

/// The Seven Tag Roster, in order (PGN standard 8.1.1).
pub const SEVEN_TAG_ROSTER: [&str; 7] =
    ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// The value a tag of the Seven Tag Roster takes when it is unknown (PGN
/// standard 8.1.1): `????.??.??` for the Date, `*` for the Result, `?` for
/// the others.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::game::unknown_tag_value;
/// assert_eq!(unknown_tag_value("Date"), "????.??.??");
/// assert_eq!(unknown_tag_value("White"), "?");
/// ```
pub fn unknown_tag_value(name: &str) -> &'static str {
    match name {
        "Date" => "????.??.??",
        "Result" => GameResult::Unfinished.as_str(),
        _ => "?",
    }
}

/// The Seven Tag Roster of a game known only by its result (a game made
/// from a line of FEN or UCI): every other tag unknown.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::game::{GameResult, roster_with_result};
/// let tags = roster_with_result(GameResult::Draw);
/// assert_eq!(tags[2], ("Date", "????.??.??"));
/// assert_eq!(tags[6], ("Result", "1/2-1/2"));
/// ```
pub fn roster_with_result(result: GameResult) -> [(&'static str, &'static str); 7] {
    SEVEN_TAG_ROSTER.map(|name| {
        let value = if name == "Result" {
            result.as_str()
        } else {
            unknown_tag_value(name)
        };
        (name, value)
    })
}

/// Decodes bytes from a PGN file as text: UTF-8 when they are valid UTF-8,
/// otherwise Latin-1 (old archives), so the result is always valid UTF-8.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::game::decode_text;
/// assert_eq!(decode_text(b"Caf\xe9"), "Café");
/// assert_eq!(decode_text("Café".as_bytes()), "Café");
/// ```
pub fn decode_text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// One change of a game's bytes: `start..end` of the game's text replaced
/// by `with`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub with: Vec<u8>,
}

/// `text` with `edits` (sorted, not overlapping, relative to `text`'s
/// first byte shifted by `shift`) applied.
pub fn apply_edits(text: &[u8], shift: usize, edits: &[Edit]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 128);
    let mut at = 0;
    for e in edits {
        let (start, end) = (e.start + shift, e.end + shift);
        out.extend_from_slice(&text[at..start]);
        out.extend_from_slice(&e.with);
        at = end;
    }
    out.extend_from_slice(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use crate::input::scan::scan;
    use shakmaty::Color;

    fn plies(movetext: &[u8], first: (u32, Color)) -> Vec<Option<u32>> {
        scan(movetext, true).games[0].numbered_plies(first)
    }

    #[test]
    fn move_numbers_are_read_however_they_are_written() {
        let start = (1, Color::White);
        // Glued, spaced, Black's dots apart, a NAG, a comment, a variation.
        assert_eq!(
            plies(
                b"1.e4 1...e5 2 . Nf3 2 ... Nc6 $1 3. Bb5 {x} a6 (3... Nf6 4. O-O) 4. Ba4 *",
                start
            ),
            [Some(1), Some(2), Some(3), Some(4), Some(5), None, Some(7)]
        );
        // The last digit of a move, a glyph or a comment is no number.
        assert_eq!(plies(b"Nf3 e5 Nc3 $14 d5 {12} Nf6 *", start), [None; 5]);
        // From a FEN with Black to move at move 30.
        assert_eq!(
            plies(b"30... Kg7 31. Qd2 *", (30, Color::Black)),
            [Some(1), Some(2)]
        );
        // Numbers before the start say no ply of the game.
        assert_eq!(plies(b"1. e4 *", (30, Color::White)), [None]);
        // A game the scanner did not cut from bytes has no numbers.
        let mut game = scan(b"1. e4 e5 *", true).games[0].clone();
        game.text = b"";
        assert_eq!(game.numbered_plies(start), [None, None]);
    }
}
