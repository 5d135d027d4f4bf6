//! The reader side of the stream: every input in turn, opened exactly once,
//! its format told when the run asks for it, and cut into work items (PGN
//! chunks at game boundaries, or batches of lines).
//!
//! Runs on the pipeline's reader thread; what the items mean is left to the
//! workers and the in-order sink in [`super`].

use std::io::{self, BufReader, Read};
use std::iter;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use super::InputFormat;
use crate::input::chunk::{Chunker, TARGET};
use crate::input::lines::{Line, LineBatches, LineFormat, sniff};
use crate::input::open::{input_name, open};

/// One unit of work, in input order.
pub(super) enum Item {
    /// An input was opened: the items up to the next `Opened` are its own.
    Opened { name: String },
    /// PGN bytes starting at a game boundary.
    Chunk { data: Vec<u8>, at_end: bool },
    /// Lines of a line-based input.
    Lines {
        lines: Vec<Line>,
        format: LineFormat,
    },
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
            Item::Opened { .. } | Item::Failed { .. } => 0,
        }
    }
}

type Items = Box<dyn Iterator<Item = Item> + Send>;

/// The items of every file of `files`, in order; raw bytes read are added
/// to `counter`.
pub(super) fn items(
    files: &[PathBuf],
    format: InputFormat,
    counter: Arc<AtomicU64>,
) -> impl Iterator<Item = Item> + Send + '_ {
    files
        .iter()
        .flat_map(move |path| input_items(path, format, Arc::clone(&counter)))
}

/// An I/O error with what was being done when it happened.
fn failed(name: String, doing: &str, error: io::Error) -> Item {
    let error = io::Error::new(error.kind(), format!("{doing}: {error}"));
    Item::Failed { name, error }
}

/// The items of one input.
fn input_items(path: &Path, format: InputFormat, counter: Arc<AtomicU64>) -> Items {
    let name = input_name(path);
    let source = match open(path, counter) {
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
    let opened = iter::once(Item::Opened { name: name.clone() });
    match lines {
        None => Box::new(opened.chain(Chunker::new(reader, TARGET).map(
            move |chunk| match chunk {
                Ok(chunk) => Item::Chunk {
                    data: chunk.data,
                    at_end: chunk.at_end,
                },
                Err(error) => failed(name.clone(), "read failed", error),
            },
        ))),
        Some(format) => {
            let batches = LineBatches::new(BufReader::with_capacity(1 << 16, reader));
            Box::new(opened.chain(batches.map(move |batch| match batch {
                Ok(lines) => Item::Lines { lines, format },
                Err(error) => failed(name.clone(), "read failed", error),
            })))
        }
    }
}
