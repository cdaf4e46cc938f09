//! The engine pool: searches run on a bounded number of blocking threads,
//! never on the async runtime, with a limit on how many may wait.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

/// The pool's queue is full.
#[derive(Debug, thiserror::Error)]
#[error("the server is busy: {queued} searches are waiting for the engine; try again shortly")]
pub struct Busy {
    /// Searches waiting.
    pub queued: usize,
}

/// A bounded pool of search threads with a queue limit.
pub struct EnginePool {
    permits: Arc<Semaphore>,
    /// Jobs submitted and not finished (running or waiting).
    queued: Arc<AtomicUsize>,
    /// Most jobs submitted and not finished.
    capacity: usize,
}

impl EnginePool {
    /// A pool running `threads` searches at once (at least one) and
    /// letting `queue_limit` more wait.
    #[must_use]
    pub fn new(threads: usize, queue_limit: usize) -> EnginePool {
        EnginePool {
            permits: Arc::new(Semaphore::new(threads.max(1))),
            queued: Arc::new(AtomicUsize::new(0)),
            capacity: threads.max(1) + queue_limit,
        }
    }

    /// Whether a job submitted now would be accepted.
    #[must_use]
    pub fn has_room(&self) -> bool {
        self.queued() < self.capacity
    }

    /// Searches waiting for a thread or running.
    #[must_use]
    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::SeqCst)
    }

    /// Runs `job` on a blocking thread after `delay`, once a thread is
    /// free. Must be called within the tokio runtime (a request handler or
    /// a job of this pool).
    ///
    /// # Errors
    /// [`Busy`] when the queue is full; the job is dropped.
    pub fn submit<F>(&self, delay: Duration, job: F) -> Result<(), Busy>
    where
        F: FnOnce() + Send + 'static,
    {
        let before = self.queued.fetch_add(1, Ordering::SeqCst);
        if before >= self.capacity {
            self.queued.fetch_sub(1, Ordering::SeqCst);
            return Err(Busy { queued: before });
        }
        let permits = Arc::clone(&self.permits);
        let queued = Arc::clone(&self.queued);
        tokio::spawn(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let Ok(permit) = permits.acquire_owned().await else {
                queued.fetch_sub(1, Ordering::SeqCst);
                return;
            };
            let done = tokio::task::spawn_blocking(move || {
                job();
                drop(permit);
            })
            .await;
            queued.fetch_sub(1, Ordering::SeqCst);
            if let Err(e) = done {
                tracing::error!("a search panicked: {e}");
            }
        });
        Ok(())
    }
}
