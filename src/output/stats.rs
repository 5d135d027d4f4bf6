//! `--stats`: what a run read and what it wrote, as one JSON object that
//! `pgnkit merge` and the Spark job read back. One struct, [`RunStats`], is
//! both what the writer serialises and what merge parses, so the two cannot
//! drift.
//!
//! A statistics file is another run's output and so untrusted input: it
//! ends with a checksum of everything before it, and it records the size
//! and a digest of the product it describes ([`Digest`]), so that merge can
//! tell a damaged or edited shard from a good one before it writes a byte.

use std::collections::BTreeMap;
use std::fs::Metadata;
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The layout of the statistics, raised when a key changes meaning.
pub const VERSION: u32 = 2;

/// The statistics of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunStats {
    /// [`VERSION`] of the writer.
    pub version: u32,
    /// The subcommand: `validate`, `annotate-outcome` or `convert`.
    pub command: String,
    /// The product's format (`-f` or `--to`): `csv`, `jsonl`, `text`, ….
    pub format: String,
    /// Whether a CSV product starts with its header row.
    pub header: bool,
    /// A CSV product's columns (written as the header unless
    /// `--no-header`); `None` for other formats.
    pub columns: Option<Vec<String>>,
    /// The flags that change the product, besides the format, in a
    /// canonical spelling: what a rerun of the shard must be given.
    pub options: Vec<String>,
    /// One entry per input opened, in input order.
    pub inputs: Vec<InputStats>,
    /// Games (or record lines) processed.
    pub games: u64,
    /// Inputs that could not be opened or read to their end.
    pub failed: u64,
    /// Findings (or other records) per code.
    pub findings: BTreeMap<String, u64>,
    /// What the run wrote to its product.
    pub output: OutputStats,
    /// The command line, for people (merge never reads it).
    pub args: Vec<String>,
    /// The directory the run ran in, for people (merge never reads it).
    pub cwd: Option<String>,
    /// [`Digest`] of the text before it; written last ([`RunStats::to_json`]).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub checksum: Option<String>,
}

impl RunStats {
    /// Writes the statistics to `path` whole ([`crate::output::atomic::write`]).
    ///
    /// # Errors
    ///
    /// When the file cannot be written; the error names it.
    pub fn write(&self, path: &Path) -> Result<(), crate::Error> {
        crate::output::atomic::write(path, self.to_json().as_bytes()).map_err(|e| {
            let message = format!("cannot write the statistics to {}", path.display());
            crate::Error::output(path, message, e)
        })
    }
}

/// The command line of this process (its arguments, lossily decoded) and
/// the directory it runs in: [`RunStats::args`] and [`RunStats::cwd`].
pub fn invocation() -> (Vec<String>, Option<String>) {
    let args = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let cwd = std::env::current_dir()
        .ok()
        .map(|d| d.to_string_lossy().into_owned());
    (args, cwd)
}

/// Where an input is on disk, for its [`InputStats`]: its absolute path
/// (links and `..` resolved, so shards of one file name it alike whatever
/// directory or link they ran through), and a regular file's size and
/// modification time. All `None` for standard input.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OnDisk {
    /// [`InputStats::path`].
    pub path: Option<String>,
    /// [`InputStats::path_bytes`].
    pub path_bytes: Option<String>,
    /// [`InputStats::size`].
    pub size: Option<u64>,
    /// [`InputStats::mtime_ns`].
    pub mtime_ns: Option<i64>,
}

impl OnDisk {
    /// Where the input `path` (`-` is standard input) is.
    pub fn of(path: &Path) -> OnDisk {
        let absolute = (path != Path::new("-"))
            .then(|| {
                std::fs::canonicalize(path)
                    .or_else(|_| std::path::absolute(path))
                    .ok()
            })
            .flatten();
        let meta = absolute
            .as_deref()
            .and_then(|p| std::fs::metadata(p).ok())
            .filter(Metadata::is_file);
        OnDisk {
            path: absolute
                .as_deref()
                .map(|p| p.to_string_lossy().into_owned()),
            path_bytes: absolute.as_deref().map(path_hex),
            size: meta.as_ref().map(Metadata::len),
            mtime_ns: meta.as_ref().map(|m| {
                m.mtime()
                    .saturating_mul(1_000_000_000)
                    .saturating_add(m.mtime_nsec())
            }),
        }
    }
}

/// What one input gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputStats {
    /// The input's name as reports show it.
    pub file: String,
    /// The absolute path, for people (lossy where it is not UTF-8); `None`
    /// for standard input.
    pub path: Option<String>,
    /// The absolute path's bytes in hexadecimal, exactly: what a rerun
    /// reads.
    pub path_bytes: Option<String>,
    /// The file's size when the run ended (`None` when not a regular file).
    pub size: Option<u64>,
    /// The file's modification time, nanoseconds since the epoch.
    pub mtime_ns: Option<i64>,
    /// The `--byte-range` asked for (0 and `None` without one).
    pub start: u64,
    pub end: Option<u64>,
    /// Offset of the first byte read: the first cut point of the range.
    pub first_byte: u64,
    /// Offset where the shard's region ends (`None` to the end of the file).
    pub limit: Option<u64>,
    /// Offset just past the last byte whose games were processed.
    pub end_byte: u64,
    /// Games (or record lines) processed.
    pub games: u64,
    /// Newlines between `first_byte` and `end_byte`.
    pub lines: u64,
    pub first_offset: Option<u64>,
    pub last_offset: Option<u64>,
    /// For a `--byte-range` run, the [`Digest`] of the input's bytes from
    /// `first_byte` to `end_byte`, which a rerun checks the file against.
    pub region_digest: Option<String>,
}

/// What a run wrote to its product.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputStats {
    /// Bytes written.
    pub bytes: u64,
    /// Records written (CSV rows or JSON lines), the header not counted.
    pub records: u64,
    /// [`Digest`] of the bytes, 16 hexadecimal digits.
    pub digest: String,
}

/// The key the checksum is written under, after every other key.
const CHECKSUM_KEY: &str = ",\"checksum\":\"";

impl RunStats {
    /// The JSON text, one line, ending with the checksum of what comes
    /// before it.
    pub fn to_json(&self) -> String {
        let mut unsigned = self.clone();
        unsigned.checksum = None;
        let mut text = serde_json::to_string(&unsigned).expect("statistics serialise");
        text.pop(); // the closing brace
        let sum = Digest::of(text.as_bytes()).hex();
        text.push_str(CHECKSUM_KEY);
        text.push_str(&sum);
        text.push_str("\"}\n");
        text
    }

    /// Parses statistics that [`RunStats::to_json`] wrote, checking the
    /// checksum and the version.
    ///
    /// # Errors
    ///
    /// A message saying what is wrong: not JSON of this shape, a version
    /// this build does not read, or a checksum that does not match (the
    /// file was edited or damaged).
    pub fn parse(text: &str) -> Result<RunStats, String> {
        let stats: RunStats = serde_json::from_str(text)
            .map_err(|e| format!("it is not pgnkit --stats JSON ({e})"))?;
        if stats.version != VERSION {
            return Err(format!(
                "it was written by a pgnkit whose statistics are version {}; this one reads version {VERSION} (run the shard again)",
                stats.version
            ));
        }
        let body = text.strip_suffix('\n').unwrap_or(text);
        let Some(at) = body.rfind(CHECKSUM_KEY) else {
            return Err("it has no checksum".to_owned());
        };
        let expected = Digest::of(&body.as_bytes()[..at]).hex();
        if body[at + CHECKSUM_KEY.len()..] != format!("{expected}\"}}")
            || stats.checksum.as_deref() != Some(expected.as_str())
        {
            return Err(
                "its checksum does not match its contents (it was edited or damaged)".to_owned(),
            );
        }
        Ok(stats)
    }
}

/// The path bytes of `path` in hexadecimal (see [`InputStats::path_bytes`]).
pub fn path_hex(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str()
        .as_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The path that [`path_hex`] wrote, or `None` when `hex` is not such text.
pub fn path_from_hex(hex: &str) -> Option<std::path::PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    if hex.is_empty() || !hex.len().is_multiple_of(2) {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    if bytes.contains(&0) {
        return None;
    }
    Some(std::ffi::OsString::from_vec(bytes).into())
}

/// A 64-bit digest of a byte stream, the same however the stream is cut
/// into writes: it tells a damaged or edited file from the one a run
/// wrote. Not cryptographic: it guards against accidents and careless
/// edits, not against a forger who also rewrites the statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Digest {
    state: u64,
    len: u64,
    /// Bytes not yet folded in (fewer than eight).
    pending: [u8; 8],
}

impl Default for Digest {
    fn default() -> Digest {
        Digest {
            state: 0x9e37_79b9_7f4a_7c15,
            len: 0,
            pending: [0; 8],
        }
    }
}

impl Digest {
    const K: u64 = 0xff51_afd7_ed55_8ccd;

    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        let mut d = Digest::default();
        d.update(bytes);
        d
    }

    fn fold(&mut self, word: u64) {
        self.state = (self.state.rotate_left(23) ^ word).wrapping_mul(Self::K);
    }

    /// Adds `bytes` to the stream.
    pub fn update(&mut self, mut bytes: &[u8]) {
        let mut have = (self.len % 8) as usize;
        self.len += bytes.len() as u64;
        if have > 0 {
            let take = (8 - have).min(bytes.len());
            self.pending[have..have + take].copy_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            have += take;
            if have < 8 {
                return;
            }
            self.fold(u64::from_le_bytes(self.pending));
        }
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.fold(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        }
        let rest = words.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
    }

    /// Bytes added so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The final value, as 16 hexadecimal digits.
    pub fn hex(&self) -> String {
        let mut d = *self;
        let have = (d.len % 8) as usize;
        let mut last = [0u8; 8];
        last[..have].copy_from_slice(&d.pending[..have]);
        d.fold(u64::from_le_bytes(last));
        d.fold(d.len);
        let mut x = d.state;
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^= x >> 33;
        format!("{x:016x}")
    }
}

/// A writer that passes bytes through and digests them.
pub struct Digesting<W> {
    inner: W,
    digest: std::rc::Rc<std::cell::Cell<Digest>>,
}

impl<W: Write> Digesting<W> {
    /// `inner`, digested into `digest`.
    pub fn new(inner: W, digest: std::rc::Rc<std::cell::Cell<Digest>>) -> Digesting<W> {
        Digesting { inner, digest }
    }
}

impl<W: Write> Write for Digesting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        let mut d = self.digest.get();
        d.update(&buf[..n]);
        self.digest.set(d);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_does_not_depend_on_how_the_stream_is_cut() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let whole = Digest::of(&data).hex();
        for cut in [1, 3, 7, 8, 9, 64, 999] {
            let mut d = Digest::default();
            for piece in data.chunks(cut) {
                d.update(piece);
            }
            assert_eq!(d.hex(), whole, "pieces of {cut}");
        }
        // Any one byte changed, or one dropped, changes it.
        for i in [0, 1, 500, 998, 999] {
            let mut other = data.clone();
            other[i] ^= 1;
            assert_ne!(Digest::of(&other).hex(), whole);
            other.remove(i);
            assert_ne!(Digest::of(&other).hex(), whole);
        }
        assert_ne!(Digest::of(b"").hex(), Digest::of(b"\0").hex());
    }

    fn sample() -> RunStats {
        RunStats {
            version: VERSION,
            command: "validate".into(),
            format: "csv".into(),
            header: true,
            columns: Some(vec!["file".into(), "game".into()]),
            options: vec!["--only".into(), "syntax".into()],
            inputs: vec![],
            games: 3,
            failed: 0,
            findings: BTreeMap::new(),
            output: OutputStats {
                bytes: 10,
                records: 1,
                digest: Digest::of(b"x").hex(),
            },
            args: vec![],
            cwd: None,
            checksum: None,
        }
    }

    #[test]
    fn statistics_read_back_and_an_edit_is_caught() {
        let text = sample().to_json();
        let back = RunStats::parse(&text).unwrap();
        assert_eq!(
            RunStats {
                checksum: None,
                ..back
            },
            sample()
        );
        let edited = text.replace("\"games\":3", "\"games\":4");
        assert!(RunStats::parse(&edited).unwrap_err().contains("checksum"));
        let cut = &text[..text.len() - 5];
        assert!(RunStats::parse(cut).is_err());
        let old = text.replace("\"version\":2", "\"version\":1");
        assert!(RunStats::parse(&old).unwrap_err().contains("version"));
    }

    #[test]
    fn path_bytes_round_trip_exactly() {
        use std::os::unix::ffi::OsStrExt;
        let p = Path::new(std::ffi::OsStr::from_bytes(b"/tmp/a\xff[1].pgn"));
        assert_eq!(path_from_hex(&path_hex(p)).as_deref(), Some(p));
        assert_eq!(path_from_hex("2f0"), None);
        assert_eq!(path_from_hex("2f00"), None);
        assert_eq!(path_from_hex("zz"), None);
    }
}
