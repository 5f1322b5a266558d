//! A package's calls told while it streams in (docs/behaviour.md, MOD-16):
//! each configuration file of the folder a fetch watches is read once it
//! is written whole, and its calls go to the plan as a note, so that the
//! plan can ask their registries and archives before the rest of the
//! package is there. What is told is a guess; the plan reads the module's
//! calls again once the package is whole.

use std::path::PathBuf;

use tfdisco_config::{ModuleCall, StagedPackage};
use tfdisco_core::{Dialect, Sink};

use super::plan::{Peeked, Watch};
use crate::plan_jobs::Notes;

/// What a fetch tells, and whom.
pub(crate) struct Peek<'n> {
    pub(crate) notes: &'n Notes<Peeked>,
    pub(crate) watch: Watch,
    pub(crate) dialect: Dialect,
}

/// A sink that writes a package's files and says which it wrote whole.
pub(super) trait WritesFiles: Sink {
    /// The files (paths in the package) written whole since the last call.
    fn take_written(&mut self) -> Vec<String>;
}

impl WritesFiles for StagedPackage {
    fn take_written(&mut self) -> Vec<String> {
        StagedPackage::take_written(self)
    }
}

/// A package's sink that, after each chunk, reads the configuration files
/// of the watched folder written whole and tells their calls (with no
/// [`Peek`], only the package's sink).
pub(super) struct Peeking<'p, S> {
    inner: S,
    /// Where the package's files are written.
    staging: PathBuf,
    /// The watched folder, as the archive's paths name it (`""` for the
    /// package's top).
    folder: String,
    peek: Option<&'p Peek<'p>>,
}

impl<'p, S: WritesFiles> Peeking<'p, S> {
    /// `inner` writing into `staging`, which must keep its written files'
    /// paths when there is a `peek` (`StagedPackage::keeping_written`).
    pub(super) fn new(inner: S, staging: PathBuf, peek: Option<&'p Peek<'p>>) -> Peeking<'p, S> {
        let folder = peek.map_or("", |peek| {
            peek.watch
                .folder
                .trim_start_matches("./")
                .trim_end_matches('/')
        });
        Peeking {
            inner,
            staging,
            folder: if folder == "." { "" } else { folder }.to_owned(),
            peek,
        }
    }

    /// Tells the calls of each watched configuration file written whole.
    fn tell(&mut self) {
        let Some(peek) = self.peek else {
            return;
        };
        for path in self.inner.take_written() {
            let path = path.trim_start_matches("./");
            let (folder, name) = path.rsplit_once('/').unwrap_or(("", path));
            if folder != self.folder || !ModuleCall::is_config_file(peek.dialect, name) {
                continue;
            }
            // A file that does not read tells nothing: the plan reads it
            // again, and reports it, once the package is whole.
            if let Ok(calls) = ModuleCall::read_file(peek.dialect, self.staging.join(path))
                && !calls.is_empty()
            {
                peek.notes.note(Peeked {
                    package: peek.watch.package,
                    calls,
                });
            }
        }
    }
}

impl<S: WritesFiles> Sink for Peeking<'_, S> {
    type Output = S::Output;

    fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
        self.inner.write(chunk)?;
        self.tell();
        Ok(())
    }

    fn finish(&mut self) -> Result<S::Output, String> {
        self.inner.finish()
    }
}
