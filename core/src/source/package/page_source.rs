//! The source a package page names (go-getter's http getter, MOD-7): its
//! `//subdir` split off as written, the rest held to go-getter's `Detect`
//! with no detectors (a URL with a scheme, maybe after a forced
//! `getter::`), its protocol one of `init`'s getters.

use super::detect::forced_getter;
use super::go_url::GoUrl;
use super::{Getter, ModulePackage};
use crate::source::module::split_raw;
use crate::{Dialect, go_quote};

impl ModulePackage {
    /// The package a page's `X-Terraform-Get` (or meta tag) `source`
    /// names, and the subdirectory of it to keep (as written; empty when
    /// none). Errors are go-getter's (`invalid source string: …`, `no
    /// getter available for X-Terraform-Get source protocol: "x"`).
    pub fn from_page_source(
        source: &str,
        dialect: Dialect,
    ) -> Result<(ModulePackage, String), String> {
        let (rest, subdir) = split_raw(source);
        let (_, url) = forced_getter(&rest);
        let (url, _) = split_raw(url);
        if !GoUrl::parse(url.as_bytes()).is_ok_and(|u| !u.scheme.is_empty()) {
            return Err(format!("invalid source string: {rest}"));
        }
        // With a scheme the source cannot start `/`, `./` or `../`
        // (go-getter's `relativeGet`), so it always has a protocol: what
        // comes before its first `:`, as written (`GIT::` is not `git::`).
        let protocol = rest.split(':').next().unwrap_or_default();
        if Getter::named(protocol, dialect).is_none() {
            return Err(format!(
                "no getter available for X-Terraform-Get source protocol: {}",
                go_quote(protocol)
            ));
        }
        let package = ModulePackage::parse(&rest, dialect).map_err(|e| e.message().to_owned())?;
        Ok((package, subdir))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(source: &str) -> Result<(String, String), String> {
        ModulePackage::from_page_source(source, Dialect::Terraform)
            .map(|(package, subdir)| (package.address().to_owned(), subdir))
    }

    #[test]
    fn a_page_source_is_a_url_with_a_scheme_and_a_getter() {
        let ok = |a: &str, s: &str| Ok((a.to_owned(), s.to_owned()));
        assert_eq!(page("https://h/x.zip"), ok("https://h/x.zip", ""));
        assert_eq!(
            page("https://h/x.tgz//modules/a?archive=tgz"),
            ok("https://h/x.tgz?archive=tgz", "modules/a")
        );
        assert_eq!(
            page("git::https://h/r.git//sub?ref=v1"),
            ok("git::https://h/r.git?ref=v1", "sub")
        );
        assert_eq!(
            page("s3::https://s3.amazonaws.com/b/k"),
            ok("s3::https://s3.amazonaws.com/b/k", "")
        );
        // No detectors: shorthands and relative paths are refused.
        for source in [
            "github.com/acme/vpc",
            "./vpc.zip",
            "/vpc.zip",
            "git::h/r.git",
            "//sub",
        ] {
            assert!(
                page(source)
                    .expect_err(source)
                    .starts_with("invalid source string: "),
                "{source}"
            );
        }
        assert_eq!(
            page("github.com/acme/vpc//sub").expect_err("no scheme"),
            "invalid source string: github.com/acme/vpc"
        );
        for (source, protocol) in [
            ("ftp://h/x.zip", "ftp"),
            ("HTTPS://h/x.zip", "HTTPS"),
            ("GIT::https://h/r.git", "GIT"),
            ("oci://h/r", "oci"),
        ] {
            assert_eq!(
                page(source).expect_err(source),
                format!("no getter available for X-Terraform-Get source protocol: \"{protocol}\"")
            );
        }
    }
}
