//! `-v` and `-vv`: what happens, on stderr.

/// `-v` (`verbose` 1) shows the core's discovery events, `-vv` everything,
/// on stderr; without it nothing is shown.
pub fn init(verbose: u8) {
    let level = match verbose {
        0 => return,
        1 => tracing::Level::DEBUG,
        _ => tracing::Level::TRACE,
    };
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .finish();
    let _ = tracing::subscriber::set_global_default(subscriber);
}
