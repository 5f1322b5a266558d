//! The request state and the PKCE proof key, as `terraform login` makes them
//! from random bytes (LOGIN-2).

use sha2::{Digest, Sha256};

/// Go's `uuid.GenerateUUID` text of 16 bytes: lower-case hex as
/// 8-4-4-4-12, the bytes as they are (no version or variant bits set).
pub(super) fn uuid(bytes: &[u8; 16]) -> String {
    let mut out = String::with_capacity(36);
    for (i, b) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The proof key: a UUID, a dot and a number below 999999999 (Go's
/// `rand.Intn(999999999)`), nine digits with leading zeros: 46 characters.
pub(super) fn verifier(uuid_bytes: &[u8; 16], number: [u8; 4]) -> String {
    let n = u32::from_be_bytes(number) % 999_999_999;
    format!("{}.{n:09}", uuid(uuid_bytes))
}

/// The S256 challenge of `verifier`: base64url of its SHA-256, without
/// padding (Go's `base64.RawURLEncoding`).
pub(super) fn challenge(verifier: &str) -> String {
    base64url(&Sha256::digest(verifier.as_bytes()))
}

/// Base64 with the URL-safe alphabet (RFC 4648 §5), no padding.
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        let digits = chunk.len() + 1;
        for i in 0..digits {
            let index = (n >> (18 - 6 * i)) & 0x3f;
            out.push(char::from(ALPHABET[index as usize]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_layout() {
        let bytes: [u8; 16] = std::array::from_fn(|i| (i as u8) * 17);
        assert_eq!(uuid(&bytes), "00112233-4455-6677-8899-aabbccddeeff");
        assert_eq!(uuid(&[0xff; 16]), "ffffffff-ffff-ffff-ffff-ffffffffffff");
    }

    #[test]
    fn verifier_is_46_characters() {
        let v = verifier(&[0; 16], [0, 0, 0, 7]);
        assert_eq!(v, "00000000-0000-0000-0000-000000000000.000000007");
        assert_eq!(v.len(), 46);
        // 4294967295 % 999999999 = 294967299
        assert!(verifier(&[1; 16], [0xff; 4]).ends_with(".294967299"));
        // 999999999 itself wraps to 0: Intn never gives it.
        assert!(verifier(&[1; 16], 999_999_999u32.to_be_bytes()).ends_with(".000000000"));
    }

    /// Checked against Python's `hashlib` and `base64.urlsafe_b64encode`.
    #[test]
    fn challenge_is_base64url_of_sha256() {
        assert_eq!(
            challenge("dBjftJeZ4CVP-mJ92K9jpFhmIDPlXwOZmR1hRrNg1gA"),
            "g7G-prZlR45lf_a-Rx4clY8ADmVKmwoMnH-nAkQzQZc"
        );
        assert_eq!(
            challenge("00000000-0000-0000-0000-000000000000.000000007"),
            "E5oIIyBCo5nmtI92msP25ZqwGDYe-uLHJcM8BBnAnX8"
        );
    }

    #[test]
    fn base64url_without_padding() {
        assert_eq!(base64url(b""), "");
        assert_eq!(base64url(b"f"), "Zg");
        assert_eq!(base64url(b"fo"), "Zm8");
        assert_eq!(base64url(b"foo"), "Zm9v");
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
    }
}
