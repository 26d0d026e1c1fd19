//! The crate's private async runtime: a tokio runtime that lives on its own
//! thread, so the synchronous API never nests a `block_on` inside a caller's
//! runtime.
//!
//! A call hands its future to the runtime (`Handle::spawn`) and waits for the
//! answer on a plain `std::sync::mpsc` channel. Waiting on a std channel is an
//! ordinary blocking call: it works from a plain thread, from a multi-thread
//! tokio worker and from a current-thread runtime (where it blocks that thread,
//! as any synchronous call does). The runtime is dropped on its own thread when
//! the last handle goes, never inside the caller's async context (tokio panics
//! when a runtime is dropped there).

use am_triples::{Error, Result};
use std::future::Future;
use std::sync::mpsc;
use std::thread::JoinHandle;

/// Worker threads of the private runtime (LanceDB does its CPU work on its own
/// pool; these threads only drive I/O and the query plans).
const WORKER_THREADS: usize = 2;

/// The private runtime: a handle to spawn on, and the thread that owns it.
pub(crate) struct Runtime {
    handle: tokio::runtime::Handle,
    /// Dropping the sender tells the owning thread to shut the runtime down.
    stop: Option<mpsc::Sender<()>>,
    owner: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").finish_non_exhaustive()
    }
}

impl Runtime {
    /// Start the runtime on a new thread named `am-lance-rt`.
    ///
    /// # Errors
    /// `Storage` when the thread or the runtime cannot be created.
    pub(crate) fn start() -> Result<Runtime> {
        let (ready_tx, ready_rx) = mpsc::channel();
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let owner = std::thread::Builder::new()
            .name("am-lance-rt".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(WORKER_THREADS)
                    .thread_name("am-lance-worker")
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e.to_string()));
                        return;
                    }
                };
                let _ = ready_tx.send(Ok(rt.handle().clone()));
                // Park until every handle is gone, then drop the runtime here,
                // outside any async context.
                let _ = stop_rx.recv();
                rt.shutdown_background();
            })
            .map_err(|e| {
                Error::storage(format!("cannot start the LanceDB runtime thread: {e}"))
                    .with_source(e)
            })?;
        let handle = ready_rx
            .recv()
            .map_err(|_| Error::storage("the LanceDB runtime thread exited at start"))?
            .map_err(|e| Error::storage(format!("cannot build the LanceDB runtime: {e}")))?;
        Ok(Runtime {
            handle,
            stop: Some(stop_tx),
            owner: Some(owner),
        })
    }

    /// Run `fut` on the private runtime and wait for its output.
    ///
    /// # Errors
    /// `Storage` when the task panicked or the runtime is gone.
    pub(crate) fn run<T, F>(&self, fut: F) -> Result<T>
    where
        F: Future<Output = Result<T>> + Send + 'static,
        T: Send + 'static,
    {
        let (tx, rx) = mpsc::sync_channel(1);
        self.handle.spawn(async move {
            let _ = tx.send(fut.await);
        });
        rx.recv()
            .map_err(|_| Error::storage("a LanceDB task ended without an answer (it panicked)"))?
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        drop(self.stop.take());
        // Joining is a plain blocking wait (legal in any context); the owner
        // thread returns as soon as `shutdown_background` has signalled.
        if let Some(owner) = self.owner.take() {
            let _ = owner.join();
        }
    }
}
