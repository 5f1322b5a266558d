//! The issuer search added to each TLS context's certificate store when
//! libcurl does TLS with the OpenSSL this crate links (docs/behaviour.md,
//! NET-5).
//!
//! libcurl gives OpenSSL the hashed root directories (`CURLOPT_CAPATH`) and
//! the caller's CA certificates (`CURLOPT_CAINFO_BLOB`). OpenSSL's own search
//! for an issuer stops at the first source that holds a certificate of the
//! issuer's name, so a root kept only in `SSL_CERT_FILE`, or in a directory
//! file not named by its hash, or one that shares its name with a
//! certificate found first (a re-keyed root, a caller's CA named as a system
//! root), would never be reached. So each store gets
//! [`X509_STORE_set_get_issuer`]: OpenSSL's own search runs first, and its
//! answer is kept when the certificate's signature verifies with it and it
//! is valid now; otherwise every trust anchor of that name (the system roots
//! read, and indexed by subject, once per client when first needed, and the
//! caller's) is tried for one that issued the certificate. The trusted set is
//! exactly the other transports': the system roots and the caller's CAs,
//! whichever holds a name first. A run whose handshakes OpenSSL answers by
//! itself never reads the system roots.
//!
//! This is the crate's only unsafe code: OpenSSL's store API through
//! `openssl-sys`. It is used only when libcurl is linked against that same
//! OpenSSL ([`same_openssl_as_libcurl`]); otherwise the client hands libcurl
//! a PEM bundle and none of this runs.

#![allow(unsafe_code)]

use std::collections::HashMap;
use std::ffi::{CStr, c_int, c_long, c_void};
use std::ptr;
use std::sync::{Arc, Mutex, PoisonError};

use openssl_sys::{
    ASN1_TIME, CRYPTO_EX_DATA, CRYPTO_get_ex_new_index, EVP_PKEY, OPENSSL_VERSION, OpenSSL_version,
    SSL_CTX_get_cert_store, X509, X509_NAME, X509_STORE, X509_STORE_CTX, X509_V_OK,
    X509_check_issued, X509_free, X509_get_issuer_name, X509_getm_notAfter, X509_getm_notBefore,
    X509_up_ref, X509_verify, d2i_X509, i2d_X509_NAME,
};
use tfdisco_transport::TrustAnchors;
use tracing::warn;

/// `CRYPTO_EX_INDEX_X509_STORE`: ex_data indexes of `X509_STORE`s.
const CRYPTO_EX_INDEX_X509_STORE: c_int = 4;

/// OpenSSL's `X509_STORE_CTX_get_issuer_fn`.
type GetIssuer =
    unsafe extern "C" fn(issuer: *mut *mut X509, ctx: *mut X509_STORE_CTX, x: *mut X509) -> c_int;

// OpenSSL 1.1.0 and later, in the libcrypto openssl-sys links; not all of
// them are declared by openssl-sys.
unsafe extern "C" {
    fn X509_STORE_set_get_issuer(store: *mut X509_STORE, get_issuer: Option<GetIssuer>);
    fn X509_STORE_get_get_issuer(store: *const X509_STORE) -> Option<GetIssuer>;
    fn X509_STORE_CTX_get1_issuer(
        issuer: *mut *mut X509,
        ctx: *mut X509_STORE_CTX,
        x: *mut X509,
    ) -> c_int;
    fn X509_STORE_CTX_get0_store(ctx: *const X509_STORE_CTX) -> *mut X509_STORE;
    fn X509_STORE_set_ex_data(store: *mut X509_STORE, idx: c_int, data: *mut c_void) -> c_int;
    fn X509_STORE_get_ex_data(store: *const X509_STORE, idx: c_int) -> *mut c_void;
    fn X509_get0_pubkey(x: *const X509) -> *mut EVP_PKEY;
    fn X509_cmp_current_time(time: *const ASN1_TIME) -> c_int;
    fn ERR_set_mark() -> c_int;
    fn ERR_pop_to_mark() -> c_int;
}

/// The anchors a client's TLS contexts search, shared by its handles and
/// by the stores they are installed in (each store holds a reference,
/// dropped when OpenSSL frees the store).
pub(crate) struct Roots {
    anchors: TrustAnchors,
    /// Anchors OpenSSL has decoded, by their DER (`None`: it could not).
    decoded: Mutex<HashMap<Vec<u8>, Option<Cert>>>,
}

impl std::fmt::Debug for Roots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Roots").finish_non_exhaustive()
    }
}

/// One reference to an OpenSSL certificate, given back when dropped.
struct Cert(*mut X509);

// SAFETY: an `X509` is reference-counted with atomic counts, and OpenSSL
// supports using one certificate from several threads at once for reading
// (its stores share their certificates between every handshake): the
// values it computes lazily (extensions, key) are guarded by the object's
// own lock. Nothing here writes to a certificate after decoding it.
unsafe impl Send for Cert {}
// SAFETY: as for `Send`: `&Cert` only gives read access, which OpenSSL
// allows from any number of threads.
unsafe impl Sync for Cert {}

impl Drop for Cert {
    fn drop(&mut self) {
        // SAFETY: `self.0` holds one reference, given back once here.
        unsafe { X509_free(self.0) }
    }
}

impl Cert {
    /// Decodes a DER certificate.
    fn decode(der: &[u8]) -> Option<Cert> {
        let len = c_long::try_from(der.len()).ok()?;
        let mut at = der.as_ptr();
        // SAFETY: `at` points at `len` bytes; a new certificate or null.
        let x509 = unsafe { d2i_X509(ptr::null_mut(), &mut at, len) };
        (!x509.is_null()).then_some(Cert(x509))
    }

    /// Another reference to the same certificate.
    fn share(&self) -> Cert {
        // SAFETY: `self.0` is a live certificate; the new reference is the
        // returned `Cert`'s.
        unsafe { X509_up_ref(self.0) };
        Cert(self.0)
    }

    /// Hands the reference to OpenSSL.
    fn into_raw(self) -> *mut X509 {
        let x509 = self.0;
        std::mem::forget(self);
        x509
    }

    /// Whether this certificate issued `child`: its name and key
    /// identifiers fit (`X509_check_issued`) and its key verifies `child`'s
    /// signature.
    ///
    /// # Safety
    /// `child` is a live certificate.
    unsafe fn issued(&self, child: *mut X509) -> bool {
        // SAFETY: both are live; the key is borrowed from `self`.
        unsafe {
            if X509_check_issued(self.0, child) != X509_V_OK {
                return false;
            }
            let key = X509_get0_pubkey(self.0);
            !key.is_null() && X509_verify(child, key) == 1
        }
    }

    /// Whether the certificate is valid at this moment.
    fn current(&self) -> bool {
        // SAFETY: `self.0` is live; the times are borrowed from it.
        unsafe {
            X509_cmp_current_time(X509_getm_notBefore(self.0)) < 0
                && X509_cmp_current_time(X509_getm_notAfter(self.0)) > 0
        }
    }
}

impl Roots {
    /// The roots of `anchors`; fails if OpenSSL cannot decode one of the
    /// caller's CA certificates (which must all be usable, NET-6).
    pub(crate) fn new(anchors: TrustAnchors) -> Result<Arc<Roots>, String> {
        let mut decoded = HashMap::new();
        for (n, der) in anchors.extra().iter().enumerate() {
            let cert = Cert::decode(der.as_ref()).ok_or_else(|| {
                format!(
                    "OpenSSL cannot read CA certificate {} of the {} given",
                    n + 1,
                    anchors.extra().len()
                )
            })?;
            decoded.insert(der.as_ref().to_vec(), Some(cert));
        }
        Ok(Arc::new(Roots {
            anchors,
            decoded: Mutex::new(decoded),
        }))
    }

    /// The anchors named as `child`'s issuer that issued it, preferring one
    /// valid now.
    ///
    /// # Safety
    /// `child` is a live certificate.
    unsafe fn issuer_of(&self, child: *mut X509) -> Option<Cert> {
        // SAFETY: `child` is live.
        let name = unsafe { name_der(X509_get_issuer_name(child)) }?;
        let candidates: Vec<Cert> = {
            let mut decoded = self.decoded.lock().unwrap_or_else(PoisonError::into_inner);
            self.anchors
                .with_subject(&name)
                .into_iter()
                .filter_map(|der| {
                    decoded
                        .entry(der.as_ref().to_vec())
                        .or_insert_with(|| {
                            let cert = Cert::decode(der.as_ref());
                            if cert.is_none() {
                                warn!(target: "tfdisco", "skipped a system root certificate OpenSSL cannot decode");
                            }
                            cert
                        })
                        .as_ref()
                        .map(Cert::share)
                })
                .collect()
        };
        // SAFETY: `child` is live.
        let mut issuers: Vec<Cert> = candidates
            .into_iter()
            .filter(|c| unsafe { c.issued(child) })
            .collect();
        let now = issuers.iter().position(Cert::current).unwrap_or(0);
        (!issuers.is_empty()).then(|| issuers.swap_remove(now))
    }
}

/// The DER encoding of `name`.
///
/// # Safety
/// `name` is null or a live name.
unsafe fn name_der(name: *mut X509_NAME) -> Option<Vec<u8>> {
    if name.is_null() {
        return None;
    }
    // SAFETY: a first call for the length, a second writing that many
    // bytes where `at` points (and moving it past them).
    unsafe {
        let len = usize::try_from(i2d_X509_NAME(name, ptr::null_mut())).ok()?;
        let mut der = vec![0u8; len];
        let mut at = der.as_mut_ptr();
        let written = usize::try_from(i2d_X509_NAME(name, &mut at)).ok()?;
        (written == len).then_some(der)
    }
}

/// Why a TLS context could not get the issuer search: its handshake then
/// fails rather than trusting less than it should.
pub(crate) type Refusal = &'static str;

/// The store ex_data index that holds a store's [`Roots`], made once.
fn ex_index() -> Result<c_int, Refusal> {
    static INDEX: Mutex<Option<c_int>> = Mutex::new(None);
    let mut index = INDEX.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(index) = *index {
        return Ok(index);
    }
    // SAFETY: no data for the callbacks; `free_roots` matches
    // `CRYPTO_EX_free`. A failure is not remembered: the next context tries
    // again.
    let made = unsafe {
        CRYPTO_get_ex_new_index(
            CRYPTO_EX_INDEX_X509_STORE,
            0,
            ptr::null_mut(),
            None,
            None,
            Some(free_roots),
        )
    };
    if made < 0 {
        return Err("OpenSSL could not make an ex_data index for certificate stores");
    }
    *index = Some(made);
    Ok(made)
}

/// The index, if it was made (it is before any store holds roots).
fn made_ex_index() -> Option<c_int> {
    ex_index().ok()
}

/// OpenSSL frees a store: the [`Roots`] reference it held is dropped.
unsafe extern "C" fn free_roots(
    _parent: *mut c_void,
    roots: *mut c_void,
    _ad: *mut CRYPTO_EX_DATA,
    _idx: c_int,
    _argl: c_long,
    _argp: *mut c_void,
) {
    if !roots.is_null() {
        // SAFETY: set by `install` from `Arc::into_raw`, given back once.
        drop(unsafe { Arc::from_raw(roots.cast::<Roots>()) });
    }
}

/// Adds the issuer search for `roots` to the store of `ssl_ctx`, the
/// OpenSSL `SSL_CTX` libcurl is setting up (`CURLOPT_SSL_CTX_FUNCTION`).
///
/// A store serves one client's roots: a store that already holds another
/// client's (a store shared between TLS contexts of two clients), or
/// another issuer search, is refused, since either would make one client
/// trust what another was given.
pub(crate) fn install(roots: &Arc<Roots>, ssl_ctx: *mut c_void) -> Result<(), Refusal> {
    if ssl_ctx.is_null() {
        return Err("libcurl gave no TLS context");
    }
    let index = ex_index()?;
    // SAFETY: libcurl passes its live `SSL_CTX`; the store belongs to it.
    // The store's reference to `roots` is made here and dropped by
    // `free_roots` when OpenSSL frees the store.
    unsafe {
        let store = SSL_CTX_get_cert_store(ssl_ctx.cast());
        if store.is_null() {
            return Err("the TLS context has no certificate store");
        }
        let held = X509_STORE_get_ex_data(store, index);
        if held.is_null() {
            let reference = Arc::into_raw(Arc::clone(roots)).cast_mut().cast::<c_void>();
            if X509_STORE_set_ex_data(store, index, reference) != 1 {
                drop(Arc::from_raw(reference.cast::<Roots>()));
                return Err("OpenSSL could not attach the roots to the certificate store");
            }
        } else if !ptr::eq(held.cast::<Roots>(), Arc::as_ptr(roots)) {
            return Err(
                "the TLS context's certificate store already serves another client's roots",
            );
        }
        match X509_STORE_get_get_issuer(store) {
            None => X509_STORE_set_get_issuer(store, Some(get_issuer)),
            Some(set) if std::ptr::fn_addr_eq(set, get_issuer as GetIssuer) => {}
            Some(_) => {
                return Err("the TLS context's certificate store has another issuer search");
            }
        }
    }
    Ok(())
}

/// OpenSSL's call for the issuer of `x` among the trusted certificates:
/// 1 with a new reference in `*issuer`, 0 for none, -1 on an error.
unsafe extern "C" fn get_issuer(
    issuer: *mut *mut X509,
    ctx: *mut X509_STORE_CTX,
    x: *mut X509,
) -> c_int {
    if issuer.is_null() || ctx.is_null() || x.is_null() {
        return -1;
    }
    // SAFETY: OpenSSL's arguments, live for the call.
    std::panic::catch_unwind(|| unsafe { search(issuer, ctx, x) }).unwrap_or(-1)
}

/// [`get_issuer`]'s work.
///
/// # Safety
/// OpenSSL's arguments to `get_issuer`, all live.
unsafe fn search(issuer: *mut *mut X509, ctx: *mut X509_STORE_CTX, x: *mut X509) -> c_int {
    // OpenSSL's own search: the store, then the hashed directories.
    let mut found = ptr::null_mut();
    // SAFETY: OpenSSL's own search, on its arguments.
    let own = unsafe { X509_STORE_CTX_get1_issuer(&mut found, ctx, x) };
    if own < 0 {
        return own;
    }
    let own = (own == 1 && !found.is_null()).then(|| Cert(found));
    // The errors pushed from here on (a certificate OpenSSL cannot decode,
    // a signature that does not verify) are ours, not the handshake's.
    // SAFETY: marks this thread's error queue, popped below.
    unsafe { ERR_set_mark() };
    // SAFETY: `x` is live.
    let answer = match own {
        Some(cert) if unsafe { cert.issued(x) } && cert.current() => Some(cert),
        own => {
            // SAFETY: the store is the context's; the data at the index is a
            // `Roots` set by `install`, alive while the store holds it.
            let roots = unsafe {
                let store = X509_STORE_CTX_get0_store(ctx);
                match made_ex_index() {
                    Some(index) if !store.is_null() => {
                        X509_STORE_get_ex_data(store, index).cast::<Roots>()
                    }
                    _ => ptr::null(),
                }
            };
            // SAFETY: a live `Roots`, or null; `x` is live.
            let better = unsafe { roots.as_ref() }.and_then(|r| unsafe { r.issuer_of(x) });
            // Nothing better: OpenSSL's own answer stands, and its checks
            // then say what is wrong with it.
            better.or(own)
        }
    };
    // SAFETY: pops to the mark set above.
    unsafe { ERR_pop_to_mark() };
    match answer {
        Some(cert) => {
            // SAFETY: `issuer` is OpenSSL's out pointer; the reference is
            // the caller's.
            unsafe { *issuer = cert.into_raw() };
            1
        }
        None => 0,
    }
}

/// The version of the OpenSSL this crate calls (`OpenSSL_version`), such
/// as `OpenSSL 3.0.19 27 Jan 2026`.
pub(crate) fn linked_version() -> String {
    // SAFETY: a static, NUL-terminated string.
    unsafe { CStr::from_ptr(OpenSSL_version(OPENSSL_VERSION)) }
        .to_string_lossy()
        .into_owned()
}

/// Whether the OpenSSL functions this code calls are the ones the process
/// resolves globally, where the libssl and libcrypto libcurl loaded are
/// bound: false when this program carries a copy of its own (a vendored or
/// static `openssl-sys`), whose objects must never meet libcurl's.
pub(crate) fn same_copy_as_libcurl() -> bool {
    let ours: [(&CStr, usize); 2] = [
        (
            c"SSL_CTX_get_cert_store",
            SSL_CTX_get_cert_store as *const () as usize,
        ),
        (
            c"X509_STORE_set_get_issuer",
            X509_STORE_set_get_issuer as *const () as usize,
        ),
    ];
    ours.iter().all(|(name, address)| {
        // SAFETY: a NUL-terminated name; RTLD_DEFAULT searches the
        // process's global scope.
        let global = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
        !global.is_null() && global as usize == *address
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C" {
        fn SSL_CTX_new(method: *const c_void) -> *mut c_void;
        fn SSL_CTX_free(ctx: *mut c_void);
        fn TLS_client_method() -> *const c_void;
        fn SSL_CTX_set1_cert_store(ctx: *mut c_void, store: *mut X509_STORE);
    }

    /// A real OpenSSL TLS context, freed when dropped.
    struct Context(*mut c_void);

    impl Context {
        fn new() -> Context {
            // SAFETY: OpenSSL's client method; a new context or null.
            let ctx = unsafe { SSL_CTX_new(TLS_client_method()) };
            assert!(!ctx.is_null());
            Context(ctx)
        }

        fn store(&self) -> *mut X509_STORE {
            // SAFETY: a live context.
            unsafe { SSL_CTX_get_cert_store(self.0.cast()) }
        }
    }

    impl Drop for Context {
        fn drop(&mut self) {
            // SAFETY: made by `new`, freed once.
            unsafe { SSL_CTX_free(self.0) }
        }
    }

    fn roots() -> Arc<Roots> {
        Roots::new(TrustAnchors::default()).expect("no CA to decode")
    }

    #[test]
    fn each_store_holds_a_reference_to_its_roots_until_freed() {
        let roots = roots();
        let (a, b) = (Context::new(), Context::new());
        install(&roots, a.0).expect("installed");
        install(&roots, b.0).expect("installed");
        install(&roots, a.0).expect("again: the same roots");
        assert_eq!(Arc::strong_count(&roots), 3, "ours and two stores'");
        drop(a);
        assert_eq!(Arc::strong_count(&roots), 2, "freed with the first store");
        drop(b);
        assert_eq!(Arc::strong_count(&roots), 1);
    }

    #[test]
    fn a_store_shared_by_two_clients_is_refused() {
        let (first, second) = (roots(), roots());
        let (a, b) = (Context::new(), Context::new());
        // SAFETY: b takes a reference to a's store.
        unsafe { SSL_CTX_set1_cert_store(b.0, a.store()) };
        install(&first, a.0).expect("installed");
        let refused = install(&second, b.0).expect_err("another client's store");
        assert!(refused.contains("another client's roots"), "{refused}");
        assert_eq!(Arc::strong_count(&second), 1, "no reference kept");
        install(&first, b.0).expect("the same client's roots");
    }

    #[test]
    fn a_store_with_another_issuer_search_is_refused() {
        unsafe extern "C" fn other(
            _: *mut *mut X509,
            _: *mut X509_STORE_CTX,
            _: *mut X509,
        ) -> c_int {
            0
        }
        let ctx = Context::new();
        // SAFETY: a live store; `other` has the type OpenSSL expects.
        unsafe { X509_STORE_set_get_issuer(ctx.store(), Some(other)) };
        let refused = install(&roots(), ctx.0).expect_err("another search");
        assert!(refused.contains("another issuer search"), "{refused}");
    }

    #[test]
    fn undecodable_caller_certificates_are_refused_when_built() {
        use tfdisco_transport::{ClientBuilder, FromSettings, Settings};
        struct Anchors(TrustAnchors);
        impl FromSettings for Anchors {
            fn from_settings(settings: Settings) -> Result<Self, tfdisco_transport::BuildError> {
                Ok(Anchors(settings.trust_anchors().clone()))
            }
        }
        // A PEM block whose contents are not a certificate.
        let pem = "-----BEGIN CERTIFICATE-----\nMAMCAQc=\n-----END CERTIFICATE-----\n";
        let built: Anchors = ClientBuilder::new()
            .system_roots(false)
            .add_root_certificate_pem(pem)
            .build()
            .expect("PEM reads");
        let refused = Roots::new(built.0).expect_err("OpenSSL cannot decode it");
        assert_eq!(
            refused,
            "OpenSSL cannot read CA certificate 1 of the 1 given"
        );
    }

    #[test]
    fn this_build_calls_the_openssl_libcurl_loaded() {
        assert!(same_copy_as_libcurl());
        assert!(
            linked_version().starts_with("OpenSSL "),
            "{}",
            linked_version()
        );
    }
}
