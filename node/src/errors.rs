//! Rust errors as the JavaScript errors of `lib/errors.js`: one class per
//! error kind, made by the factory that `index.js` registers at load time
//! (`_setErrorFactory`), so that a thrown or rejected error is the
//! `TfdiscoError` subclass itself, with its `kind`, `url`, `status` and the
//! Rust message (which never contains credentials).

use std::borrow::Cow;
use std::io;

use napi::bindgen_prelude::{Either, Function, FunctionRef, Unknown};
use napi::{Env, Status};
use napi_derive::napi;
use tfdisco_config::MirrorError;
use tfdisco_provider::plan::LockFailure;
use tfdisco_runs::{
    CredentialsLookupError, ModuleFailure, OptionError, RunError, failure_exit_code, kinds,
};
/// Not a tfdisco kind: an argument of the wrong type, which becomes a
/// `TypeError`.
const TYPE: &str = "type";
/// Not a tfdisco kind: an operating system error (a file that cannot be
/// read), which becomes an `Error` shaped as Node's own (`code`, `errno`,
/// `syscall`, `path`).
const OS: &str = "os";

/// What the error factory gets: everything a JavaScript error of this
/// package carries. Fields left out are not set.
#[napi(object)]
#[derive(Default)]
pub struct ErrorSpec {
    /// The kind: an `ErrorKind` name, one of `tfdisco_runs::kinds`, or
    /// a lock run's kind (`configuration`, `lock_file`, `usage`, `failed`).
    pub kind: String,
    /// The Rust message.
    pub message: String,
    /// The request URL at fault.
    pub url: Option<String>,
    /// The HTTP status at fault.
    pub status: Option<u32>,
    /// A lock run's exit code (`tfdisco lock`'s).
    pub exit_code: Option<i32>,
    /// A lock run's failures, one per provider that failed; a get run's
    /// (kind `modules`), one per module that failed.
    pub failures: Option<Vec<Either<LockFailureObject, ModuleFailureObject>>>,
    /// What is wrong with a package (`not-a-zip`, `truncated`, …).
    pub problem: Option<String>,
    /// The OS error number (positive, as the OS gives it).
    pub errno: Option<i32>,
    /// The system call that failed.
    pub syscall: Option<String>,
    /// The file at fault.
    pub path: Option<String>,
}

/// One provider a lock run could not lock (`LockError.failures`).
#[napi(object, use_nullable = true)]
pub struct LockFailureObject {
    /// The provider's full address.
    pub source: String,
    /// The version, once one was selected.
    pub version: Option<String>,
    /// The platform (`OS_ARCH`), for a platform's package.
    pub platform: Option<String>,
    /// What failed: `version`, `platform`, `request`, `checksum`,
    /// `signature` or `package`.
    pub kind: String,
    /// `tfdisco lock`'s exit code for it: 3 or 1.
    pub exit_code: i32,
    /// The whole message.
    pub message: String,
}

impl From<&LockFailure> for LockFailureObject {
    fn from(failure: &LockFailure) -> Self {
        LockFailureObject {
            source: failure.source.to_string(),
            version: failure.version.as_ref().map(ToString::to_string),
            platform: failure.platform.as_ref().map(ToString::to_string),
            kind: failure.kind().to_owned(),
            exit_code: failure_exit_code(failure),
            message: failure.to_string(),
        }
    }
}

/// One module a get run could not install (`LockError.failures` of kind
/// `modules`): the members of `tfdisco get --json`'s `failures`.
#[napi(object)]
pub struct ModuleFailureObject {
    /// The module's key (`vpc`, `vpc.subnets`; empty for the root module).
    pub key: String,
    /// What failed: `configuration`, `invalid_source`, `no_version`,
    /// `registry` or `download`.
    pub kind: String,
    /// `tfdisco get`'s exit code for it: 3, 2 or 1.
    pub exit_code: i32,
    /// What `init` would say, with the call's file and line.
    pub message: String,
}

impl From<&ModuleFailure> for ModuleFailureObject {
    fn from(failure: &ModuleFailure) -> Self {
        ModuleFailureObject {
            key: failure.key.clone(),
            kind: failure.kind.as_str().to_owned(),
            exit_code: failure.kind.exit_code(),
            message: failure.diagnostic.located(),
        }
    }
}

/// An error on its way to JavaScript: made on any thread, turned into the
/// JavaScript error on the JavaScript thread ([`Failure::into_napi`]).
#[derive(Debug)]
pub(crate) struct Failure(Box<Spec>);

#[derive(Debug, Default)]
struct Spec {
    kind: Cow<'static, str>,
    message: String,
    url: Option<String>,
    status: Option<u16>,
    exit_code: Option<i32>,
    failures: Vec<LockFailure>,
    module_failures: Vec<ModuleFailure>,
    problem: Option<&'static str>,
    errno: Option<i32>,
    syscall: Option<&'static str>,
    path: Option<String>,
}

impl Failure {
    /// An error of `kind` with `message`.
    pub(crate) fn new(kind: &'static str, message: impl Into<String>) -> Failure {
        Failure(Box::new(Spec {
            kind: Cow::Borrowed(kind),
            message: message.into(),
            ..Spec::default()
        }))
    }

    /// A `TypeError` (`ERR_INVALID_ARG_TYPE`), as Node's own argument
    /// checks throw them.
    pub(crate) fn type_error(message: impl Into<String>) -> Failure {
        Failure::new(TYPE, message)
    }

    /// An `InvalidOptionError`.
    pub(crate) fn invalid_option(message: impl Into<String>) -> Failure {
        Failure::new(kinds::INVALID_OPTION, message)
    }

    /// A lock, mirror, install or get run that failed: its kind, message,
    /// exit code and failures (the providers', or the modules').
    pub(crate) fn lock(error: RunError) -> Failure {
        let message = error.to_string();
        let exit_code = error.exit_code();
        let kind = error.kind();
        let (failures, module_failures) = match error {
            RunError::Failed(failures) => (failures, Vec::new()),
            RunError::Modules(failures) => (Vec::new(), failures),
            _ => (Vec::new(), Vec::new()),
        };
        Failure(Box::new(Spec {
            kind: Cow::Borrowed(kind),
            message,
            exit_code: Some(exit_code),
            failures,
            module_failures,
            ..Spec::default()
        }))
    }

    /// A file that could not be hashed: `InvalidPackageError` for what the
    /// hasher refused, an OS error for what could not be read.
    pub(crate) fn package(error: MirrorError) -> Failure {
        let shown = error.path().display().to_string();
        let io_error = match &error {
            MirrorError::Package { error: refused, .. } => {
                let mut failure =
                    Failure::new(kinds::INVALID_PACKAGE, format!("{shown}: {refused}"));
                failure.0.problem = Some(refused.kind());
                failure.0.path = Some(shown);
                return failure;
            }
            MirrorError::Read { source, .. } | MirrorError::Search { source, .. } => source,
            other => return Failure::new(OS, other.to_string()),
        };
        let text = io_error.to_string();
        let text = text.split(" (os error").next().unwrap_or(&text).to_owned();
        let mut failure = Failure::new(OS, text);
        failure.0.errno = io_error.raw_os_error();
        failure.0.syscall = Some(if io_error.kind() == io::ErrorKind::NotFound {
            "open"
        } else {
            "read"
        });
        failure.0.path = Some(shown);
        failure
    }

    /// The JavaScript error, made by the registered factory: for a
    /// promise to reject with.
    pub(crate) fn make(self, env: &Env) -> napi::Result<Unknown<'static>> {
        let spec = *self.0;
        let factory = match env.get_instance_data::<Factory>() {
            Ok(Some(factory)) => factory,
            // Not registered (index.js always registers it): a plain Error.
            _ => return Err(napi::Error::new(Status::GenericFailure, spec.message)),
        };
        let object = ErrorSpec {
            kind: spec.kind.into_owned(),
            message: spec.message,
            url: spec.url,
            status: spec.status.map(u32::from),
            exit_code: spec.exit_code,
            // Every lock error has its (possibly empty) list of failures.
            failures: spec.exit_code.map(|_| {
                let providers = spec.failures.iter().map(|f| Either::A(f.into()));
                let modules = spec.module_failures.iter().map(|f| Either::B(f.into()));
                providers.chain(modules).collect()
            }),
            problem: spec.problem.map(str::to_owned),
            errno: spec.errno,
            syscall: spec.syscall.map(str::to_owned),
            path: spec.path,
        };
        factory.0.borrow_back(env)?.call(object)
    }

    /// The JavaScript error as a `napi::Error` that carries it: what a
    /// future's result maps to, for the promise to reject with it.
    pub(crate) fn into_napi(self, env: &Env) -> napi::Error {
        match self.make(env) {
            Ok(value) => napi::Error::from(value),
            Err(e) => e,
        }
    }

    /// Throws the JavaScript error (a synchronous call's failure) and
    /// returns the `napi::Error` that tells napi-rs an exception is
    /// pending, so that the error object is thrown as it is.
    pub(crate) fn throw(self, env: &Env) -> napi::Error {
        match self.make(env).and_then(|value| env.throw(value)) {
            Ok(()) => napi::Error::new(Status::PendingException, String::new()),
            Err(e) => e,
        }
    }
}

impl From<tfdisco_core::Error> for Failure {
    fn from(error: tfdisco_core::Error) -> Failure {
        Failure::from(&error)
    }
}

impl From<&tfdisco_core::Error> for Failure {
    fn from(error: &tfdisco_core::Error) -> Failure {
        Failure(Box::new(Spec {
            kind: Cow::Borrowed(error.kind().as_str()),
            message: error.to_string(),
            url: error.url().map(|u| u.to_string()),
            status: error.status().map(|s| s.as_u16()),
            ..Spec::default()
        }))
    }
}

impl From<OptionError> for Failure {
    fn from(error: OptionError) -> Failure {
        Failure::invalid_option(error.to_string())
    }
}

impl From<CredentialsLookupError> for Failure {
    fn from(error: CredentialsLookupError) -> Failure {
        Failure::new(kinds::CREDENTIALS, error.to_string())
    }
}

impl From<tfdisco_core::HostnameError> for Failure {
    fn from(error: tfdisco_core::HostnameError) -> Failure {
        Failure::from(tfdisco_core::Error::from(error))
    }
}

/// The registered error factory: `(spec) => Error`, kept as the
/// environment's instance data (one per main thread or worker).
struct Factory(FunctionRef<ErrorSpec, Unknown<'static>>);

/// Registers the function that makes this package's errors
/// (`lib/errors.js`'s `makeError`). Called once by `index.js`.
#[napi(js_name = "_setErrorFactory")]
pub fn set_error_factory(
    env: Env,
    factory: Function<'_, ErrorSpec, Unknown<'static>>,
) -> napi::Result<()> {
    let reference = factory.create_ref()?;
    env.set_instance_data(Factory(reference), (), |_| {})
}

/// Converts results for `?` in binding code that returns `napi::Result`.
pub(crate) trait OrThrow<T> {
    /// The value, or the error as this package's JavaScript error.
    fn or_throw(self, env: &Env) -> napi::Result<T>;
}

impl<T, E: Into<Failure>> OrThrow<T> for Result<T, E> {
    fn or_throw(self, env: &Env) -> napi::Result<T> {
        self.map_err(|e| e.into().throw(env))
    }
}

/// A string argument, or the `TypeError` naming `what` (`The "name"
/// argument`) and the type given.
pub(crate) fn string_arg(value: &Unknown<'_>, what: &str) -> Result<String, Failure> {
    let value_type = value
        .get_type()
        .map_err(|e| Failure::type_error(e.reason))?;
    if value_type != napi::ValueType::String {
        let given = match value_type {
            napi::ValueType::Undefined => "undefined".to_owned(),
            napi::ValueType::Null => "null".to_owned(),
            other => format!("type {}", other.to_string().to_lowercase()),
        };
        return Err(Failure::type_error(format!(
            "{what} must be of type string. Received {given}"
        )));
    }
    // SAFETY: the value is a string, checked above.
    unsafe { value.cast::<String>() }.map_err(|e| Failure::type_error(e.reason))
}
