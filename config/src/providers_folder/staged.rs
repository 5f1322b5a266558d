//! A package archive unpacked as it downloads (docs/behaviour.md,
//! INSTALL-10): the provider crate's `Unpacker` reads it as it streams in
//! and says what to create; its files are written here, into a private
//! staging folder beside the package's final place, with mode 0600 until
//! the package is verified and placed. A module package's `.tar.gz`,
//! `.tar.bz2` or `.tar.xz` is unpacked the same way by the provider crate's
//! `TarUnpacker`
//! ([`StagedPackage::with_format`], TAR-1 to TAR-9).

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use tfdisco_core::Sink;
use tfdisco_provider::{
    ArchiveDigest, ArchiveFormat, PackageHashError, TarUnpacked, TarUnpacker, UnpackError,
    UnpackLimits, UnpackOp, Unpacked, Unpacker, UnsupportedArchive,
};

/// The sink of a package archive being installed; what it gives when the
/// archive is read whole is a [`Staged`] package.
#[derive(Debug)]
pub struct StagedPackage {
    staging: PathBuf,
    final_path: PathBuf,
    /// Reads the archive; `None` once it refused it (the download still
    /// runs to its end, for the checksum check).
    unpacker: Option<Unpacker>,
    /// Reads a compressed tar archive instead (then `unpacker` is `None`
    /// from the start); `None` once it refused it.
    tar: Option<TarUnpacker>,
    /// Whether the archive is a compressed tar archive.
    is_tar: bool,
    /// The file being written.
    file: Option<BufWriter<File>>,
    /// The files written whole since [`take_written`](StagedPackage::take_written)
    /// was last called, and the one being written, when asked to keep them.
    written: Option<(Vec<String>, String)>,
    /// Why the archive could not be unpacked.
    refused: Option<UnpackError>,
    /// The SHA-256 and size of every byte (the archive's `zh:`, also when
    /// it cannot be unpacked).
    sha256: Sha256,
    size: u64,
}

impl StagedPackage {
    /// A sink unpacking an archive into `staging` (an existing, empty
    /// folder) for a package whose place is `final_path`: a provider
    /// install's ([`ProvidersFolder::stage`](crate::ProvidersFolder::stage)),
    /// or any package unpacked beside its place (an `oci://` module's).
    pub fn new(staging: PathBuf, final_path: PathBuf) -> StagedPackage {
        StagedPackage {
            staging,
            final_path,
            unpacker: Some(Unpacker::new()),
            tar: None,
            is_tar: false,
            file: None,
            written: None,
            refused: None,
            sha256: Sha256::new(),
            size: 0,
        }
    }

    /// A sink unpacking a module package's archive of `format` into
    /// `staging`, as [`new`](StagedPackage::new) does a zip, but with
    /// Terraform's rule for a module's links: a zip's symbolic link is a
    /// file holding its target (`Unpacker::module_package`); `tar.gz`,
    /// `tar.bz2` and `tar.xz` are unpacked as Terraform's go-getter
    /// unpacks a module package's (TAR-1 to TAR-9): the staged
    /// package's [`tar_unpacked`](Staged::tar_unpacked) then says what was
    /// written, [`apply_modes`](Staged::apply_modes) sets the files' and
    /// then the folders' modes, and its [`digest`](Staged::digest) has the
    /// archive's SHA-256 and size but no provider package hashes (a
    /// tarball is no provider package: `hashes` is an error saying so, or
    /// why it was not unpacked). The one-file compressions Terraform knows
    /// (`bz2`, `gz`, `xz`) are an `UnsupportedArchive`, in go-getter's
    /// words.
    pub fn with_format(
        staging: PathBuf,
        final_path: PathBuf,
        format: ArchiveFormat,
    ) -> Result<StagedPackage, UnsupportedArchive> {
        let mut sink = StagedPackage::new(staging, final_path);
        sink.unpacker = Some(Unpacker::module_package());
        if format.check_supported()? != ArchiveFormat::Zip {
            sink.unpacker = None;
            sink.tar = Some(TarUnpacker::with_format(format, UnpackLimits::default())?);
            sink.is_tar = true;
        }
        Ok(sink)
    }

    /// Keeps the path of every file written whole, for
    /// [`take_written`](StagedPackage::take_written): what a module
    /// installer reads of a package while the rest of it streams in.
    pub fn keeping_written(mut self) -> StagedPackage {
        self.written = Some((Vec::new(), String::new()));
        self
    }

    /// The files (their paths in the staging folder, `/`-separated)
    /// written whole and closed since the last call, when
    /// [`keeping_written`](StagedPackage::keeping_written); none otherwise.
    pub fn take_written(&mut self) -> Vec<String> {
        match &mut self.written {
            Some((done, _)) => std::mem::take(done),
            None => Vec::new(),
        }
    }

    /// Does one thing the unpacker says. Each folder and file is created
    /// exclusively (UNPACK-2): the staging folder is new, the unpacker
    /// gives a folder's parent before it and no path twice, so a name
    /// already there is one the file system takes for another of the
    /// package's (`a` for `A` where case is ignored): an error, never two
    /// of the package's folders or files merged into one.
    fn apply(&mut self, op: UnpackOp<'_>) -> io::Result<()> {
        match op {
            UnpackOp::Folder(path) => {
                create_folder(&self.staging.join(path)).map_err(|e| already_there(e, path))
            }
            UnpackOp::File(path) => {
                let file =
                    create_file(&self.staging.join(path)).map_err(|e| already_there(e, path))?;
                self.file = Some(BufWriter::with_capacity(64 * 1024, file));
                if let Some((_, current)) = &mut self.written {
                    path.clone_into(current);
                }
                Ok(())
            }
            UnpackOp::Data(bytes) => match &mut self.file {
                Some(file) => file.write_all(bytes),
                None => Err(io::Error::other("data outside a file")),
            },
            UnpackOp::FileEnd => {
                if let Some(file) = self.file.take() {
                    file.into_inner().map_err(|e| e.into_error())?;
                    if let Some((done, current)) = &mut self.written {
                        done.push(std::mem::take(current));
                    }
                }
                Ok(())
            }
        }
    }

    fn refuse(&mut self, why: UnpackError) {
        self.unpacker = None;
        self.tar = None;
        self.file = None;
        self.refused.get_or_insert(why);
    }
}

/// A package archive read whole: its digest (what the plan verifies) and,
/// when it could be unpacked, the staging folder holding its files.
#[derive(Clone, Debug)]
pub struct Staged {
    staging: PathBuf,
    final_path: PathBuf,
    digest: ArchiveDigest,
    unpacked: Option<Unpacked>,
    tar: Option<TarUnpacked>,
}

impl Staged {
    /// The archive's SHA-256, size and hashes (or why it is no package).
    pub fn digest(&self) -> &ArchiveDigest {
        &self.digest
    }

    /// The staging folder.
    pub fn staging(&self) -> &Path {
        &self.staging
    }

    /// Where the package goes.
    pub fn final_path(&self) -> &Path {
        &self.final_path
    }

    /// The `h1:` of the files unpacked, when it could be unpacked (a zip
    /// or a compressed tar archive).
    pub fn h1(&self) -> Option<String> {
        match (&self.unpacked, &self.tar) {
            (Some(u), _) => Some(u.h1.clone()),
            (None, Some(t)) => Some(t.h1.clone()),
            (None, None) => None,
        }
    }

    /// What a compressed tar archive unpacked to (each file's and recorded folder's
    /// mode, the `h1:`, how many files and bytes, the archive's SHA-256
    /// and size), when it was one and could be unpacked.
    pub fn tar_unpacked(&self) -> Option<&TarUnpacked> {
        self.tar.as_ref()
    }

    /// What was unpacked (each file's mode, the `h1:`, how many files and
    /// bytes), when the archive could be.
    pub fn unpacked(&self) -> Option<&Unpacked> {
        self.unpacked.as_ref()
    }

    /// Gives every file its mode from the archive (INSTALL-1); for a
    /// `.tar.gz`, then every folder entry's, in the archive's order, `""`
    /// being the staging folder itself (TAR-4, TAR-5).
    pub fn apply_modes(&self) -> io::Result<()> {
        if let Some(tar) = &self.tar {
            for (path, mode) in tar.modes.iter().chain(&tar.folder_modes) {
                set_mode(&self.staging.join(path), *mode)?;
            }
            return Ok(());
        }
        let Some(unpacked) = &self.unpacked else {
            return Err(io::Error::other("the package was not unpacked"));
        };
        for (path, mode) in &unpacked.modes {
            set_mode(&self.staging.join(path), *mode)?;
        }
        Ok(())
    }
}

impl Sink for StagedPackage {
    type Output = Staged;

    fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
        self.sha256.update(chunk);
        self.size += chunk.len() as u64;
        if let Some(mut tar) = self.tar.take() {
            match tar.update(chunk, |op| self.apply(op)) {
                Ok(()) => self.tar = Some(tar),
                Err(UnpackError::Output(e)) => {
                    return Err(format!("writing {}: {e}", self.staging.display()));
                }
                Err(e) => self.refuse(e),
            }
            return Ok(());
        }
        let Some(mut unpacker) = self.unpacker.take() else {
            return Ok(());
        };
        match unpacker.update(chunk, |op| self.apply(op)) {
            Ok(()) => self.unpacker = Some(unpacker),
            // Writing failed: the download cannot go on.
            Err(UnpackError::Output(e)) => {
                return Err(format!("writing {}: {e}", self.staging.display()));
            }
            // Not a package this can unpack: the checksum is still checked
            // first (HASH-17); the plan then reports why.
            Err(e) => self.refuse(e),
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<Staged, String> {
        let sha256: [u8; 32] = std::mem::take(&mut self.sha256).finalize().into();
        if self.is_tar {
            return self.finish_tar(sha256);
        }
        let mut unpacked = None;
        let hashes = match self.unpacker.take() {
            Some(unpacker) => match unpacker.finish() {
                Ok(done) => {
                    let hashes = done.archive;
                    unpacked = Some(done);
                    Ok(hashes)
                }
                Err(UnpackError::Output(e)) => {
                    return Err(format!("writing {}: {e}", self.staging.display()));
                }
                Err(e) => Err(not_unpacked(e)),
            },
            None => Err(self
                .refused
                .take()
                .map_or_else(|| PackageHashError::not_unpacked("not read"), not_unpacked)),
        };
        Ok(Staged {
            staging: self.staging.clone(),
            final_path: self.final_path.clone(),
            digest: ArchiveDigest {
                sha256,
                size: self.size,
                hashes,
            },
            unpacked,
            tar: None,
        })
    }
}

impl StagedPackage {
    /// [`Sink::finish`] for a compressed tar archive.
    fn finish_tar(&mut self, sha256: [u8; 32]) -> Result<Staged, String> {
        let mut tar = None;
        let problem = match self.tar.take() {
            Some(unpacker) => match unpacker.finish() {
                Ok(done) => {
                    tar = Some(done);
                    PackageHashError::not_unpacked("a tar archive has no provider package hashes")
                }
                Err(UnpackError::Output(e)) => {
                    return Err(format!("writing {}: {e}", self.staging.display()));
                }
                Err(e) => not_unpacked(e),
            },
            None => self
                .refused
                .take()
                .map_or_else(|| PackageHashError::not_unpacked("not read"), not_unpacked),
        };
        Ok(Staged {
            staging: self.staging.clone(),
            final_path: self.final_path.clone(),
            digest: ArchiveDigest {
                sha256,
                size: self.size,
                hashes: Err(problem),
            },
            unpacked: None,
            tar,
        })
    }
}

/// Why an archive is no package that can be installed: the hasher's own
/// error, or the unpacker's refusal.
fn not_unpacked(error: UnpackError) -> PackageHashError {
    match error {
        UnpackError::Archive(error) => error,
        other => PackageHashError::not_unpacked(other.to_string()),
    }
}

/// A name the unpacker gives that is already there: said as such.
fn already_there(error: io::Error, path: &str) -> io::Error {
    if error.kind() != io::ErrorKind::AlreadyExists {
        return error;
    }
    io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "{path:?} already exists: the file system takes it for another of the package's \
             names (one differing only in case or Unicode form), and they are not merged"
        ),
    )
}

/// Creates the folder, exclusively: `0755` less the umask, as Terraform's
/// `MkdirAll(path, 0755)` (INSTALL-1).
#[cfg(unix)]
fn create_folder(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new().mode(0o755).create(path)
}

#[cfg(not(unix))]
fn create_folder(path: &Path) -> io::Result<()> {
    fs::create_dir(path)
}

/// Creates the file, exclusively (`create_new`), `0600` until it is
/// verified.
#[cfg(unix)]
fn create_file(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn create_file(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    let mut permissions = fs::metadata(path)?.permissions();
    permissions.set_readonly(mode & 0o200 == 0);
    fs::set_permissions(path, permissions)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A staging folder and the sink writing into it.
    fn staged() -> (tempfile::TempDir, StagedPackage) {
        let scratch = tempfile::tempdir().expect("a scratch folder");
        let staging = scratch.path().join("staging");
        fs::create_dir(&staging).expect("the staging folder");
        let sink = StagedPackage::new(staging, scratch.path().join("linux_amd64"));
        (scratch, sink)
    }

    fn error_of(result: io::Result<()>) -> io::Error {
        let err = result.expect_err("already there");
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists, "{err}");
        err
    }

    /// A file system that folds `Docs` and `docs` together, as macOS's and
    /// Windows' do, simulated on Linux: once the writer made `Docs`, a link
    /// `docs` to it is what such a file system shows under that name. The
    /// second folder or file is an error saying so, not a merge: nothing
    /// is written into the first (UNPACK-2).
    #[cfg(unix)]
    #[test]
    fn names_a_file_system_folds_together_are_an_error() {
        let (_scratch, mut sink) = staged();
        let staging = sink.staging.clone();
        let fold = |name: &str, into: &str| {
            std::os::unix::fs::symlink(into, staging.join(name)).expect("folded");
        };
        sink.apply(UnpackOp::Folder("Docs")).expect("a folder");
        fold("docs", "Docs");
        let err = error_of(sink.apply(UnpackOp::Folder("docs")));
        assert_eq!(
            err.to_string(),
            "\"docs\" already exists: the file system takes it for another of the package's \
             names (one differing only in case or Unicode form), and they are not merged"
        );
        for op in [
            UnpackOp::File("Docs/README.md"),
            UnpackOp::Data(b"first"),
            UnpackOp::FileEnd,
        ] {
            sink.apply(op).expect("a file");
        }
        fold("Docs/readme.md", "README.md");
        let err = error_of(sink.apply(UnpackOp::File("Docs/readme.md")));
        assert!(
            err.to_string()
                .starts_with("\"Docs/readme.md\" already exists")
        );
        assert_eq!(
            fs::read(staging.join("Docs/README.md")).expect("the first file"),
            b"first",
            "the first file kept as it was"
        );
        // A folder where the file system has a file of that name.
        fold("readme.md", "Docs/README.md");
        error_of(sink.apply(UnpackOp::Folder("readme.md")));
    }

    /// As a download meets it: an archive whose folder entry `docs/` and
    /// empty file `README` are names the staging folder already has (as a
    /// folding file system would, after `DOCS/` and `readme`). The sink
    /// stops the download with the error; a new folder is `0755` less the
    /// umask, as Terraform makes it (UNPACK-2, INSTALL-1).
    #[test]
    fn a_download_stops_at_a_name_already_there() {
        let (_scratch, mut sink) = staged();
        let staging = sink.staging.clone();
        fs::create_dir(staging.join("docs")).expect("a folder");
        let err = sink
            .write(&empty_entries(&["docs/", "README"]))
            .expect_err("stopped");
        assert!(
            err.starts_with(&format!(
                "writing {}: \"docs\" already exists",
                staging.display()
            )),
            "{err}"
        );
        let (_scratch, mut sink) = staged();
        let staging = sink.staging.clone();
        fs::write(staging.join("README"), b"first").expect("a file");
        let archive = empty_entries(&["man/", "README"]);
        let err = sink.write(&archive).expect_err("stopped");
        assert!(err.contains("\"README\" already exists"), "{err}");
        assert_eq!(fs::read(staging.join("README")).expect("kept"), b"first");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(staging.join("man"))
                .expect("made")
                .permissions()
                .mode();
            assert_eq!(mode & 0o7777 & !0o755, 0, "{mode:o}");
        }
    }

    /// Asked to keep them, the sink says each file it wrote whole, once,
    /// as the chunks come; folders are not files. Not asked, it says none.
    #[test]
    fn the_files_written_whole_are_said_once_when_asked() {
        let archive = empty_entries(&["docs/", "docs/main.tf", "README"]);
        let (_scratch, sink) = staged();
        let mut sink = sink.keeping_written();
        let (start, rest) = archive.split_at(archive.len() / 2);
        sink.write(start).expect("written");
        let first = sink.take_written();
        sink.write(rest).expect("written");
        let mut all = first.clone();
        all.extend(sink.take_written());
        assert_eq!(all, ["docs/main.tf", "README"]);
        assert!(sink.take_written().is_empty(), "each once");
        let (_scratch, mut plain) = staged();
        plain.write(&archive).expect("written");
        assert!(plain.take_written().is_empty());
    }

    /// A `.tar.gz` the system's GNU tar made of a real tree, written into
    /// the staging folder and its modes applied: the files' as recorded
    /// (0755, 0600, 0444, and 0777 for a symbolic link, written as an empty
    /// file), the folders' recorded ones at the end (0700), the staging
    /// folder's from `./` (0750); the bytes and the `h1:` are the tree's
    /// (TAR-2 to TAR-5).
    #[cfg(unix)]
    #[test]
    fn a_tar_gz_staged_and_its_modes_applied() {
        use std::os::unix::fs::PermissionsExt;
        let scratch = tempfile::tempdir().expect("a scratch folder");
        let tree = scratch.path().join("tree");
        let write = |path: &str, data: &[u8], mode: u32| {
            let path = tree.join(path);
            fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
            fs::write(&path, data).expect("written");
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("mode");
        };
        write("main.tf", b"module {}\n", 0o644);
        write("bin/run.sh", b"#!/bin/sh\n", 0o755);
        write("secret", b"s\n", 0o600);
        write("private/ro", b"r\n", 0o444);
        std::os::unix::fs::symlink("main.tf", tree.join("link")).expect("a link");
        fs::set_permissions(tree.join("private"), fs::Permissions::from_mode(0o700)).expect("mode");
        fs::set_permissions(&tree, fs::Permissions::from_mode(0o750)).expect("mode");
        let archive = scratch.path().join("m.tgz");
        let status = std::process::Command::new("tar")
            .arg("-C")
            .arg(&tree)
            .arg("-czf")
            .arg(&archive)
            .arg(".")
            .status()
            .expect("GNU tar");
        assert!(status.success());
        let archive = fs::read(&archive).expect("the tarball");

        let staging = scratch.path().join("staging");
        fs::create_dir(&staging).expect("the staging folder");
        let mut sink = StagedPackage::with_format(
            staging.clone(),
            scratch.path().join("module"),
            ArchiveFormat::TarGz,
        )
        .expect("supported");
        for chunk in archive.chunks(1000) {
            sink.write(chunk).expect("written");
        }
        let staged = sink.finish().expect("finished");
        let tar = staged.tar_unpacked().expect("unpacked").clone();
        assert_eq!(tar.files, 5);
        assert_eq!(staged.digest().size, archive.len() as u64);
        assert_eq!(tar.sha256, <[u8; 32]>::from(Sha256::digest(&archive)));
        assert!(
            staged.digest().hashes.is_err(),
            "no provider package hashes"
        );
        staged.apply_modes().expect("modes");
        let mode = |path: &str| {
            fs::symlink_metadata(staging.join(path))
                .expect("there")
                .permissions()
                .mode()
        };
        assert_eq!(mode("main.tf"), 0o100644);
        assert_eq!(mode("bin/run.sh"), 0o100755);
        assert_eq!(mode("secret"), 0o100600);
        assert_eq!(mode("private/ro"), 0o100444);
        assert_eq!(mode("link"), 0o100777, "a regular file");
        assert_eq!(mode("private"), 0o40700);
        assert_eq!(mode("bin"), 0o40755);
        assert_eq!(mode(""), 0o40750);
        assert_eq!(
            fs::read(staging.join("bin/run.sh")).expect("read"),
            b"#!/bin/sh\n"
        );
        assert!(fs::read(staging.join("link")).expect("read").is_empty());
        let files: Vec<(String, [u8; 32])> =
            ["bin/run.sh", "link", "main.tf", "private/ro", "secret"]
                .iter()
                .map(|p| {
                    let bytes = fs::read(staging.join(p)).expect("read");
                    ((*p).to_owned(), Sha256::digest(&bytes).into())
                })
                .collect();
        assert_eq!(
            staged.h1(),
            Some(tfdisco_provider::hash1_of_files(&files).expect("an h1"))
        );
        fs::set_permissions(&staging, fs::Permissions::from_mode(0o755)).expect("cleanable");

        // One compressed file is no folder (TAR-1).
        let err = StagedPackage::with_format(
            staging.clone(),
            scratch.path().join("module"),
            ArchiveFormat::Xz,
        )
        .expect_err("no folder");
        assert_eq!(err.format, ArchiveFormat::Xz);
    }

    /// A `.tar.gz` the unpacker refuses: the download runs to its end, the
    /// digest says why (TAR-6).
    #[test]
    fn a_refused_tar_gz_is_no_package() {
        let (scratch, _) = staged();
        let staging = scratch.path().join("staging");
        let mut sink = StagedPackage::with_format(
            staging,
            scratch.path().join("module"),
            ArchiveFormat::TarGz,
        )
        .expect("supported");
        sink.write(b"not gzip at all, really")
            .expect("the download goes on");
        let staged = sink.finish().expect("finished");
        assert!(staged.tar_unpacked().is_none());
        assert!(staged.h1().is_none());
        let err = staged.digest().hashes.clone().expect_err("refused");
        assert!(err.to_string().contains("invalid gzip header"), "{err}");
    }

    /// A stored zip of empty entries (a name ending in `/` is a folder).
    fn empty_entries(names: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for name in names {
            let offset = out.len() as u32;
            let len = (name.len() as u16).to_le_bytes();
            out.extend_from_slice(b"PK\x03\x04\x14\0\0\0\0\0\0\0\0\0");
            out.extend_from_slice(&[0; 12]);
            out.extend_from_slice(&len);
            out.extend_from_slice(&[0, 0]);
            out.extend_from_slice(name.as_bytes());
            let mode: u32 = if name.ends_with('/') {
                0o40755
            } else {
                0o100644
            };
            central.extend_from_slice(b"PK\x01\x02\x14\x03\x14\0\0\0\0\0\0\0\0\0");
            central.extend_from_slice(&[0; 12]);
            central.extend_from_slice(&len);
            central.extend_from_slice(&[0; 8]);
            central.extend_from_slice(&(mode << 16).to_le_bytes());
            central.extend_from_slice(&offset.to_le_bytes());
            central.extend_from_slice(name.as_bytes());
        }
        let start = (out.len() as u32).to_le_bytes();
        out.extend_from_slice(&central);
        let count = (names.len() as u16).to_le_bytes();
        out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
        out.extend_from_slice(&count);
        out.extend_from_slice(&count);
        out.extend_from_slice(&(central.len() as u32).to_le_bytes());
        out.extend_from_slice(&start);
        out.extend_from_slice(&[0, 0]);
        out
    }
}
