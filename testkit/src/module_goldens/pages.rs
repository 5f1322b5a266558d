//! Package pages on the test server (go-getter's `X-Terraform-Get` pages,
//! MOD-7), naming the direct archives under
//! [`ARCHIVES_PATH`](super::registry::ARCHIVES_PATH):
//!
//! | page | names |
//! |---|---|
//! | `/pages/zip` | `direct.zip` (the header) |
//! | `/pages/meta` | `direct.tgz` (a `<meta name="terraform-get">`) |
//! | `/pages/first` | `/pages/second?archive=false` (the header) |
//! | `/pages/second` | `plain?archive=zip` (the header) |
//! | `/pages/sub` | `direct.tar.gz//lib` (the header) |
//! | `/pages/loop` | itself (the header) |

use crate::{Reply, TestServer};

/// Where the pages are.
pub const PAGES_PATH: &str = "/pages/";

/// Serves the pages on `server`.
pub fn serve(server: &TestServer) {
    let url = |path: &str| format!("https://{}{path}", server.host());
    let header = |page: &str, to: &str| {
        server.route(
            &format!("{PAGES_PATH}{page}"),
            Reply::new(200)
                .header("X-Terraform-Get", &url(to))
                .body(b"a page\n"),
        );
    };
    header("zip", "/archives/direct.zip");
    header("first", "/pages/second?archive=false");
    header("second", "/archives/plain?archive=zip");
    header("sub", "/archives/direct.tar.gz//lib");
    header("loop", "/pages/loop");
    let meta = format!(
        "<!DOCTYPE html>\n<html>\n<head>\n<title>a module</title>\n\
         <meta name=\"terraform-get\" content=\"{}\">\n</head>\n<body></body>\n</html>\n",
        url("/archives/direct.tgz")
    );
    server.route(
        &format!("{PAGES_PATH}meta"),
        Reply::new(200)
            .header("Content-Type", "text/html")
            .body(meta.as_bytes()),
    );
}
