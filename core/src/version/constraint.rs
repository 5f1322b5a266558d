//! Version constraints as both CLIs read them for providers:
//! go-versions' "Ruby-style" syntax (`constraints.ParseRubyStyle`,
//! `ParseRubyStyleMulti`), the versions they allow (`MeetingConstraints`)
//! and Terraform's normalised string (`VersionConstraintsString`)
//! (docs/behaviour.md, VER-4 to VER-10).

use std::cmp::Ordering;
use std::fmt;

use super::{NUMBER_NAMES, Version, VersionError, is_wildcard, parse_number, scan};
use crate::{Dialect, go_quote};

/// A constraint's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operator {
    /// `=`, or no operator: this version (build metadata included).
    Equal,
    /// `!=`: any version but this one.
    NotEqual,
    /// `>`.
    GreaterThan,
    /// `>=`.
    GreaterThanOrEqual,
    /// `<`.
    LessThan,
    /// `<=`.
    LessThanOrEqual,
    /// `~>` with three numbers (`~> 1.2.3`): at least this version, below
    /// the next minor version.
    PessimisticPatch,
    /// `~>` with one or two numbers (`~> 1.2`, `~> 1`): at least this
    /// version, below the next major version.
    PessimisticMinor,
}

impl Operator {
    /// How the operator is written: `=` is written as nothing.
    pub fn symbol(self) -> &'static str {
        match self {
            Operator::Equal => "",
            Operator::NotEqual => "!=",
            Operator::GreaterThan => ">",
            Operator::GreaterThanOrEqual => ">=",
            Operator::LessThan => "<",
            Operator::LessThanOrEqual => "<=",
            Operator::PessimisticPatch | Operator::PessimisticMinor => "~>",
        }
    }

    /// Terraform's order of operators on the same version in
    /// `VersionConstraintsString` (`versionSelectionsBoundaryPriority`).
    fn priority(self) -> u8 {
        match self {
            Operator::GreaterThan => 1,
            Operator::GreaterThanOrEqual => 2,
            Operator::Equal => 3,
            Operator::PessimisticPatch => 4,
            Operator::PessimisticMinor => 5,
            Operator::LessThanOrEqual => 6,
            Operator::LessThan => 7,
            Operator::NotEqual => 8,
        }
    }
}

/// One constraint: an operator and a boundary version whose minor and
/// patch numbers may be left out (`>= 1.2`), as go-versions'
/// `SelectionSpec` holds it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Constraint {
    operator: Operator,
    /// Major, minor, patch; `None` where the constraint left it out. A
    /// number is only left out when all those after it are too, and then
    /// there is no pre-release or build metadata.
    numbers: [Option<u64>; 3],
    pre: String,
    build: String,
}

impl Constraint {
    /// Parses exactly one constraint, as go-versions'
    /// `constraints.ParseRubyStyle` does. The CLIs read constraint lists
    /// ([`VersionConstraints::parse`]); this is the same grammar for one.
    pub fn parse(input: &str, dialect: Dialect) -> Result<Constraint, VersionError> {
        if input.trim().is_empty() {
            return Err(VersionError::new("empty specification"));
        }
        let (constraint, remain) = parse_ruby_style(input, dialect)?;
        if !remain.is_empty() {
            let rest = remain.trim();
            let message = if rest.is_empty() {
                "extraneous spaces at end of specification".to_owned()
            } else if rest.starts_with('v') {
                r#"a "v" prefix should not be used"#.to_owned()
            } else if rest.starts_with("||") || rest.starts_with(',') {
                "only one constraint may be specified".to_owned()
            } else if rest.starts_with('-') {
                "range constraints are not supported".to_owned()
            } else {
                format!("invalid characters {}", go_quote(rest))
            };
            return Err(VersionError::new(message));
        }
        Ok(constraint)
    }

    /// The operator.
    pub fn operator(&self) -> Operator {
        self.operator
    }

    /// Major, minor and patch of the boundary, `None` where left out.
    pub fn numbers(&self) -> [Option<u64>; 3] {
        self.numbers
    }

    /// The boundary's pre-release (empty if none).
    pub fn pre(&self) -> &str {
        &self.pre
    }

    /// The boundary's build metadata (empty if none).
    pub fn build(&self) -> &str {
        &self.build
    }

    /// The boundary with left-out numbers as zero (go-versions'
    /// `ConstrainToZero`).
    pub fn boundary(&self) -> Version {
        Version::from_parts(self.numbers.map(|n| n.unwrap_or(0)), &self.pre, &self.build)
    }

    /// Whether `version` is in this constraint's range, before the rule on
    /// pre-releases (go-versions' `MeetingConstraintsExact`, VER-6): `=`
    /// and `!=` compare whole versions, build metadata included; the other
    /// operators compare precedence, and `~>` stops below the next major
    /// (one or two numbers given) or minor (three) version.
    pub fn matches(&self, version: &Version) -> bool {
        let lower = self.boundary();
        let cmp = || version.cmp_precedence(&lower);
        match self.operator {
            Operator::Equal => *version == lower,
            Operator::NotEqual => *version != lower,
            Operator::GreaterThan => cmp() == Ordering::Greater,
            Operator::GreaterThanOrEqual => cmp() != Ordering::Less,
            Operator::LessThan => cmp() == Ordering::Less,
            Operator::LessThanOrEqual => cmp() != Ordering::Greater,
            Operator::PessimisticPatch | Operator::PessimisticMinor => {
                // Go's uint64 arithmetic wraps: `~> 18446744073709551615.0`
                // has the upper bound 0.0.0 and allows nothing.
                let upper = if self.operator == Operator::PessimisticMinor {
                    Version::new(lower.major().wrapping_add(1), 0, 0)
                } else {
                    Version::new(lower.major(), lower.minor().wrapping_add(1), 0)
                };
                cmp() != Ordering::Less && version.cmp_precedence(&upper) == Ordering::Less
            }
        }
    }

    /// Whether this constraint names `version` exactly (an `=` constraint
    /// on it, build metadata included): the only way a pre-release is
    /// allowed (VER-7).
    fn requests(&self, version: &Version) -> bool {
        self.operator == Operator::Equal && self.boundary() == *version
    }

    /// What `VersionConstraintsString` compares and de-duplicates: the
    /// operator and the boundary with left-out numbers as zero.
    fn normalised(&self) -> (Operator, Version) {
        (self.operator, self.boundary())
    }
}

/// The constraint as `VersionConstraintsString` writes it (VER-9): the
/// operator and a space (nothing for `=`), then the boundary with all three
/// numbers (two for `~>` given one or two), pre-release and build metadata.
impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_normalised(f, self.operator, &self.boundary())
    }
}

fn write_normalised(f: &mut fmt::Formatter<'_>, operator: Operator, v: &Version) -> fmt::Result {
    if operator != Operator::Equal {
        write!(f, "{} ", operator.symbol())?;
    }
    if operator == Operator::PessimisticMinor {
        write!(f, "{}.{}", v.major(), v.minor())?;
    } else {
        write!(f, "{}.{}.{}", v.major(), v.minor(), v.patch())?;
    }
    if !v.pre().is_empty() {
        write!(f, "-{}", v.pre())?;
    }
    if !v.build().is_empty() {
        write!(f, "+{}", v.build())?;
    }
    Ok(())
}

/// go-versions' `parseRubyStyle`: one constraint from the start of `input`,
/// and the rest of the input from where the scanner stopped.
fn parse_ruby_style(input: &str, dialect: Dialect) -> Result<(Constraint, &str), VersionError> {
    let (raw, remain) = scan::scan(input, dialect);
    let operator = match raw.op {
        "=" | "" => Operator::Equal,
        "!=" => Operator::NotEqual,
        ">" => Operator::GreaterThan,
        ">=" => Operator::GreaterThanOrEqual,
        "<" => Operator::LessThan,
        "<=" => Operator::LessThanOrEqual,
        "~>" if raw.num_count == 3 => Operator::PessimisticPatch,
        "~>" => Operator::PessimisticMinor,
        "=<" => {
            return Err(VersionError::new(
                r#"invalid constraint operator "=<"; did you mean "<="?"#,
            ));
        }
        "=>" => {
            return Err(VersionError::new(
                r#"invalid constraint operator "=>"; did you mean ">="?"#,
            ));
        }
        op => {
            return Err(VersionError::new(format!(
                "invalid constraint operator {}",
                go_quote(op)
            )));
        }
    };
    match raw.sep {
        "" => {}
        " " if !raw.op.is_empty() => {}
        sep => {
            let message = if sep.contains('v') {
                r#"a "v" prefix should not be used when specifying versions"#.to_owned()
            } else if raw.op.is_empty() {
                "extraneous spaces at start of specification".to_owned()
            } else {
                format!(
                    "only one space is expected after the operator {}",
                    go_quote(raw.op)
                )
            };
            return Err(VersionError::new(message));
        }
    }
    if raw.num_count > 3 {
        return Err(VersionError::too_many_numbers());
    }
    for (i, num) in raw.nums.iter().enumerate() {
        if is_wildcard(num) {
            return Err(VersionError::new(format!(
                "can't use wildcard for {} number; omit segments that should be unconstrained",
                NUMBER_NAMES[i]
            )));
        }
    }
    // A pre-release or build metadata makes left-out numbers zero.
    let zero_fill = !raw.pre.is_empty() || !raw.meta.is_empty();
    let mut numbers = [None; 3];
    for (slot, num) in numbers.iter_mut().zip(raw.nums) {
        *slot = match num {
            "" if zero_fill => Some(0),
            "" => None,
            num => Some(parse_number(num)?),
        };
    }
    let constraint = Constraint {
        operator,
        numbers,
        pre: raw.pre.to_owned(),
        build: raw.meta.to_owned(),
    };
    Ok((constraint, remain))
}

/// The version constraints on one provider: every constraint must hold
/// (go-versions' `IntersectionSpec`, Terraform's `VersionConstraints`).
/// Empty, it allows every release.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct VersionConstraints {
    constraints: Vec<Constraint>,
}

impl VersionConstraints {
    /// No constraints: any release.
    pub fn new() -> VersionConstraints {
        VersionConstraints::default()
    }

    /// Parses comma-separated constraints as Terraform's
    /// `getproviders.ParseVersionConstraints`
    /// (`constraints.ParseRubyStyleMulti`) does (VER-4, VER-5): `=`, `!=`,
    /// `>`, `>=`, `<`, `<=`, `~>` or no operator, at most one space after
    /// the operator, one to three numbers, `-PRE`, `+BUILD`. Spaces around
    /// the commas and the whole are ignored, and so is one trailing comma;
    /// an empty string is no constraints. The errors have go-versions'
    /// wording, `invalid specification "…": ` and the problem with the
    /// constraint at fault; `dialect` picks the release of go-versions whose
    /// wording is used (Terraform v1.0.2, OpenTofu v1.0.3).
    pub fn parse(input: &str, dialect: Dialect) -> Result<VersionConstraints, VersionError> {
        let mut constraints = Vec::new();
        let mut remain = input.trim();
        while !remain.is_empty() {
            let (constraint, rest) = parse_ruby_style(remain, dialect).map_err(|e| {
                // The scanner's stopping point names the piece at fault.
                let (_, stopped) = scan::scan(remain, dialect);
                let consumed = &remain[..remain.len() - stopped.len()];
                VersionError::new(format!("invalid specification {}: {e}", go_quote(consumed)))
            })?;
            let consumed = &remain[..remain.len() - rest.len()];
            remain = rest.trim();
            if !remain.is_empty() {
                if remain.starts_with('v') {
                    return Err(VersionError::new(match dialect {
                        Dialect::Terraform => r#"a "v" prefix should not be used"#,
                        Dialect::OpenTofu => {
                            r#"a "v" prefix should not be used when specifying versions"#
                        }
                    }));
                }
                let Some(after_comma) = remain.strip_prefix(',') else {
                    return Err(VersionError::new(format!(
                        "missing comma after {}",
                        go_quote(consumed)
                    )));
                };
                remain = after_comma.trim();
            }
            constraints.push(constraint);
        }
        Ok(VersionConstraints { constraints })
    }

    /// The constraints, in the order given.
    pub fn constraints(&self) -> &[Constraint] {
        &self.constraints
    }

    /// Whether there are none (any release is allowed).
    pub fn is_empty(&self) -> bool {
        self.constraints.is_empty()
    }

    /// Adds one constraint.
    pub fn push(&mut self, constraint: Constraint) {
        self.constraints.push(constraint);
    }

    /// Adds another module's constraints on the same provider, as
    /// Terraform's `Requirements.Merge` appends them (VER-10): all of both
    /// must hold. Duplicates stay; the string form drops them.
    pub fn merge(&mut self, other: &VersionConstraints) {
        self.constraints.extend(other.constraints.iter().cloned());
    }

    /// Whether `version` meets the constraints, as go-versions'
    /// `MeetingConstraints` set contains it (VER-6 to VER-8): every
    /// constraint matches ([`Constraint::matches`]); a pre-release only if
    /// an `=` constraint names it exactly; and never `0.0.0` itself
    /// (go-versions' `Unspecified`).
    pub fn allows(&self, version: &Version) -> bool {
        if version.is_unspecified() {
            return false;
        }
        self.constraints.iter().all(|c| c.matches(version))
            && (!version.is_prerelease() || self.constraints.iter().any(|c| c.requests(version)))
    }

    /// The constraints as `VersionConstraintsString` orders them, without
    /// duplicates: sorted by boundary (precedence, then build metadata),
    /// then by operator (`>`, `>=`, `=`, `~>` with three numbers, `~>` with
    /// fewer, `<=`, `<`, `!=`); two constraints are duplicates when operator
    /// and boundary (left-out numbers as zero) are the same.
    fn normalised(&self) -> Vec<(Operator, Version)> {
        let mut all: Vec<(Operator, Version)> = self
            .constraints
            .iter()
            .map(Constraint::normalised)
            .collect();
        all.sort_by(|(a_op, a), (b_op, b)| {
            a.cmp(b).then_with(|| a_op.priority().cmp(&b_op.priority()))
        });
        all.dedup();
        all
    }
}

/// The normalised string Terraform writes as a lock file's `constraints`
/// and prints in its messages (`VersionConstraintsString`, VER-9): the
/// constraints in order without duplicates, each as [`Constraint`]'s
/// `Display` writes it, joined by `, `. Empty for no constraints.
impl fmt::Display for VersionConstraints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (operator, boundary)) in self.normalised().iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write_normalised(f, *operator, boundary)?;
        }
        Ok(())
    }
}

impl FromIterator<Constraint> for VersionConstraints {
    fn from_iter<I: IntoIterator<Item = Constraint>>(iter: I) -> VersionConstraints {
        VersionConstraints {
            constraints: iter.into_iter().collect(),
        }
    }
}
