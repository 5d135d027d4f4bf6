//! Byte-range shards of one uncompressed PGN file (`--byte-range`): where a
//! shard begins and where its region ends, told by one rule that two
//! neighbouring shards apply to the same bytes and so agree on.
//!
//! A *cut point* is byte 0, or a `[` that starts a line whose previous line
//! does not end in `]` (spaces, tabs and carriage returns ignored): a blank
//! line or movetext before a tag, where a game can start. A shard for
//! `START..END` begins at the first cut point at or after `START` and its
//! region ends at the first cut point at or after `END`. Whether the parse
//! really is between games there is only known to the shard that reads up
//! to it (a cut point may lie inside a comment); what the stream does then
//! is [`crate::stream`]'s business.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::str::FromStr;

/// How far back the cut-point test looks over spaces and tabs: a run of
/// blanks this long counts as a blank line. Both shards apply the same
/// bound, so they agree even on such a run.
pub const LOOK_BACK: usize = 4096;

/// `START..END` in bytes of the uncompressed input; either end may be
/// omitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    pub start: u64,
    pub end: Option<u64>,
}

impl FromStr for ByteRange {
    type Err = String;

    /// Parses `START..END`, `START..` or `..END`.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::input::range::ByteRange;
    /// let r: ByteRange = "100..2000".parse().unwrap();
    /// assert_eq!((r.start, r.end), (100, Some(2000)));
    /// assert_eq!("..5".parse::<ByteRange>().unwrap().start, 0);
    /// assert_eq!("7..".parse::<ByteRange>().unwrap().end, None);
    /// assert!("5..3".parse::<ByteRange>().is_err());
    /// assert!("5-3".parse::<ByteRange>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<ByteRange, String> {
        let (start, end) = s.split_once("..").ok_or_else(|| {
            format!("`{s}` is not START..END (bytes; either end may be left out)")
        })?;
        let number = |t: &str| {
            t.parse::<u64>()
                .map_err(|_| format!("`{t}` in `{s}` is not a byte offset"))
        };
        let start = if start.is_empty() { 0 } else { number(start)? };
        let end = if end.is_empty() {
            None
        } else {
            Some(number(end)?)
        };
        if end.is_some_and(|e| e < start) {
            return Err(format!("`{s}` ends before it starts"));
        }
        Ok(ByteRange { start, end })
    }
}

/// Whether a game may start at a `[` preceded by `before` (the bytes just
/// before it; at least [`LOOK_BACK`] + 1 of them, or all from the start of
/// the input). `None` for `before` means the `[` is the input's first byte.
///
/// # Examples
///
/// ```
/// use pgnkit::input::range::is_cut_point;
/// assert!(is_cut_point(b"1. e4 e5 1-0\n\n"));
/// assert!(is_cut_point(b"1. e4 e5 1-0\n"));
/// assert!(!is_cut_point(b"[Event \"x\"] \r\n"));
/// assert!(!is_cut_point(b"1. e4 "));
/// assert!(is_cut_point(b""));
/// ```
pub fn is_cut_point(before: &[u8]) -> bool {
    let Some((&last, rest)) = before.split_last() else {
        return true;
    };
    if last != b'\n' {
        return false;
    }
    let rest = &rest[rest.len().saturating_sub(LOOK_BACK)..];
    match rest
        .iter()
        .rev()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\r'))
    {
        Some(&b) => b != b']',
        None => true,
    }
}

/// The offsets of every cut point in `buf` at or after `from`, where `buf`
/// holds the input from byte `base` on (so the test of a `[` near the start
/// of `buf` sees only what `buf` holds: callers give [`LOOK_BACK`] + 1 bytes
/// of context before `from`, or start at the input's start).
fn cut_points(buf: &[u8], base: u64, from: u64) -> impl Iterator<Item = u64> + '_ {
    let skip = usize::try_from(from.saturating_sub(base)).unwrap_or(usize::MAX);
    memchr::memchr_iter(b'[', buf)
        .filter(move |&i| i >= skip)
        .filter(move |&i| base + i as u64 == 0 || (i > 0 && is_cut_point(&buf[..i])))
        .map(move |i| base + i as u64)
}

/// The first cut point at or after `at` in `file` (of `len` bytes), or
/// `len` when there is none.
///
/// # Errors
///
/// When `file` cannot be read.
pub fn first_cut_at_or_after(file: &mut File, at: u64, len: u64) -> io::Result<u64> {
    const BLOCK: usize = 1 << 16;
    if at == 0 {
        return Ok(0);
    }
    let context = (LOOK_BACK + 1) as u64;
    let mut base = at.saturating_sub(context);
    let mut buf = Vec::with_capacity(BLOCK * 2);
    file.seek(SeekFrom::Start(base))?;
    loop {
        if base + buf.len() as u64 >= len {
            return Ok(cut_points(&buf, base, at).next().unwrap_or(len));
        }
        let start = buf.len();
        buf.resize(start + BLOCK, 0);
        let n = file.read(&mut buf[start..])?;
        buf.truncate(start + n);
        if n == 0 {
            return Ok(cut_points(&buf, base, at).next().unwrap_or(len));
        }
        // A `[` found before the last byte read has all its context.
        let searched = &buf[..buf.len() - 1];
        if let Some(cut) = cut_points(searched, base, at).next() {
            return Ok(cut);
        }
        // Keep only the context the next block's first `[` needs.
        let drop = buf.len() - (LOOK_BACK + 2).min(buf.len());
        buf.drain(..drop);
        base += drop as u64;
    }
}

/// Where one shard of a file lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// The first cut point at or after the range's start: the shard begins
    /// here.
    pub first_byte: u64,
    /// The first cut point at or after the range's end: games that start
    /// before it are the shard's.
    pub limit: u64,
}

/// The region of `range` in `file` (of `len` bytes).
///
/// # Errors
///
/// When `file` cannot be read.
pub fn region(file: &mut File, range: ByteRange, len: u64) -> io::Result<Region> {
    let first_byte = first_cut_at_or_after(file, range.start.min(len), len)?;
    let limit = match range.end {
        Some(end) if end < len => first_cut_at_or_after(file, end.max(first_byte), len)?,
        _ => len,
    };
    Ok(Region { first_byte, limit })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(bytes: &[u8]) -> File {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        f
    }

    /// Every cut point of `bytes`, by the definition.
    fn all_cuts(bytes: &[u8]) -> Vec<u64> {
        (0..bytes.len())
            .filter(|&i| i == 0 || (bytes[i] == b'[' && is_cut_point(&bytes[..i])))
            .map(|i| i as u64)
            .collect()
    }

    #[test]
    fn first_cut_agrees_with_the_definition_everywhere() {
        let mut pgn = Vec::new();
        for i in 0..300 {
            pgn.extend_from_slice(
                format!("[Event \"{i}\"]  \r\n[Site \"?\"]\n\n1. e4 {{[%clk 0:01]}} e5 *\n")
                    .as_bytes(),
            );
            if i % 7 == 0 {
                pgn.extend_from_slice(&vec![b' '; 5000]);
                pgn.push(b'\n');
            }
        }
        let cuts = all_cuts(&pgn);
        let len = pgn.len() as u64;
        let mut file = file_of(&pgn);
        for at in (0..len).step_by(97).chain([len - 1, len]) {
            let want = cuts.iter().copied().find(|&c| c >= at).unwrap_or(len);
            assert_eq!(
                first_cut_at_or_after(&mut file, at, len).unwrap(),
                want,
                "at {at}"
            );
        }
    }

    #[test]
    fn regions_tile_the_file() {
        let pgn = "[Event \"a\"]\n\n1. e4 *\n\n".repeat(50);
        let len = pgn.len() as u64;
        let mut file = file_of(pgn.as_bytes());
        let bounds = [0, 13, 200, 201, 555, len];
        let mut next = 0;
        for w in bounds.windows(2) {
            let r = region(
                &mut file,
                ByteRange {
                    start: w[0],
                    end: Some(w[1]),
                },
                len,
            )
            .unwrap();
            assert_eq!(r.first_byte, next);
            assert!(r.limit >= r.first_byte);
            next = r.limit;
        }
        assert_eq!(next, len);
    }
}
