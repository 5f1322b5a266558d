//! The bridge from `futures-io` streams (TCP or TLS) to hyper's I/O traits.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncRead, AsyncWrite};
use hyper::rt::ReadBufCursor;

/// A plain or TLS stream.
pub(crate) trait Stream: AsyncRead + AsyncWrite + Send + Unpin {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin> Stream for T {}

/// A `futures-io` stream seen through hyper's I/O traits. Reads go through a
/// scratch buffer (one copy) so no `unsafe` is needed.
pub(crate) struct HyperIo {
    inner: Box<dyn Stream>,
    scratch: Box<[u8]>,
}

impl HyperIo {
    pub(crate) fn new(inner: Box<dyn Stream>) -> HyperIo {
        HyperIo {
            inner,
            scratch: vec![0; 16 * 1024].into_boxed_slice(),
        }
    }
}

impl hyper::rt::Read for HyperIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let room = buf.remaining().min(this.scratch.len());
        match Pin::new(&mut this.inner).poll_read(cx, &mut this.scratch[..room]) {
            Poll::Ready(Ok(n)) => {
                buf.put_slice(&this.scratch[..n]);
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl hyper::rt::Write for HyperIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    /// Vectors, so that hyper queues a body's chunks instead of copying
    /// each into its own write buffer (an 8 MiB upload chunk would be held
    /// twice). `futures-io` cannot say whether a stream writes vectors;
    /// async-net's sockets and futures-rustls's streams do.
    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_close(cx)
    }
}
