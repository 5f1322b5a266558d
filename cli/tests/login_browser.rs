//! `tfdisco login` with a real browser: Debian's `chromium`, headless, as
//! the launcher opens it, goes to the authorization page, is sent back to
//! tfdisco's listener and lands on the page that says the tab may be
//! closed (docs/behaviour.md, LOGINRUN-6). `.ci/run` installs chromium.
#![cfg(unix)]

use std::ffi::OsString;

use tfdisco_testkit::login_goldens::{case, run::run};

/// `xdg-open` as a real browser: chromium loads the URL (the test OAuth
/// server's certificate is the test CA's, which its profile does not know)
/// and the DOM it ends on is written where the login goldens' browser
/// writes the page it got.
const CHROMIUM: &str = r#"#!/bin/sh
printf '%s\n' "$1" >> "$TFDISCO_BROWSER_LOG"
(
  dom=$(timeout 20 chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --ignore-certificate-errors --user-data-dir="$TFDISCO_BROWSER_OUT.profile" \
    --dump-dom "$1" 2>"$TFDISCO_BROWSER_OUT.err")
  printf 'chromium\n%s\n' "$dom" > "$TFDISCO_BROWSER_OUT.tmp"
  mv "$TFDISCO_BROWSER_OUT.tmp" "$TFDISCO_BROWSER_OUT"
) </dev/null >/dev/null 2>&1 &
exit 0
"#;

#[test]
fn a_real_browser_lands_on_the_page_that_says_the_tab_may_be_closed() {
    assert!(
        std::process::Command::new("chromium")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "this test needs Debian's chromium (apt-get install chromium; .ci/run installs it)"
    );
    let first = case("first-login").expect("a golden case");
    let scratch = tempfile::tempdir().expect("a folder");
    let program = OsString::from(env!("CARGO_BIN_EXE_tfdisco"));
    let ran = run(first, scratch.path(), &program, CHROMIUM, &|_| {
        ["login", "login.example.com", "--dialect", "terraform"]
            .map(str::to_owned)
            .to_vec()
    })
    .expect("ran");
    assert_eq!(ran.exit, Some(0), "{}", ran.text("stderr"));
    assert_eq!(
        ran.files.get("credentials.after.json"),
        first.golden().after.as_ref(),
        "the token is kept as Terraform keeps it"
    );
    let page = ran.text("callback.txt");
    assert!(page.starts_with("chromium\n"), "{page}");
    assert!(
        page.contains("<title>tfdisco login: Login complete</title>"),
        "{page}"
    );
    assert!(
        page.contains("The login server has returned an authentication code to tfdisco."),
        "{page}"
    );
    assert!(
        page.contains("You may now close this tab and return to the terminal"),
        "{page}"
    );
}
