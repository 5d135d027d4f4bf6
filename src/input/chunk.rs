//! Splitting a byte stream into chunks that start where a game starts, so
//! chunks can be scanned in parallel.
//!
//! A chunk ends just before a `[` that opens a line after a blank line: in
//! sane PGN that is the first tag of a game. In PGN that is not sane (a
//! blank line and a `[` inside a comment) the split is wrong; the scanner
//! notices, and the stream scans the two chunks again as one.

use std::io::{self, Read};

/// The size chunks aim for. Large enough that per-chunk overhead vanishes,
/// small enough that memory stays small: what a chunk's results take can
/// be ten times its bytes (`convert --to jsonl` writes 12 bytes per byte of
/// PGN), and every worker holds a few chunks.
pub const TARGET: usize = 1 << 18;

/// The most games a chunk holds. Real games take more than 256 bytes each,
/// so this never binds on them; on a file of tiny games with several
/// findings each (a million empty games) memory would otherwise follow the
/// findings of ~16,000 games per chunk rather than the bytes (a chunk of
/// 1,024 empty games holds about 2.5 MB of findings in `validate`).
pub const MAX_GAMES: usize = 1024;

/// The default of `--max-game-bytes`: the most bytes one game (or a
/// stretch of text with no game start in it) may take before it is
/// skipped and reported instead of held. The longest real games, heavily
/// annotated, take a few megabytes.
pub const MAX_GAME_BYTES: usize = 32 << 20;

/// How much of a stretch being skipped is read at a time.
const SKIP_STEP: usize = 1 << 20;

/// How many bytes before a piece of a skipped stretch are kept to tell
/// whether a `[` at the piece's start opens a game.
const SKIP_CONTEXT: usize = 4096;

/// Reads `reader` in chunks split at game boundaries.
pub struct Chunker<R> {
    reader: R,
    carry: Vec<u8>,
    target: usize,
    /// A stretch with no game start longer than this is skipped.
    max: usize,
    /// Inside a skipped stretch: the last bytes of it, for the next cut.
    skipping: Option<Vec<u8>>,
    /// The first piece of a skipped stretch, given after the games before
    /// it.
    first_skipped: Option<Vec<u8>>,
    done: bool,
    /// A read error to report after the bytes read before it.
    failed: Option<io::Error>,
}

/// One chunk: its bytes, whether the input ends with it, and whether it is
/// a piece of a stretch skipped for being longer than the limit without a
/// place where a game could start (a decompression bomb, a giant game):
/// such a piece is to be counted and reported, never scanned.
#[derive(Debug)]
pub struct Chunk {
    pub data: Vec<u8>,
    pub at_end: bool,
    pub skipped: bool,
}

impl<R: Read> Chunker<R> {
    /// A chunker aiming at `target` bytes a chunk, holding at most about
    /// `max` bytes for one game (at least two targets).
    pub fn new(reader: R, target: usize, max: usize) -> Chunker<R> {
        let target = target.max(1);
        Chunker {
            reader,
            carry: Vec::new(),
            target,
            max: max.max(2 * target),
            skipping: None,
            first_skipped: None,
            done: false,
            failed: None,
        }
    }

    /// Reads until `buf` holds `want` bytes or the input ends.
    fn fill(&mut self, buf: &mut Vec<u8>, want: usize) -> io::Result<bool> {
        while buf.len() < want {
            if read_more(&mut self.reader, buf, want)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// Appends what one read of `reader` gives to `buf`, up to `want` bytes in
/// all (retrying a read that was interrupted). Returns `true` at the end of
/// the input.
///
/// # Errors
///
/// The read error; `buf` keeps what it held before.
pub fn read_more(reader: &mut impl Read, buf: &mut Vec<u8>, want: usize) -> io::Result<bool> {
    // At most one step is zeroed per read: a reader that gives little per
    // read (a pipe, a decoder) into a large `want` would otherwise have the
    // whole rest zeroed again on every read, quadratic in `want`.
    const STEP: usize = 1 << 20;
    let start = buf.len();
    buf.resize(start + want.saturating_sub(start).min(STEP), 0);
    loop {
        match reader.read(&mut buf[start..]) {
            Ok(n) => {
                buf.truncate(start + n);
                return Ok(n == 0 && want > start);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                buf.truncate(start);
                return Err(e);
            }
        }
    }
}

impl<R: Read> Iterator for Chunker<R> {
    type Item = io::Result<Chunk>;

    fn next(&mut self) -> Option<io::Result<Chunk>> {
        if let Some(err) = self.failed.take() {
            return Some(Err(err));
        }
        if self.done {
            return None;
        }
        if let Some(data) = self.first_skipped.take() {
            return Some(Ok(Chunk {
                data,
                at_end: false,
                skipped: true,
            }));
        }
        if self.skipping.is_some() {
            return Some(self.skip());
        }
        let mut buf = std::mem::take(&mut self.carry);
        // A carry left by the game cap already holds a chunk's worth.
        let mut want = if buf.len() >= self.target {
            buf.len()
        } else {
            self.target.max(buf.len() + self.target / 2)
        };
        loop {
            let eof = match self.fill(&mut buf, want) {
                Ok(eof) => eof,
                Err(e) => {
                    self.done = true;
                    if buf.is_empty() {
                        return Some(Err(e));
                    }
                    // What was read before the failure is still scanned.
                    self.failed = Some(e);
                    return Some(Ok(Chunk {
                        data: buf,
                        at_end: true,
                        skipped: false,
                    }));
                }
            };
            if let Some(cut) = nth_game_start(&buf, MAX_GAMES) {
                self.carry = buf[cut..].to_vec();
                buf.truncate(cut);
                return Some(Ok(Chunk {
                    data: buf,
                    at_end: false,
                    skipped: false,
                }));
            }
            if eof {
                self.done = true;
                return Some(Ok(Chunk {
                    data: buf,
                    at_end: true,
                    skipped: false,
                }));
            }
            // Never split inside the first few bytes: a chunk must hold a game.
            // Games not parted by blank lines are cut before a tag line that
            // follows movetext, so memory stays flat on them too.
            let split = last_game_start(&buf).or_else(|| last_tag_after_movetext(&buf));
            if let Some(split) = split.filter(|&s| s > 0) {
                self.carry = buf[split..].to_vec();
                buf.truncate(split);
                return Some(Ok(Chunk {
                    data: buf,
                    at_end: false,
                    skipped: false,
                }));
            }
            if buf.len() >= self.max {
                // No game starts in `max` bytes: the stretch is skipped, in
                // pieces, up to the next place a game can start. The games
                // before it (up to a blank line after movetext) are kept.
                let start = last_break(&buf).unwrap_or(0);
                let stretch = buf.split_off(start);
                self.skipping =
                    Some(stretch[stretch.len().saturating_sub(SKIP_CONTEXT)..].to_vec());
                if buf.is_empty() {
                    return Some(Ok(Chunk {
                        data: stretch,
                        at_end: false,
                        skipped: true,
                    }));
                }
                self.first_skipped = Some(stretch);
                return Some(Ok(Chunk {
                    data: buf,
                    at_end: false,
                    skipped: false,
                }));
            }
            want = (buf.len() * 2).min(self.max);
        }
    }
}

impl<R: Read> Chunker<R> {
    /// The next piece of a skipped stretch: up to [`SKIP_STEP`] bytes, ended
    /// early where a game can start (what follows is carried to the next
    /// chunk, and skipping ends).
    fn skip(&mut self) -> io::Result<Chunk> {
        let mut context = self.skipping.take().unwrap_or_default();
        let from = context.len();
        let eof = match self.fill(&mut context, from + SKIP_STEP) {
            Ok(eof) => eof,
            Err(e) => {
                self.done = true;
                if context.len() == from {
                    return Err(e);
                }
                self.failed = Some(e);
                true
            }
        };
        if let Some(cut) = first_game_start(&context, from) {
            self.carry = context[cut..].to_vec();
            return Ok(Chunk {
                data: context[from..cut].to_vec(),
                at_end: false,
                skipped: true,
            });
        }
        let data = context[from..].to_vec();
        if eof {
            self.done = true;
        } else {
            context.drain(..context.len().saturating_sub(SKIP_CONTEXT));
            self.skipping = Some(context);
        }
        Ok(Chunk {
            data,
            at_end: eof,
            skipped: true,
        })
    }
}

/// The offset just past the last blank line of `buf` that follows a line
/// of movetext (not a tag line: the blank line after a header is inside a
/// game), when text follows it: where what follows the games of `buf`
/// begins.
///
/// # Examples
///
/// ```
/// use pgnkit::input::chunk::last_break;
/// assert_eq!(last_break(b"[E \"a\"]\n\n1. e4 *\n\nxxxx"), Some(18));
/// assert_eq!(last_break(b"[E \"a\"]\n\n1. e4 {xxxx"), None);
/// ```
pub fn last_break(buf: &[u8]) -> Option<usize> {
    // `end` is the offset of the newline ending the line after `nl`.
    let mut end = buf.len();
    let mut pos = buf.len();
    while let Some(nl) = memchr::memrchr(b'\n', &buf[..pos]) {
        let line = &buf[nl + 1..end];
        if end < buf.len() && end + 1 < buf.len() && line.iter().all(|b| is_blank(*b)) {
            let prev_start = memchr::memrchr(b'\n', &buf[..nl]).map_or(0, |p| p + 1);
            let prev = &buf[prev_start..nl];
            if prev
                .iter()
                .find(|b| !is_blank(**b))
                .is_some_and(|&b| b != b'[')
            {
                return Some(end + 1);
            }
        }
        end = nl;
        pos = nl;
    }
    None
}

/// The offset of the first `[` at or after `from` in `buf` that starts a
/// line after a blank line or a line of movetext: where the chunker would
/// have cut ([`last_game_start`], [`last_tag_after_movetext`]).
fn first_game_start(buf: &[u8], from: usize) -> Option<usize> {
    memchr::memchr_iter(b'[', &buf[from..])
        .map(|i| i + from)
        .find(|&i| {
            if i == 0 || buf[i - 1] != b'\n' {
                return false;
            }
            let before = &buf[..i - 1];
            let line_start = memchr::memrchr(b'\n', before).map_or(0, |p| p + 1);
            let line = &before[line_start..];
            line.iter()
                .find(|b| !is_blank(**b))
                .is_none_or(|&b| b != b'[')
                && (line_start > 0 || !line.iter().all(|b| is_blank(*b)))
        })
}

/// The offset of the last `[` in `buf` that starts a line following a blank
/// line.
///
/// # Examples
///
/// ```
/// use pgnkit::input::chunk::last_game_start;
/// let pgn = b"[Event \"a\"]\n[Site \"b\"]\n\n1. e4 *\n\n[Event \"c\"]\n";
/// assert_eq!(last_game_start(pgn), Some(33));
/// assert_eq!(last_game_start(b"[Event \"a\"]\n[Site \"b\"]\n"), None);
/// ```
pub fn last_game_start(buf: &[u8]) -> Option<usize> {
    // The line before must be blank (only whitespace), and not the first.
    last_line_start_after(buf, |line, first_line| {
        !first_line && line.iter().all(|b| is_blank(*b))
    })
}

/// The offset of the last `[` in `buf` that starts a line following a line
/// of movetext (one that does not itself start with `[`): where a game
/// starts in PGN whose games are not parted by blank lines. The scanner ends
/// a game at any `[` that starts a line, so a cut there gives the same games
/// as a scan of the whole, unless the cut falls inside a comment, which the
/// scanner reports as an unclean end.
///
/// # Examples
///
/// ```
/// use pgnkit::input::chunk::last_tag_after_movetext;
/// let pgn = b"[Event \"a\"]\n1. e4 1-0\n[Event \"b\"]\n[Site \"c\"]\n";
/// assert_eq!(last_tag_after_movetext(pgn), Some(22));
/// assert_eq!(last_tag_after_movetext(b"[Event \"a\"]\n[Site \"b\"]\n"), None);
/// ```
pub fn last_tag_after_movetext(buf: &[u8]) -> Option<usize> {
    last_line_start_after(buf, |line, _| {
        line.iter()
            .find(|b| !is_blank(**b))
            .is_some_and(|&b| b != b'[')
    })
}

/// Whitespace within a line.
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r')
}

/// The offset of the last `[` in `buf` that starts a line whose previous
/// line passes `accept` (given that line, without its newline, and whether
/// it is the first line of `buf`).
fn last_line_start_after(buf: &[u8], accept: impl Fn(&[u8], bool) -> bool) -> Option<usize> {
    let mut end = buf.len();
    while let Some(i) = memchr::memrchr(b'[', &buf[..end]) {
        end = i;
        if i == 0 || buf[i - 1] != b'\n' {
            continue;
        }
        let before = &buf[..i - 1];
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |p| p + 1);
        if accept(&before[line_start..], line_start == 0) {
            return Some(i);
        }
    }
    None
}

/// The offset of about the `n`th place after the start of `buf` where a
/// game may start, if `buf` holds that many: a `[` opening a line whose
/// previous line does not end in `]` (so is not a tag). This is a bound on
/// memory, not a parse: one test a `[`, and a cut it gets wrong is caught by
/// the scanner like any other.
fn nth_game_start(buf: &[u8], n: usize) -> Option<usize> {
    // Real games are far sparser than the cap: count the whole buffer only
    // where its first 16 KB holds games that densely.
    const SAMPLE: usize = 1 << 14;
    let sample = &buf[..buf.len().min(SAMPLE)];
    if buf.len() > SAMPLE && game_starts(sample).nth(n * SAMPLE / TARGET).is_none() {
        return None;
    }
    game_starts(buf).nth(n - 1)
}

/// The places where [`nth_game_start`] sees a game start.
fn game_starts(buf: &[u8]) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr_iter(b'[', buf).filter(|&i| {
        if i == 0 || buf[i - 1] != b'\n' {
            return false;
        }
        let mut end = i - 1;
        if end > 0 && buf[end - 1] == b'\r' {
            end -= 1;
        }
        end == 0 || buf[end - 1] != b']'
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_concatenate_to_the_input() {
        let mut pgn = Vec::new();
        for i in 0..200 {
            pgn.extend_from_slice(format!("[Event \"{i}\"]\r\n\r\n1. e4 e5 *\r\n\r\n").as_bytes());
        }
        let chunks: Vec<Chunk> = Chunker::new(&pgn[..], 100, MAX_GAME_BYTES)
            .map(Result::unwrap)
            .collect();
        assert!(chunks.len() > 10);
        assert!(chunks.iter().all(|c| c.data.starts_with(b"[Event")));
        assert!(chunks.last().unwrap().at_end);
        let joined: Vec<u8> = chunks.into_iter().flat_map(|c| c.data).collect();
        assert_eq!(joined, pgn);
    }

    #[test]
    fn games_without_blank_lines_are_cut_too() {
        // See issue 10: memory grew with the input when no blank line
        // parted the games.
        let mut pgn = Vec::new();
        for i in 0..200 {
            pgn.extend_from_slice(
                format!("[Event \"{i}\"]\n[Site \"?\"]\n1. e4 e5 *\n").as_bytes(),
            );
        }
        let chunks: Vec<Chunk> = Chunker::new(&pgn[..], 100, MAX_GAME_BYTES)
            .map(Result::unwrap)
            .collect();
        assert!(chunks.len() > 10);
        assert!(chunks.iter().all(|c| c.data.starts_with(b"[Event")));
        assert!(chunks.iter().all(|c| c.data.len() < 200));
        let joined: Vec<u8> = chunks.into_iter().flat_map(|c| c.data).collect();
        assert_eq!(joined, pgn);
    }

    #[test]
    fn tiny_games_are_cut_by_count() {
        // See issue 10: memory followed the findings of the games per chunk.
        let pgn = "[Event \"x\"]\n\n*\n".repeat(3 * MAX_GAMES + 5);
        let chunks: Vec<Chunk> = Chunker::new(pgn.as_bytes(), TARGET, MAX_GAME_BYTES)
            .map(Result::unwrap)
            .collect();
        assert_eq!(chunks.len(), 4);
        assert!(chunks.iter().all(|c| c.data.starts_with(b"[Event")));
        let games = |c: &Chunk| c.data.windows(6).filter(|w| w == b"[Event").count();
        assert!(chunks.iter().all(|c| games(c) <= MAX_GAMES));
        let joined: Vec<u8> = chunks.into_iter().flat_map(|c| c.data).collect();
        assert_eq!(joined, pgn.as_bytes());
    }

    /// A reader of `n` bytes of `byte`, made as it is read.
    struct Repeat {
        byte: u8,
        left: usize,
    }

    impl Read for Repeat {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.left);
            buf[..n].fill(self.byte);
            self.left -= n;
            Ok(n)
        }
    }

    #[test]
    fn decompression_bomb_without_a_newline_is_skipped_in_bounded_pieces() {
        // Issue 43, defect 3: 4 GB without a newline was held whole.
        let max = 1 << 16;
        let reader = Repeat {
            byte: b'a',
            left: 50 * max,
        };
        let mut total = 0;
        let mut last = None;
        for chunk in Chunker::new(reader, 1024, max) {
            let chunk = chunk.unwrap();
            assert!(chunk.skipped, "nothing of it is a game");
            assert!(chunk.data.len() <= max.max(SKIP_STEP));
            total += chunk.data.len();
            last = Some(chunk.at_end);
        }
        assert_eq!(total, 50 * max);
        assert_eq!(last, Some(true));
    }

    #[test]
    fn a_game_over_the_limit_is_skipped_up_to_the_next_game() {
        let max = 1 << 12;
        let mut pgn = b"[Event \"big\"]\n\n1. e4 {".to_vec();
        pgn.extend(std::iter::repeat_n(b'x', 3 * SKIP_STEP));
        pgn.extend_from_slice(b"} e5 *\n\n");
        let next = pgn.len();
        for i in 0..3 {
            pgn.extend_from_slice(format!("[Event \"{i}\"]\n\n1. d4 *\n\n").as_bytes());
        }
        let chunks: Vec<Chunk> = Chunker::new(&pgn[..], 1024, max)
            .map(Result::unwrap)
            .collect();
        let skipped: usize = chunks
            .iter()
            .filter(|c| c.skipped)
            .map(|c| c.data.len())
            .sum();
        assert_eq!(skipped, next, "the big game, and only it, is skipped");
        let first_kept = chunks.iter().find(|c| !c.skipped).unwrap();
        assert!(first_kept.data.starts_with(b"[Event \"0\"]"));
        assert!(chunks.iter().all(|c| c.data.len() <= max.max(SKIP_STEP)));
        let joined: Vec<u8> = chunks.into_iter().flat_map(|c| c.data).collect();
        assert_eq!(joined, pgn);
    }

    #[test]
    fn a_game_under_the_limit_is_whole() {
        let mut pgn = b"[Event \"big\"]\n\n1. e4 {".to_vec();
        pgn.extend(std::iter::repeat_n(b'x', 10_000));
        pgn.extend_from_slice(b"} e5 *\n");
        let chunks: Vec<Chunk> = Chunker::new(&pgn[..], 100, 1 << 14)
            .map(Result::unwrap)
            .collect();
        assert_eq!(chunks.len(), 1);
        assert!(!chunks[0].skipped && chunks[0].at_end);
    }

    #[test]
    fn empty_input_is_one_empty_final_chunk() {
        let chunks: Vec<Chunk> = Chunker::new(&b""[..], 100, MAX_GAME_BYTES)
            .map(Result::unwrap)
            .collect();
        assert_eq!(chunks.len(), 1);
        assert!(chunks[0].data.is_empty() && chunks[0].at_end);
    }
}
