//! The reader side of the stream: every input in turn, opened exactly once,
//! its format told when the run asks for it, and cut into work items (PGN
//! chunks at game boundaries, or batches of lines).
//!
//! Runs on the pipeline's reader thread; what the items mean is left to the
//! workers and the in-order sink in [`super`].

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::iter;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::InputFormat;
use crate::input::chunk::{Chunker, TARGET};
use crate::input::error::{InputError, ReadError};
use crate::input::lines::{Line, LineBatches, LineFormat, SkippedLine, sniff};
use crate::input::open::{Compression, CountingReader, detect, input_name, open, open_reader};
use crate::input::range::{ByteRange, Region, region};

/// Where an input's reading starts and where its games stop belonging to
/// the run.
#[derive(Debug, Clone)]
pub(super) struct Span {
    /// The input's path as given (`-` for standard input).
    pub path: PathBuf,
    /// The `--byte-range` asked for, if any.
    pub range: Option<ByteRange>,
    /// Byte offset of the first byte read.
    pub first_byte: u64,
    /// Games that start at or after this cut point are not the run's
    /// (`None`: all games are).
    pub limit: Option<u64>,
    /// Set by the in-order side once the run has every game it owns: the
    /// reader then stops reading this input.
    pub stop: Arc<AtomicBool>,
}

/// One unit of work, in input order.
pub(super) enum Item {
    /// An input was opened: the items up to the next `Opened` are its own.
    Opened { name: String, span: Span },
    /// PGN bytes starting at a game boundary, or (`skipped`) a piece of a
    /// stretch too long to be a game ([`crate::input::chunk::Chunk`]).
    Chunk {
        data: Vec<u8>,
        at_end: bool,
        skipped: bool,
    },
    /// Lines of a line-based input.
    Lines {
        lines: Vec<Line>,
        format: LineFormat,
    },
    /// A line of a line-based input longer than the limit, skipped.
    SkippedLine(SkippedLine),
    /// The input could not be opened or read further.
    Failed { name: String, error: io::Error },
}

impl Item {
    /// The input bytes an item holds (a line costs its text and a little
    /// more), as the pipeline's budget counts them.
    pub(super) fn weight(&self) -> usize {
        match self {
            Item::Chunk { data, .. } => data.len(),
            Item::Lines { lines, .. } => lines.iter().map(|l| l.text.len() + 32).sum(),
            Item::Opened { .. } | Item::Failed { .. } | Item::SkippedLine(_) => 0,
        }
    }
}

type Items = Box<dyn Iterator<Item = Item> + Send>;

/// The items of every file of `files`, in order; raw bytes read are added
/// to `counter`.
pub(super) fn items(
    files: &[super::Input],
    format: InputFormat,
    range: Option<ByteRange>,
    max: usize,
    counter: Arc<AtomicU64>,
) -> impl Iterator<Item = Item> + Send + '_ {
    files.iter().flat_map(move |input| match (input, range) {
        (super::Input::Path(path), Some(range)) => {
            range_items(path, range, max, Arc::clone(&counter))
        }
        (super::Input::Reader(_), Some(_)) => Box::new(iter::once(failed(
            input.name(),
            "cannot read a byte range",
            InputError::RangeOfNonFile.into(),
        ))),
        (_, None) => input_items(input, format, max, Arc::clone(&counter)),
    })
}

/// The PGN chunks of `reader`, as items, a game held up to `max` bytes;
/// with `not_last`, the final chunk is marked as not ending the input (more
/// of the file follows).
fn chunks(
    reader: impl Read + Send + 'static,
    name: String,
    max: usize,
    not_last: Option<()>,
) -> impl Iterator<Item = Item> + Send + 'static {
    Chunker::new(reader, TARGET, max).map(move |chunk| match chunk {
        Ok(chunk) => Item::Chunk {
            data: chunk.data,
            at_end: chunk.at_end && not_last.is_none(),
            skipped: chunk.skipped,
        },
        Err(error) => failed(name.clone(), "read failed", error),
    })
}

/// The items of one shard of a regular, uncompressed PGN file: the chunks
/// of its region ([`crate::input::range`]), then, for as long as the
/// in-order side has not set the stop flag, the chunks after it (the last
/// game may run past the region's end).
fn range_items(path: &Path, range: ByteRange, max: usize, counter: Arc<AtomicU64>) -> Items {
    let name = input_name(path);
    let opened = open_range(path, range);
    let (mut file, len, region) = match opened {
        Ok(opened) => opened,
        Err(error) => return Box::new(iter::once(failed(name, "cannot read a byte range", error))),
    };
    let Region { first_byte, limit } = region;
    let stop = Arc::new(AtomicBool::new(false));
    let span = Span {
        path: path.to_owned(),
        range: Some(range),
        first_byte,
        limit: (limit < len).then_some(limit),
        stop: Arc::clone(&stop),
    };
    let head = match file
        .seek(SeekFrom::Start(first_byte))
        .and_then(|_| file.try_clone())
    {
        Ok(head) => head,
        Err(error) => return Box::new(iter::once(failed(name, "read failed", error))),
    };
    let opened = iter::once(Item::Opened {
        name: name.clone(),
        span,
    });
    let inside = CountingReader::new(head.take(limit - first_byte), Arc::clone(&counter));
    if limit == len {
        return Box::new(opened.chain(chunks(inside, name, max, None)));
    }
    let region_chunks = chunks(inside, name.clone(), max, Some(()));
    // The rest of the file is read only when the region's chunks are all
    // out, and only until the in-order side has what it needs.
    let rest = iter::once_with(move || -> Items {
        match file.seek(SeekFrom::Start(limit)) {
            Ok(_) => Box::new(chunks(CountingReader::new(file, counter), name, max, None)),
            Err(error) => Box::new(iter::once(failed(name, "read failed", error))),
        }
    })
    .flatten()
    .take_while(move |_| !stop.load(Ordering::Acquire));
    Box::new(opened.chain(region_chunks).chain(rest))
}

/// Opens `path` for `--byte-range`: a regular file whose bytes are PGN as
/// they stand (offsets of compressed input would mean nothing), with its
/// length and the shard's region.
fn open_range(path: &Path, range: ByteRange) -> io::Result<(File, u64, Region)> {
    if path == Path::new("-") {
        return Err(InputError::RangeOfStdin.into());
    }
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(InputError::RangeOfNonFile.into());
    }
    let mut head = [0u8; 4];
    let n = file.read(&mut head)?;
    if detect(&head[..n]) != Compression::None {
        return Err(InputError::RangeOfCompressed.into());
    }
    let len = meta.len();
    let region = region(&mut file, range, len)?;
    Ok((file, len, region))
}

/// An I/O error with what was being done when it happened ([`ReadError`]).
fn failed(name: String, doing: &'static str, source: io::Error) -> Item {
    let error = ReadError { doing, source }.into();
    Item::Failed { name, error }
}

/// The items of one input.
fn input_items(
    input: &super::Input,
    format: InputFormat,
    max: usize,
    counter: Arc<AtomicU64>,
) -> Items {
    let name = input.name();
    let opened = match input {
        super::Input::Path(path) => open(path, counter),
        super::Input::Reader(r) => match r.take() {
            Some(reader) => open_reader(name.clone(), reader, None, counter),
            None => Err(io::Error::other("the reader was read already")),
        },
    };
    let source = match opened {
        Ok(source) => source,
        Err(error) => return Box::new(iter::once(failed(name, "cannot open", error))),
    };
    let (lines, reader): (Option<LineFormat>, Box<dyn Read + Send>) = match format {
        InputFormat::Pgn => (None, source.reader),
        InputFormat::Lines(format) => (Some(format), source.reader),
        // The sniffed bytes are handed back in front of the rest.
        InputFormat::Detect => match sniff(source.reader) {
            Ok((lines, reader)) => (lines, Box::new(reader)),
            Err(error) => return Box::new(iter::once(failed(name, "read failed", error))),
        },
    };
    let span = Span {
        path: input.stats_path(),
        range: None,
        first_byte: 0,
        limit: None,
        stop: Arc::new(AtomicBool::new(false)),
    };
    let opened = iter::once(Item::Opened {
        name: name.clone(),
        span,
    });
    match lines {
        None => Box::new(opened.chain(chunks(reader, name, max, None))),
        Some(format) => {
            let mut batches = LineBatches::new(BufReader::with_capacity(1 << 16, reader), max);
            // A line skipped for its length comes after the batch that
            // ended at it.
            let items = iter::from_fn(move || {
                if let Some(line) = batches.take_skipped() {
                    return Some(Item::SkippedLine(line));
                }
                batches.next().map(|batch| match batch {
                    Ok(lines) => Item::Lines { lines, format },
                    Err(error) => failed(name.clone(), "read failed", error),
                })
            });
            Box::new(opened.chain(items))
        }
    }
}
