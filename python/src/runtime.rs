//! The one tokio runtime of the module, and the two ways Python waits for
//! a call on it: blocking (the GIL released) and asyncio; the awaitable of
//! an answer that needed no waiting; and [`Call`], one call of a client
//! method made ready for either way.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::time::Duration;

use pyo3::IntoPyObjectExt;
use pyo3::exceptions::{PyRuntimeError, PyStopIteration};
use pyo3::prelude::*;
use tokio::runtime::Runtime;

use crate::errors;

/// How long a blocking call waits before it looks for a pending signal
/// (Ctrl-C) and waits again.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// The module's runtime: multi-thread, made on first use, never shut down
/// (it lives as long as the process). asyncio calls run on it too.
pub(crate) fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .thread_name("tfdisco")
            .enable_all()
            .build()
            .expect("cannot start the tfdisco tokio runtime")
    })
}

/// The runtime, also handed to pyo3-async-runtimes (once) so that its
/// asyncio futures run on it rather than on a second runtime.
fn async_runtime() -> &'static Runtime {
    static SHARED: OnceLock<()> = OnceLock::new();
    let runtime = runtime();
    SHARED.get_or_init(|| {
        // Err only when already set, which only this function does.
        let _ = pyo3_async_runtimes::tokio::init_with_runtime(runtime);
    });
    runtime
}

/// Runs `future` to completion on the runtime, the GIL released, and
/// returns its output. A signal (Ctrl-C) that arrives meanwhile raises its
/// exception here: the future is dropped, which cancels the work.
pub(crate) fn block_on<F>(py: Python<'_>, future: F) -> PyResult<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    let runtime = runtime();
    let mut future = std::pin::pin!(future);
    loop {
        let slice = py.detach(|| {
            // The timer is made inside `block_on`, in the runtime's context.
            runtime.block_on(async { tokio::time::timeout(SIGNAL_CHECK, future.as_mut()).await })
        });
        match slice {
            Ok(output) => return Ok(output),
            Err(_elapsed) => py.check_signals()?,
        }
    }
}

/// An asyncio future for `future`, run on the runtime. Cancelling the
/// asyncio future drops (cancels) the Rust one.
pub(crate) fn to_asyncio<'py, F, T>(py: Python<'py>, future: F) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = PyResult<T>> + Send + 'static,
    T: for<'a> IntoPyObject<'a> + Send + 'static,
{
    async_runtime();
    pyo3_async_runtimes::tokio::future_into_py(py, future)
}

/// An awaitable that is already done with `result`: for an answer that
/// needed no I/O (a cache hit), so that awaiting it costs no trip through
/// the runtime or the event loop. Awaiting it gives the value or raises the
/// exception at once, without suspending the awaiting coroutine.
pub(crate) fn ready<'py, T>(py: Python<'py>, result: PyResult<T>) -> PyResult<Bound<'py, PyAny>>
where
    T: IntoPyObject<'py>,
{
    let result = match result {
        Ok(value) => Ok(value.into_py_any(py)?),
        Err(error) => Err(error),
    };
    Ok(Bound::new(
        py,
        Ready {
            result: Some(result),
        },
    )?
    .into_any())
}

/// What [`ready`] gives: its own iterator, whose first `__next__` ends at
/// once, returning the value as `StopIteration(value)` (the way a
/// generator returns) or raising the exception.
///
/// Faster than a done `asyncio.Future` (made with the running loop's
/// `create_future` and `set_result`): about 0.6 µs less per await
/// (`python/bench.py`).
#[pyclass(module = "tfdisco._tfdisco", name = "_Ready")]
pub(crate) struct Ready {
    /// Taken by the first `__next__`.
    result: Option<PyResult<Py<PyAny>>>,
}

#[pymethods]
impl Ready {
    fn __await__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// As `__next__` (the value sent is not used), as a generator's
    /// `send(None)` starts it.
    fn send(&mut self, _value: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.__next__()
    }

    /// Nothing to stop.
    fn close(&mut self) {
        self.result = None;
    }

    fn __next__(&mut self) -> PyResult<Py<PyAny>> {
        match self.result.take() {
            Some(Ok(value)) => Err(PyStopIteration::new_err((value,))),
            Some(Err(error)) => Err(error),
            None => Err(PyRuntimeError::new_err(
                "cannot reuse an answer already awaited",
            )),
        }
    }
}

/// One call of a client method, its arguments checked: its answer, when
/// it needed no I/O (a host in the cache), or the future that finds it on
/// the runtime, with Python's value or exception as its output. The
/// blocking method waits for it ([`Call::wait`]); its `_NAME_async` twin,
/// made from the same definition, hands it to asyncio ([`Call::later`]).
pub(crate) enum Call<T> {
    /// Answered at once.
    Done(PyResult<T>),
    /// To run on the runtime.
    Run(Pin<Box<dyn Future<Output = PyResult<T>> + Send>>),
}

impl<T> Call<T>
where
    T: for<'a> IntoPyObject<'a> + Send + 'static,
{
    /// A future whose output is already Python's (exceptions made with
    /// the GIL taken, `Python::attach`).
    pub(crate) fn run<F>(future: F) -> Self
    where
        F: Future<Output = PyResult<T>> + Send + 'static,
    {
        Call::Run(Box::pin(future))
    }

    /// A future of the core: its error becomes its Python exception.
    pub(crate) fn core<F>(future: F) -> Self
    where
        F: Future<Output = Result<T, tfdisco_core::Error>> + Send + 'static,
    {
        Call::run(async move {
            future
                .await
                .map_err(|e| Python::attach(|py| errors::from_core(py, &e)))
        })
    }

    /// The answer, waited for with the GIL released ([`block_on`]: Ctrl-C
    /// cancels the call).
    pub(crate) fn wait(self, py: Python<'_>) -> PyResult<T> {
        match self {
            Call::Done(answer) => answer,
            Call::Run(future) => block_on(py, future)?,
        }
    }

    /// The awaitable of the answer: one already done ([`ready`]), or an
    /// asyncio future of the call ([`to_asyncio`]).
    pub(crate) fn later(self, py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        match self {
            Call::Done(answer) => ready(py, answer),
            Call::Run(future) => to_asyncio(py, future),
        }
    }
}
