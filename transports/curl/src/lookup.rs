//! The system roots OpenSSL cannot find by itself, looked up only when a
//! handshake needs one (docs/behaviour.md, NET-5).
//!
//! libcurl hands OpenSSL the hashed root directories (`CURLOPT_CAPATH`),
//! where OpenSSL finds a root by its subject when a handshake asks for it.
//! The other system roots (those of `SSL_CERT_FILE`, or of a directory entry
//! not named by its hash) used to be read, classified and handed over as a
//! PEM bundle when every client was built, which cost about 2 ms at every
//! start. Instead, each TLS context libcurl makes gets one more lookup
//! method on its certificate store, after libcurl's own: when neither the
//! store nor the hashed directories hold an issuer, it reads and classifies
//! the system roots (once per client) and answers with those of that
//! subject. The trust is the same; it is only read later, and not at all by
//! a run that never needs it.
//!
//! This is the crate's only unsafe code: OpenSSL's `X509_LOOKUP_METHOD`
//! API, through `openssl-sys` (the library libcurl links).

#![allow(unsafe_code)]

use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use openssl_sys::{
    ERR_clear_error, SSL_CTX_get_cert_store, X509, X509_LOOKUP as X509Lookup,
    X509_LOOKUP_METHOD as X509LookupMethod, X509_NAME, X509_NAME_cmp, X509_OBJECT as X509Object,
    X509_STORE, X509_STORE_add_cert, X509_STORE_add_lookup, X509_free, X509_get_subject_name,
    d2i_X509,
};
use tfdisco_transport::TrustAnchors;

/// `X509_LU_X509`: a lookup for a certificate (not a CRL).
const X509_LU_X509: c_int = 1;

type GetBySubject = unsafe extern "C" fn(
    ctx: *mut X509Lookup,
    kind: c_int,
    name: *const X509_NAME,
    ret: *mut X509Object,
) -> c_int;

// OpenSSL 1.1.0i and later; libcrypto is linked by openssl-sys.
unsafe extern "C" {
    fn X509_LOOKUP_meth_new(name: *const std::ffi::c_char) -> *mut X509LookupMethod;
    fn X509_LOOKUP_meth_set_get_by_subject(
        method: *mut X509LookupMethod,
        get: Option<GetBySubject>,
    ) -> c_int;
    fn X509_LOOKUP_set_method_data(ctx: *mut X509Lookup, data: *mut c_void) -> c_int;
    fn X509_LOOKUP_get_method_data(ctx: *const X509Lookup) -> *mut c_void;
    fn X509_LOOKUP_get_store(ctx: *const X509Lookup) -> *mut X509_STORE;
    fn X509_OBJECT_set1_X509(object: *mut X509Object, x509: *mut X509) -> c_int;
}

/// The lookup method, made once per process and never freed.
fn method() -> *mut X509LookupMethod {
    static METHOD: OnceLock<usize> = OnceLock::new();
    *METHOD.get_or_init(|| {
        // SAFETY: a NUL-terminated name; the method is set up before it is
        // shared, and lives as long as the process.
        unsafe {
            let method = X509_LOOKUP_meth_new(c"tfdisco system roots".as_ptr());
            if !method.is_null() {
                X509_LOOKUP_meth_set_get_by_subject(method, Some(get_by_subject));
            }
            method as usize
        }
    }) as *mut X509LookupMethod
}

/// The roots a client's TLS contexts look up, shared by its handles.
pub(crate) struct Roots {
    anchors: TrustAnchors,
    /// The roots beyond the hashed directories, decoded by OpenSSL when a
    /// lookup first needs them.
    decoded: Mutex<Option<Vec<Owned>>>,
}

/// A certificate OpenSSL decoded, freed with the [`Roots`].
struct Owned(*mut X509);

// SAFETY: an `X509` is reference-counted and, once decoded, only read
// here, always under the `Roots`' mutex.
unsafe impl Send for Owned {}

impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: decoded by `d2i_X509` and owned here.
        unsafe { X509_free(self.0) }
    }
}

impl Roots {
    pub(crate) fn new(anchors: TrustAnchors) -> Arc<Roots> {
        Arc::new(Roots {
            anchors,
            decoded: Mutex::new(None),
        })
    }

    /// Adds the lookup to the store of the TLS context `ctx` that libcurl
    /// is setting up (`CURLOPT_SSL_CTX_FUNCTION`). `roots` must outlive
    /// the context: the handle's callback holds it.
    pub(crate) fn install(roots: &Arc<Roots>, ctx: *mut c_void) {
        let method = method();
        if method.is_null() || ctx.is_null() {
            return;
        }
        // SAFETY: libcurl passes its OpenSSL `SSL_CTX`; the store belongs
        // to it; `X509_STORE_add_lookup` returns the store's lookup of this
        // method when there is one already.
        unsafe {
            let store = SSL_CTX_get_cert_store(ctx.cast());
            if store.is_null() {
                return;
            }
            let lookup = X509_STORE_add_lookup(store, method);
            if !lookup.is_null() {
                X509_LOOKUP_set_method_data(lookup, Arc::as_ptr(roots).cast_mut().cast());
            }
        }
    }

    /// Puts in `store` every root beyond the hashed directories whose
    /// subject is `name`, and the first of them in `ret`; 1 when there was
    /// one.
    ///
    /// # Safety
    /// `store`, `name` and `ret` come from OpenSSL's lookup call.
    unsafe fn find(
        &self,
        store: *mut X509_STORE,
        name: *const X509_NAME,
        ret: *mut X509Object,
    ) -> c_int {
        let mut decoded = self.decoded.lock().unwrap_or_else(PoisonError::into_inner);
        let certs = decoded.get_or_insert_with(|| {
            self.anchors
                .system_beyond_hashed_dirs()
                .iter()
                .filter_map(|der| {
                    let mut at = der.as_ref().as_ptr();
                    let len = der.as_ref().len().try_into().ok()?;
                    // SAFETY: `at` points at `len` bytes of DER.
                    let x509 = unsafe { d2i_X509(ptr::null_mut(), &mut at, len) };
                    (!x509.is_null()).then_some(Owned(x509))
                })
                .collect()
        });
        let mut found = 0;
        for cert in certs.iter() {
            // SAFETY: `cert.0` is a decoded certificate; `name` OpenSSL's.
            unsafe {
                if X509_NAME_cmp(X509_get_subject_name(cert.0), name) != 0 {
                    continue;
                }
                X509_STORE_add_cert(store, cert.0);
                if found == 0 && X509_OBJECT_set1_X509(ret, cert.0) == 1 {
                    found = 1;
                }
            }
        }
        // A root already in the store leaves an error OpenSSL's caller
        // must not see.
        // SAFETY: clears this thread's error queue.
        unsafe { ERR_clear_error() };
        found
    }
}

/// OpenSSL's call for an issuer the store and libcurl's lookups (the hashed
/// directories) did not have.
unsafe extern "C" fn get_by_subject(
    ctx: *mut X509Lookup,
    kind: c_int,
    name: *const X509_NAME,
    ret: *mut X509Object,
) -> c_int {
    if kind != X509_LU_X509 || ctx.is_null() || name.is_null() || ret.is_null() {
        return 0;
    }
    std::panic::catch_unwind(|| {
        // SAFETY: the data was set by `Roots::install` to a `Roots` the
        // handle's callback keeps alive as long as its TLS contexts.
        unsafe {
            let roots = X509_LOOKUP_get_method_data(ctx).cast::<Roots>();
            let store = X509_LOOKUP_get_store(ctx);
            if roots.is_null() || store.is_null() {
                return 0;
            }
            (*roots).find(store, name, ret)
        }
    })
    .unwrap_or(0)
}

/// Whether libcurl does TLS with OpenSSL, whose contexts take the lookup.
pub(crate) fn libcurl_uses_openssl() -> bool {
    curl::Version::get()
        .ssl_version()
        .is_some_and(|v| v.starts_with("OpenSSL/"))
}

/// Unsets libcurl's built-in CA file (`CURLOPT_CAINFO` to NULL), so that
/// only the hashed directories, the lookup and the caller's CAs are
/// trusted.
pub(crate) fn no_ca_file(easy: &curl::easy::Easy) -> Result<(), curl::Error> {
    // SAFETY: the handle is alive; NULL is the documented way to unset the
    // option.
    let code = unsafe {
        curl_sys::curl_easy_setopt(
            easy.raw(),
            curl_sys::CURLOPT_CAINFO,
            ptr::null::<std::ffi::c_char>(),
        )
    };
    if code == curl_sys::CURLE_OK {
        Ok(())
    } else {
        Err(curl::Error::new(code))
    }
}
