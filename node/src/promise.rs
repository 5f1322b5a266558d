//! The promises the async calls return: one already settled for an answer
//! that needed no I/O (a cached discovery, a refused argument), or one
//! settled by a future run on the one tokio runtime (napi's), its error
//! made on the JavaScript thread by the error factory.

use std::future::Future;

use napi::Env;
use napi::bindgen_prelude::{AsyncBlock, AsyncBlockBuilder, Either, PromiseRaw, ToNapiValue};

use crate::errors::Failure;

/// What an async call returns: a settled promise, or the promise of a
/// future on the runtime.
pub(crate) type Answer<'env, T> = Either<PromiseRaw<'env, T>, AsyncBlock<T>>;

/// A promise already settled with `result`: no trip through the runtime.
pub(crate) fn ready<'env, T: ToNapiValue>(
    env: &'env Env,
    result: Result<T, Failure>,
) -> napi::Result<Answer<'env, T>> {
    match result {
        Ok(value) => PromiseRaw::resolve(env, value).map(Either::A),
        Err(failure) => match failure.make(env) {
            Ok(error) => PromiseRaw::reject(env, error).map(Either::A),
            Err(e) => PromiseRaw::reject(env, e).map(Either::A),
        },
    }
}

/// The promise of `future`, run on the runtime.
pub(crate) fn later<'env, T, F>(env: &'env Env, future: F) -> napi::Result<Answer<'env, T>>
where
    T: ToNapiValue + Send + 'static,
    F: Future<Output = Result<T, Failure>> + Send + 'static,
{
    AsyncBlockBuilder::build_with_map(
        env,
        async move { Ok(future.await) },
        |env, outcome: Result<T, Failure>| outcome.map_err(|failure| failure.into_napi(&env)),
    )
    .map(Either::B)
}

/// The promise of `run(args)` on the runtime, `args` being a call's
/// arguments once checked; arguments refused: a promise rejected at once,
/// before anything is read or asked.
pub(crate) fn checked<'env, A, T, F>(
    env: &'env Env,
    args: Result<A, Failure>,
    run: impl FnOnce(A) -> F,
) -> napi::Result<Answer<'env, T>>
where
    T: ToNapiValue + Send + 'static,
    F: Future<Output = Result<T, Failure>> + Send + 'static,
{
    match args {
        Ok(args) => later(env, run(args)),
        Err(failure) => ready(env, Err(failure)),
    }
}
