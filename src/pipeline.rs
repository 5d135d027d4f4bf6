//! Ordered parallel streaming, generic over the work: knows no chess.
//!
//! One thread pulls items from the source, `threads` workers map them, and
//! the calling thread hands the results to the sink in source order. At most
//! `2 × threads` items, and at most a budget of bytes (as the caller weighs
//! its items), are in flight, so memory stays bounded however long the
//! source is and however large its items. With one thread everything runs
//! on the calling thread.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

/// The items in flight per worker: one being worked on, one waiting.
const ITEMS_PER_THREAD: usize = 2;

/// What is in flight: items, and their weight in bytes.
#[derive(Default)]
struct InFlight {
    items: usize,
    bytes: usize,
    closed: bool,
}

/// A semaphore bounding the items in flight and their weight.
struct Permits {
    state: Mutex<InFlight>,
    cond: Condvar,
    items: usize,
    bytes: usize,
}

impl Permits {
    /// Waits until an item of `weight` bytes fits; an item heavier than the
    /// whole budget goes alone. `false` once closed.
    fn acquire(&self, weight: usize) -> bool {
        let mut state = self.state.lock().expect("permit lock is never poisoned");
        while !state.closed
            && (state.items >= self.items
                || (state.items > 0 && state.bytes.saturating_add(weight) > self.bytes))
        {
            state = self
                .cond
                .wait(state)
                .expect("permit lock is never poisoned");
        }
        if state.closed {
            return false;
        }
        state.items += 1;
        state.bytes = state.bytes.saturating_add(weight);
        true
    }

    fn release(&self, weight: usize) {
        let mut state = self.state.lock().expect("permit lock is never poisoned");
        state.items -= 1;
        state.bytes = state.bytes.saturating_sub(weight);
        self.cond.notify_one();
    }

    fn close(&self) {
        self.state
            .lock()
            .expect("permit lock is never poisoned")
            .closed = true;
        self.cond.notify_all();
    }
}

/// Maps every item of `source` with `work` on `threads` threads and feeds
/// the results to `sink` in source order. Stops at the first error of the
/// sink and returns it. Items are not weighed: at most `2 × threads` are in
/// flight ([`ordered_within`] bounds their bytes too).
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
    sink: impl FnMut(O) -> Result<(), E>,
) -> Result<(), E>
where
    S: Iterator<Item = I> + Send,
    I: Send,
    O: Send,
{
    let budget = Budget {
        bytes: usize::MAX,
        weigh: |_: &I| 0,
    };
    ordered_within(source, threads, budget, work, sink)
}

/// A bound on the bytes in flight: `weigh` tells an item's bytes, and the
/// items in flight together weigh at most `bytes` (a heavier item goes
/// alone).
pub struct Budget<W> {
    pub bytes: usize,
    pub weigh: W,
}

/// [`ordered`], with the items in flight also bounded by `budget`: the
/// memory a run holds follows the weight of its items, not their count.
///
/// # Errors
///
/// The first error `sink` returns.
pub fn ordered_within<S, I, O, E, W>(
    source: S,
    threads: usize,
    budget: Budget<W>,
    work: impl Fn(I) -> O + Sync,
    mut sink: impl FnMut(O) -> Result<(), E>,
) -> Result<(), E>
where
    S: Iterator<Item = I> + Send,
    I: Send,
    O: Send,
    W: Fn(&I) -> usize + Sync,
{
    let source = Mutex::new(Some(source));
    if threads > 1
        && let Some(result) = in_parallel(&source, threads, &budget, &work, &mut sink)
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
fn in_parallel<S, I, O, E, W>(
    source: &Mutex<Option<S>>,
    threads: usize,
    budget: &Budget<W>,
    work: &(impl Fn(I) -> O + Sync),
    sink: &mut impl FnMut(O) -> Result<(), E>,
) -> Option<Result<(), E>>
where
    S: Iterator<Item = I> + Send,
    I: Send,
    O: Send,
    W: Fn(&I) -> usize + Sync,
{
    let permits = Arc::new(Permits {
        state: Mutex::new(InFlight::default()),
        cond: Condvar::new(),
        items: ITEMS_PER_THREAD * threads,
        bytes: budget.bytes,
    });
    // Each item travels with its weight, given back when the sink has it.
    let (item_tx, item_rx) = mpsc::sync_channel::<(u64, usize, I)>(threads);
    let item_rx = Mutex::new(item_rx);
    let (out_tx, out_rx) = mpsc::channel::<(u64, usize, O)>();
    thread::scope(|scope| {
        let mut workers = 0;
        for _ in 0..threads {
            let out_tx = out_tx.clone();
            let item_rx = &item_rx;
            let worker = move || {
                loop {
                    let next = item_rx.lock().expect("queue lock is never poisoned").recv();
                    let Ok((seq, weight, item)) = next else { break };
                    if out_tx.send((seq, weight, work(item))).is_err() {
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
                let weight = (budget.weigh)(&item);
                if !reader_permits.acquire(weight) || item_tx.send((seq, weight, item)).is_err() {
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
        for (seq, weight, out) in out_rx.iter() {
            pending.insert(seq, (weight, out));
            while let Some((weight, out)) = pending.remove(&next) {
                next += 1;
                permits.release(weight);
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
    fn the_bytes_in_flight_stay_within_the_budget() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        // Produced minus delivered: what the run holds, plus at most the
        // one item the reader has pulled and waits to send.
        let held = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let weights = (0..300usize).map(|i| if i % 50 == 0 { 1000 } else { 10 });
        let source = weights.inspect(|&w| {
            let now = held.fetch_add(w, Ordering::SeqCst) + w;
            most.fetch_max(now, Ordering::SeqCst);
        });
        let budget = Budget {
            bytes: 35,
            weigh: |w: &usize| *w,
        };
        let mut delivered = 0;
        ordered_within(
            source,
            4,
            budget,
            |w| w,
            |w| {
                held.fetch_sub(w, Ordering::SeqCst);
                delivered += 1;
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        assert_eq!(delivered, 300);
        // Three light items fit the budget (a heavy one goes alone), plus
        // the item the sink holds (released just before it is handed over)
        // and the one the reader has pulled: without the budget, eight
        // items per the count bound would be in flight.
        let most = most.into_inner();
        assert!(most <= 1000 + 30 + 10, "{most} bytes were held");
        assert!(most >= 1000);
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
