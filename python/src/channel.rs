//! The pipe between the run and the consumer: the run (on its own thread)
//! writes its Arrow IPC stream into a [`ChannelWriter`], which sends it in
//! chunks over a bounded channel; the consumer reads it back through a
//! [`ChannelReader`] with `arrow_ipc`'s stream reader. The channel holds at
//! most [`CHUNKS`] chunks, so a run ahead of its consumer waits for it:
//! memory stays flat whatever the input's size.
//!
//! When the consumer goes (the stream is dropped, closed or interrupted),
//! the receiver goes with it and the run's next write fails with a broken
//! pipe, which the run takes as an end, as `pgnkit … | head` does.

use std::io::{self, Read, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pgnkit::Error;
use pgnkit::exit::ExitStatus;

/// Chunks in flight at most: 6 MB, most of a batch of games, so that
/// the run goes on with the next batch while the consumer converts one.
pub const CHUNKS: usize = 24;

/// Bytes a chunk gathers before it is sent.
const CHUNK_BYTES: usize = 1 << 18;

/// How long the consumer waits for the run before it looks for a signal.
pub const TICK: Duration = Duration::from_millis(50);

/// What the run sends.
pub enum Msg {
    /// Bytes of the IPC stream.
    Data(Vec<u8>),
    /// The run is over: what `run` returned (its exit status, or why it
    /// stopped). Nothing follows.
    End(Result<ExitStatus, Error>),
}

/// The run's end of the channel.
pub struct ChannelWriter {
    tx: SyncSender<Msg>,
    buf: Vec<u8>,
}

fn gone() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the stream's consumer is gone")
}

impl ChannelWriter {
    pub fn new(tx: SyncSender<Msg>) -> ChannelWriter {
        ChannelWriter {
            tx,
            buf: Vec::new(),
        }
    }

    fn send_buf(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::take(&mut self.buf);
        self.tx.send(Msg::Data(chunk)).map_err(|_| gone())
    }

    /// Sends what is buffered, then the end of the run.
    pub fn end(mut self, result: Result<ExitStatus, Error>) {
        let result = match (self.send_buf(), result) {
            (Err(e), Ok(_)) => Err(Error::stdout(e)),
            (_, result) => result,
        };
        // A consumer that is gone needs no end.
        let _ = self.tx.send(Msg::End(result));
    }
}

impl Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.buf.is_empty() && buf.len() >= CHUNK_BYTES {
            // A whole batch comes in one write: sent in chunks of the one
            // size, the channel's bound is a bound in bytes.
            let mut whole = buf.chunks_exact(CHUNK_BYTES);
            for chunk in whole.by_ref() {
                self.tx
                    .send(Msg::Data(chunk.to_vec()))
                    .map_err(|_| gone())?;
            }
            self.buf.extend_from_slice(whole.remainder());
            return Ok(buf.len());
        }
        self.buf.extend_from_slice(buf);
        if self.buf.len() >= CHUNK_BYTES {
            self.send_buf()?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send_buf()
    }
}

/// Why the consumer stopped waiting: a signal came (Ctrl-C).
#[derive(Debug)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// What [`ChannelReader::set_tick`] is given: called each [`TICK`] while
/// the consumer reads, whether the run keeps it waiting or not (a run that
/// always has the next chunk ready would otherwise never be interrupted);
/// an error stops the read.
pub type Tick = Box<dyn FnMut() -> Result<(), Interrupted> + Send>;

struct ReaderState {
    rx: Receiver<Msg>,
    chunk: Vec<u8>,
    pos: usize,
    end: Option<Result<ExitStatus, Error>>,
    ended: bool,
    tick: Tick,
    /// When `tick` last ran.
    ticked: Instant,
}

/// The consumer's end: the IPC bytes as a reader. It ends (reads 0) at
/// the run's end, whose result [`ChannelReader::take_end`] gives. Clones
/// share the one channel (the stream reader owns one, the stream another).
#[derive(Clone)]
pub struct ChannelReader(Arc<Mutex<ReaderState>>);

impl ChannelReader {
    pub fn new(rx: Receiver<Msg>) -> ChannelReader {
        ChannelReader(Arc::new(Mutex::new(ReaderState {
            rx,
            chunk: Vec::new(),
            pos: 0,
            end: None,
            ended: false,
            tick: Box::new(|| Ok(())),
            ticked: Instant::now(),
        })))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, ReaderState> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What to do while waiting.
    pub fn set_tick(&self, tick: Tick) {
        self.state().tick = tick;
    }

    /// The run's result, once the stream has ended (`None` before, or
    /// once taken).
    pub fn take_end(&self) -> Option<Result<ExitStatus, Error>> {
        self.state().end.take()
    }

    /// Reads (and drops) what is left, up to the run's end.
    ///
    /// # Errors
    ///
    /// When the wait is interrupted.
    pub fn drain(&mut self) -> io::Result<()> {
        let mut buf = [0; 1 << 12];
        while self.read(&mut buf)? > 0 {}
        Ok(())
    }
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut guard = self.state();
        let state = &mut *guard;
        loop {
            if state.pos < state.chunk.len() {
                let n = buf.len().min(state.chunk.len() - state.pos);
                buf[..n].copy_from_slice(&state.chunk[state.pos..state.pos + n]);
                state.pos += n;
                return Ok(n);
            }
            if state.ended {
                return Ok(0);
            }
            match state.rx.recv_timeout(TICK) {
                Ok(Msg::Data(chunk)) => {
                    state.chunk = chunk;
                    state.pos = 0;
                    if state.ticked.elapsed() >= TICK {
                        state.ticked = Instant::now();
                        (state.tick)().map_err(io::Error::other)?;
                    }
                }
                Ok(Msg::End(result)) => {
                    state.end = Some(result);
                    state.ended = true;
                }
                Err(RecvTimeoutError::Timeout) => {
                    state.ticked = Instant::now();
                    (state.tick)().map_err(io::Error::other)?;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    state.end = Some(Err(Error::internal(io::Error::other(
                        "the run stopped without saying why (a bug)",
                    ))));
                    state.ended = true;
                }
            }
        }
    }
}
