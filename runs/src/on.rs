//! A client as the runs drive it: the runs' own steps (a plan's jobs, an
//! install job, an archive into its sink) are methods of [`On`], which
//! derefs to the client, so that they read as the client's calls they are
//! made of while the transport crate knows nothing of them.

use std::ops::Deref;

/// The client `C` (an `AsyncClient` or a `BlockingClient`) a run is on.
pub(crate) struct On<'a, C>(pub(crate) &'a C);

impl<C> Deref for On<'_, C> {
    type Target = C;

    fn deref(&self) -> &C {
        self.0
    }
}
