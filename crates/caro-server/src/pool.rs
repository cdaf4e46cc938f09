//! The engine pool: searches run on a bounded number of blocking threads,
//! never on the async runtime, with a limit on how many may wait.
//!
//! A game whose search found the queue full (a computer's reply after a
//! move, the next move of two computers) is put on a wait list of game
//! ids, at most once each and at most [`MAX_WAITING`] in all; whenever a
//! search finishes, the server starts the searches of the games waiting
//! for as long as there is room (see [`EnginePool::freed`]).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, Semaphore};

/// Most games on the wait list; past it a game waits until it is asked
/// for again (a reload of its page).
pub const MAX_WAITING: usize = 4096;

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
    /// Games whose search was refused, oldest first, each once.
    waiting: Mutex<VecDeque<i64>>,
    /// Woken when a job finishes, or when a game is put on the wait list
    /// while there is room.
    freed: Arc<Notify>,
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
            waiting: Mutex::new(VecDeque::new()),
            freed: Arc::new(Notify::new()),
        }
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, VecDeque<i64>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Puts a game whose search was refused on the wait list (once).
    /// Returns false when the list is full.
    pub fn wait(&self, game: i64) -> bool {
        {
            let mut waiting = self.waiting();
            if !waiting.contains(&game) {
                if waiting.len() >= MAX_WAITING {
                    return false;
                }
                waiting.push_back(game);
            }
        }
        // A job may have finished between the refusal and now: then
        // nobody would wake the waiting games.
        if self.has_room() {
            self.freed.notify_one();
        }
        true
    }

    /// The game that has waited longest, while the queue has room.
    pub fn next_waiting(&self) -> Option<i64> {
        if !self.has_room() {
            return None;
        }
        self.waiting().pop_front()
    }

    /// Games on the wait list.
    #[must_use]
    pub fn waiting_games(&self) -> usize {
        self.waiting().len()
    }

    /// Completes when a job has finished (or a game was put on the wait
    /// list with room to spare) since the last call.
    pub async fn freed(&self) {
        self.freed.notified().await;
    }

    /// Whether a job submitted now would be accepted.
    #[must_use]
    pub fn has_room(&self) -> bool {
        self.queued() < self.capacity
    }

    /// Refuses a new computer game or move while the queue is full.
    ///
    /// # Errors
    /// [`Busy`], with the searches waiting, when a job would be refused.
    pub fn ensure_room(&self) -> Result<(), Busy> {
        if self.has_room() {
            return Ok(());
        }
        Err(Busy {
            queued: self.queued(),
        })
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
        let freed = Arc::clone(&self.freed);
        tokio::spawn(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let Ok(permit) = permits.acquire_owned().await else {
                queued.fetch_sub(1, Ordering::SeqCst);
                freed.notify_one();
                return;
            };
            let done = tokio::task::spawn_blocking(move || {
                job();
                drop(permit);
            })
            .await;
            queued.fetch_sub(1, Ordering::SeqCst);
            freed.notify_one();
            if let Err(e) = done {
                tracing::error!("a search panicked: {e}");
            }
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_refused_game_waits_once_and_is_woken_when_a_job_finishes() {
        let pool = EnginePool::new(1, 0);
        let (release, wait) = std::sync::mpsc::channel::<()>();
        pool.submit(Duration::ZERO, move || {
            let _ = wait.recv();
        })
        .unwrap();
        assert!(
            pool.submit(Duration::ZERO, || {}).is_err(),
            "the queue is full"
        );
        assert!(pool.wait(7));
        assert!(pool.wait(7));
        assert!(pool.wait(8));
        assert_eq!(pool.waiting_games(), 2, "each game waits once");
        assert_eq!(pool.next_waiting(), None, "no room yet");
        release.send(()).unwrap();
        tokio::time::timeout(Duration::from_secs(10), pool.freed())
            .await
            .expect("woken when the job finished");
        while !pool.has_room() {
            tokio::task::yield_now().await;
        }
        assert_eq!(pool.next_waiting(), Some(7), "oldest first");
        assert_eq!(pool.next_waiting(), Some(8));
        assert_eq!(pool.next_waiting(), None);
    }

    #[test]
    fn the_wait_list_is_bounded() {
        let pool = EnginePool::new(1, 0);
        for id in 0..MAX_WAITING as i64 {
            assert!(pool.wait(id));
        }
        assert!(!pool.wait(-1));
        assert!(pool.wait(0), "a game already waiting stays");
        assert_eq!(pool.waiting_games(), MAX_WAITING);
    }
}
