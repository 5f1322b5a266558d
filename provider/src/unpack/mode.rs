//! A file's permission bits from its central directory header, as Go's
//! `zip.FileHeader.Mode` reads them and `terraform init` applies them
//! (docs/behaviour.md, UNPACK-5, UNPACK-6).

/// The creator systems whose attributes Go reads (`CreatorVersion >> 8`).
const FAT: u16 = 0;
const UNIX: u16 = 3;
const NTFS: u16 = 11;
const VFAT: u16 = 14;
const MACOS: u16 = 19;

/// The MS-DOS read-only attribute.
const DOS_READ_ONLY: u32 = 0x01;
const S_IFMT: u32 = 0o170_000;
const S_IFLNK: u32 = 0o120_000;

/// A file's permission bits: a Unix or macOS creator's mode (the upper 16
/// bits of the external attributes); `0666` from a FAT, NTFS or VFAT
/// creator, `0444` with the read-only attribute; `0000` from any other
/// creator. Setuid, setgid and sticky are masked off (`& 0o777`), a
/// deliberate difference: Terraform 1.11.4 keeps them.
pub(super) fn permissions(made_by: u16, external: u32) -> u32 {
    match made_by >> 8 {
        UNIX | MACOS => (external >> 16) & 0o777,
        FAT | NTFS | VFAT if external & DOS_READ_ONLY != 0 => 0o444,
        FAT | NTFS | VFAT => 0o666,
        _ => 0,
    }
}

/// Whether a Unix or macOS creator's mode makes the entry a symbolic link.
pub(super) fn is_symlink(made_by: u16, external: u32) -> bool {
    matches!(made_by >> 8, UNIX | MACOS) && (external >> 16) & S_IFMT == S_IFLNK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_per_creator() {
        let unix = UNIX << 8 | 20;
        assert_eq!(permissions(unix, 0o100_755 << 16), 0o755);
        assert_eq!(permissions(unix, 0o100_600 << 16), 0o600);
        assert_eq!(permissions(unix, 0o104_755 << 16), 0o755);
        assert_eq!(permissions(unix, 0o107_777 << 16), 0o777);
        assert_eq!(permissions(unix, 0), 0);
        assert_eq!(permissions(MACOS << 8, 0o100_640 << 16), 0o640);
        for dos in [FAT, NTFS, VFAT] {
            assert_eq!(permissions(dos << 8 | 20, 0x20), 0o666);
            assert_eq!(permissions(dos << 8 | 20, 0x21), 0o444);
        }
        assert_eq!(permissions(10 << 8, 0o100_755 << 16), 0);
        assert!(is_symlink(unix, 0o120_777 << 16));
        assert!(!is_symlink(unix, 0o100_777 << 16));
        assert!(!is_symlink(FAT << 8, 0o120_777 << 16));
    }
}
