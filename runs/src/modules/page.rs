//! A module package URL that is no archive (docs/behaviour.md, MOD-7), as
//! go-getter's http getter fetches it for Terraform: the page is asked for
//! the package's source (`X-Terraform-Get`, else its meta tag), which is
//! fetched as any package address — an archive, a Git repository or
//! another page, at most [`PAGE_HOPS`] pages in all — and a `//subdir` it
//! names keeps only that folder of what was fetched.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use tfdisco_core::{Dialect, Error, Getter, ModulePackage, go_clean, go_quote};

use super::fetch::{Remote, archive_url, host_of};
use crate::{On, Transport};

/// How many pages are followed (Terraform's `XTerraformGetLimit`).
pub(super) const PAGE_HOPS: usize = 10;

/// A page followed: its URL (what errors past it are wrapped in, as each
/// go-getter client wraps its getter's: `error downloading 'URL': …`) and
/// the subdirectory its source named.
struct Hop {
    /// The page's URL as go-getter shows it (`ModulePackage::redacted_url`).
    shown: String,
    subdir: String,
}

impl<T: Transport> On<'_, T> {
    /// Fetches the package the page at `package` (an http(s) URL that is no
    /// archive) names into `into`, and says what identifies it: what the
    /// last fetch says (an archive's `h1:`, `git:` and a commit).
    pub(super) async fn fetch_module_page(
        &self,
        package: &ModulePackage,
        into: &Path,
        dialect: Dialect,
    ) -> Result<String, String> {
        let mut hops: Vec<Hop> = Vec::new();
        let mut page = package.clone();
        let last = loop {
            match self.follow(&page, &hops, dialect).await {
                Ok((hop, next)) => {
                    hops.push(hop);
                    if is_page(&next) {
                        page = next;
                        continue;
                    }
                    break next;
                }
                Err(e) => return Err(wrapped(&hops, e)),
            }
        };
        let kept = kept_subdirs(&hops)?;
        if kept.is_empty() {
            return Box::pin(self.fetch_module_package(
                &Remote::Address(last),
                into,
                dialect,
                None,
            ))
            .await
            .map_err(|e| wrapped(&hops, e));
        }
        // go-getter's `getSubdir`: the whole package in a folder of its
        // own, then the subdirectory copied.
        let whole = whole_folder(into);
        let result =
            Box::pin(self.fetch_module_package(&Remote::Address(last), &whole, dialect, None))
                .await
                .map_err(|e| wrapped(&hops, e))
                .and_then(|id| keep_subdir(&whole, &kept, &hops, into).map(|()| id));
        let _ = fs::remove_dir_all(&whole);
        result
    }

    /// One page: the hop limit, a `checksum=` refused, the request, the
    /// source it names checked; the hop and the package named.
    async fn follow(
        &self,
        page: &ModulePackage,
        hops: &[Hop],
        dialect: Dialect,
    ) -> Result<(Hop, ModulePackage), String> {
        let url = archive_url(page.url())?;
        if let Some(value) = page.checksum() {
            self.archive_checksum(value, &url).await?;
            return Err("checksum cannot be specified for directory download".to_owned());
        }
        let shown = page.redacted_url();
        let at = |e: String| format!("error downloading '{shown}': {e}");
        if hops.len() >= PAGE_HOPS {
            return Err(at(format!(
                "too many X-Terraform-Get redirects: {}",
                hops.len() + 1
            )));
        }
        let host = host_of(&url)?;
        let source = self
            .package_page(&url, &host)
            .await
            .map_err(|e| at(page_error(e)))?
            .ok_or_else(|| at("no source URL was returned".to_owned()))?;
        let (next, subdir) = ModulePackage::from_page_source(&source, dialect).map_err(at)?;
        Ok((Hop { shown, subdir }, next))
    }
}

/// Whether `package` is another page: an http(s) URL that is no archive.
fn is_page(package: &ModulePackage) -> bool {
    matches!(package.getter(), Some(Getter::Http | Getter::Https)) && package.archive().is_none()
}

/// go-getter's words for a page request that failed.
fn page_error(error: Error) -> String {
    match error {
        Error::Status { status, .. } => format!("bad response code: {}", status.as_u16()),
        Error::InvalidResponse { problem, .. } => problem,
        other => other.to_string(),
    }
}

/// `error` as the clients of the pages `hops` wrap it, the first outside.
fn wrapped(hops: &[Hop], error: String) -> String {
    hops.iter().rev().fold(error, |e, hop| {
        format!("error downloading '{}': {e}", hop.shown)
    })
}

/// A page's subdirectory: cleaned, as written, and which page named it.
#[derive(Debug, PartialEq)]
struct Kept {
    path: PathBuf,
    given: String,
    at: usize,
}

/// The subdirectories the pages named, the last page's first: each is one
/// of what the next page's source gives (go-getter's nested `getSubdir`s).
fn kept_subdirs(hops: &[Hop]) -> Result<Vec<Kept>, String> {
    let mut kept = Vec::new();
    for (at, hop) in hops.iter().enumerate().rev() {
        if hop.subdir.is_empty() {
            continue;
        }
        let clean = go_clean(&hop.subdir);
        let refuse = |why: String| Err(wrapped(&hops[..=at], why));
        if clean == ".." || clean.starts_with("../") || clean.starts_with('/') {
            return refuse(format!(
                "the subdirectory {} leads outside of the package",
                go_quote(&hop.subdir)
            ));
        }
        if hop.subdir.contains(['*', '?', '[', '\\']) {
            return refuse(format!(
                "tfdisco does not read a glob in a subdirectory ({}) yet",
                go_quote(&hop.subdir)
            ));
        }
        kept.push(Kept {
            path: PathBuf::from(clean),
            given: hop.subdir.clone(),
            at,
        });
    }
    Ok(kept)
}

/// The folder beside `into` the whole package goes into first.
fn whole_folder(into: &Path) -> PathBuf {
    let mut name = into.file_name().unwrap_or_default().to_os_string();
    name.push(".whole");
    into.with_file_name(name)
}

/// go-getter's `SubdirGlob` and `copyDir`, from the last page's
/// subdirectory to the first: each must exist (else `subdir "x" not
/// found`, wrapped by the pages up to the one that named it); the last
/// folder is copied into `into` (made with mode 0755).
fn keep_subdir(whole: &Path, kept: &[Kept], hops: &[Hop], into: &Path) -> Result<(), String> {
    let mut from = whole.to_owned();
    for subdir in kept {
        from.push(&subdir.path);
        if fs::symlink_metadata(&from).is_err() {
            let missing = format!("subdir {} not found", go_quote(&subdir.given));
            return Err(wrapped(&hops[..=subdir.at], missing));
        }
    }
    make_folder(into)
        .and_then(|()| match fs::canonicalize(&from) {
            Ok(from) if from.is_dir() => copy_followed(&from, into),
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        })
        .map_err(|e| format!("{}: {e}", into.display()))
}

/// go-getter's `copyDir`: every entry, dot files too; folders made with
/// mode 0755, files copied with their modes, a link copied as the file it
/// leads to.
fn copy_followed(from: &Path, to: &Path) -> io::Result<()> {
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let source = entry.path();
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            make_folder(&target)?;
            copy_followed(&source, &target)?;
        } else {
            fs::copy(&source, &target)?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn make_folder(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    fs::DirBuilder::new().mode(0o755).create(path)?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn make_folder(path: &Path) -> io::Result<()> {
    fs::create_dir(path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_page_url_is_shown_without_its_password_and_subdirs_are_kept_last_first() {
        let page = ModulePackage::parse("https://me:secret@h/p?x=1", Dialect::Terraform)
            .expect("a package");
        assert_eq!(page.redacted_url(), "https://me:redacted@h/p?x=1");
        let hop = |url: &str, subdir: &str| Hop {
            shown: ModulePackage::parse(url, Dialect::Terraform)
                .expect("a package")
                .redacted_url(),
            subdir: subdir.to_owned(),
        };
        let hops = [
            hop("https://h/a", "x/"),
            hop("https://h/b", ""),
            hop("https://h/c", "y/z"),
        ];
        let kept = |path: &str, given: &str, at| Kept {
            path: PathBuf::from(path),
            given: given.to_owned(),
            at,
        };
        assert_eq!(
            kept_subdirs(&hops).expect("kept"),
            [kept("y/z", "y/z", 2), kept("x", "x/", 0)]
        );
        assert_eq!(kept_subdirs(&hops[1..2]).expect("none"), []);

        // The first that is missing is reported by the page that named it.
        let whole = tempfile::tempdir().expect("a folder");
        fs::create_dir_all(whole.path().join("y/z")).expect("folders");
        let into = whole.path().join("into");
        assert_eq!(
            keep_subdir(
                whole.path(),
                &kept_subdirs(&hops).expect("kept"),
                &hops,
                &into
            ),
            Err("error downloading 'https://h/a': subdir \"x/\" not found".to_owned())
        );
        fs::create_dir_all(whole.path().join("y/z/x/d")).expect("folders");
        fs::write(whole.path().join("y/z/x/d/f.tf"), "# f\n").expect("a file");
        std::os::unix::fs::symlink("d/f.tf", whole.path().join("y/z/x/l.tf")).expect("a link");
        keep_subdir(
            whole.path(),
            &kept_subdirs(&hops).expect("kept"),
            &hops,
            &into,
        )
        .expect("copied");
        assert_eq!(
            fs::read_to_string(into.join("d/f.tf")).expect("copied"),
            "# f\n"
        );
        let link = fs::symlink_metadata(into.join("l.tf")).expect("copied");
        assert!(link.is_file(), "a link is copied as its file");
        assert_eq!(
            kept_subdirs(&[hop("https://u:p@h/a", "../up")]).expect_err("outside"),
            "error downloading 'https://u:redacted@h/a': the subdirectory \"../up\" leads outside \
             of the package"
        );
        assert!(kept_subdirs(&[hop("https://h/a", "m*")]).is_err());
    }
}
