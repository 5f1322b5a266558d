//! A tokio runtime on its own thread, so blocking tests and other runtimes
//! can use the servers; it stops (cancelling every task) when dropped.

use std::future::Future;
use std::thread::JoinHandle;

use tokio::sync::oneshot;

/// A background thread running a current-thread tokio runtime.
pub(crate) struct Background {
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Background {
    /// Runs `main` (which may spawn tasks) until the `Background` is dropped.
    pub(crate) fn start<F, Fut>(name: &str, main: F) -> Background
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a test runtime");
                let local = tokio::task::LocalSet::new();
                local.block_on(&runtime, async move {
                    tokio::task::spawn_local(main());
                    let _ = stopped.await;
                });
            })
            .expect("a test thread");
        Background {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
