//! PGN scanner: bytes → [`RawGame`]s, with the line of every token and a
//! finding for every piece of layout damage it recovers from.
//!
//! pgn-reader is fast but reports no positions and silently drops tokens it
//! does not understand; a validator needs both, so pgnkit scans PGN itself.
//! The scanner knows PGN syntax only: it never plays a move (that is
//! [`crate::rules::replay`]).
//!
//! The scanner is relaxed the way real archives need:
//! - a game ends at its termination marker, or at a `[` that starts a line
//!   (or that is glued to the previous game's result line), never at a
//!   blank line: a blank line inside the movetext is reported (`layout`) and
//!   the game goes on;
//! - a blank line inside a tag section is reported and the section goes on,
//!   unless the tag after it repeats a tag of the section: then that tag
//!   starts a new game, and the section before it had no movetext;
//! - movetext without a tag section is a game (reported); text between games
//!   that holds no move and no result is not a game (reported);
//! - tags may span lines and carry whitespace inside the brackets; `\"` and
//!   `\\` escape in tag values;
//! - NUL bytes and UTF-8 byte order marks between tokens are skipped (NULs
//!   are reported), `%` lines are escapes, `;` comments run to the end of the
//!   line, `{` comments may span lines;
//! - `12.e4` and `12...Nf6` are split into a move number and a move, `e4!?`
//!   into a move and an annotation glyph.
//!
//! Scanning a chunk that starts where a game starts gives the same games as
//! scanning the whole file, provided the previous chunk ended in a clean
//! state ([`Scan::clean_end`]); the pipeline checks that and rescans when it
//! did not.

use std::borrow::Cow;

use crate::rules::finding::{Code, Finding};
use crate::rules::game::{GameResult, Marker, RawGame, Tag, Token, TokenKind};

/// What scanning one chunk gave.
#[derive(Debug, Default)]
pub struct Scan<'a> {
    pub games: Vec<RawGame<'a>>,
    /// Findings that belong to no game (text in a chunk that holds no game).
    pub loose: Vec<Finding>,
    /// Newlines in the chunk.
    pub lines: u64,
    /// `false` when the chunk ended inside a comment, a variation or a tag
    /// section: then the split before the next chunk was wrong.
    pub clean_end: bool,
}

/// Where the tag section of the game `raw` starts with ends: the first
/// line after a tag line that is neither blank nor a tag (nor a `%` escape
/// line), where the movetext starts; all of `raw` when there is none. A
/// blank line inside the tags does not end them, as it does not for the
/// scanner. Scanning `raw` up to there reads the game's tags, and not its
/// moves.
pub fn header_end(raw: &[u8]) -> usize {
    let mut seen_tag = false;
    let mut at = 0;
    while at < raw.len() {
        let next = memchr::memchr(b'\n', &raw[at..]).map_or(raw.len(), |i| at + i + 1);
        let line = raw[at..next].trim_ascii();
        if line.starts_with(b"[") {
            seen_tag = true;
        } else if seen_tag && !line.is_empty() && !line.starts_with(b"%") {
            return at;
        }
        at = next;
    }
    raw.len()
}

/// Scans `buf`, which starts at a game boundary (or at the start of a file).
/// `at_file_end` says whether the end of `buf` is the end of the input;
/// when it is not, `buf` ends where [`crate::input::chunk`] cuts: just
/// before a `[` that starts a line.
pub fn scan(buf: &[u8], at_file_end: bool) -> Scan<'_> {
    scan_with(buf, at_file_end, Movetext::Tokens)
}

/// What a scan keeps of each game's movetext.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Movetext {
    /// Every token, and the findings of its layout and syntax.
    #[default]
    Tokens,
    /// Only its end and its termination marker: a game with tags gets no
    /// tokens, no findings of its movetext and no finding of a tag named
    /// twice (one without tags is scanned whole: its moves are what make
    /// it a game). The games, their bytes,
    /// lines, tags and markers are those [`Movetext::Tokens`] gives, and so
    /// is whether the chunk ends clean; what only reads tags (`select`'s
    /// criteria on tags) reads them at several times the speed.
    Skipped,
}

/// [`scan`], keeping of each game's movetext what `movetext` says.
pub fn scan_with(buf: &[u8], at_file_end: bool, movetext: Movetext) -> Scan<'_> {
    let mut scanner = Scanner {
        buf,
        pos: 0,
        line: 1,
        line_blank: true,
        at_file_end,
        clean_end: true,
        nul_line: 0,
        skip_moves: movetext == Movetext::Skipped,
    };
    let mut out = Scan::default();
    let mut pending: Vec<Finding> = Vec::new();
    loop {
        scanner.skip_idle_space(&mut pending);
        if scanner.at_end() {
            break;
        }
        let game = if scanner.peek() == b'[' {
            let glued = !scanner.line_blank;
            let line = scanner.line;
            let mut game = scanner.game(true);
            if glued {
                game.findings.insert(
                    0,
                    Finding::game(
                        Code::Layout,
                        line,
                        "tag section glued to the previous line: a tag must start a line",
                    ),
                );
            }
            game
        } else {
            let line = scanner.line;
            let game = scanner.game(false);
            let has_move = game
                .main_line()
                .any(|t| crate::rules::san::parse_san(t.text).is_ok());
            if game.marker.is_none() && !has_move {
                // Not a game: stray text between games or after the last one.
                let what = if scanner.at_end() && at_file_end {
                    "text after the last game"
                } else {
                    "text between games"
                };
                let mut finding = Finding::game(Code::Layout, line, format!("{what} ignored"));
                if let Some(first) = game.findings.first() {
                    finding.message = format!("{what} ignored ({})", first.message);
                }
                match out.games.last_mut() {
                    Some(prev) => prev.findings.push(finding),
                    None => pending.push(finding),
                }
                if !scanner.clean_end {
                    break;
                }
                continue;
            }
            let mut game = game;
            game.findings.insert(
                0,
                Finding::game(Code::Layout, line, "game without a tag section"),
            );
            game
        };
        let mut game = game;
        if !pending.is_empty() {
            let mut findings = std::mem::take(&mut pending);
            findings.append(&mut game.findings);
            game.findings = findings;
        }
        out.games.push(game);
        if !scanner.clean_end {
            break;
        }
    }
    match out.games.last_mut() {
        Some(last) => last.findings.append(&mut pending),
        None => out.loose.append(&mut pending),
    }
    out.clean_end = scanner.clean_end;
    out.lines = memchr::memchr_iter(b'\n', buf).count() as u64;
    out
}

/// Variation nesting in movetext.
#[derive(Debug, Clone, Copy, Default)]
struct Nesting {
    depth: u32,
    /// Line of the outermost open variation.
    line: u64,
}

/// The tag names of a section so far, for the duplicate test: a search of
/// the few tags of an ordinary game, a hash set once a section grows past
/// that (a section of 100,000 tags would make the search quadratic).
#[derive(Default)]
struct TagNames<'a> {
    set: Option<std::collections::HashSet<&'a [u8]>>,
}

impl<'a> TagNames<'a> {
    /// Tags a section holds before the names go into a set.
    const SEARCHED: usize = 32;

    /// Whether `name` is among `tags`, the section so far.
    fn contains(&self, tags: &[Tag<'a>], name: &[u8]) -> bool {
        match &self.set {
            Some(set) => set.contains(name),
            None => tags.iter().any(|t| t.name == name),
        }
    }

    /// Takes in the tag just pushed onto `tags`.
    fn added(&mut self, tags: &[Tag<'a>]) {
        match &mut self.set {
            Some(set) => {
                set.extend(tags.last().map(|t| t.name));
            }
            None if tags.len() > Self::SEARCHED => {
                self.set = Some(tags.iter().map(|t| t.name).collect());
            }
            None => {}
        }
    }
}

/// Whether movetext goes on after a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Go,
    /// The game ended (termination marker) or the chunk did.
    Stop,
}

struct Scanner<'a> {
    buf: &'a [u8],
    pos: usize,
    /// 1-based line of `pos`, relative to the chunk.
    line: u64,
    /// Nothing but whitespace so far on the current line.
    line_blank: bool,
    at_file_end: bool,
    clean_end: bool,
    /// Line on which NUL bytes were last reported (one finding per line).
    nul_line: u64,
    /// [`Movetext::Skipped`].
    skip_moves: bool,
}

const BOM: &[u8] = b"\xef\xbb\xbf";

/// Bytes that end a movetext word, as a lookup table.
static TOKEN_END: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = is_token_end_slow(b as u8);
        b += 1;
    }
    table
};

fn is_token_end(b: u8) -> bool {
    TOKEN_END[usize::from(b)]
}

const fn is_token_end_slow(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | 0
            | 0x0c
            | b'{'
            | b'}'
            | b'('
            | b')'
            | b';'
            | b'$'
            | b'['
            | b']'
            | b'!'
            | b'?'
    )
}

/// How [`Scanner::skip_movetext`] takes a byte on its fast path: part of a
/// word, space between words, a byte every termination marker holds (where
/// the path looks back for the word), or anything else (what the steps of a
/// token decide).
/// (The stopping classes, and only they, have the bit of `SKIP_DASH`.)
const SKIP_WORD: u8 = 0;
const SKIP_SPACE: u8 = 1;
const SKIP_DASH: u8 = 2;
const SKIP_OTHER: u8 = 3;

static SKIP_CLASS: [u8; 256] = {
    let mut table = [SKIP_WORD; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = match byte {
            b' ' | b'\t' | b'\r' | 0x0c => SKIP_SPACE,
            b'-' | b'*' => SKIP_DASH,
            // Line ends, NULs and byte order marks, escapes: the steps
            // track lines and whether a line is blank.
            b'\n' | 0 | 0xef | b'%' => SKIP_OTHER,
            _ if is_token_end_slow(byte) => SKIP_OTHER,
            _ => SKIP_WORD,
        };
        b += 1;
    }
    table
};

#[cfg(test)]
thread_local! {
    /// Tests turn [`Scanner::words`] off to compare it with the steps.
    static STEPS_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Runs [`Scanner::words`] took, for the tests to see it taken.
    static WORDS_RUNS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Whether movetext takes runs of common words by [`Scanner::words`].
#[inline(always)]
fn words_path() -> bool {
    #[cfg(test)]
    return !STEPS_ONLY.with(std::cell::Cell::get);
    #[cfg(not(test))]
    true
}

/// Appends a movetext token to `game`.
#[inline]
fn push_token<'a>(game: &mut RawGame<'a>, kind: TokenKind, text: &'a [u8], line: u64, depth: u32) {
    game.tokens.push(Token {
        kind,
        text,
        line,
        depth,
    });
}

impl<'a> Scanner<'a> {
    fn at_end(&self) -> bool {
        self.pos >= self.buf.len()
    }

    fn peek(&self) -> u8 {
        self.buf[self.pos]
    }

    fn newline(&mut self) {
        self.line += 1;
        self.line_blank = true;
    }

    fn nul(&mut self, findings: &mut Vec<Finding>) {
        let start = self.pos;
        while self.pos < self.buf.len() && self.buf[self.pos] == 0 {
            self.pos += 1;
        }
        if self.nul_line != self.line {
            self.nul_line = self.line;
            let n = self.pos - start;
            findings.push(Finding::game(
                Code::Layout,
                self.line,
                format!("{n} NUL byte{} skipped", if n == 1 { "" } else { "s" }),
            ));
        }
    }

    /// Skips to the end of the line (not past the newline).
    fn skip_line(&mut self) {
        match memchr::memchr(b'\n', &self.buf[self.pos..]) {
            Some(off) => self.pos += off,
            None => self.pos = self.buf.len(),
        }
    }

    /// Between games: whitespace, NULs, BOMs, `%` escapes and `;` comments.
    fn skip_idle_space(&mut self, findings: &mut Vec<Finding>) {
        self.skip_space_and(findings, true);
    }

    /// Skips whitespace inside a tag section or movetext; returns how many
    /// newlines it crossed.
    #[inline]
    fn skip_space(&mut self, findings: &mut Vec<Finding>) -> u32 {
        self.skip_space_and(findings, false)
    }

    /// Skips whitespace, NULs, `%` escape lines and byte-order marks at the
    /// start of a line (anywhere when `bom_anywhere`, as between games);
    /// returns how many newlines it crossed.
    #[inline(always)]
    fn skip_space_and(&mut self, findings: &mut Vec<Finding>, bom_anywhere: bool) -> u32 {
        let mut newlines = 0;
        while !self.at_end() {
            match self.peek() {
                b' ' | b'\t' | b'\r' | 0x0c => self.pos += 1,
                b'\n' => {
                    self.pos += 1;
                    self.newline();
                    newlines += 1;
                }
                0 => self.nul(findings),
                b'%' if self.line_blank => self.skip_line(),
                0xef if (bom_anywhere || self.line_blank)
                    && self.buf[self.pos..].starts_with(BOM) =>
                {
                    self.pos += 3
                }
                _ => break,
            }
        }
        newlines
    }

    /// Scans one game, starting with its tag section when `with_tags`.
    fn game(&mut self, with_tags: bool) -> RawGame<'a> {
        let skip = with_tags && self.skip_moves;
        let mut game = RawGame {
            line: self.line,
            offset: self.pos,
            has_tags: with_tags,
            tags: Vec::with_capacity(12),
            tokens: Vec::with_capacity(if skip { 0 } else { 128 }),
            ..RawGame::default()
        };
        if with_tags && !self.tag_section(&mut game) {
            return game;
        }
        if skip {
            self.skip_movetext(&mut game);
        } else {
            self.movetext(&mut game);
        }
        game.text = &self.buf[game.offset..self.pos];
        game
    }

    /// Scans the tag section. Returns `false` when the game has no movetext
    /// (the next tag section starts, or the input ends).
    fn tag_section(&mut self, game: &mut RawGame<'a>) -> bool {
        let mut names = TagNames::default();
        loop {
            let line = self.line;
            match self.tag() {
                Ok(tag) => {
                    // (Only a finding: not looked for when the movetext is
                    // skipped, whose findings no one reads.)
                    if !self.skip_moves && names.contains(&game.tags, tag.name) {
                        game.findings.push(Finding::game(
                            Code::DuplicateTag,
                            line,
                            format!("tag {} appears twice", String::from_utf8_lossy(tag.name)),
                        ));
                    }
                    game.tags.push(tag);
                    names.added(&game.tags);
                }
                Err(message) => {
                    game.findings.push(Finding::game(
                        Code::Syntax,
                        line,
                        format!("malformed tag: {message}"),
                    ));
                    // Resynchronise at the end of the line.
                    self.skip_line();
                }
            }
            let newlines = self.skip_space(&mut game.findings);
            if self.at_end() {
                if self.at_file_end {
                    game.findings.push(Finding::game(
                        Code::Layout,
                        game.line,
                        "tag section without movetext at the end of the input",
                    ));
                    return false;
                }
                self.clean_end = false;
                return false;
            }
            if self.peek() != b'[' {
                return true;
            }
            if newlines >= 2 {
                // A blank line, then a tag: the same section goes on unless
                // the tag repeats one of the section.
                if names.contains(&game.tags, self.next_tag_name()) {
                    game.findings.push(Finding::game(
                        Code::Layout,
                        game.line,
                        "tag section without movetext",
                    ));
                    return false;
                }
                game.findings.push(Finding::game(
                    Code::Layout,
                    self.line - 1,
                    "blank line inside the tag section",
                ));
            }
        }
    }

    /// The name of the tag at `pos`.
    fn next_tag_name(&self) -> &'a [u8] {
        let rest = &self.buf[self.pos + 1..];
        let start = rest
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(rest.len());
        let len = rest[start..]
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
            .unwrap_or(rest.len() - start);
        &rest[start..start + len]
    }

    /// Parses `[Name "value"]` at `pos`.
    fn tag(&mut self) -> Result<Tag<'a>, &'static str> {
        let line = self.line;
        self.pos += 1; // '['
        let mut sink = Vec::new();
        self.skip_space(&mut sink);
        let start = self.pos;
        while !self.at_end()
            && (self.peek().is_ascii_alphanumeric() || matches!(self.peek(), b'_' | b'-' | b'+'))
        {
            self.pos += 1;
        }
        let name = &self.buf[start..self.pos];
        if name.is_empty() {
            return Err("no tag name");
        }
        self.skip_space(&mut sink);
        if self.at_end() || self.peek() != b'"' {
            return Err("tag value is not quoted");
        }
        self.pos += 1;
        let value_start = self.pos;
        let value_line = self.line;
        let mut escaped = false;
        loop {
            let Some(off) = memchr::memchr3(b'"', b'\\', b'\n', &self.buf[self.pos..]) else {
                self.pos = self.buf.len();
                return Err("unterminated tag value");
            };
            self.pos += off;
            match self.peek() {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.pos = (self.pos + 2).min(self.buf.len());
                }
                _ => return Err("unterminated tag value"),
            }
        }
        let raw = &self.buf[value_start..self.pos];
        self.pos += 1; // closing quote
        self.skip_space(&mut sink);
        if self.at_end() || self.peek() != b']' {
            return Err("missing ]");
        }
        self.pos += 1;
        self.line_blank = false;
        let value = if escaped {
            let mut v = Vec::with_capacity(raw.len());
            let mut it = raw.iter();
            while let Some(&b) = it.next() {
                if b == b'\\' {
                    if let Some(&next) = it.next() {
                        v.push(next);
                    }
                } else {
                    v.push(b);
                }
            }
            Cow::Owned(v)
        } else {
            Cow::Borrowed(raw)
        };
        Ok(Tag {
            name,
            value,
            line,
            value_line,
        })
    }

    /// Scans movetext up to and including the termination marker, or up to a
    /// tag that starts the next game, or to the end of the chunk: one token
    /// at a time, each kind by its own step.
    fn movetext(&mut self, game: &mut RawGame<'a>) {
        let mut nesting = Nesting::default();
        loop {
            let newlines = self.skip_between_tokens(game);
            if self.at_end() {
                if nesting.depth > 0 {
                    if !self.at_file_end && self.buf.last() == Some(&b'\n') {
                        // A chunk that is not the last ends just before a
                        // `[` that starts a line (where the chunker cuts):
                        // the scan of the whole input ends the variation
                        // there as the next game starts, so this one can.
                        Scanner::next_game_starts(game, nesting);
                    } else {
                        self.unclosed(game, nesting.line, "variation");
                    }
                }
                return;
            }
            let b = self.peek();
            if b == b'[' && (self.line_blank || self.looks_like_tag()) {
                Scanner::next_game_starts(game, nesting);
                return;
            }
            if newlines >= 2 && nesting.depth == 0 {
                game.findings.push(Finding::game(
                    Code::Layout,
                    self.line - 1,
                    "blank line inside the movetext",
                ));
            }
            self.line_blank = false;
            let line = self.line;
            let depth = nesting.depth;
            let step = match b {
                b'{' => self.brace_comment(game, line, depth),
                b';' => self.line_comment(game, line, depth),
                b'(' => self.open_variation(game, line, &mut nesting),
                b')' => self.close_variation(game, line, &mut nesting),
                b'$' => self.nag(game, line, depth),
                b'!' | b'?' => self.glyph(game, line, depth),
                b'}' | b']' | b'[' => self.stray(game, line, b),
                b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z' if words_path() => {
                    self.words(game, line, depth)
                }
                _ => self.word_token(game, line, depth),
            };
            if step == Step::Stop {
                return;
            }
        }
    }

    /// [`Scanner::movetext`] without its tokens and findings
    /// ([`Movetext::Skipped`]): the same steps from token to token, each
    /// only as far as where the game ends depends on it (comments and
    /// escapes, which hide what they hold; the variations' depth, at which
    /// a termination marker ends nothing; a tag that starts the next
    /// game).
    fn skip_movetext(&mut self, game: &mut RawGame<'a>) {
        let buf = self.buf;
        let mut depth: u32 = 0;
        loop {
            // Word bytes and spaces go by at a table lookup a byte. A word
            // matters only when it may be a termination marker on the main
            // line, and every marker holds a `-` or a `*`: the run stops
            // there and looks back for the word's first byte.
            let start = self.pos;
            let mut pos = start;
            loop {
                // Eight bytes at a time while none of them stops the run
                // (only the stopping classes have bit 1 set).
                while let Some(eight) = buf.get(pos..pos + 8) {
                    let classes = eight
                        .iter()
                        .fold(0, |acc, &c| acc | SKIP_CLASS[usize::from(c)]);
                    if classes & SKIP_DASH != 0 {
                        break;
                    }
                    pos += 8;
                }
                while pos < buf.len() && SKIP_CLASS[usize::from(buf[pos])] <= SKIP_SPACE {
                    pos += 1;
                }
                if pos >= buf.len() || SKIP_CLASS[usize::from(buf[pos])] != SKIP_DASH {
                    break;
                }
                if depth == 0 {
                    let word_start = buf[start..pos]
                        .iter()
                        .rposition(|&c| SKIP_CLASS[usize::from(c)] == SKIP_SPACE)
                        .map_or(start, |at| start + at + 1);
                    let len = buf[word_start..]
                        .iter()
                        .position(|&c| is_token_end(c))
                        .unwrap_or(buf.len() - word_start);
                    if let Some(result) = GameResult::from_ascii(&buf[word_start..word_start + len])
                    {
                        self.line_blank = false;
                        self.pos = word_start + len;
                        game.marker = Some(Marker {
                            result,
                            line: self.line,
                        });
                        return;
                    }
                }
                pos += 1;
            }
            if self.line_blank
                && buf[start..pos]
                    .iter()
                    .any(|&c| SKIP_CLASS[usize::from(c)] != SKIP_SPACE)
            {
                self.line_blank = false;
            }
            self.pos = pos;
            let Some(&b) = buf.get(self.pos) else {
                if depth > 0 && !self.at_file_end && buf.last() != Some(&b'\n') {
                    // A variation open where a chunk ends, not where the
                    // chunker cuts: a wrong split (`unclosed`).
                    self.clean_end = false;
                }
                return;
            };
            match b {
                b' ' | b'\t' | b'\r' | 0x0c | 0 => self.pos += 1,
                b'\n' => {
                    self.pos += 1;
                    self.newline();
                }
                b'%' if self.line_blank => self.skip_line(),
                0xef if self.line_blank && buf[self.pos..].starts_with(BOM) => self.pos += 3,
                b'[' if self.line_blank || self.looks_like_tag() => return,
                _ => {
                    self.line_blank = false;
                    match b {
                        b'{' => {
                            let start = self.pos + 1;
                            let Some(off) = memchr::memchr(b'}', &buf[start..]) else {
                                if !self.at_file_end {
                                    self.clean_end = false;
                                }
                                self.pos = buf.len();
                                return;
                            };
                            self.line +=
                                memchr::memchr_iter(b'\n', &buf[start..start + off]).count() as u64;
                            self.pos = start + off + 1;
                        }
                        b';' => self.skip_line(),
                        b'(' => {
                            depth += 1;
                            self.pos += 1;
                        }
                        b')' => {
                            depth = depth.saturating_sub(1);
                            self.pos += 1;
                        }
                        b'$' => {
                            self.pos += 1;
                            while buf.get(self.pos).is_some_and(u8::is_ascii_digit) {
                                self.pos += 1;
                            }
                        }
                        b'!' | b'?' | b'}' | b']' | b'[' => self.pos += 1,
                        _ => {
                            let start = self.pos;
                            let len = buf[start..]
                                .iter()
                                .position(|&c| is_token_end(c))
                                .unwrap_or(buf.len() - start);
                            self.pos = start + len;
                            let word = &buf[start..self.pos];
                            if depth == 0
                                && matches!(b, b'*' | b'0' | b'1')
                                && let Some(result) = GameResult::from_ascii(word)
                            {
                                game.marker = Some(Marker {
                                    result,
                                    line: self.line,
                                });
                                return;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Skips the space before the next token: single spaces on a fast path,
    /// anything else (line ends, NULs, `%` escapes, byte order marks) by
    /// [`Scanner::skip_space`]. Returns the newlines skipped.
    #[inline]
    fn skip_between_tokens(&mut self, game: &mut RawGame<'a>) -> u32 {
        while self.pos < self.buf.len() && self.buf[self.pos] == b' ' {
            self.pos += 1;
        }
        match self.buf.get(self.pos) {
            Some(b'\n' | b'\r' | b'\t' | 0x0c | 0 | b'%' | 0xef) => {
                self.skip_space(&mut game.findings)
            }
            _ => 0,
        }
    }

    /// A tag starts the next game: a variation still open is reported here
    /// (a tag glued to the movetext is reported by the next game).
    fn next_game_starts(game: &mut RawGame<'a>, nesting: Nesting) {
        if nesting.depth > 0 {
            game.findings.push(Finding::game(
                Code::Syntax,
                nesting.line,
                "variation not closed before the next game",
            ));
        }
    }

    /// `{…}`, which may span lines. Stops the game when it is not closed.
    #[inline]
    fn brace_comment(&mut self, game: &mut RawGame<'a>, line: u64, depth: u32) -> Step {
        let start = self.pos + 1;
        let Some(off) = memchr::memchr(b'}', &self.buf[start..]) else {
            self.unclosed(game, line, "comment");
            self.pos = self.buf.len();
            return Step::Stop;
        };
        let text = &self.buf[start..start + off];
        self.line += memchr::memchr_iter(b'\n', text).count() as u64;
        self.pos = start + off + 1;
        push_token(game, TokenKind::Comment, text, line, depth);
        Step::Go
    }

    /// `;` to the end of the line.
    fn line_comment(&mut self, game: &mut RawGame<'a>, line: u64, depth: u32) -> Step {
        let start = self.pos + 1;
        self.skip_line();
        let text = self.buf[start..self.pos].trim_ascii_end();
        push_token(game, TokenKind::Comment, text, line, depth);
        Step::Go
    }

    /// `(`: one level deeper.
    fn open_variation(&mut self, game: &mut RawGame<'a>, line: u64, nesting: &mut Nesting) -> Step {
        self.pos += 1;
        if nesting.depth == 0 {
            nesting.line = line;
        }
        nesting.depth += 1;
        push_token(game, TokenKind::VariationStart, b"(", line, nesting.depth);
        Step::Go
    }

    /// `)`: one level up, or a syntax error on the main line.
    fn close_variation(
        &mut self,
        game: &mut RawGame<'a>,
        line: u64,
        nesting: &mut Nesting,
    ) -> Step {
        self.pos += 1;
        if nesting.depth == 0 {
            game.findings
                .push(Finding::game(Code::Syntax, line, "`)` closes no variation"));
        } else {
            push_token(game, TokenKind::VariationEnd, b")", line, nesting.depth);
            nesting.depth -= 1;
        }
        Step::Go
    }

    /// `$N`, a numeric annotation glyph from 0 to 255.
    fn nag(&mut self, game: &mut RawGame<'a>, line: u64, depth: u32) -> Step {
        let start = self.pos + 1;
        let mut end = start;
        while end < self.buf.len() && self.buf[end].is_ascii_digit() {
            end += 1;
        }
        self.pos = end;
        let digits = &self.buf[start..end];
        match std::str::from_utf8(digits)
            .ok()
            .and_then(|s| s.parse::<u8>().ok())
        {
            Some(_) => push_token(game, TokenKind::Nag, digits, line, depth),
            None => game.findings.push(Finding::game(
                Code::Syntax,
                line,
                "`$` not followed by a glyph number from 0 to 255",
            )),
        }
        Step::Go
    }

    /// `!`, `?`, `!!`, `??`, `!?`, `?!`: the glyphs `$1` to `$6`.
    fn glyph(&mut self, game: &mut RawGame<'a>, line: u64, depth: u32) -> Step {
        let start = self.pos;
        while !self.at_end() && matches!(self.peek(), b'!' | b'?') {
            self.pos += 1;
        }
        let glyph: &'static [u8] = match &self.buf[start..self.pos] {
            b"!" => b"1",
            b"?" => b"2",
            b"!!" => b"3",
            b"??" => b"4",
            b"!?" => b"5",
            b"?!" => b"6",
            _ => b"",
        };
        if glyph.is_empty() {
            game.findings.push(Finding::game(
                Code::Syntax,
                line,
                format!(
                    "`{}` is not an annotation glyph",
                    String::from_utf8_lossy(&self.buf[start..self.pos])
                ),
            ));
        } else {
            push_token(game, TokenKind::Nag, glyph, line, depth);
        }
        Step::Go
    }

    /// A closing brace or a bracket that belongs to nothing.
    fn stray(&mut self, game: &mut RawGame<'a>, line: u64, b: u8) -> Step {
        self.pos += 1;
        let what = char::from(b);
        game.findings.push(Finding::game(
            Code::Syntax,
            line,
            format!("stray `{what}` in the movetext"),
        ));
        Step::Go
    }

    /// The common run of movetext on one line: moves (`Nf3`) and move
    /// numbers (`12.`, `12...`, or glued to the move: `12.Nf3`), each
    /// followed by one space, starting at a letter or a digit. Gives the
    /// tokens [`Scanner::word_token`] gives, without the steps between the
    /// words; any other word (a marker, castling written with zeros, a
    /// number without its dots) or byte goes back to [`Scanner::movetext`].
    #[inline]
    fn words(&mut self, game: &mut RawGame<'a>, line: u64, depth: u32) -> Step {
        #[cfg(test)]
        WORDS_RUNS.with(|n| n.set(n.get() + 1));
        let buf = self.buf;
        let mut pos = self.pos;
        loop {
            let mut start = pos;
            if buf[pos].is_ascii_digit() {
                let mut at = pos + 1;
                while at < buf.len() && buf[at].is_ascii_digit() {
                    at += 1;
                }
                if at == buf.len() || buf[at] != b'.' {
                    // Not a move number with dots: a marker, `0-0`, or a
                    // number alone; the general step reads it.
                    self.pos = pos;
                    return self.word_token(game, line, depth);
                }
                while at < buf.len() && buf[at] == b'.' {
                    at += 1;
                }
                start = at;
                // (A marker holds no `.`: `12.` and what follows is no
                // marker, as `Scanner::word` would find.)
            }
            if start < buf.len() && !is_token_end(buf[start]) {
                // The move: up to the word's end.
                let mut end = start + 1;
                while end < buf.len() && !is_token_end(buf[end]) {
                    end += 1;
                }
                push_token(game, TokenKind::Move, &buf[start..end], line, depth);
                pos = end;
            } else {
                // A move number alone.
                pos = start;
            }
            // One space, then another word that starts with a letter or a
            // digit, or back to the steps.
            if pos + 1 < buf.len() && buf[pos] == b' ' && buf[pos + 1].is_ascii_alphanumeric() {
                pos += 1;
            } else {
                self.pos = pos;
                return Step::Go;
            }
        }
    }

    /// A word: a move, a move number or a termination marker ([`Scanner::word`]).
    #[inline]
    fn word_token(&mut self, game: &mut RawGame<'a>, line: u64, depth: u32) -> Step {
        let start = self.pos;
        while !self.at_end() && !is_token_end(self.peek()) {
            self.pos += 1;
        }
        if self.pos == start {
            // A delimiter no other step consumed; cannot happen, but never
            // loop forever on input.
            self.pos += 1;
            return Step::Go;
        }
        let word = &self.buf[start..self.pos];
        if self.word(game, word, line, depth) {
            Step::Stop
        } else {
            Step::Go
        }
    }

    /// A comment or variation still open where the chunk ends: a syntax
    /// error at the end of the input, a wrong split anywhere else.
    fn unclosed(&mut self, game: &mut RawGame<'a>, line: u64, what: &str) {
        if self.at_file_end {
            game.findings.push(Finding::game(
                Code::Syntax,
                line,
                format!("{what} not closed before the end of the input"),
            ));
        } else {
            self.clean_end = false;
        }
    }

    /// Whether the `[` at `pos` opens a tag (`[Name "`).
    fn looks_like_tag(&self) -> bool {
        let rest = &self.buf[self.pos + 1..];
        let name_len = rest
            .iter()
            .position(|b| !b.is_ascii_alphanumeric() && *b != b'_')
            .unwrap_or(rest.len());
        if name_len == 0 {
            return false;
        }
        let after = &rest[name_len..];
        let space = after
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t'))
            .unwrap_or(after.len());
        space > 0 && after.get(space) == Some(&b'"')
    }

    /// Classifies a word of movetext. Returns `true` when it ended the game
    /// (a termination marker on the main line).
    #[inline]
    fn word(&mut self, game: &mut RawGame<'a>, word: &'a [u8], line: u64, depth: u32) -> bool {
        // Most words are moves, and a move starts with a letter.
        if word[0].is_ascii_alphabetic() {
            push_token(game, TokenKind::Move, word, line, depth);
            return false;
        }
        let result = if word == b"*" {
            Some(GameResult::Unfinished)
        } else if word.first().is_some_and(|b| matches!(b, b'0' | b'1')) {
            GameResult::from_ascii(word)
        } else {
            None
        };
        if let Some(result) = result {
            if depth == 0 {
                game.marker = Some(Marker { result, line });
                return true;
            }
            // A result inside a variation ends nothing: ignore it.
            return false;
        }
        // A move number, alone (`12.`, `12...`, `12`) or glued to the move.
        let digits = word.iter().take_while(|b| b.is_ascii_digit()).count();
        let mut word = word;
        if digits > 0 && !word.starts_with(b"0-0") {
            let dots = word[digits..].iter().take_while(|&&b| b == b'.').count();
            if digits + dots == word.len() {
                return false;
            }
            if dots > 0 {
                word = &word[digits + dots..];
            }
        } else if word.iter().all(|&b| b == b'.') {
            // Dots on their own (`12 ...`): part of a move number.
            return false;
        }
        push_token(game, TokenKind::Move, word, line, depth);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scans a whole input and checks how many games it holds.
    fn scan_games(pgn: &[u8], games: usize) -> Scan<'_> {
        let scan = scan(pgn, true);
        assert_eq!(scan.games.len(), games);
        scan
    }

    #[test]
    fn a_chunk_ending_inside_a_variation_before_a_tag_is_clean() {
        // Random bytes keep variations open for megabytes; each chunk must
        // not be held for the next (issue 10: memory grew with the input).
        let pgn = b"[Event \"a\"]\n\n1. e4 (1. d4 (1... d5\n[Event \"b\"]\n\n1. c4 *\n";
        let cut = memchr::memmem::find(pgn, b"[Event \"b").unwrap();
        let whole = scan(pgn, true);
        let first = scan(&pgn[..cut], false);
        let second = scan(&pgn[cut..], true);
        assert!(first.clean_end);
        assert_eq!(whole.games.len(), 2);
        assert_eq!(first.games.len() + second.games.len(), 2);
        assert_eq!(whole.games[0].findings, first.games[0].findings);
        assert_eq!(moves(&whole.games[1]), moves(&second.games[0]));
        assert!(
            first.games[0]
                .findings
                .iter()
                .any(|f| f.message == "variation not closed before the next game")
        );
        // Cut anywhere else (not after a line end), it is a wrong split.
        assert!(!scan(&pgn[..cut - 1], false).clean_end);
    }

    fn moves<'a>(game: &RawGame<'a>) -> Vec<&'a str> {
        game.main_line()
            .map(|t| std::str::from_utf8(t.text).unwrap())
            .collect()
    }

    fn codes(game: &RawGame<'_>) -> Vec<(u64, &'static str)> {
        game.findings
            .iter()
            .map(|f| (f.line, f.code.as_str()))
            .collect()
    }

    #[test]
    fn duplicate_tags_are_found_past_the_searched_few() {
        // 100 tags, then a repeat of the first and, after a blank line, of
        // the 50th: past 32 tags the names are looked up in a set.
        let mut pgn = String::new();
        for i in 0..100 {
            pgn.push_str(&format!("[T{i} \"v\"]\n"));
        }
        pgn.push_str("[T0 \"again\"]\n\n[T50 \"next game\"]\n\n*\n");
        let scan = scan_games(pgn.as_bytes(), 2);
        assert_eq!(scan.games[0].tags.len(), 101);
        assert_eq!(
            codes(&scan.games[0]),
            [(101, "duplicate-tag"), (1, "layout")]
        );
        assert_eq!(scan.games[1].tags.len(), 1);
    }

    #[test]
    fn seventy_thousand_nested_variations() {
        // The depth counter no longer wraps at 65,536.
        let n = 70_000;
        let balanced = format!(
            "[A \"b\"]\n\n1. e4 {}1. d4{} e5 *\n",
            "(".repeat(n),
            ")".repeat(n)
        );
        let scan = scan_games(balanced.as_bytes(), 1);
        let game = &scan.games[0];
        assert!(codes(game).is_empty(), "{:?}", codes(game));
        assert_eq!(moves(game), ["e4", "e5"]);
        let deepest = game.tokens.iter().map(|t| t.depth).max();
        assert_eq!(deepest, Some(70_000));

        let unclosed = format!("[A \"b\"]\n\n1. e4 {}1. d4 e5 *\n", "(".repeat(n));
        let scan = scan_games(unclosed.as_bytes(), 1);
        let game = &scan.games[0];
        let syntax: Vec<_> = game.findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(syntax, ["variation not closed before the end of the input"]);
    }

    #[test]
    fn two_plain_games() {
        let pgn =
            b"[Event \"a\"]\n[White \"x\"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Event \"b\"]\n\n1.d4 d5 *\n";
        let scan = scan_games(pgn, 2);
        assert_eq!(moves(&scan.games[0]), ["e4", "e5", "Nf3"]);
        assert_eq!(moves(&scan.games[1]), ["d4", "d5"]);
        assert_eq!(scan.games[1].line, 6);
        assert_eq!(scan.games[0].marker.unwrap().result, GameResult::WhiteWins);
        assert_eq!(scan.games[0].tag_text("White").as_deref(), Some("x"));
        assert!(scan.games.iter().all(|g| g.findings.is_empty()));
        assert_eq!(scan.lines, 8);
        assert!(scan.clean_end);
    }

    #[test]
    fn blank_line_in_movetext_is_one_game() {
        let pgn = b"[Event \"a\"]\n\n1. e4 e5\n\n2. Nf3 Nc6 1-0\n";
        let scan = scan_games(pgn, 1);
        assert_eq!(moves(&scan.games[0]), ["e4", "e5", "Nf3", "Nc6"]);
        assert_eq!(codes(&scan.games[0]), [(4, "layout")]);
    }

    #[test]
    fn glued_tag_after_nuls_starts_the_next_game() {
        let pgn = b"[Event \"a\"]\n\n1. e4 1-0\0\0\0[Event \"b\"]\n\n1. d4 *\n";
        let scan = scan_games(pgn, 2);
        let second = codes(&scan.games[1]);
        assert_eq!(second, [(3, "layout"), (3, "layout")]);
        assert!(scan.games[0].findings.is_empty());
    }

    #[test]
    fn stray_text_after_the_last_game_is_no_game() {
        let pgn = b"[Event \"a\"]\n\n1. e4 1-0\n\nThe end.\n";
        let scan = scan_games(pgn, 1);
        assert_eq!(codes(&scan.games[0]), [(5, "layout")]);
        assert!(
            scan.games[0].findings[0]
                .message
                .contains("after the last game")
        );
    }

    #[test]
    fn tagless_game_is_a_game() {
        let pgn = b"[Event \"a\"]\n\n1. e4 1-0\n\n1. d4 d5 0-1\n";
        let scan = scan_games(pgn, 2);
        assert!(!scan.games[1].has_tags);
        assert_eq!(codes(&scan.games[1]), [(5, "layout")]);
    }

    #[test]
    fn tag_section_without_movetext() {
        let pgn = b"[Event \"a\"]\n[White \"x\"]\n\n[Event \"b\"]\n\n1. e4 *\n";
        let scan = scan_games(pgn, 2);
        assert!(scan.games[0].tokens.is_empty());
        assert_eq!(codes(&scan.games[0]), [(1, "layout")]);
        assert!(scan.games[1].findings.is_empty());
    }

    #[test]
    fn blank_line_inside_tag_section() {
        let pgn = b"[Event \"a\"]\n\n[Date \"2017.12.04\"]\n\n1. e4 *\n";
        let scan = scan_games(pgn, 1);
        assert_eq!(scan.games[0].tags.len(), 2);
        assert_eq!(codes(&scan.games[0]), [(2, "layout")]);
    }

    #[test]
    fn comments_variations_nags_and_escapes() {
        let pgn = b"[White \"a\\\"b\"]\n\n{multi\nline} 1. e4!? (1. d4 $1 ; rest\n) e5 % not an escape here\n%escape\n2. Nf3 *";
        let scan = scan(pgn, true);
        let g = &scan.games[0];
        assert_eq!(g.tag_text("White").as_deref(), Some("a\"b"));
        assert_eq!(
            moves(g),
            ["e4", "e5", "%", "not", "an", "escape", "here", "Nf3"]
        );
        let e5 = g.main_line().nth(1).unwrap();
        assert_eq!(e5.line, 5);
        let nf3 = g.main_line().last().unwrap();
        assert_eq!(nf3.line, 7);
        assert!(
            g.tokens
                .iter()
                .any(|t| t.kind == TokenKind::Nag && t.text == b"5")
        );
    }

    #[test]
    fn unterminated_comment_mid_chunk_is_not_clean() {
        let pgn = b"[Event \"a\"]\n\n1. e4 {never closed\n\n";
        assert!(!scan(pgn, false).clean_end);
        let whole = scan(pgn, true);
        assert!(whole.clean_end);
        assert_eq!(codes(&whole.games[0]), [(3, "syntax")]);
    }

    #[test]
    fn split_tag_with_inner_whitespace() {
        let pgn =
            b"     [  Result     \"1-0\"   ] [\n     ECO\n     \"B01\"\n     ]\n\n1. e4 1-0\n";
        let scan = scan(pgn, true);
        let g = &scan.games[0];
        assert_eq!(g.tag_text("Result").as_deref(), Some("1-0"));
        assert_eq!(g.tag_text("ECO").as_deref(), Some("B01"));
        assert!(g.findings.is_empty(), "{:?}", g.findings);
    }

    /// What [`Movetext::Skipped`] must give as [`Movetext::Tokens`] does:
    /// the games, their bytes, lines, tags and markers, and whether the
    /// buffer ends clean.
    fn same_games(buf: &[u8], at_end: bool, what: &str) {
        let full = scan(buf, at_end);
        let skipped = scan_with(buf, at_end, Movetext::Skipped);
        assert_eq!(full.clean_end, skipped.clean_end, "{what}");
        assert_eq!(full.lines, skipped.lines, "{what}");
        assert_eq!(full.games.len(), skipped.games.len(), "{what}");
        for (a, b) in full.games.iter().zip(&skipped.games) {
            let tags = |g: &RawGame<'_>| -> Vec<(Vec<u8>, Vec<u8>)> {
                g.tags
                    .iter()
                    .map(|t| (t.name.to_vec(), t.text().as_bytes().to_vec()))
                    .collect()
            };
            let place = (a.offset, a.line, a.text.len(), a.has_tags, a.marker);
            assert_eq!(
                place,
                (b.offset, b.line, b.text.len(), b.has_tags, b.marker),
                "{what}"
            );
            assert_eq!(tags(a), tags(b), "{what}");
        }
    }

    /// Every PGN of the fixtures (the corpus sample and the fuzz seeds
    /// too) and some hostile movetext, whole and cut where the chunker
    /// cuts (before each `[` that starts a line).
    #[test]
    fn skipped_movetext_ends_each_game_where_its_tokens_do() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "pgn")
                    || path
                        .parent()
                        .is_some_and(|d| d.ends_with("fuzz/convert_pgn"))
                {
                    inputs.push((path.display().to_string(), std::fs::read(&path).unwrap()));
                }
            }
        }
        let corpus = std::fs::read(root.join("corpus/pgnmentor-2mb.pgn.zst")).unwrap();
        inputs.push(("corpus".into(), zstd::decode_all(&corpus[..]).unwrap()));
        for (i, hostile) in [
            &b"[A \"1\"]\n\n1. e4 $1-0 e5 1-0\n\n[B \"2\"]\n\n1. d4 *\n"[..],
            b"[A \"1\"]\n\n1. e4 (1. d4 1-0) (((e5 *)) 0-1\n[B \"2\"]\n1. d4 {\n\n[C \"3\"]} 1/2-1/2\n",
            b"[A \"1\"]\n1. e4\n% 1-0 {\n\xef\xbb\xbf1-0\n[B \"2\"]\n\x00\x00[C \"3\"] e4 ; 1-0\n*",
            b"[A \"1\"]\n1. e4 ]}[ 1-0[B \"2\"] *\n\n[C \"3\"]\n1. e4 (e5\n",
            b"[A \"1\"]\n1. e4 {never closed\n[B \"2\"]\n*\n",
            b"[A \"1\"]\n1. e4 !? 1-0!\t0-1\r\n[B \"2\"]\n\x0c*",
            b"[A \"1\"]\n1. e4 $1a1-0 e4%1-0 1-0-1 -1-0 0-0 O-O *1 1/2-1/2x (1-0) }1-0 [B \"2\"] **\n*",
            b"[A \"1\"]\n1. e4 1.--1-0 {x}1-0\n[B \"2\"]\n$21-0 ?0-1 1-0",
        ]
        .iter()
        .enumerate()
        {
            inputs.push((format!("hostile {i}"), hostile.to_vec()));
        }
        for (name, buf) in &inputs {
            same_games(buf, true, name);
            let mut cuts = 0;
            for (at, _) in buf
                .iter()
                .enumerate()
                .filter(|(at, b)| **b == b'[' && *at > 0 && buf[at - 1] == b'\n')
            {
                cuts += 1;
                // Every cut of the small inputs; of the corpus, one in 400.
                if buf.len() < 1 << 20 || cuts % 400 == 0 {
                    same_games(&buf[..at], false, &format!("{name} cut at {at}"));
                    same_games(&buf[at..], true, &format!("{name} from {at}"));
                }
            }
        }
        assert!(inputs.len() > 30, "{}", inputs.len());
    }

    /// [`Scanner::words`] gives what the steps give, token by token, on
    /// random movetext made of words, markers, numbers and the bytes
    /// between them, whole and cut where the chunker would cut.
    #[test]
    fn the_words_path_gives_what_the_steps_give() {
        const PIECES: &[&str] = &[
            "1.",
            "12...",
            "7..",
            "e4",
            "Nf3",
            "exd5",
            "e8=Q+",
            "O-O",
            "0-0",
            "0-0-0",
            "1.e4",
            "23...Nxf3#",
            "12.0-0",
            "1.-0",
            "1-0",
            "0-1",
            "1/2-1/2",
            "*",
            "12",
            "007.",
            ".",
            "...",
            "9",
            "0",
            "x",
            "-",
            "{c}",
            "{a\nb}",
            "(",
            ")",
            "$1",
            "$300",
            "!",
            "?!",
            "!!!",
            " ",
            " ",
            " ",
            "  ",
            "\n",
            "\r\n",
            "\t",
            "\r",
            "\x0c",
            "\n\n",
            "[",
            "]",
            "}",
            "%x\n",
            ";c\n",
            "\0",
            "\u{feff}",
            "é",
            "\n[Event \"x\"]\n",
            "[Ev \"y\"]",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let scanned = |pgn: &[u8], at_file_end: bool, steps_only: bool| {
            STEPS_ONLY.with(|c| c.set(steps_only));
            let scan = scan(pgn, at_file_end);
            STEPS_ONLY.with(|c| c.set(false));
            format!("{scan:?}")
        };
        for _ in 0..3000 {
            let mut pgn = String::from("[Event \"a\"]\n\n");
            for _ in 0..next(40) {
                pgn.push_str(PIECES[next(PIECES.len())]);
                if next(3) > 0 {
                    pgn.push(' ');
                }
            }
            let pgn = pgn.as_bytes();
            for at_file_end in [true, false] {
                assert_eq!(
                    scanned(pgn, at_file_end, false),
                    scanned(pgn, at_file_end, true),
                    "{}",
                    String::from_utf8_lossy(pgn)
                );
            }
        }
        // The loop was taken (and not only the steps).
        assert!(WORDS_RUNS.with(std::cell::Cell::get) > 1000);
    }

    /// pgn-reader, the reference PGN parser of the shakmaty family, must see
    /// the same games and main-line moves as the scanner on clean PGN.
    #[test]
    fn agrees_with_pgn_reader_on_clean_files() {
        use std::ops::ControlFlow;

        struct MainLines(Vec<Vec<String>>);
        impl pgn_reader::Visitor for MainLines {
            type Tags = ();
            type Movetext = Vec<String>;
            type Output = ();
            fn begin_tags(&mut self) -> ControlFlow<(), ()> {
                ControlFlow::Continue(())
            }
            fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<(), Vec<String>> {
                ControlFlow::Continue(Vec::new())
            }
            fn san(
                &mut self,
                moves: &mut Vec<String>,
                san: pgn_reader::SanPlus,
            ) -> ControlFlow<()> {
                moves.push(san.to_string());
                ControlFlow::Continue(())
            }
            fn end_game(&mut self, moves: Vec<String>) {
                self.0.push(moves);
            }
        }

        for pgn in [
            &include_bytes!("../../fixtures/pgn/twic1599_excerpt.pgn")[..],
            include_bytes!("../../fixtures/pgn/chess960.pgn"),
            include_bytes!("../../fixtures/pgn/fivefold_then_move.pgn"),
            include_bytes!("../../fixtures/pgn/latin1.pgn"),
            include_bytes!("../../fixtures/pgn/bom.pgn"),
        ] {
            let mut reference = MainLines(Vec::new());
            let mut reader = pgn_reader::Reader::new(pgn);
            while reader.read_game(&mut reference).unwrap().is_some() {}
            let ours: Vec<Vec<String>> = scan(pgn, true)
                .games
                .iter()
                .map(|g| {
                    g.main_line()
                        .map(|t| crate::rules::san::parse_san(t.text).unwrap().to_string())
                        .collect()
                })
                .collect();
            assert_eq!(ours, reference.0);
        }
    }
}
