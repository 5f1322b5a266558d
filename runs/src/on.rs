//! An async client as the runs drive it: the runs' own steps (a plan's
//! job, an install job, an archive into its sink, a release pushed) are
//! methods of [`On`], which derefs to the client, so that they read as the
//! client's calls they are made of while the transport crate knows nothing
//! of them. `On` is a copy of a reference: a step's future owns it.

use std::ops::Deref;

use tfdisco_transport::AsyncClient;

/// The async client a run's step is on.
pub(crate) struct On<'a, T>(pub(crate) &'a AsyncClient<T>);

impl<T> Clone for On<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for On<'_, T> {}

impl<T> Deref for On<'_, T> {
    type Target = AsyncClient<T>;

    fn deref(&self) -> &AsyncClient<T> {
        self.0
    }
}
