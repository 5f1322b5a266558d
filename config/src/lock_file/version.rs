//! The version number of a lock (docs/behaviour.md, LOCK-3): Go's
//! `providerreqs.ParseVersion` (apparentlymart/go-versions) reads one to
//! three numbers, a pre-release and build metadata; the lock file must hold
//! its normalized form, `MAJOR.MINOR.PATCH[-PRE][+META]`.

/// Why a version number is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum VersionProblem {
    /// It does not parse: what Go would say after "is invalid: ".
    Invalid(String),
    /// It parses, but is not written in the normalized form given.
    NotNormalized(String),
}

/// Checks that `given` is a version number in normalized form.
pub(crate) fn check(given: &str) -> Result<(), VersionProblem> {
    let canonical = normalize(given)?;
    if canonical == given {
        Ok(())
    } else {
        Err(VersionProblem::NotNormalized(canonical))
    }
}

/// The normalized form of a version number go-versions accepts.
fn normalize(given: &str) -> Result<String, VersionProblem> {
    if given.starts_with('v') {
        return Err(VersionProblem::Invalid(
            "a \"v\" prefix should not be used".into(),
        ));
    }
    let (rest, metadata) = match given.split_once('+') {
        Some((rest, meta)) => (rest, Some(meta)),
        None => (given, None),
    };
    let (numbers, prerelease) = match rest.split_once('-') {
        Some((numbers, pre)) => (numbers, Some(pre)),
        None => (rest, None),
    };
    let mut parts = [0u64; 3];
    for (count, part) in numbers.split('.').enumerate() {
        if count == 3 {
            return Err(VersionProblem::Invalid(format!(
                "too many numbered parts in {}",
                tfdisco_core::go_quote(numbers)
            )));
        }
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(VersionProblem::Invalid(format!(
                "invalid characters {}",
                tfdisco_core::go_quote(part)
            )));
        }
        parts[count] = part.parse().map_err(|_| {
            VersionProblem::Invalid(format!(
                "number {} is too large",
                tfdisco_core::go_quote(part)
            ))
        })?;
    }
    for (what, label) in [(prerelease, "pre-release"), (metadata, "build metadata")] {
        if let Some(label_text) = what {
            let valid = !label_text.is_empty()
                && label_text
                    .split('.')
                    .all(|id| !id.is_empty() && id.bytes().all(is_identifier_byte));
            if !valid {
                return Err(VersionProblem::Invalid(format!(
                    "invalid {label} {}",
                    tfdisco_core::go_quote(label_text)
                )));
            }
        }
    }
    let mut canonical = format!("{}.{}.{}", parts[0], parts[1], parts[2]);
    if let Some(pre) = prerelease {
        canonical.push('-');
        canonical.push_str(pre);
    }
    if let Some(meta) = metadata {
        canonical.push('+');
        canonical.push_str(meta);
    }
    Ok(canonical)
}

fn is_identifier_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_versions_pass() {
        for v in [
            "0.0.0",
            "3.2.1",
            "10.20.30",
            "1.0.0-beta1",
            "1.0.0-rc.1+build.5",
        ] {
            assert_eq!(check(v), Ok(()), "{v}");
        }
    }

    #[test]
    fn other_forms_name_the_normalized_one() {
        // Terraform 1.11.4: `version = "3.2"` and `version = 3`.
        for (given, canonical) in [("3.2", "3.2.0"), ("3", "3.0.0"), ("03.2.1", "3.2.1")] {
            assert_eq!(
                check(given),
                Err(VersionProblem::NotNormalized(canonical.into())),
                "{given}"
            );
        }
    }

    #[test]
    fn invalid_versions_say_why() {
        assert_eq!(
            check("v3.2.1"),
            Err(VersionProblem::Invalid(
                "a \"v\" prefix should not be used".into()
            ))
        );
        for v in [
            "x.y",
            "",
            "1..2",
            "1.2.3.4",
            "1.0.0-",
            "1.0.0+a..b",
            "99999999999999999999",
        ] {
            assert!(matches!(check(v), Err(VersionProblem::Invalid(_))), "{v}");
        }
    }
}
