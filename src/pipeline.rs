//! Ordered parallel streaming, generic over the work: knows no chess.
//!
//! One thread pulls items from the source, `threads` workers map them, and
//! the calling thread hands the results to the sink in source order. At most
//! `4 × threads` items are in flight, so memory stays bounded however long
//! the source is. With one thread everything runs on the calling thread.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

/// A counting semaphore bounding the items in flight.
struct Permits {
    free: Mutex<usize>,
    cond: Condvar,
}

impl Permits {
    fn acquire(&self) -> bool {
        let mut free = self.free.lock().expect("permit lock is never poisoned");
        while *free == 0 {
            free = self.cond.wait(free).expect("permit lock is never poisoned");
        }
        if *free == usize::MAX {
            return false; // closed
        }
        *free -= 1;
        true
    }

    fn release(&self) {
        let mut free = self.free.lock().expect("permit lock is never poisoned");
        if *free != usize::MAX {
            *free += 1;
        }
        self.cond.notify_one();
    }

    fn close(&self) {
        *self.free.lock().expect("permit lock is never poisoned") = usize::MAX;
        self.cond.notify_all();
    }
}

/// Maps every item of `source` with `work` on `threads` threads and feeds
/// the results to `sink` in source order. Stops at the first error of the
/// sink and returns it.
///
/// Never fails for want of threads: when the system refuses a thread, the
/// run goes on with the workers it has, or on the calling thread alone when
/// it has none (the results are the same).
///
/// # Errors
///
/// The first error `sink` returns.
///
/// # Examples
///
/// ```
/// let mut out = Vec::new();
/// pgnkit::pipeline::ordered(0..100u32, 4, |x| x * x, |y| {
///     out.push(y);
///     Ok::<(), ()>(())
/// })
/// .unwrap();
/// assert_eq!(out, (0..100u32).map(|x| x * x).collect::<Vec<_>>());
/// ```
pub fn ordered<S, I, O, E>(
    source: S,
    threads: usize,
    work: impl Fn(I) -> O + Sync,
    mut sink: impl FnMut(O) -> Result<(), E>,
) -> Result<(), E>
where
    S: Iterator<Item = I> + Send,
    I: Send,
    O: Send,
{
    let source = Mutex::new(Some(source));
    if threads > 1
        && let Some(result) = in_parallel(&source, threads, &work, &mut sink)
    {
        return result;
    }
    // One thread asked for, or none could be started: the source is untouched.
    let source = source
        .into_inner()
        .expect("source lock is never poisoned")
        .expect("the source is taken only by a reader that started");
    for item in source {
        sink(work(item))?;
    }
    Ok(())
}

/// [`ordered`] on a reader thread and up to `threads` workers; `None`, with
/// nothing read, when not one worker or the reader could be started.
fn in_parallel<S, I, O, E>(
    source: &Mutex<Option<S>>,
    threads: usize,
    work: &(impl Fn(I) -> O + Sync),
    sink: &mut impl FnMut(O) -> Result<(), E>,
) -> Option<Result<(), E>>
where
    S: Iterator<Item = I> + Send,
    I: Send,
    O: Send,
{
    let permits = Arc::new(Permits {
        free: Mutex::new(4 * threads),
        cond: Condvar::new(),
    });
    let (item_tx, item_rx) = mpsc::sync_channel::<(u64, I)>(threads);
    let item_rx = Mutex::new(item_rx);
    let (out_tx, out_rx) = mpsc::channel::<(u64, O)>();
    thread::scope(|scope| {
        let mut workers = 0;
        for _ in 0..threads {
            let out_tx = out_tx.clone();
            let item_rx = &item_rx;
            let worker = move || {
                loop {
                    let next = item_rx.lock().expect("queue lock is never poisoned").recv();
                    let Ok((seq, item)) = next else { break };
                    if out_tx.send((seq, work(item))).is_err() {
                        break;
                    }
                }
            };
            if thread::Builder::new().spawn_scoped(scope, worker).is_err() {
                break;
            }
            workers += 1;
        }
        drop(out_tx);
        let reader_permits = Arc::clone(&permits);
        let reader = move || {
            let source = source.lock().expect("source lock is never poisoned").take();
            for (seq, item) in (0u64..).zip(source.into_iter().flatten()) {
                if !reader_permits.acquire() || item_tx.send((seq, item)).is_err() {
                    break;
                }
            }
        };
        // A reader that is not started drops its sender: the workers stop.
        if workers == 0 || thread::Builder::new().spawn_scoped(scope, reader).is_err() {
            return None;
        }

        let mut pending = BTreeMap::new();
        let mut next = 0u64;
        let mut result = Ok(());
        for (seq, out) in out_rx.iter() {
            pending.insert(seq, out);
            while let Some(out) = pending.remove(&next) {
                next += 1;
                permits.release();
                if result.is_ok() {
                    result = sink(out);
                    if result.is_err() {
                        // Stop the reader; workers drain what is queued.
                        permits.close();
                    }
                }
            }
        }
        Some(result)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_kept_with_uneven_work() {
        let mut out = Vec::new();
        ordered(
            0..500u64,
            3,
            |x| {
                if x % 7 == 0 {
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
                x
            },
            |x| {
                out.push(x);
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        assert_eq!(out, (0..500).collect::<Vec<_>>());
    }

    #[test]
    fn sink_error_stops_the_run() {
        let mut seen = 0;
        let result = ordered(
            0..100_000u64,
            2,
            |x| x,
            |x| {
                seen += 1;
                if x == 10 { Err(x) } else { Ok(()) }
            },
        );
        assert_eq!(result, Err(10));
        assert_eq!(seen, 11);
    }
}
