//! Git repositories over HTTPS on 127.0.0.1: the real `git http-backend`
//! (from `git --exec-path`) run as a CGI program for every request, behind
//! a listener presenting the test CA's trusted leaf ([`crate::pki`]).
//! Clients trust it with `GIT_SSL_CAINFO` = [`crate::Pki::ca_file`].
//!
//! Every repository under the root folder is served (`GIT_HTTP_EXPORT_ALL`),
//! read-only (`git-receive-pack` is off unless a repository enables
//! `http.receivepack`). A request body is piped to the backend as it came,
//! `Content-Encoding: gzip` included (the backend inflates it:
//! `HTTP_CONTENT_ENCODING`); the CGI `Status:` and headers become the
//! response's. The server stops when dropped.
//!
//! ```no_run
//! use tfdisco_testkit::git_http::GitHttpServer;
//!
//! let root = tempfile::tempdir()?;
//! let repo = tfdisco_testkit::module_goldens::git::make_repo(root.path());
//! let server = GitHttpServer::start(root.path());
//! let url = server.url("repo.git"); // https://127.0.0.1:PORT/repo.git
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tfdisco_core::http::{Request, Response, StatusCode};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

use crate::background::Background;
use crate::pki::{Cert, pki};

/// A request the server answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GitRequest {
    /// `GET` or `POST`.
    pub method: String,
    /// The path (`/repo.git/info/refs`).
    pub path: String,
    /// The query (`service=git-upload-pack`), if any.
    pub query: Option<String>,
    /// The request's `Content-Encoding` (`gzip` for a large fetch request).
    pub content_encoding: Option<String>,
    /// The status answered.
    pub status: u16,
}

/// The HTTPS Git server (see the module's documentation).
pub struct GitHttpServer {
    port: u16,
    seen: Arc<Mutex<Vec<GitRequest>>>,
    _background: Background,
}

struct Backend {
    program: PathBuf,
    root: PathBuf,
    seen: Arc<Mutex<Vec<GitRequest>>>,
}

impl GitHttpServer {
    /// Serves the repositories under `root` (`root/NAME` at `/NAME`).
    /// Panics when `git` (and so its `git-http-backend`) is not there.
    pub fn start(root: &Path) -> GitHttpServer {
        let exec_path = Command::new("git")
            .arg("--exec-path")
            .stdin(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_else(|| panic!("the git HTTP fixture needs git (apt-get install git)"));
        let program = Path::new(&exec_path).join("git-http-backend");
        assert!(
            program.is_file(),
            "no git-http-backend in {exec_path} (git --exec-path)"
        );
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let port = listener.local_addr().expect("bound").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let backend = Arc::new(Backend {
            program,
            root: root.to_owned(),
            seen: seen.clone(),
        });
        let acceptor = TlsAcceptor::from(pki().server_config(Cert::Trusted));
        let background = Background::start("tfdisco-git-http", move || async move {
            let listener = TcpListener::from_std(listener).expect("a tokio listener");
            while let Ok((tcp, _)) = listener.accept().await {
                let (acceptor, backend) = (acceptor.clone(), backend.clone());
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let service = service_fn(move |request| answer(request, backend.clone()));
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
                });
            }
        });
        GitHttpServer {
            port,
            seen,
            _background: background,
        }
    }

    /// The port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `https://127.0.0.1:PORT/PATH`: the repository at `root/PATH`.
    pub fn url(&self, path: &str) -> String {
        format!(
            "https://127.0.0.1:{}/{}",
            self.port,
            path.trim_start_matches('/')
        )
    }

    /// Every request answered so far, oldest first.
    pub fn requests(&self) -> Vec<GitRequest> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// One request: its body read, the backend run on a blocking thread, its
/// answer parsed.
async fn answer(
    request: Request<Incoming>,
    backend: Arc<Backend>,
) -> Result<Response<Full<Bytes>>, io::Error> {
    let (head, body) = request.into_parts();
    let body = body.collect().await.map_err(io::Error::other)?.to_bytes();
    let header = |name: &str| {
        head.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let cgi = Cgi {
        method: head.method.to_string(),
        path: head.uri.path().to_owned(),
        query: head.uri.query().map(str::to_owned),
        content_type: header("content-type"),
        content_encoding: header("content-encoding"),
        git_protocol: header("git-protocol"),
        body,
    };
    let program = backend.clone();
    let request = GitRequest {
        method: cgi.method.clone(),
        path: cgi.path.clone(),
        query: cgi.query.clone(),
        content_encoding: cgi.content_encoding.clone(),
        status: 0,
    };
    let output = tokio::task::spawn_blocking(move || cgi.run(&program))
        .await
        .map_err(io::Error::other)
        .and_then(|r| r);
    let response = match output {
        Ok(output) => cgi_response(&output),
        Err(e) => Err(format!("git-http-backend: {e}")),
    };
    let response = response.unwrap_or_else(|why| {
        let mut response = Response::new(Full::new(Bytes::from(why)));
        *response.status_mut() = StatusCode::BAD_GATEWAY;
        response
    });
    backend
        .seen
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(GitRequest {
            status: response.status().as_u16(),
            ..request
        });
    Ok(response)
}

/// What the backend is told of a request (RFC 3875's variables).
struct Cgi {
    method: String,
    path: String,
    query: Option<String>,
    content_type: Option<String>,
    content_encoding: Option<String>,
    git_protocol: Option<String>,
    body: Bytes,
}

impl Cgi {
    /// Runs the backend with nothing of this process's environment but
    /// `PATH`, no Git configuration but the repository's, the body on its
    /// standard input; its standard output.
    fn run(&self, backend: &Backend) -> io::Result<Vec<u8>> {
        let mut command = Command::new(&backend.program);
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &backend.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_PROJECT_ROOT", &backend.root)
            .env("GIT_HTTP_EXPORT_ALL", "1")
            .env("GATEWAY_INTERFACE", "CGI/1.1")
            .env("SERVER_PROTOCOL", "HTTP/1.1")
            .env("REMOTE_ADDR", "127.0.0.1")
            .env("REQUEST_METHOD", &self.method)
            .env("PATH_INFO", &self.path)
            .env("QUERY_STRING", self.query.as_deref().unwrap_or(""))
            .env("CONTENT_LENGTH", self.body.len().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (name, value) in [
            ("CONTENT_TYPE", &self.content_type),
            ("HTTP_CONTENT_ENCODING", &self.content_encoding),
            ("HTTP_GIT_PROTOCOL", &self.git_protocol),
        ] {
            if let Some(value) = value {
                command.env(name, value);
            }
        }
        let mut child = command.spawn()?;
        let mut stdin = child.stdin.take().expect("piped");
        let body = self.body.clone();
        // Written from a thread of its own: the backend may answer (and
        // fill its output pipe) before it has read the whole body.
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&body);
        });
        let output = child.wait_with_output()?;
        let _ = writer.join();
        Ok(output.stdout)
    }
}

/// A CGI program's output as an HTTP response: the headers up to the
/// first empty line (`Status: 404 Not Found` sets the status, 200 without
/// one), then the body.
fn cgi_response(output: &[u8]) -> Result<Response<Full<Bytes>>, String> {
    let (head, body) = split_head(output).ok_or("no end to the CGI headers")?;
    let head = std::str::from_utf8(head).map_err(|_| "CGI headers that are not text")?;
    let mut response = Response::builder();
    let mut status = StatusCode::OK;
    for line in head.lines().filter(|l| !l.is_empty()) {
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| format!("a CGI header without a colon: {line:?}"))?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("status") {
            let code = value.split_whitespace().next().unwrap_or_default();
            status = code
                .parse::<u16>()
                .ok()
                .and_then(|c| StatusCode::from_u16(c).ok())
                .ok_or_else(|| format!("a CGI status that is no status: {value:?}"))?;
        } else {
            response = response.header(name.trim(), value);
        }
    }
    response
        .status(status)
        .body(Full::new(Bytes::copy_from_slice(body)))
        .map_err(|e| format!("a CGI header HTTP refuses: {e}"))
}

/// The headers and the body of a CGI output (lines end with `\r\n` or `\n`).
fn split_head(output: &[u8]) -> Option<(&[u8], &[u8])> {
    let mut at = 0;
    while at < output.len() {
        let end = output[at..].iter().position(|b| *b == b'\n')? + at;
        let line = &output[at..end];
        if line.is_empty() || line == b"\r" {
            return Some((&output[..at], &output[end + 1..]));
        }
        at = end + 1;
    }
    None
}

#[cfg(test)]
mod tests;
