//! Ctrl-C (and, on Unix, SIGTERM) during a long run: the first one cancels
//! the run, which stops its downloads and waits, places nothing and
//! removes what it staged; a second one ends the process at once (exit
//! 130, what a shell reports for Ctrl-C).

use tfdisco_runs::Cancel;

/// Cancels `cancel` at the first interrupt, from a thread of its own.
pub(crate) fn cancel_on_interrupt(cancel: Cancel) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    let Ok(runtime) = runtime else {
        // Without a handler an interrupt ends the process as it always
        // did; the next run removes what this one staged.
        return;
    };
    std::thread::spawn(move || {
        runtime.block_on(async {
            interrupted().await;
            eprintln!("tfdisco: interrupted: stopping (interrupt again to quit at once)");
            cancel.cancel();
            interrupted().await;
            std::process::exit(i32::from(tfdisco_cli_common::exit::CANCELLED));
        });
    });
}

/// The next Ctrl-C or SIGTERM.
async fn interrupted() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut term) = signal(SignalKind::terminate()) else {
            let _ = tokio::signal::ctrl_c().await;
            return;
        };
        let mut ctrl_c = std::pin::pin!(tokio::signal::ctrl_c());
        std::future::poll_fn(|cx| {
            if ctrl_c.as_mut().poll(cx).is_ready() || term.poll_recv(cx).is_ready() {
                std::task::Poll::Ready(())
            } else {
                std::task::Poll::Pending
            }
        })
        .await;
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
