//! Blocking work (a `git` command) as a future: run on a thread of its
//! own, so that the other jobs of a run on an async client go on while it
//! waits. No runtime is needed: the thread wakes the future when done.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

/// What the thread and the future share.
struct Slot<R> {
    /// The thread's answer: `Some(None)` when the work panicked.
    result: Option<Option<R>>,
    waker: Option<Waker>,
}

/// The result of `work`, run on a new thread; `None` when it panicked.
pub(crate) fn off_thread<R, F>(work: F) -> impl Future<Output = Option<R>> + Send
where
    R: Send + 'static,
    F: FnOnce() -> R + Send + 'static,
{
    let slot = Arc::new(Mutex::new(Slot {
        result: None,
        waker: None,
    }));
    let theirs = Arc::clone(&slot);
    std::thread::spawn(move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).ok();
        let mut slot = theirs.lock().unwrap_or_else(PoisonError::into_inner);
        slot.result = Some(result);
        if let Some(waker) = slot.waker.take() {
            waker.wake();
        }
    });
    Done(slot)
}

struct Done<R>(Arc<Mutex<Slot<R>>>);

impl<R> Future for Done<R> {
    type Output = Option<R>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<R>> {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match slot.result.take() {
            Some(result) => Poll::Ready(result),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_result_comes_back() {
        let value = futures_lite::future::block_on(off_thread(|| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            41 + 1
        }));
        assert_eq!(value, Some(42));
        let panicked: Option<()> =
            futures_lite::future::block_on(off_thread(|| panic!("on purpose")));
        assert_eq!(panicked, None);
    }
}
