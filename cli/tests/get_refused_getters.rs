//! The getters `tfdisco get` does not run (docs/behaviour.md, MOD-9):
//! `s3::`, `gcs::`, `hg::` and `file` (absolute paths) refused by name, a
//! getter neither CLI has in go-getter's words; each before any request,
//! nothing placed and no `modules.json` written.
#![cfg(unix)]

mod common;

use common::{Workspace, get_in};

#[test]
fn getters_tfdisco_does_not_run_are_refused_by_name_and_place_nothing() {
    for (source, words) in [
        (
            "s3::https://s3.amazonaws.com/bucket/module.zip",
            "tfdisco does not download s3:: module packages",
        ),
        (
            "gcs::https://www.googleapis.com/storage/v1/bucket/module.zip",
            "tfdisco does not download gcs:: module packages",
        ),
        (
            "hg::https://hg.example.com/module",
            "tfdisco does not download hg:: module packages",
        ),
        (
            "/srv/modules/net",
            "tfdisco does not download file:: module packages",
        ),
        (
            "ftp::ftp://ftp.example.com/module.zip",
            "download not supported for scheme 'ftp'",
        ),
    ] {
        let work = Workspace::new(&format!("module \"m\" {{\n  source = \"{source}\"\n}}\n"));
        let run = get_in(&work.home, &work.dir, "terraform", &[]);
        assert_eq!(run.code, Some(1), "{source}: {}", run.stderr);
        assert!(run.stderr.contains(words), "{source}: {}", run.stderr);
        let modules = work.dir.join(".terraform/modules");
        assert!(
            !modules.join("modules.json").exists() && !modules.join("m").exists(),
            "{source}: nothing placed"
        );
    }
}
