//! The threads a server runs engine calls on (ops, exec lines, MCP tool
//! calls, a home's open): a pool that hands each call to the thread that
//! went idle **last**.
//!
//! Tokio's blocking pool wakes its idle threads in turn, so a client
//! calling one op after another lands on a different thread each time. A
//! thread left idle that long has had its allocator's free pages returned
//! to the system (mimalloc purges them after a few milliseconds), and the
//! next call on it faults them back in, zeroed: with one client, about a
//! third more CPU per recall than the same recall over the exec pipe, which
//! runs every call on one thread (issue 45's recall bench; docs/server.md).
//! Here one client's calls run on one warm thread, and concurrent calls
//! still run side by side, one thread each, up to [`MAX_THREADS`]; beyond
//! that a call waits its turn (first come, first served).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};

/// The most threads the pool runs at once; further calls queue.
pub const MAX_THREADS: usize = 64;

type Job = Box<dyn FnOnce() + Send>;

/// Where an idle thread waits for its next call.
#[derive(Default)]
struct Slot {
    job: Mutex<Option<Job>>,
    ready: Condvar,
}

#[derive(Default)]
struct State {
    /// Idle threads, the one that went idle last on top.
    idle: Vec<Arc<Slot>>,
    /// Calls waiting for a thread (all [`MAX_THREADS`] busy).
    queue: VecDeque<Job>,
    threads: usize,
}

/// A last-in, first-out pool of threads.
#[derive(Default)]
pub struct Pool {
    state: Arc<Mutex<State>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").finish_non_exhaustive()
    }
}

/// The process's pool.
pub fn global() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(Pool::default)
}

/// Run `f` on the process's pool; its value, or an error when `f`
/// panicked.
///
/// # Errors
/// The receiver's error when `f` panicked (its sender dropped unsent).
pub async fn run<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, tokio::sync::oneshot::error::RecvError> {
    global().run(f).await
}

impl Pool {
    /// Run `f` on the thread that went idle last (a new one when none is
    /// idle and fewer than [`MAX_THREADS`] run; else after the calls queued
    /// before it). The call runs to its end even when the future is dropped
    /// (a request timed out): a write is never abandoned half way.
    ///
    /// # Errors
    /// The receiver's error when `f` panicked.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, tokio::sync::oneshot::error::RecvError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.submit(Box::new(move || {
            if let Ok(v) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
                let _ = tx.send(v);
            }
        }));
        rx.await
    }

    fn submit(&self, job: Job) {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(slot) = st.idle.pop() {
            drop(st);
            *slot.job.lock().unwrap_or_else(PoisonError::into_inner) = Some(job);
            slot.ready.notify_one();
            return;
        }
        if st.threads < MAX_THREADS {
            st.threads += 1;
            drop(st);
            let state = Arc::clone(&self.state);
            let spawned = std::thread::Builder::new()
                .name("am-serve".to_owned())
                .spawn(move || work(&state, job));
            if spawned.is_err() {
                // No thread to be had: the call fails as a panic would (its
                // sender is dropped with the closure).
                self.state
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .threads -= 1;
            }
            return;
        }
        st.queue.push_back(job);
    }
}

/// A pool thread: run `first`, then the queued calls, then wait on top of
/// the idle stack for the next.
fn work(state: &Mutex<State>, first: Job) {
    let slot = Arc::new(Slot::default());
    let mut job = first;
    loop {
        job();
        let mut st = state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(next) = st.queue.pop_front() {
            job = next;
            continue;
        }
        st.idle.push(Arc::clone(&slot));
        drop(st);
        let mut waiting = slot.job.lock().unwrap_or_else(PoisonError::into_inner);
        job = loop {
            if let Some(next) = waiting.take() {
                break next;
            }
            waiting = slot
                .ready
                .wait(waiting)
                .unwrap_or_else(PoisonError::into_inner);
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_in_turn_reuse_one_thread_and_concurrent_calls_run_side_by_side() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let pool = Pool::default();
        // A call's answer reaches the caller just before its thread puts
        // itself back on the idle stack: wait for that (a caller's next
        // request comes a network round trip later), so the test judges the
        // pool's choice and not that race.
        let settle = |n: usize| {
            while pool.state.lock().unwrap().idle.len() < n {
                std::thread::yield_now();
            }
        };
        let ids: Vec<_> = (0..20)
            .map(|_| {
                let id = rt
                    .block_on(pool.run(|| std::thread::current().id()))
                    .unwrap();
                settle(1);
                id
            })
            .collect();
        assert!(ids.iter().all(|i| *i == ids[0]), "one warm thread: {ids:?}");
        // Four calls that wait for each other finish only side by side.
        let barrier = Arc::new(std::sync::Barrier::new(4));
        let calls: Vec<_> = (0..4)
            .map(|_| {
                let b = Arc::clone(&barrier);
                pool.run(move || {
                    b.wait();
                    std::thread::current().id()
                })
            })
            .collect();
        let got = rt.block_on(futures::future::join_all(calls));
        let distinct: std::collections::BTreeSet<String> = got
            .iter()
            .map(|r| format!("{:?}", r.as_ref().unwrap()))
            .collect();
        assert_eq!(distinct.len(), 4);
        // A call that panics answers an error; the pool keeps serving.
        assert!(rt.block_on(pool.run(|| -> u8 { panic!("boom") })).is_err());
        assert_eq!(rt.block_on(pool.run(|| 7)).unwrap(), 7);
    }
}
