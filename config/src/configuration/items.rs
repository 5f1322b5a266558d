//! What one configuration file says about providers and modules, in either
//! syntax: the blocks and attributes the provider requirements depend on
//! (docs/behaviour.md, TFCFG-2 to TFCFG-4).

/// Where something is: the line (from 1), when the syntax tells it.
pub(super) type Line = Option<usize>;

/// The value of one `required_providers` entry.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum EntryValue {
    /// A primitive value (string, number, bool; `None` for null): the
    /// legacy form `aws = "~> 5.0"`.
    Primitive(Option<String>),
    /// The object form, its keys in file order.
    Object(Vec<(String, Field, Line)>),
    /// Anything else.
    Other,
}

/// One field of an object entry.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Field {
    String(String),
    /// Not a static string: Go's summary and detail.
    NotString,
    /// A value read elsewhere (`configuration_aliases`).
    Ignored,
}

#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub(super) name: String,
    pub(super) value: EntryValue,
    pub(super) line: Line,
}

#[derive(Debug, Clone)]
pub(super) struct RequiredProvidersBlock {
    pub(super) entries: Vec<Entry>,
    pub(super) line: Line,
}

#[derive(Debug, Clone)]
pub(super) struct ProviderBlock {
    pub(super) name: String,
    pub(super) alias: Option<String>,
    /// The deprecated `version` argument.
    pub(super) version: Option<String>,
    pub(super) line: Line,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Mode {
    Managed,
    Data,
    Ephemeral,
}

impl Mode {
    pub(super) fn keyword(self) -> &'static str {
        match self {
            Mode::Managed => "resource",
            Mode::Data => "data",
            Mode::Ephemeral => "ephemeral",
        }
    }
}

#[derive(Debug, Clone)]
pub(super) struct ResourceBlock {
    pub(super) mode: Mode,
    pub(super) type_name: String,
    pub(super) name: String,
    /// The local name of the `provider` meta-argument (`aws` of
    /// `aws.west`).
    pub(super) provider: Option<String>,
    pub(super) line: Line,
}

#[derive(Debug, Clone)]
pub(super) struct ModuleCall {
    pub(super) name: String,
    pub(super) source: Option<String>,
    /// The `version` constraint, as written.
    pub(super) version: Option<String>,
    pub(super) line: Line,
}

/// One file's contributions.
#[derive(Debug, Default)]
pub(super) struct Items {
    pub(super) required_providers: Vec<RequiredProvidersBlock>,
    pub(super) providers: Vec<ProviderBlock>,
    pub(super) resources: Vec<ResourceBlock>,
    pub(super) module_calls: Vec<ModuleCall>,
}
