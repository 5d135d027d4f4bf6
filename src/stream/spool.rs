//! The product writer when several inputs are read at once: what the sink
//! writes for the input whose turn it is goes straight out; what it writes
//! for a later input waits in memory, then in a temporary file past
//! [`IN_MEMORY`], until every earlier input is done. The output is so the
//! same bytes, in input order, as a run that reads one input after another.

use std::cell::{Cell, RefCell, RefMut};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::rc::Rc;

use crate::output::stats::{Digest, Digesting};

/// Output of later inputs held in memory, in all, before what comes next
/// goes to temporary files.
pub const IN_MEMORY: usize = 8 << 20;

/// What is held for one input.
enum Held {
    Memory(Vec<u8>),
    File(File),
}

struct State<'a> {
    out: Box<dyn Write + 'a>,
    /// Where the diagnostic lines go.
    diag: &'a dyn crate::output::diag::Diagnostics,
    /// The input whose event the sink is handling.
    current: usize,
    /// The first input not yet done: its output goes straight out.
    next: usize,
    done: Vec<bool>,
    held: BTreeMap<usize, Held>,
    /// Diagnostics of later inputs, printed when their turn comes.
    notes: BTreeMap<usize, Vec<String>>,
    /// Bytes held in memory, over all inputs.
    in_memory: usize,
}

/// The product writer: `Write` for the subcommand, routing by input for
/// the stream. Clones share it; it stays on the calling thread.
#[derive(Clone)]
pub struct Spooled<'a> {
    state: Rc<RefCell<State<'a>>>,
    /// What went out, when it is digested for `--stats`.
    digest: Option<Rc<Cell<Digest>>>,
}

impl<'a> Spooled<'a> {
    /// A writer onto `out`; diagnostic lines go to `diag`.
    pub fn new(
        out: Box<dyn Write + 'a>,
        diag: &'a dyn crate::output::diag::Diagnostics,
    ) -> Spooled<'a> {
        Spooled::with(out, diag, None)
    }

    /// A writer onto `out` that digests what goes out ([`Spooled::digest`]).
    pub fn digested(
        out: Box<dyn Write + 'a>,
        diag: &'a dyn crate::output::diag::Diagnostics,
    ) -> Spooled<'a> {
        let digest = Rc::new(Cell::new(Digest::default()));
        let out = Box::new(Digesting::new(out, Rc::clone(&digest)));
        Spooled::with(out, diag, Some(digest))
    }

    /// The digest of what went out so far, when it is digested.
    pub fn digest(&self) -> Option<Digest> {
        self.digest.as_ref().map(|d| d.get())
    }

    fn with(
        out: Box<dyn Write + 'a>,
        diag: &'a dyn crate::output::diag::Diagnostics,
        digest: Option<Rc<Cell<Digest>>>,
    ) -> Spooled<'a> {
        Spooled {
            digest,
            state: Rc::new(RefCell::new(State {
                out,
                diag,
                current: 0,
                next: 0,
                done: Vec::new(),
                held: BTreeMap::new(),
                notes: BTreeMap::new(),
                in_memory: 0,
            })),
        }
    }

    fn lock(&self) -> RefMut<'_, State<'a>> {
        self.state.borrow_mut()
    }

    /// What the sink writes from now on belongs to input `index`.
    pub fn enter(&self, index: usize) {
        self.lock().current = index;
    }

    /// Input `index` is done: the output of every input that is now next
    /// in turn goes out.
    ///
    /// # Errors
    ///
    /// When writing the held output fails.
    pub fn finished(&self, index: usize) -> io::Result<()> {
        let mut state = self.lock();
        if state.done.len() <= index {
            state.done.resize(index + 1, false);
        }
        state.done[index] = true;
        loop {
            let next = state.next;
            for note in state.notes.remove(&next).unwrap_or_default() {
                state.diag.line(crate::output::diag::Level::Error, &note);
            }
            if let Some(held) = state.held.remove(&next) {
                let out = &mut state.out;
                match held {
                    Held::Memory(bytes) => {
                        out.write_all(&bytes)?;
                        state.in_memory -= bytes.len();
                    }
                    Held::File(mut file) => {
                        file.seek(SeekFrom::Start(0))?;
                        io::copy(&mut file, out)?;
                    }
                }
            }
            if !state.done.get(next).copied().unwrap_or(false) {
                return Ok(());
            }
            state.next += 1;
        }
    }
}

impl Spooled<'_> {
    /// Prints a diagnostic line (as [`crate::output::diag`] made it) on
    /// standard error in input order: at once for the input whose turn it
    /// is, when its turn comes for a later one.
    pub fn note(&self, line: String) {
        let mut state = self.lock();
        let current = state.current;
        if current <= state.next {
            let diag = state.diag;
            drop(state);
            diag.line(crate::output::diag::Level::Error, &line);
        } else {
            state.notes.entry(current).or_default().push(line);
        }
    }

    /// [`Spooled::note`] of `pgnkit: {message}`, as [`crate::output::diag::error`] writes it.
    pub fn error(&self, message: impl std::fmt::Display) {
        self.note(crate::output::diag::error_line(message));
    }
}

impl Write for Spooled<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut state = self.lock();
        let current = state.current;
        // Inputs before `next` are done: what is written then (after the
        // run) goes out too.
        if current <= state.next {
            return state.out.write(buf);
        }
        let over = state.in_memory + buf.len() > IN_MEMORY;
        let state = &mut *state;
        let held = state
            .held
            .entry(current)
            .or_insert_with(|| Held::Memory(Vec::new()));
        if let Held::Memory(bytes) = held
            && over
        {
            // Past the bound, this input's output moves to a file.
            let mut file = tempfile::tempfile().map_err(|source| {
                io::Error::from(NoSpoolFile {
                    dir: std::env::temp_dir(),
                    source,
                })
            })?;
            file.write_all(bytes)?;
            state.in_memory -= bytes.len();
            *held = Held::File(file);
        }
        match held {
            Held::Memory(bytes) => {
                bytes.extend_from_slice(buf);
                state.in_memory += buf.len();
            }
            Held::File(file) => file.write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.lock().out.flush()
    }
}

/// No temporary file could be made in `dir` to hold the output of a later
/// input: the cause is `source`.
#[derive(Debug)]
struct NoSpoolFile {
    dir: std::path::PathBuf,
    source: io::Error,
}

impl std::fmt::Display for NoSpoolFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot make a temporary file in {} to hold the output of a later input \
             (set TMPDIR, or give -j1)",
            self.dir.display()
        )
    }
}

impl std::error::Error for NoSpoolFile {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

impl From<NoSpoolFile> for io::Error {
    fn from(error: NoSpoolFile) -> io::Error {
        io::Error::new(error.source.kind(), error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `Write` onto a shared buffer, to look at after the writer is gone.
    #[derive(Clone, Default)]
    struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn later_inputs_wait_for_earlier_ones() {
        let sink = Shared::default();
        let diag = crate::api::Collected::default();
        let mut w = Spooled::new(Box::new(sink.clone()), &diag);
        w.enter(2);
        w.write_all(b"c1 ").unwrap();
        w.enter(0);
        w.write_all(b"a1 ").unwrap();
        w.enter(1);
        w.write_all(b"b1 ").unwrap();
        w.enter(2);
        w.finished(2).unwrap();
        w.enter(0);
        w.write_all(b"a2 ").unwrap();
        assert_eq!(&*sink.0.lock().unwrap(), b"a1 a2 ");
        w.finished(0).unwrap();
        w.enter(1);
        w.write_all(&vec![b'x'; IN_MEMORY]).unwrap();
        w.finished(1).unwrap();
        w.write_all(b"end").unwrap();
        let out = sink.0.lock().unwrap().clone();
        assert!(out.starts_with(b"a1 a2 b1 xxx"));
        assert!(out.ends_with(b"xxxc1 end"));
        assert_eq!(out.len(), 12 + IN_MEMORY + 3);
    }
}
