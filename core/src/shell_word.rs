//! A text as one POSIX shell word, for commands tfdisco prints or hands to
//! a shell (`GIT_SSH_COMMAND`).

/// `text` as one shell word: as it is when it is made only of characters
/// no shell reads specially, else in single quotes (a `'` inside as
/// `'\''`).
///
/// ```
/// use tfdisco_core::shell_word;
///
/// assert_eq!(shell_word("/tmp/ca.pem"), "/tmp/ca.pem");
/// assert_eq!(shell_word("it's here"), r"'it'\''s here'");
/// assert_eq!(shell_word(""), "''");
/// ```
pub fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
