//! What the golden generators (`src/bin`) share: the loop over their cases
//! (those named on the command line, or all), each made in a scratch folder
//! of its own, one that fails making the exit code 1; and reading and
//! writing files with the path in the error.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// One run of a generator over the cases named by its arguments.
pub struct Generator {
    only: Vec<String>,
    scratch: PathBuf,
    failed: bool,
}

impl Generator {
    /// A run of generator `name`: the cases its arguments name (all when
    /// there are none), made under [`scratch_dir`]`(name)`.
    pub fn from_args(name: &str) -> Generator {
        Generator {
            only: std::env::args().skip(1).collect(),
            scratch: scratch_dir(name),
            failed: false,
        }
    }

    /// Makes each of `cases` the arguments name (`name` says a case's
    /// name) with `make`, in the scratch folder `NAME`; prints
    /// `NAME: SUMMARY`, or `NAME: ERROR` and remembers the failure.
    pub fn each<C>(
        &mut self,
        cases: &[C],
        name: impl Fn(&C) -> &str,
        mut make: impl FnMut(&C, &Path) -> Result<String, String>,
    ) {
        for case in cases {
            let name = name(case);
            if !self.only.is_empty() && !self.only.iter().any(|n| n == name) {
                continue;
            }
            match make(case, &self.scratch.join(name)) {
                Ok(summary) => eprintln!("{name}: {summary}"),
                Err(e) => {
                    eprintln!("{name}: {e}");
                    self.failed = true;
                }
            }
        }
    }

    /// Removes the scratch folder; the exit code, 1 when a case failed.
    pub fn finish(self) -> ExitCode {
        let _ = fs::remove_dir_all(&self.scratch);
        exit_code(self.failed)
    }
}

/// `TMP/tfdisco-NAME-PID`: a scratch folder of this process's own.
pub fn scratch_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tfdisco-{name}-{}", std::process::id()))
}

/// 1 when something `failed`, else 0.
pub fn exit_code(failed: bool) -> ExitCode {
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The file's text; the error names the file.
pub fn read(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes `text` into `path`, making its folder first; the error names the
/// file (or folder).
pub fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
