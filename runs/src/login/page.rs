//! The pages the loopback listener answers a browser with: the login went
//! through and the tab may be closed, or why this request was not the one
//! the login waits for. Whatever comes from the request is escaped.

/// The page of an accepted callback.
pub(crate) fn accepted() -> String {
    page(
        "Login complete",
        "<p>The login server has returned an authentication code to tfdisco.</p>\n\
         <p>You may now close this tab and return to the terminal where \
         <code>tfdisco login</code> is running to see the result.</p>",
    )
}

/// The page of a request that is not the callback the login waits for
/// (the login keeps waiting).
pub(crate) fn rejected(reason: &str) -> String {
    page(
        "Not the expected login callback",
        &format!(
            "<p>This request was not accepted: {}.</p>\n\
             <p><code>tfdisco login</code> is still waiting for the login server's answer.</p>",
            escape(reason)
        ),
    )
}

/// The page of a callback in which the server refused the login.
pub(crate) fn denied(error: &str, description: Option<&str>) -> String {
    let detail = description
        .map(|d| format!(": {}", escape(d)))
        .unwrap_or_default();
    page(
        "Login refused",
        &format!(
            "<p>The login server refused the login ({}{detail}).</p>\n\
             <p>You may close this tab; <code>tfdisco login</code> has stopped.</p>",
            escape(error)
        ),
    )
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>tfdisco login: {title}</title>\n\
         <style>body {{ font-family: monospace; color: #fff; background-color: #000; }}</style>\n\
         </head>\n<body>\n<h1>{title}</h1>\n{body}\n</body>\n</html>\n"
    )
}

/// `text` as HTML text: the five characters that could end it escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_comes_from_the_request_is_escaped() {
        let page = denied("<script>x</script>", Some("a & \"b\""));
        assert!(page.contains("&lt;script&gt;x&lt;/script&gt;"), "{page}");
        assert!(page.contains("a &amp; &quot;b&quot;"), "{page}");
        assert!(!page.contains("<script>"), "{page}");
        assert!(rejected("'<'").contains("&#39;&lt;&#39;"));
    }

    #[test]
    fn the_accepted_page_says_the_tab_may_be_closed() {
        assert!(accepted().contains("You may now close this tab"));
    }
}
