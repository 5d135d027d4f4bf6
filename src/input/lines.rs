//! Line-based inputs of `convert`: one position (FEN or EPD) or one game
//! (UCI) per line, and telling them from PGN by content.
//!
//! Files are opened with [`crate::input::open`] (so compressed files and
//! standard input work as for PGN), read in batches of lines, and each line
//! is handed to the caller's work in parallel; results come back in input
//! order through the same [`Event`]s as [`crate::stream::for_each_game`].
//! What a line means is the caller's business ([`crate::rules::convert`]).

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::input::open::{Compression, detect as detect_compression, open};
use crate::output::progress::Progress;
use crate::pipeline;
use crate::rules::game::decode_text;
use crate::stream::{Event, GameCtx, Totals};

/// What a line-based input holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineFormat {
    /// One FEN or EPD per line; blank lines are skipped.
    Positions,
    /// One game per line in UCI; a blank line is a game without moves.
    Uci,
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
/// default), or the line format when the first non-blank line is a FEN/EPD
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
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let line = head
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .find(|l| !l.is_empty())?;
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

/// The first bytes of an input, decompressed, for [`detect`]. For standard
/// input this peeks into its buffer without consuming anything, so it sees
/// only what the first read returned, and compressed standard input gives
/// nothing (it is then taken as PGN).
///
/// # Errors
///
/// When the input cannot be opened or read.
pub fn sniff(path: &Path) -> io::Result<Vec<u8>> {
    if path == Path::new("-") {
        let stdin = io::stdin();
        let mut lock = stdin.lock();
        let head = lock.fill_buf()?;
        return Ok(if detect_compression(head) == Compression::None {
            head.to_vec()
        } else {
            Vec::new()
        });
    }
    let source = open(path, Arc::new(AtomicU64::new(0)))?;
    let mut head = Vec::with_capacity(4096);
    source.reader.take(4096).read_to_end(&mut head)?;
    Ok(head)
}

/// Reads lines into batches; an I/O error ends the input.
struct Batches<R> {
    reader: R,
    number: u64,
    done: bool,
}

impl<R: BufRead> Iterator for Batches<R> {
    type Item = io::Result<Vec<Line>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut batch = Vec::with_capacity(BATCH);
        let mut buf = Vec::new();
        while batch.len() < BATCH {
            buf.clear();
            match self.reader.read_until(b'\n', &mut buf) {
                Ok(0) => {
                    self.done = true;
                    break;
                }
                Ok(_) => {
                    self.number += 1;
                    let mut bytes = buf.as_slice();
                    if self.number == 1 {
                        bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
                    }
                    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
                    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
                    batch.push(Line {
                        text: decode_text(bytes).into_owned(),
                        number: self.number,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        (!batch.is_empty()).then_some(Ok(batch))
    }
}

/// Runs `work` on every line that is a game or position in `files` (`-`
/// is standard input) of `format`, on `threads` threads, and feeds `sink`
/// in input order; the game number of a [`GameCtx`] counts those lines in
/// their file, and its `line_offset` is 0 (lines are already absolute).
///
/// # Errors
///
/// The first error of `sink` (a write failure), which stops the run.
pub fn for_each_line<R: Send>(
    files: &[PathBuf],
    format: LineFormat,
    threads: usize,
    quiet: bool,
    work: impl Fn(&Line) -> R + Sync,
    mut sink: impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
) -> anyhow::Result<Totals> {
    let progress = Progress::new(crate::input::open::total_size(files), quiet);
    let counter = Arc::new(AtomicU64::new(0));
    let mut totals = Totals::default();
    let is_game = |line: &Line| format == LineFormat::Uci || !line.text.trim().is_empty();
    let work = &work;
    for path in files {
        let name = crate::input::open::input_name(path);
        let source = match open(path, Arc::clone(&counter)) {
            Ok(source) => source,
            Err(error) => {
                totals.failed += 1;
                let error = io::Error::new(error.kind(), format!("cannot open: {error}"));
                sink(Event::Failed(&name, error))?;
                continue;
            }
        };
        let batches = Batches {
            reader: BufReader::with_capacity(1 << 16, source.reader),
            number: 0,
            done: false,
        };
        let mut game = 0u64;
        pipeline::ordered(
            batches,
            threads,
            |batch| {
                batch.map(|lines| {
                    lines
                        .iter()
                        .filter(|l| is_game(l))
                        .map(work)
                        .collect::<Vec<R>>()
                })
            },
            |results| {
                match results {
                    Ok(results) => {
                        for result in results {
                            game += 1;
                            totals.games += 1;
                            let ctx = GameCtx {
                                file: &name,
                                game,
                                line_offset: 0,
                            };
                            sink(Event::Game(ctx, result))?;
                        }
                    }
                    Err(error) => {
                        totals.failed += 1;
                        let error = io::Error::new(error.kind(), format!("read failed: {error}"));
                        sink(Event::Failed(&name, error))?;
                    }
                }
                progress.update(counter.load(Ordering::Relaxed), totals.games);
                Ok::<(), anyhow::Error>(())
            },
        )?;
    }
    progress.finish();
    Ok(totals)
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
    }

    #[test]
    fn batches_number_lines_and_strip_endings() {
        let data: &[u8] = b"\xef\xbb\xbfa\r\nb\n\nc";
        let lines: Vec<Line> = Batches {
            reader: data,
            number: 0,
            done: false,
        }
        .flat_map(Result::unwrap)
        .collect();
        let got: Vec<(&str, u64)> = lines.iter().map(|l| (l.text.as_str(), l.number)).collect();
        assert_eq!(got, [("a", 1), ("b", 2), ("", 3), ("c", 4)]);
    }
}
