//! PGN export format (PGN standard §8): a [`RawGame`] written back with its
//! tags, comments, NAGs and variations, plus whatever a caller adds.
//!
//! The writer owns layout only: the Seven Tag Roster first and in order
//! (missing roster tags written as `?`, the Date as `????.??.??`), the other
//! tags in input order, one blank line between the tags and the movetext and
//! after the game, movetext lines of at most 80 characters, move numbers
//! (`12.` before White's moves, `12...` before a Black move that opens the
//! movetext or a variation or follows a comment or variation), comments in
//! braces, NAGs as `$n`, LF line endings. Text is valid UTF-8: bytes that are
//! not are read as Latin-1 ([`decode_text`]). What to add (tags, comments at
//! given plies, a new result, regenerated SAN) is the caller's: see
//! [`Edits`].
//!
//! Nothing unparseable is written: a variation the game ended inside is
//! left out ([`closed_tokens`]), and the termination marker is always
//! written. [`crate::rules::movetext::damage`] says, in `validate`'s words,
//! what of a game could not be written back as it was read.

use std::borrow::Cow;
use std::io::{self, Write};

use shakmaty::Color;
use shakmaty::san::SanPlus;

use crate::rules::game::{
    GameResult, RawGame, SEVEN_TAG_ROSTER, Token, TokenKind, decode_text, recorded_result,
    unknown_tag_value,
};
use crate::rules::movetext::closed_tokens;
use crate::rules::san::{SanBuf, san_ascii};
use crate::schema::decimal;

/// What to keep of the input movetext.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keep {
    pub comments: bool,
    pub nags: bool,
    pub variations: bool,
}

impl Default for Keep {
    fn default() -> Keep {
        Keep {
            comments: true,
            nags: true,
            variations: true,
        }
    }
}

/// Changes a caller makes to a game as it is written.
#[derive(Debug, Clone, Default)]
pub struct Edits {
    /// Tags to set: a tag of the same name is replaced where it stands,
    /// others are appended after the input's tags, in this order.
    pub tags: Vec<(String, String)>,
    /// A new result for the Result tag and the termination marker.
    pub result: Option<GameResult>,
    /// Comments to insert on the main line: `(ply, text)` goes after the
    /// move of that ply and its NAGs (ply 0: before the first move).
    /// Several at one ply keep their order.
    pub comments: Vec<(u32, String)>,
    /// Main-line SAN to write instead of the text as written, for plies
    /// `1..=sans.len()` (e.g. regenerated from the replay); later moves are
    /// written as they stand.
    pub sans: Vec<String>,
}

/// Writes `game` in export format, followed by a blank line. `first_move`
/// is the fullmove number and side to move of the starting position.
///
/// # Errors
///
/// When writing fails.
///
/// # Examples
///
/// ```
/// use pgnkit::input::scan::scan;
/// use pgnkit::output::pgn::{Edits, Keep, write_game};
/// use shakmaty::Color;
///
/// let scan = scan(b"[White \"A\"]\n\n1. e4 {best} e5 (1... c5) 2. Nf3 *", true);
/// let mut edits = Edits::default();
/// edits.comments.push((2, "hello".into()));
/// let mut out = Vec::new();
/// write_game(&mut out, &scan.games[0], (1, Color::White), Keep::default(), &edits)?;
/// assert!(String::from_utf8(out)?.ends_with(
///     "\n\n1. e4 {best} 1... e5 {hello} (1... c5) 2. Nf3 *\n\n"
/// ));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn write_game(
    out: &mut dyn Write,
    game: &RawGame<'_>,
    first_move: (u32, Color),
    keep: Keep,
    edits: &Edits,
) -> io::Result<()> {
    let result = edits
        .result
        .or_else(|| recorded_result(game))
        .unwrap_or(GameResult::Unfinished);
    let tags: Vec<(Cow<'_, str>, Cow<'_, str>)> = game
        .tags
        .iter()
        .map(|t| (decode_text(t.name), t.text()))
        .collect();
    let mut buf = Vec::with_capacity(1024);
    let tokens = closed_tokens(&game.tokens).iter().map(Tok::from_raw);
    write_export(&mut buf, &tags, result, tokens, first_move, keep, edits);
    out.write_all(&buf)
}

/// A movetext token as the layout sees it: from a scanned game, or from a
/// converted one (whose moves are [`SanPlus`] and whose NAGs are numbers).
#[derive(Debug, Clone)]
pub enum Tok<'t> {
    /// A move as written.
    Move(Cow<'t, str>),
    /// A move to write in SAN.
    San(&'t SanPlus),
    /// A NAG as its number, as written.
    Nag(Cow<'t, str>),
    /// A NAG as its number.
    NagNumber(u8),
    /// A comment's text without its delimiters.
    Comment(Cow<'t, str>),
    /// `(`
    Open,
    /// `)`
    Close,
}

impl<'t> Tok<'t> {
    /// The token of a scanned game.
    pub fn from_raw(token: &Token<'t>) -> Tok<'t> {
        match token.kind {
            TokenKind::Move => Tok::Move(decode_text(token.text)),
            TokenKind::Nag => Tok::Nag(decode_text(token.text)),
            TokenKind::Comment => Tok::Comment(decode_text(token.text)),
            TokenKind::VariationStart => Tok::Open,
            TokenKind::VariationEnd => Tok::Close,
        }
    }
}

/// Writes one game in export format into `out`, followed by a blank line:
/// `tags` (name, value) in input order, `result` for the Result tag and
/// the termination marker, the movetext `tokens` laid out from
/// `first_move` (fullmove number and side to move of the starting
/// position). The one layout both [`write_game`] and `convert --to pgn`
/// use.
pub fn write_export<'t, N: AsRef<str>, V: AsRef<str>>(
    out: &mut Vec<u8>,
    tags: &[(N, V)],
    result: GameResult,
    tokens: impl IntoIterator<Item = Tok<'t>>,
    first_move: (u32, Color),
    keep: Keep,
    edits: &Edits,
) {
    write_tags(out, tags, result, edits);
    out.push(b'\n');
    let text = Movetext {
        buf: out,
        col: 0,
        open: 0,
    };
    let mut text = write_movetext(text, tokens, first_move, keep, edits);
    text.word(result.as_str());
    out.extend_from_slice(b"\n\n");
}

fn write_tag(out: &mut Vec<u8>, name: &str, value: &str) {
    out.push(b'[');
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b" \"");
    for &b in value.as_bytes() {
        match b {
            b'\\' | b'"' => out.extend_from_slice(&[b'\\', b]),
            // A tag is one line.
            b'\n' | b'\r' | b'\t' => out.push(b' '),
            _ => out.push(b),
        }
    }
    out.extend_from_slice(b"\"]\n");
}

fn write_tags<N: AsRef<str>, V: AsRef<str>>(
    out: &mut Vec<u8>,
    tags: &[(N, V)],
    result: GameResult,
    edits: &Edits,
) {
    let edited = |name: &str| {
        edits
            .tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let input = |name: &str| {
        tags.iter()
            .find(|(n, _)| n.as_ref() == name)
            .map(|(_, v)| v.as_ref())
    };
    for name in SEVEN_TAG_ROSTER {
        if name == "Result" {
            write_tag(out, name, result.as_str());
            continue;
        }
        let value = edited(name)
            .or_else(|| input(name))
            .unwrap_or(unknown_tag_value(name));
        write_tag(out, name, value);
    }
    let mut replaced: Vec<&str> = Vec::new();
    for (name, value) in tags {
        let name = name.as_ref();
        if SEVEN_TAG_ROSTER.contains(&name) {
            continue;
        }
        match edits.tags.iter().find(|(n, _)| n == name) {
            Some((n, value)) => {
                if !replaced.contains(&n.as_str()) {
                    write_tag(out, name, value);
                    replaced.push(n);
                }
            }
            None => write_tag(out, name, value.as_ref()),
        }
    }
    for (name, value) in &edits.tags {
        if !SEVEN_TAG_ROSTER.contains(&name.as_str()) && !replaced.contains(&name.as_str()) {
            write_tag(out, name, value);
        }
    }
}

/// Movetext being laid out in lines of at most 80 characters.
struct Movetext<'o> {
    buf: &'o mut Vec<u8>,
    /// Characters on the current line.
    col: usize,
    /// Variations opened and waiting for their first word (`(` glues to it).
    open: usize,
}

impl Movetext<'_> {
    const WIDTH: usize = 80;

    /// Starts a word of `chars` characters: a space or a line break first,
    /// then the `(` of variations waiting for it. The caller writes the
    /// word into `buf`.
    fn start_word(&mut self, chars: usize) {
        let len = chars + self.open;
        if self.col > 0 {
            if self.col + 1 + len > Self::WIDTH {
                self.buf.push(b'\n');
                self.col = 0;
            } else {
                self.buf.push(b' ');
                self.col += 1;
            }
        }
        for _ in 0..self.open {
            self.buf.push(b'(');
        }
        self.open = 0;
        self.col += len;
    }

    fn word(&mut self, word: &str) {
        self.start_word(word.chars().count());
        self.buf.extend_from_slice(word.as_bytes());
    }

    /// A move: its number (`12.` or `12...`) if any, and the move (UTF-8
    /// bytes, `chars` characters), on one line.
    #[inline]
    fn move_word(&mut self, number: Option<(u64, bool)>, san: &[u8], chars: usize) {
        let mut prefix = [0u8; 16];
        let prefix = match number {
            Some((n, black)) => {
                let dots: &[u8] = if black { b"... " } else { b". " };
                let at = prefix.len() - dots.len();
                prefix[at..].copy_from_slice(dots);
                let at = decimal(n, &mut prefix[..at]);
                &prefix[at..]
            }
            None => &prefix[..0],
        };
        self.start_word(prefix.len() + chars);
        self.buf.extend_from_slice(prefix);
        self.buf.extend_from_slice(san);
    }

    /// A NAG: `$` and its number (`chars` characters).
    fn nag(&mut self, number: &[u8], chars: usize) {
        self.start_word(1 + chars);
        self.buf.push(b'$');
        self.buf.extend_from_slice(number);
    }

    fn open_variation(&mut self) {
        self.open += 1;
    }

    fn close_variation(&mut self) {
        if self.open > 0 {
            // An empty variation.
            self.open -= 1;
            self.word("()");
        } else if self.col > 0 && self.col < Self::WIDTH {
            self.buf.push(b')');
            self.col += 1;
        } else {
            self.word(")");
        }
    }

    /// `{text}` split into words so that it wraps like everything else.
    /// `}` cannot stand inside a brace comment (a `;` comment may hold one):
    /// it is written as `)`.
    fn comment(&mut self, text: &str) {
        let mut words = text.split_whitespace().peekable();
        if words.peek().is_none() {
            self.word("{}");
            return;
        }
        let mut first = true;
        while let Some(w) = words.next() {
            let last = words.peek().is_none();
            self.start_word(w.chars().count() + usize::from(first) + usize::from(last));
            if first {
                self.buf.push(b'{');
            }
            for &b in w.as_bytes() {
                self.buf.push(if b == b'}' { b')' } else { b });
            }
            if last {
                self.buf.push(b'}');
            }
            first = false;
        }
    }
}

/// Ply numbering of one line (main line or variation).
#[derive(Clone, Copy)]
struct Line {
    /// Plies played before the next move on this line, counted from the
    /// game's starting position.
    ply: u32,
}

/// Lays out the movetext `tokens` (without the termination marker) from
/// `first_move`: numbers the moves, keeps what `keep` says, and writes the
/// SAN and the comments of `edits`; returns `text` for what follows.
fn write_movetext<'t, 'o>(
    text: Movetext<'o>,
    tokens: impl IntoIterator<Item = Tok<'t>>,
    first_move: (u32, Color),
    keep: Keep,
    edits: &Edits,
) -> Movetext<'o> {
    let mut writer = MovetextWriter {
        text,
        first_move,
        keep,
        edits,
        stack: Vec::new(),
        line: Line { ply: 0 },
        need_number: true,
        pending: None,
        skipping: 0,
    };
    insert_comments(&mut writer.text, edits, 0);
    for token in tokens {
        writer.token(token);
    }
    writer.flush_pending();
    writer.text
}

/// The state of [`write_movetext`] between tokens.
struct MovetextWriter<'o, 'e> {
    text: Movetext<'o>,
    first_move: (u32, Color),
    keep: Keep,
    edits: &'e Edits,
    /// The lines the current variation branches from, innermost last.
    stack: Vec<Line>,
    line: Line,
    /// Whether the next Black move needs its number (`12...`).
    need_number: bool,
    /// A main-line ply whose inserted comments wait for its NAGs.
    pending: Option<u32>,
    /// Depth inside a variation being left out (`keep.variations` off).
    skipping: u16,
}

impl MovetextWriter<'_, '_> {
    // Inlined into the token loop: this is the hot path of `convert --to pgn`.
    #[inline(always)]
    fn token(&mut self, token: Tok<'_>) {
        if self.skipping > 0 {
            match token {
                Tok::Open => self.skipping += 1,
                Tok::Close => self.skipping -= 1,
                _ => {}
            }
            return;
        }
        let is_nag = matches!(token, Tok::Nag(_) | Tok::NagNumber(_));
        if !is_nag && self.flush_pending() {
            self.need_number = true;
        }
        match token {
            Tok::Move(_) | Tok::San(_) => self.play(&token),
            Tok::Nag(number) => {
                if self.keep.nags {
                    self.text.nag(number.as_bytes(), number.chars().count());
                }
            }
            Tok::NagNumber(number) => {
                if self.keep.nags {
                    let mut digits = [0u8; 3];
                    let at = decimal(u64::from(number), &mut digits);
                    self.text.nag(&digits[at..], digits.len() - at);
                }
            }
            Tok::Comment(comment) => {
                if self.keep.comments {
                    self.text.comment(&comment);
                    self.need_number = true;
                }
            }
            Tok::Open if !self.keep.variations => self.skipping = 1,
            Tok::Open => self.open_variation(),
            Tok::Close => self.close_variation(),
        }
    }

    /// A move, with its number when it needs one, as written or as the
    /// caller regenerated it.
    #[inline(always)]
    fn play(&mut self, token: &Tok<'_>) {
        // The move made from the position after `ply` plies.
        let index = self.line.ply + u32::from(self.first_move.1 == Color::Black);
        // In u64: a FEN's fullmove number may be u32::MAX.
        let n = u64::from(self.first_move.0) + u64::from(index / 2);
        let black = index % 2 == 1;
        // A move number stays on the line of its move.
        let prefix = (!black || self.need_number).then_some((n, black));
        self.need_number = false;
        self.line.ply += 1;
        let main = self.stack.is_empty();
        let edits = self.edits;
        let regenerated = main
            .then(|| edits.sans.get(self.line.ply as usize - 1))
            .flatten();
        match (regenerated, token) {
            (Some(san), _) => self
                .text
                .move_word(prefix, san.as_bytes(), san.chars().count()),
            (None, Tok::Move(san)) => {
                self.text
                    .move_word(prefix, san.as_bytes(), san.chars().count());
            }
            (None, Tok::San(san)) => {
                let mut buf = SanBuf::default();
                let san = san_ascii(san, &mut buf);
                self.text.move_word(prefix, san, san.len());
            }
            (None, _) => {}
        }
        if main {
            self.pending = Some(self.line.ply);
        }
    }

    #[inline]
    fn open_variation(&mut self) {
        self.stack.push(self.line);
        // A variation replaces the move just played.
        self.line.ply = self.line.ply.saturating_sub(1);
        self.text.open_variation();
        self.need_number = true;
    }

    #[inline]
    fn close_variation(&mut self) {
        if let Some(outer) = self.stack.pop() {
            self.line = outer;
        }
        self.text.close_variation();
        self.need_number = true;
    }

    /// Writes the inserted comments of the main-line ply waiting for its
    /// NAGs, if one is; whether there were any.
    #[inline(always)]
    fn flush_pending(&mut self) -> bool {
        match self.pending.take() {
            Some(ply) => insert_comments(&mut self.text, self.edits, ply),
            None => false,
        }
    }
}

/// Writes the comments `edits` inserts at `ply`; whether there were any.
/// (A free function, so that the writer's state stays in registers.)
fn insert_comments(text: &mut Movetext<'_>, edits: &Edits, ply: u32) -> bool {
    let mut any = false;
    for (_, c) in edits.comments.iter().filter(|(p, _)| *p == ply) {
        text.comment(c);
        any = true;
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_digits() {
        let mut buf = [0u8; 10];
        for n in [0, 7, 10, 255, 1_234, u64::from(u32::MAX) + 1] {
            let at = decimal(n, &mut buf);
            assert_eq!(&buf[at..], n.to_string().as_bytes());
        }
    }
}
