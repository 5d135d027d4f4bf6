//! The pipe between the run and the consumer: the run (on its own thread)
//! hands its record batches to a [`ChannelWriter`], its
//! [`pgnkit::api::BatchSink`], which sends them
//! over a bounded channel as they are made; the consumer takes them from a
//! [`ChannelReader`]. Nothing is encoded or copied on the way: the batches
//! the pipeline builds are the ones Python gets. The channel holds at most
//! [`BATCHES`] batches, so a run ahead of its consumer waits for it:
//! memory stays flat whatever the input's size.
//!
//! When the consumer goes (the stream is dropped, closed or interrupted),
//! the receiver goes with it and the run's next batch fails with a broken
//! pipe, which the run takes as an end, as `pgnkit … | head` does.

use std::io;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use pgnkit::Error;
use pgnkit::exit::ExitStatus;

/// Batches in flight at most: the run goes on with the next batch while
/// the consumer converts one, and no further.
pub const BATCHES: usize = 2;

/// How long the consumer waits for the run before it looks for a signal.
pub const TICK: Duration = Duration::from_millis(50);

/// What the run sends.
pub enum Msg {
    /// The records' schema: first, once.
    Schema(SchemaRef),
    /// The next batch.
    Batch(RecordBatch),
    /// The run is over: what `run` returned (its exit status, or why it
    /// stopped). Nothing follows.
    End(Result<ExitStatus, Error>),
}

/// The run's end of the channel: the batches' way out (a clone is the
/// run's [`pgnkit::api::BatchSink`]).
#[derive(Clone)]
pub struct ChannelWriter {
    tx: SyncSender<Msg>,
}

fn gone() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the stream's consumer is gone")
}

impl ChannelWriter {
    pub fn new(tx: SyncSender<Msg>) -> ChannelWriter {
        ChannelWriter { tx }
    }

    /// Sends the end of the run.
    pub fn end(self, result: Result<ExitStatus, Error>) {
        // A consumer that is gone needs no end.
        let _ = self.tx.send(Msg::End(result));
    }
}

impl pgnkit::api::BatchSink for ChannelWriter {
    fn schema(&mut self, schema: SchemaRef) -> io::Result<()> {
        self.tx.send(Msg::Schema(schema)).map_err(|_| gone())
    }

    fn batch(&mut self, batch: RecordBatch) -> io::Result<()> {
        self.tx.send(Msg::Batch(batch)).map_err(|_| gone())
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
/// always has the next batch ready would otherwise never be interrupted);
/// an error stops the read.
pub type Tick = Box<dyn FnMut() -> Result<(), Interrupted> + Send>;

/// What the consumer gets from the run.
pub enum Got {
    Schema(SchemaRef),
    Batch(RecordBatch),
    /// The run ended: its result is [`ChannelReader::take_end`]'s.
    End,
}

struct ReaderState {
    rx: Receiver<Msg>,
    end: Option<Result<ExitStatus, Error>>,
    ended: bool,
    tick: Tick,
    /// When `tick` last ran.
    ticked: Instant,
}

/// The consumer's end. It ends at the run's end, whose result
/// [`ChannelReader::take_end`] gives. The lock is there because the stream
/// that holds it must be `Sync` for Python and a `Receiver` is not; only
/// one thread uses it at a time.
pub struct ChannelReader(Mutex<ReaderState>);

impl ChannelReader {
    pub fn new(rx: Receiver<Msg>) -> ChannelReader {
        ChannelReader(Mutex::new(ReaderState {
            rx,
            end: None,
            ended: false,
            tick: Box::new(|| Ok(())),
            ticked: Instant::now(),
        }))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, ReaderState> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What to do while waiting.
    pub fn set_tick(&self, tick: Tick) {
        self.state().tick = tick;
    }

    /// The run's result, once it has ended (`None` before, or once taken).
    pub fn take_end(&self) -> Option<Result<ExitStatus, Error>> {
        self.state().end.take()
    }

    /// The next thing the run sends, waiting for it.
    ///
    /// # Errors
    ///
    /// When the wait is interrupted.
    pub fn recv(&self) -> Result<Got, Interrupted> {
        let mut guard = self.state();
        let state = &mut *guard;
        loop {
            if state.ended {
                return Ok(Got::End);
            }
            match state.rx.recv_timeout(TICK) {
                Ok(msg) => {
                    if state.ticked.elapsed() >= TICK {
                        state.ticked = Instant::now();
                        (state.tick)()?;
                    }
                    match msg {
                        Msg::Schema(schema) => return Ok(Got::Schema(schema)),
                        Msg::Batch(batch) => return Ok(Got::Batch(batch)),
                        Msg::End(result) => {
                            state.end = Some(result);
                            state.ended = true;
                        }
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    state.ticked = Instant::now();
                    (state.tick)()?;
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
