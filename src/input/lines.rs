//! Line-based inputs of `convert`: one position (FEN or EPD) or one game
//! (UCI) per line. This module tells them from PGN by their first bytes
//! ([`sniff`], [`detect`]) and splits an opened input into numbered lines
//! ([`LineBatches`]); streaming the batches through the workers is
//! [`crate::stream`]'s business, and what a line means is
//! [`crate::tasks::convert::lines`]'s.

use std::io::{self, BufRead, Read};

use crate::input::chunk::read_more;
use crate::input::error::InputError;
use crate::rules::game::decode_text;

const BOM: &[u8] = b"\xef\xbb\xbf";

/// What a line-based input holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineFormat {
    /// One EPD (or FEN) per line; blank lines and `#` comment lines are
    /// skipped.
    Positions,
    /// One FEN per line and nothing after it (`convert --from fen`); blank
    /// lines and `#` comment lines are skipped.
    Fen,
    /// One game per line in UCI; a blank line is a game without moves.
    Uci,
}

impl LineFormat {
    /// Whether `line` is a record (a game or a position) in this format.
    pub fn is_record(self, line: &Line) -> bool {
        match self {
            // A blank UCI line is a game without moves; a `#` line is a
            // comment, as the format's detection takes it.
            LineFormat::Uci => !is_comment(line.text.as_bytes()),
            LineFormat::Positions | LineFormat::Fen => !is_comment_or_blank(line.text.as_bytes()),
        }
    }
}

/// A blank line, or one whose first non-blank byte is `#`: not a record of
/// a position file.
fn is_comment_or_blank(line: &[u8]) -> bool {
    line.trim_ascii().first().is_none_or(|&b| b == b'#')
}

/// A line whose first non-blank byte is `#`.
fn is_comment(line: &[u8]) -> bool {
    line.trim_ascii().first() == Some(&b'#')
}

/// One line of input.
#[derive(Debug, Clone)]
pub struct Line {
    /// The text without its line ending (decoded as UTF-8 or Latin-1).
    pub text: String,
    /// 1-based line number in its file.
    pub number: u64,
}

/// Lines handed to the workers at once.
const BATCH: usize = 2048;

/// Tells the format of an input from its first bytes: `None` for PGN (the
/// default), or the line format when the first line that is neither blank
/// nor a `#` comment is a FEN/EPD
/// (a board of eight ranks) or UCI (`position`, `startpos`, `fen`, `moves`,
/// or nothing but UCI moves).
///
/// # Examples
///
/// ```
/// use pgnkit::input::lines::{detect, LineFormat};
/// assert_eq!(detect(b"\n8/8/8/8/8/8/8/K1k5 w - - 0 1\n"), Some(LineFormat::Positions));
/// assert_eq!(detect(b"e2e4 e7e5\n"), Some(LineFormat::Uci));
/// assert_eq!(detect(b"position startpos moves e2e4\n"), Some(LineFormat::Uci));
/// assert_eq!(detect(b"[Event \"x\"]\n"), None);
/// assert_eq!(detect(b"1. e4 e5 *\n"), None);
/// ```
pub fn detect(head: &[u8]) -> Option<LineFormat> {
    detect_in(head, true)
}

/// [`detect`] on the first bytes of an input; unless `whole`, the first
/// record line may be cut short, and its last word is not looked at.
fn detect_in(head: &[u8], whole: bool) -> Option<LineFormat> {
    let head = head.strip_prefix(BOM).unwrap_or(head);
    let mut lines = head.split(|&b| b == b'\n');
    let line = lines.find(|l| !is_comment_or_blank(l))?;
    let cut = !whole && lines.next().is_none();
    let mut line = line.trim_ascii();
    if cut {
        // The line goes on past what was read: its last word may be cut.
        match line.iter().rposition(u8::is_ascii_whitespace) {
            Some(at) => line = &line[..at],
            None if line.len() > 8 => {}
            None => return None,
        }
    }
    let mut words = line
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty());
    let first = words.next()?;
    if matches!(first, b"position" | b"startpos" | b"fen" | b"moves") {
        return Some(LineFormat::Uci);
    }
    if is_board(first) {
        return Some(LineFormat::Positions);
    }
    if is_uci_move(first) && words.all(is_uci_move) {
        return Some(LineFormat::Uci);
    }
    None
}

/// A FEN board field: eight ranks of piece letters and digits.
fn is_board(word: &[u8]) -> bool {
    word.split(|&b| b == b'/').count() == 8
        && word.iter().all(|b| b"pnbrqkPNBRQK12345678/~".contains(b))
}

/// `e2e4`, `e7e8q`: a square, a square, maybe a promotion letter.
fn is_uci_move(word: &[u8]) -> bool {
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    match *word {
        [a, b, c, d] => square(a, b) && square(c, d),
        [a, b, c, d, p] => square(a, b) && square(c, d) && b"qrbn".contains(&p),
        _ => false,
    }
}

/// An input with its first bytes read, and given back in front of the rest.
pub type Replayed<R> = io::Chain<io::Cursor<Vec<u8>>, R>;

/// Bytes of the first record line read at most to tell the format of an
/// input: a UCI game of thousands of moves fits; a longer line is told by
/// its first words.
const FIRST_LINE: usize = 64 << 10;

/// Bytes of `#` comment and blank lines read at most before the first
/// record line: past them the input is taken as PGN.
const COMMENTS: usize = 64 << 20;

/// Tells the format of `reader` ([`detect`]) and gives back a reader that
/// yields every byte of the input, the sniffed ones first: the input is
/// read once, so a pipe or FIFO loses nothing.
///
/// Reads until the first line that is neither blank nor a `#` comment is
/// complete (however long the comments before it), the input ends, or that
/// line is longer than 64 KB, so a slow pipe is not waited on
/// longer than the first record takes.
///
/// # Errors
///
/// When the input cannot be read.
///
/// # Examples
///
/// ```
/// use std::io::Read;
/// use pgnkit::input::lines::{sniff, LineFormat};
/// let (format, mut reader) = sniff(&b"e2e4 e7e5\nd2d4\n"[..]).unwrap();
/// assert_eq!(format, Some(LineFormat::Uci));
/// let mut all = String::new();
/// reader.read_to_string(&mut all).unwrap();
/// assert_eq!(all, "e2e4 e7e5\nd2d4\n");
/// ```
pub fn sniff<R: Read>(mut reader: R) -> io::Result<(Option<LineFormat>, Replayed<R>)> {
    let mut head = Vec::with_capacity(4096);
    let mut whole = false;
    loop {
        match first_line(&head) {
            FirstLine::Complete => break,
            FirstLine::Open(start) if head.len() - start > FIRST_LINE => break,
            _ if head.len() > COMMENTS + FIRST_LINE => break,
            _ => {}
        }
        let want = head.len() + (64 << 10);
        if read_more(&mut reader, &mut head, want)? {
            whole = true;
            break;
        }
    }
    let format = detect_in(&head, whole || first_line(&head) == FirstLine::Complete);
    Ok((format, io::Cursor::new(head).chain(reader)))
}

/// How far `head` holds the first line that is neither blank nor a `#`
/// comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FirstLine {
    /// Every line so far is blank or a comment.
    NotYet,
    /// It starts at this offset and has no line ending yet.
    Open(usize),
    /// It is complete.
    Complete,
}

fn first_line(head: &[u8]) -> FirstLine {
    let skip = if head.starts_with(BOM) { BOM.len() } else { 0 };
    let mut start = skip;
    while start < head.len() {
        let Some(len) = memchr::memchr(b'\n', &head[start..]) else {
            // The last piece has no line ending yet; a comment may still
            // turn out to be one.
            let rest = &head[start..];
            return if is_comment(rest) || rest.trim_ascii().is_empty() {
                FirstLine::NotYet
            } else {
                FirstLine::Open(start)
            };
        };
        if !is_comment_or_blank(&head[start..start + len]) {
            return FirstLine::Complete;
        }
        start += len + 1;
    }
    FirstLine::NotYet
}

/// Splits an input into batches of numbered lines (without their line
/// endings, a leading byte order mark stripped); an I/O error ends the
/// input, after the lines read before it.
pub struct LineBatches<R> {
    reader: R,
    number: u64,
    /// Bytes read so far.
    offset: u64,
    /// A line longer than this is skipped, not held.
    max: usize,
    /// A line skipped for its length, not yet taken ([`LineBatches::take_skipped`]).
    skipped: Option<SkippedLine>,
    done: bool,
    /// A read error to report after the lines read before it.
    failed: Option<io::Error>,
}

/// A line longer than the limit: its number and byte range, without its
/// text (never held).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkippedLine {
    pub number: u64,
    pub start: u64,
    pub end: u64,
}

impl<R: BufRead> LineBatches<R> {
    /// Batches of the lines of `reader`; a line longer than `max` bytes is
    /// skipped (the batch before it ends there).
    pub fn new(reader: R, max: usize) -> LineBatches<R> {
        LineBatches {
            reader,
            number: 0,
            offset: 0,
            max,
            skipped: None,
            done: false,
            failed: None,
        }
    }

    /// The line skipped at the end of the batch last returned, if one was:
    /// it comes after that batch's lines and before the next batch's.
    pub fn take_skipped(&mut self) -> Option<SkippedLine> {
        self.skipped.take()
    }
}

/// Reads one line of `reader` into `buf` (its newline included), as
/// `read_until` does, but holding at most `max` bytes: the rest of a longer
/// line is read and dropped. Returns the bytes read and whether the line
/// was longer than `max` (then `buf` is empty).
fn read_line_within(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<(usize, bool)> {
    let mut read = 0;
    let mut over = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok((read, over));
        }
        let (take, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        if !over && buf.len() + take > max {
            over = true;
            *buf = Vec::new();
        }
        if !over {
            buf.extend_from_slice(&available[..take]);
        }
        reader.consume(take);
        read += take;
        if done {
            return Ok((read, over));
        }
    }
}

impl<R: BufRead> Iterator for LineBatches<R> {
    type Item = io::Result<Vec<Line>>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(err) = self.failed.take() {
            return Some(Err(err));
        }
        if self.done {
            return None;
        }
        let mut batch = Vec::with_capacity(BATCH);
        let mut buf = Vec::new();
        while batch.len() < BATCH {
            let read = read_line_within(&mut self.reader, &mut buf, self.max);
            if let Ok((n, true)) = read {
                self.number += 1;
                let start = self.offset;
                self.offset += n as u64;
                self.skipped = Some(SkippedLine {
                    number: self.number,
                    start,
                    end: self.offset,
                });
                return Some(Ok(batch));
            }
            let read = read.map(|(n, _)| {
                self.offset += n as u64;
                n
            });
            // On a failure, the bytes of the line read before it are kept
            // (`read_until` leaves them in `buf`) and processed too.
            let interrupted = matches!(&read, Err(e) if e.kind() == io::ErrorKind::Interrupted);
            if !buf.is_empty() && !interrupted {
                self.number += 1;
                let mut bytes = buf.as_slice();
                if self.number == 1 {
                    bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
                }
                let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
                let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
                if memchr::memchr(b'\r', bytes).is_some() {
                    self.done = true;
                    let error =
                        io::Error::from(InputError::BareCarriageReturn { line: self.number });
                    if batch.is_empty() {
                        return Some(Err(error));
                    }
                    self.failed = Some(error);
                    break;
                }
                batch.push(Line {
                    text: decode_text(bytes).into_owned(),
                    number: self.number,
                });
                buf.clear();
            }
            match read {
                Ok(0) => {
                    self.done = true;
                    break;
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.done = true;
                    if batch.is_empty() {
                        return Some(Err(e));
                    }
                    // What was read before the failure is still processed.
                    self.failed = Some(e);
                    break;
                }
            }
        }
        (!batch.is_empty()).then_some(Ok(batch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        assert_eq!(detect(b""), None);
        assert_eq!(detect(b"\n\n  \n"), None);
        assert_eq!(
            detect(b"\xef\xbb\xbfrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;"),
            Some(LineFormat::Positions)
        );
        assert_eq!(
            detect(b"fen 8/8/8/8/8/8/8/K1k5 w - - moves"),
            Some(LineFormat::Uci)
        );
        assert_eq!(detect(b"e7e8q"), Some(LineFormat::Uci));
        assert_eq!(detect(b"e2e4 e5"), None);
        assert_eq!(detect(b"; comment\n[Event \"x\"]"), None);
        // See issue 12: `#` comment lines before the first position.
        assert_eq!(
            detect(b"# suite\n  # of mates\n\n8/8/8/8/8/8/8/K1k5 w - -\n"),
            Some(LineFormat::Positions)
        );
        assert_eq!(detect(b"# notes\n[Event \"x\"]"), None);
    }

    #[test]
    fn blank_and_comment_lines_are_not_positions() {
        let line = |text: &str| Line {
            text: text.to_owned(),
            number: 1,
        };
        for format in [LineFormat::Positions, LineFormat::Fen] {
            for text in ["", "  \t", "# a comment", "  #8/8/8/8/8/8/8/K1k5 w - -"] {
                assert!(!format.is_record(&line(text)), "{format:?} {text:?}");
            }
            assert!(format.is_record(&line("8/8/8/8/8/8/8/K1k5 w - - # x")));
        }
        // A blank UCI line is a game without moves; a `#` line a comment,
        // as the detection takes it (issue 20).
        assert!(LineFormat::Uci.is_record(&line("")));
        assert!(!LineFormat::Uci.is_record(&line("# e2e4")));
        assert!(LineFormat::Uci.is_record(&line("e2e4 e7e5")));
    }

    #[test]
    fn batches_number_lines_and_strip_endings() {
        let data: &[u8] = b"\xef\xbb\xbfa\r\nb\n\nc";
        let lines: Vec<Line> = LineBatches::new(data, usize::MAX)
            .flat_map(Result::unwrap)
            .collect();
        let got: Vec<(&str, u64)> = lines.iter().map(|l| (l.text.as_str(), l.number)).collect();
        assert_eq!(got, [("a", 1), ("b", 2), ("", 3), ("c", 4)]);
    }

    /// A reader that hands out at most three bytes per read, as a slow pipe.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(3).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// A reader that gives `data` and then fails.
    struct Failing<'a>(&'a [u8]);

    impl Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::other("disk on fire"));
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn lines_before_a_read_error_come_before_the_error() {
        // See issue 10: the partial batch was dropped.
        let data = b"a\nb\nc";
        let reader = io::BufReader::with_capacity(2, Failing(data));
        let mut batches = LineBatches::new(reader, usize::MAX);
        let first = batches.next().unwrap().unwrap();
        let got: Vec<&str> = first.iter().map(|l| l.text.as_str()).collect();
        // `c` has no line ending when the read fails: it is what was read.
        assert_eq!(got, ["a", "b", "c"]);
        let err = batches.next().unwrap().unwrap_err();
        assert_eq!(err.to_string(), "disk on fire");
        assert!(batches.next().is_none());
    }

    /// Issue 20: detection is decided on the first record line, however
    /// long the comments before it or the line itself.
    #[test]
    fn length_does_not_fool_the_detection() {
        let fen = "8/8/8/8/8/8/8/K1k5 w - - 0 1\n";
        let comments = "# a comment line of a test suite, repeated\n".repeat(200);
        assert!(comments.len() > 8192);
        for data in [
            format!("{comments}{fen}"),
            format!("{comments}\n\n{fen}{fen}"),
        ] {
            let (format, _) = sniff(Trickle(data.as_bytes())).unwrap();
            assert_eq!(format, Some(LineFormat::Positions));
        }
        let uci = format!("{}\n", ["e2e4 e7e5 g1f3 b8c6 f3g1 c6b8"; 300].join(" "));
        assert!(uci.len() > 4096);
        let (format, _) = sniff(uci.as_bytes()).unwrap();
        assert_eq!(format, Some(LineFormat::Uci));
        let long = format!("{}\n", ["e2e4 e7e5 g1f3 b8c6 f3g1 c6b8"; 3000].join(" "));
        assert!(long.len() > FIRST_LINE);
        let (format, _) = sniff(long.as_bytes()).unwrap();
        assert_eq!(format, Some(LineFormat::Uci));
        let pgn = format!("{comments}[Event \"x\"]\n\n1. e4 *\n");
        assert_eq!(sniff(pgn.as_bytes()).unwrap().0, None);
        // UCI moves cut mid-word by the read limit are not taken for PGN.
        let (format, _) = sniff(Trickle(long.as_bytes())).unwrap();
        assert_eq!(format, Some(LineFormat::Uci));
    }

    #[test]
    fn bare_carriage_returns_are_refused_with_a_reason() {
        let data: &[u8] = b"8/8/8/8/8/8/8/K1k5 w - - 0 1\r8/8/8/8/8/8/8/K1k5 b - - 0 1\r";
        let mut batches = LineBatches::new(data, usize::MAX);
        let err = batches.next().unwrap().unwrap_err();
        assert!(err.to_string().contains("bare carriage return"), "{err}");
        assert!(batches.next().is_none());
        // CRLF is fine.
        let crlf: &[u8] = b"a\r\nb\r\n";
        assert_eq!(
            LineBatches::new(crlf, usize::MAX)
                .flat_map(Result::unwrap)
                .count(),
            2
        );
    }

    #[test]
    fn sniff_reads_the_first_line_and_gives_every_byte_back() {
        let data = b"\n\n8/8/8/8/8/8/8/K1k5 w - - 0 1\nrest of the input\n";
        let mut source = Trickle(data);
        let (format, mut reader) = sniff(&mut source).unwrap();
        assert_eq!(format, Some(LineFormat::Positions));
        let mut all = Vec::new();
        reader.read_to_end(&mut all).unwrap();
        assert_eq!(all, data);

        // Stops once the first line is in: the rest is still unread.
        let mut source = Trickle(data);
        let (_, reader) = sniff(&mut source).unwrap();
        let (head, _) = reader.into_inner();
        assert!(head.into_inner().len() < data.len());
    }
}
