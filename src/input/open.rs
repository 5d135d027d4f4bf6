//! Opening an input: a file or standard input (`-`), decompressed on the fly
//! when its first bytes say zstd, gzip or bzip2, and refused when they say
//! UTF-16.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::input::error::InputError;

/// An opened input.
pub struct Source {
    /// How reports name it: the path as given, or `<stdin>`.
    pub name: String,
    /// The decompressed bytes.
    pub reader: Box<dyn Read + Send>,
    /// Size on disk (compressed size for compressed input), when known.
    pub size: Option<u64>,
}

/// The compression an input uses, told by its magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Zstd,
    Gzip,
    Bzip2,
}

/// Detects compression from the first bytes of an input.
///
/// # Examples
///
/// ```
/// use pgnkit::input::open::{detect, Compression};
/// assert_eq!(detect(b"\x28\xb5\x2f\xfd..."), Compression::Zstd);
/// assert_eq!(detect(b"[Event \"x\"]"), Compression::None);
/// ```
pub fn detect(head: &[u8]) -> Compression {
    if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Compression::Zstd
    } else if head.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else if head.starts_with(b"BZh") {
        Compression::Bzip2
    } else {
        Compression::None
    }
}

/// Whether `head` opens with a UTF-16 byte order mark (little or big
/// endian). PGN is 8-bit text; UTF-16 would be read as NUL bytes between
/// the characters, so it is refused with a clear message instead.
///
/// # Examples
///
/// ```
/// use pgnkit::input::open::is_utf16;
/// assert!(is_utf16(b"\xff\xfe[\0E\0"));
/// assert!(is_utf16(b"\xfe\xff\0["));
/// assert!(!is_utf16(b"\xef\xbb\xbf[Event"));
/// ```
pub fn is_utf16(head: &[u8]) -> bool {
    head.starts_with(b"\xff\xfe") || head.starts_with(b"\xfe\xff")
}

/// Counts the raw (compressed) bytes read, for the progress bar.
pub struct CountingReader<R> {
    inner: R,
    counter: Arc<AtomicU64>,
}

impl<R> CountingReader<R> {
    /// `inner`, adding every byte read to `counter`.
    pub fn new(inner: R, counter: Arc<AtomicU64>) -> CountingReader<R> {
        CountingReader { inner, counter }
    }
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The most bytes one read asks of a decoder.
const SIP: usize = 1 << 16;

/// A decoder read in sips of at most [`SIP`] bytes. A decoder asked for a
/// large buffer fills it over many blocks and, when the stream turns out
/// corrupt or truncated, returns the error and drops what it had decoded
/// into the buffer: the good games before the damage would be lost with it.
struct Sips<R>(R);

impl<R: Read> Read for Sips<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(SIP);
        self.0.read(&mut buf[..n])
    }
}

/// Opens `path` (`-` is standard input), adding every raw byte read to
/// `counter`.
///
/// # Errors
///
/// When the file cannot be opened, or its first bytes cannot be read.
pub fn open(path: &Path, counter: Arc<AtomicU64>) -> io::Result<Source> {
    let (name, raw, size): (String, Box<dyn Read + Send>, Option<u64>) = if path == Path::new("-") {
        ("<stdin>".to_owned(), Box::new(io::stdin()), None)
    } else {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_dir() {
            // A directory given as an input is walked ([`expand_dirs`]); it
            // reaches here only when it held no PGN file.
            return Err(InputError::EmptyDirectory.into());
        }
        let size = meta.is_file().then_some(meta.len());
        (path.display().to_string(), Box::new(file), size)
    };
    open_reader(name, raw, size, counter)
}

/// Opens the bytes of `raw`, named `name` in reports (a caller's
/// in-memory or streamed input), as [`open`] opens a file's: compression
/// detected, UTF-16 refused, every raw byte read added to `counter`.
///
/// # Errors
///
/// When the first bytes cannot be read, or are UTF-16.
pub fn open_reader(
    name: String,
    raw: Box<dyn Read + Send>,
    size: Option<u64>,
    counter: Arc<AtomicU64>,
) -> io::Result<Source> {
    let mut buffered = BufReader::with_capacity(
        1 << 16,
        CountingReader {
            inner: raw,
            counter,
        },
    );
    let head = buffered.fill_buf()?;
    if is_utf16(head) {
        return Err(InputError::Utf16.into());
    }
    let reader: Box<dyn Read + Send> = match detect(head) {
        Compression::None => Box::new(buffered),
        Compression::Zstd => Box::new(Sips(zstd::stream::read::Decoder::with_buffer(buffered)?)),
        Compression::Gzip => Box::new(Sips(flate2::bufread::MultiGzDecoder::new(buffered))),
        Compression::Bzip2 => Box::new(Sips(bzip2::bufread::MultiBzDecoder::new(buffered))),
    };
    Ok(Source { name, reader, size })
}

/// How reports name an input: the path as given, `<stdin>` for `-`.
pub fn input_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    }
}

/// The names a directory walk takes, compared without regard to case.
pub const PGN_EXTENSIONS: [&str; 4] = [".pgn", ".pgn.zst", ".pgn.gz", ".pgn.bz2"];

/// Whether the file name `name` ends with one of [`PGN_EXTENSIONS`],
/// whatever its case.
///
/// # Examples
///
/// ```
/// use pgnkit::input::open::is_pgn_name;
/// assert!(is_pgn_name("round1.PGN"));
/// assert!(is_pgn_name("twic1599.pgn.zst"));
/// assert!(!is_pgn_name("notes.txt"));
/// assert!(!is_pgn_name("games.pgn.xz"));
/// ```
pub fn is_pgn_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    PGN_EXTENSIONS.iter().any(|ext| name.ends_with(ext))
}

/// The inputs of a run once its directories are walked ([`expand_dirs`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expanded {
    /// What to read, in order.
    pub files: Vec<PathBuf>,
    /// What a walk found with a PGN name that is not a regular file (a
    /// FIFO, a socket, a device): opening it could block for ever, so it
    /// is reported and skipped, and the run fails as for an unreadable
    /// input.
    pub skipped: Vec<PathBuf>,
}

/// The inputs `files` name, every directory among them replaced by the PGN
/// files under it ([`is_pgn_name`]), recursively, in the order ripgrep's
/// `--sort path` gives: the entries of each directory sorted by name, a
/// subdirectory walked where its name sorts. A symlink to a file is taken;
/// one to a directory is not walked (no cycles); a dangling one with a PGN
/// name is taken, so that opening it reports it; one to a FIFO, socket or
/// device is skipped like the thing itself. A directory that holds no PGN
/// file, or one that cannot be listed, stays as it is, so that opening it
/// reports it. Other paths, `-` among them, are kept as given: a FIFO named
/// on the command line is read.
pub fn expand_dirs(files: &[PathBuf]) -> Expanded {
    let mut out = Expanded::default();
    for path in files {
        let is_dir = path != Path::new("-") && std::fs::metadata(path).is_ok_and(|m| m.is_dir());
        if !is_dir {
            out.files.push(path.clone());
            continue;
        }
        let before = (out.files.len(), out.skipped.len());
        walk(path, &mut out);
        if (out.files.len(), out.skipped.len()) == before {
            out.files.push(path.clone());
        }
    }
    out
}

/// Adds the PGN files under the directory `dir` to `out`, in order; a
/// subdirectory that cannot be listed is added itself, to be reported.
fn walk(dir: &Path, out: &mut Expanded) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        out.files.push(dir.to_path_buf());
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(&path, out);
        } else if is_pgn_name(&entry.file_name().to_string_lossy()) {
            match std::fs::metadata(&path) {
                Ok(meta) if meta.is_dir() => {}
                // A dangling link: opening it says why it cannot be read.
                Err(_) => out.files.push(path),
                Ok(meta) if meta.is_file() => out.files.push(path),
                Ok(_) => out.skipped.push(path),
            }
        }
    }
}

/// The total size on disk of `files`, when every one is a regular file
/// (for the progress bar; standard input has no size).
pub fn total_size(files: &[std::path::PathBuf]) -> Option<u64> {
    files
        .iter()
        .map(|f| {
            std::fs::metadata(f)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len())
        })
        .sum()
}
