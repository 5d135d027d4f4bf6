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

use crate::rules::check::SEVEN_TAG_ROSTER;
use crate::rules::game::{GameResult, RawGame, TokenKind, decode_text};
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
    write_tags(out, game, result, edits)?;
    out.write_all(b"\n")?;
    let mut text = Movetext::default();
    write_movetext(&mut text, game, first_move, keep, edits);
    text.word(result.as_str());
    out.write_all(text.buf.as_bytes())?;
    out.write_all(b"\n\n")
}

fn write_tag(out: &mut dyn Write, name: &str, value: &str) -> io::Result<()> {
    let mut escaped = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' | '"' => {
                escaped.push('\\');
                escaped.push(c);
            }
            // A tag is one line.
            '\n' | '\r' | '\t' => escaped.push(' '),
            _ => escaped.push(c),
        }
    }
    writeln!(out, "[{name} \"{escaped}\"]")
}

fn write_tags(
    out: &mut dyn Write,
    game: &RawGame<'_>,
    result: GameResult,
    edits: &Edits,
) -> io::Result<()> {
    let edited = |name: &str| {
        edits
            .tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    for name in SEVEN_TAG_ROSTER {
        if name == "Result" {
            write_tag(out, name, result.as_str())?;
            continue;
        }
        let value = edited(name)
            .map(Cow::Borrowed)
            .or_else(|| game.tag_text(name));
        let default = if name == "Date" { "????.??.??" } else { "?" };
        write_tag(out, name, value.as_deref().unwrap_or(default))?;
    }
    let mut replaced: Vec<&str> = Vec::new();
    for tag in &game.tags {
        let name = decode_text(tag.name);
        if SEVEN_TAG_ROSTER.contains(&&*name) {
            continue;
        }
        match edits.tags.iter().find(|(n, _)| *n == *name) {
            Some((n, value)) => {
                if !replaced.contains(&n.as_str()) {
                    write_tag(out, &name, value)?;
                    replaced.push(n);
                }
            }
            None => write_tag(out, &name, &tag.text())?,
        }
    }
    for (name, value) in &edits.tags {
        if !SEVEN_TAG_ROSTER.contains(&name.as_str()) && !replaced.contains(&name.as_str()) {
            write_tag(out, name, value)?;
        }
    }
    Ok(())
}

/// Movetext being laid out in lines of at most 80 characters.
#[derive(Default)]
struct Movetext {
    buf: String,
    /// Characters on the current line.
    col: usize,
    /// Variations opened and waiting for their first word (`(` glues to it).
    open: usize,
}

impl Movetext {
    const WIDTH: usize = 80;

    fn word(&mut self, word: &str) {
        let len = word.chars().count() + self.open;
        if self.col > 0 {
            if self.col + 1 + len > Self::WIDTH {
                self.buf.push('\n');
                self.col = 0;
            } else {
                self.buf.push(' ');
                self.col += 1;
            }
        }
        for _ in 0..self.open {
            self.buf.push('(');
        }
        self.open = 0;
        self.buf.push_str(word);
        self.col += len;
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
            self.buf.push(')');
            self.col += 1;
        } else {
            self.word(")");
        }
    }

    /// `{text}` split into words so that it wraps like everything else.
    fn comment(&mut self, text: &str) {
        // `}` cannot stand inside a brace comment (a `;` comment may hold
        // one): it is written as `)`.
        let text = text.replace('}', ")");
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            [] => self.word("{}"),
            [only] => self.word(&format!("{{{only}}}")),
            [first, middle @ .., last] => {
                self.word(&format!("{{{first}"));
                for w in middle {
                    self.word(w);
                }
                self.word(&format!("{last}}}"));
            }
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

fn write_movetext(
    text: &mut Movetext,
    game: &RawGame<'_>,
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
    let flush = |text: &mut Movetext, pending: &mut Option<u32>| -> bool {
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
    for token in &game.tokens {
        if depth_skipped > 0 {
            match token.kind {
                TokenKind::VariationStart => depth_skipped += 1,
                TokenKind::VariationEnd => depth_skipped -= 1,
                _ => {}
            }
            continue;
        }
        if token.kind != TokenKind::Nag && flush(text, &mut pending) {
            need_number = true;
        }
        match token.kind {
            TokenKind::Move => {
                let (n, black) = number(line.ply);
                // A move number stays on the line of its move.
                let prefix = if !black {
                    format!("{n}. ")
                } else if need_number {
                    format!("{n}... ")
                } else {
                    String::new()
                };
                need_number = false;
                line.ply += 1;
                let main = stack.is_empty();
                let regenerated = main
                    .then(|| edits.sans.get(line.ply as usize - 1))
                    .flatten();
                let san = match regenerated {
                    Some(san) => Cow::Borrowed(san.as_str()),
                    None => decode_text(token.text),
                };
                text.word(&format!("{prefix}{san}"));
                if main {
                    pending = Some(line.ply);
                }
            }
            TokenKind::Nag => {
                if keep.nags {
                    text.word(&format!("${}", decode_text(token.text)));
                }
            }
            TokenKind::Comment => {
                if keep.comments {
                    text.comment(&decode_text(token.text));
                    need_number = true;
                }
            }
            TokenKind::VariationStart => {
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
            TokenKind::VariationEnd => {
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
