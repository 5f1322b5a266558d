//! A process-wide `tracing` subscriber that keeps every event as a line of
//! text, so scenarios can check what was logged (and that no token was).

use std::fmt::{self, Write};
use std::sync::{Mutex, OnceLock, PoisonError};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Every event logged in this process since [`traces`] was first called.
#[derive(Default)]
pub struct Traces {
    lines: Mutex<Vec<String>>,
}

impl Traces {
    /// The lines logged so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

struct Collector(&'static Traces);

/// Installs the recorder as the global subscriber (once) and returns it.
pub fn traces() -> &'static Traces {
    static TRACES: OnceLock<&'static Traces> = OnceLock::new();
    TRACES.get_or_init(|| {
        let traces: &'static Traces = Box::leak(Box::default());
        tracing::subscriber::set_global_default(Collector(traces))
            .expect("no other global subscriber in the test binaries");
        traces
    })
}

struct Line(String);

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let _ = if field.name() == "message" {
            write!(self.0, " {value:?}")
        } else {
            write!(self.0, " {}={value:?}", field.name())
        };
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, " {}={value}", field.name());
    }
}

impl Subscriber for Collector {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut line = Line(format!(
            "{} {}:",
            event.metadata().level(),
            event.metadata().target()
        ));
        event.record(&mut line);
        self.0
            .lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(line.0);
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}
