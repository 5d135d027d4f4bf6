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

use std::borrow::Cow;
use std::io::{self, Write};

use shakmaty::Color;
use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::{CastlingSide, Role};

use crate::rules::check::SEVEN_TAG_ROSTER;
use crate::rules::game::{GameResult, RawGame, Token, TokenKind, decode_text};
use crate::rules::outcome::recorded_result;

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
    let tokens = game.tokens.iter().map(Tok::from_raw);
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
    let mut text = Movetext {
        buf: out,
        col: 0,
        open: 0,
    };
    write_movetext(&mut text, tokens, first_move, keep, edits);
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
        let default = if name == "Date" { "????.??.??" } else { "?" };
        let value = edited(name).or_else(|| input(name)).unwrap_or(default);
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
    fn move_word(&mut self, number: Option<(u32, bool)>, san: &[u8], chars: usize) {
        let mut prefix = [0u8; 16];
        let prefix = match number {
            Some((n, black)) => {
                let mut at = prefix.len();
                let dots: &[u8] = if black { b"... " } else { b". " };
                at -= dots.len();
                prefix[at..at + dots.len()].copy_from_slice(dots);
                let mut n = n;
                loop {
                    at -= 1;
                    prefix[at] = b'0' + (n % 10) as u8;
                    n /= 10;
                    if n == 0 {
                        break;
                    }
                }
                &prefix[at..]
            }
            None => &prefix[..0],
        };
        self.start_word(prefix.len() + chars);
        self.buf.extend_from_slice(prefix);
        self.buf.extend_from_slice(san);
    }

    fn nag(&mut self, number: &str) {
        self.start_word(1 + number.chars().count());
        self.buf.push(b'$');
        self.buf.extend_from_slice(number.as_bytes());
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

fn write_movetext<'t>(
    text: &mut Movetext<'_>,
    tokens: impl IntoIterator<Item = Tok<'t>>,
    first_move: (u32, Color),
    keep: Keep,
    edits: &Edits,
) {
    let black_first = u32::from(first_move.1 == Color::Black);
    let number = |ply: u32| {
        // The move made from the position after `ply` plies.
        let index = ply + black_first;
        (first_move.0 + index / 2, index % 2 == 1)
    };
    let inserted = |ply: u32| {
        edits
            .comments
            .iter()
            .filter(move |(p, _)| *p == ply)
            .map(|(_, c)| c.as_str())
    };
    let mut stack: Vec<Line> = Vec::new();
    let mut line = Line { ply: 0 };
    // Whether the next Black move needs its number (`12...`).
    let mut need_number = true;
    // A main-line ply whose inserted comments wait for its NAGs.
    let mut pending: Option<u32> = None;
    let mut depth_skipped = 0u16;
    for c in inserted(0) {
        text.comment(c);
    }
    let flush = |text: &mut Movetext<'_>, pending: &mut Option<u32>| -> bool {
        match pending.take() {
            Some(ply) => {
                let mut any = false;
                for c in inserted(ply) {
                    text.comment(c);
                    any = true;
                }
                any
            }
            None => false,
        }
    };
    let mut san_buf = [0u8; 12];
    for token in tokens {
        if depth_skipped > 0 {
            match token {
                Tok::Open => depth_skipped += 1,
                Tok::Close => depth_skipped -= 1,
                _ => {}
            }
            continue;
        }
        let is_nag = matches!(token, Tok::Nag(_) | Tok::NagNumber(_));
        if !is_nag && flush(text, &mut pending) {
            need_number = true;
        }
        match token {
            Tok::Move(_) | Tok::San(_) => {
                let (n, black) = number(line.ply);
                // A move number stays on the line of its move.
                let prefix = (!black || need_number).then_some((n, black));
                need_number = false;
                line.ply += 1;
                let main = stack.is_empty();
                let regenerated = main
                    .then(|| edits.sans.get(line.ply as usize - 1))
                    .flatten();
                match (regenerated, &token) {
                    (Some(san), _) => text.move_word(prefix, san.as_bytes(), san.chars().count()),
                    (None, Tok::Move(san)) => {
                        text.move_word(prefix, san.as_bytes(), san.chars().count());
                    }
                    (None, Tok::San(san)) => {
                        let len = san_ascii(san, &mut san_buf);
                        text.move_word(prefix, &san_buf[..len], len);
                    }
                    (None, _) => {}
                }
                if main {
                    pending = Some(line.ply);
                }
            }
            Tok::Nag(number) => {
                if keep.nags {
                    text.nag(&number);
                }
            }
            Tok::NagNumber(number) => {
                if keep.nags {
                    let mut digits = [0u8; 3];
                    let s = format_u8(number, &mut digits);
                    text.nag(s);
                }
            }
            Tok::Comment(comment) => {
                if keep.comments {
                    text.comment(&comment);
                    need_number = true;
                }
            }
            Tok::Open => {
                if !keep.variations {
                    depth_skipped = 1;
                    continue;
                }
                stack.push(line);
                // A variation replaces the move just played.
                line.ply = line.ply.saturating_sub(1);
                text.open_variation();
                need_number = true;
            }
            Tok::Close => {
                if let Some(outer) = stack.pop() {
                    line = outer;
                }
                text.close_variation();
                need_number = true;
            }
        }
    }
    flush(text, &mut pending);
}

/// `san` in `buf` (as its `Display` writes it, without the formatting
/// machinery); returns the length. SAN is ASCII, at most 9 bytes
/// (`Na1xb2=Q#`).
fn san_ascii(san: &SanPlus, buf: &mut [u8; 12]) -> usize {
    fn role(r: Role) -> u8 {
        b"PNBRQK"[r as usize - 1]
    }
    fn square(sq: shakmaty::Square, buf: &mut [u8; 12], n: &mut usize) {
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
    n
}

/// `n` in decimal, in `buf`.
fn format_u8(n: u8, buf: &mut [u8; 3]) -> &str {
    let mut at = buf.len();
    let mut n = n;
    loop {
        at -= 1;
        buf[at] = b'0' + n % 10;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Digits are ASCII.
    std::str::from_utf8(&buf[at..]).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Position, Square};

    use super::*;

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
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            for m in pos.legal_moves() {
                sans.push(San::from_move(&pos, m));
            }
        }
        // The longest: both disambiguators, a capture and a promotion.
        sans.push(San::Normal {
            role: Role::Knight,
            file: Some(shakmaty::File::A),
            rank: Some(shakmaty::Rank::First),
            capture: true,
            to: Square::B2,
            promotion: Some(Role::Queen),
        });
        for san in sans {
            for suffix in [None, Some(Suffix::Check), Some(Suffix::Checkmate)] {
                let san = SanPlus { san, suffix };
                let mut buf = [0u8; 12];
                let len = san_ascii(&san, &mut buf);
                assert_eq!(
                    std::str::from_utf8(&buf[..len]),
                    Ok(san.to_string().as_str())
                );
            }
        }
    }
}
