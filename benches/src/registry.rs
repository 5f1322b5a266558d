//! The provider registry the install benchmark runs against
//! (`install-bench`): providers of one version each, every package a real
//! zip of the size asked for (one executable, `terraform-provider-NAME_vVERSION`,
//! of incompressible bytes, deflated as Go's `archive/zip` writes it: a data
//! descriptor, stored deflate blocks, mode 0755), each version's
//! `SHA256SUMS` signed with a key made for the run by GnuPG
//! ([`Signer`]), its public half in the package answers, as a real registry
//! serves them. Served on a [`TestServer`] beside other such registries
//! (each under its own namespace), usually behind a
//! [`NetworkShape`](tfdisco_testkit::NetworkShape).

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::json;
use sha2::{Digest, Sha256};
use tfdisco_testkit::{Reply, TestServer};

use crate::rng::Rng;

/// Where the provider registry API answers (`providers.v1`).
pub const PROVIDERS_PATH: &str = "/v1/providers/";
/// Where packages, sums and signatures are served from.
pub const FILES_PATH: &str = "/files/";
/// The discovery document every registry here is found by.
pub const DISCOVERY: &str = r#"{"providers.v1": "/v1/providers/"}"#;

/// An OpenPGP key made for one run, in a GnuPG home of its own: registries
/// sign their `SHA256SUMS` with `gpg --detach-sign`, so this does too. The
/// key is thrown away with the folder.
pub struct Signer {
    home: PathBuf,
    key_id: String,
    public_key: String,
}

fn gpg(home: &Path) -> Command {
    let mut command = Command::new("gpg");
    command
        .env("GNUPGHOME", home)
        .args(["--batch", "--quiet", "--no-tty"])
        .stdin(Stdio::null());
    command
}

fn run(command: &mut Command) -> io::Result<Vec<u8>> {
    let output = command.stderr(Stdio::piped()).output()?;
    if !output.status.success() {
        return Err(io::Error::other(format!(
            "{command:?}: {}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok(output.stdout)
}

impl Signer {
    /// A new RSA-4096 signing key (what HashiCorp's and most partners'
    /// keys are) in `home`, a folder made for it.
    pub fn new(home: &Path) -> io::Result<Signer> {
        std::fs::create_dir_all(home)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(home, std::fs::Permissions::from_mode(0o700))?;
        }
        run(gpg(home).args([
            "--passphrase",
            "",
            "--quick-gen-key",
            "tfdisco benchmark registry <bench@tfdisco.invalid>",
            "rsa4096",
            "sign",
            "never",
        ]))?;
        let public_key =
            String::from_utf8_lossy(&run(gpg(home).args(["--armor", "--export"]))?).into_owned();
        let listing = run(gpg(home).args(["--with-colons", "--list-keys"]))?;
        let key_id = String::from_utf8_lossy(&listing)
            .lines()
            .find_map(|line| {
                let fields: Vec<&str> = line.split(':').collect();
                (fields.first() == Some(&"pub")).then(|| fields.get(4).map(|s| s.to_string()))?
            })
            .ok_or_else(|| io::Error::other("gpg listed no key"))?;
        Ok(Signer {
            home: home.to_owned(),
            key_id,
            public_key,
        })
    }

    /// A detached binary signature of `data` (what `SHA256SUMS.sig` holds).
    pub fn sign(&self, data: &[u8]) -> io::Result<Vec<u8>> {
        let input = self.home.join("to-sign");
        let output = self.home.join("to-sign.sig");
        std::fs::write(&input, data)?;
        let _ = std::fs::remove_file(&output);
        run(gpg(&self.home)
            .arg("--detach-sign")
            .arg("--output")
            .arg(&output)
            .arg(&input))?;
        std::fs::read(&output)
    }

    /// The key id, 16 hex digits.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The public key, ASCII-armored.
    pub fn public_key(&self) -> &str {
        &self.public_key
    }
}

impl Drop for Signer {
    fn drop(&mut self) {
        // The agent gpg started for this home.
        let _ = Command::new("gpgconf")
            .env("GNUPGHOME", &self.home)
            .args(["--kill", "gpg-agent"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// One package: a platform's zip.
pub struct Package {
    /// `linux_amd64`.
    pub platform: String,
    /// `terraform-provider-NAME_VERSION_OS_ARCH.zip`.
    pub file_name: String,
    /// The archive.
    pub bytes: Vec<u8>,
    /// Its SHA-256, hex.
    pub sha256: String,
}

/// One provider's one version.
pub struct Provider {
    /// The type (`alpha`).
    pub name: String,
    /// The version (`1.0.0`).
    pub version: String,
    /// A package per platform.
    pub packages: Vec<Package>,
    /// `SHA256SUMS` of the packages.
    pub sums: Vec<u8>,
    /// Its detached signature.
    pub signature: Vec<u8>,
}

/// Providers under one namespace.
pub struct Registry {
    /// The namespace (`bench`).
    pub namespace: String,
    /// The providers.
    pub providers: Vec<Provider>,
    key_id: String,
    public_key: String,
}

/// The platforms every version is built for in the benchmark: the one it
/// runs on first, then two others (a `providers lock` for three platforms).
pub fn platforms() -> Vec<String> {
    let here = current_platform();
    let mut all = vec![here.clone()];
    for other in [
        "linux_amd64",
        "darwin_arm64",
        "windows_amd64",
        "linux_arm64",
    ] {
        if other != here && all.len() < 3 {
            all.push(other.to_owned());
        }
    }
    all
}

/// The platform this runs on, as Terraform names it (`linux_amd64`).
pub fn current_platform() -> String {
    tfdisco_core::Platform::current().to_string()
}

impl Registry {
    /// Makes the providers `names` (each at its version) for `platforms`,
    /// every package `package_size` bytes (the zip, not its content), of
    /// bytes from a generator seeded by the namespace, provider and
    /// platform, so no two packages share content.
    pub fn make(
        namespace: &str,
        names: &[(&str, &str)],
        platforms: &[String],
        package_size: usize,
        signer: &Signer,
    ) -> io::Result<Registry> {
        let mut providers = Vec::with_capacity(names.len());
        for (name, version) in names {
            let mut packages = Vec::with_capacity(platforms.len());
            let mut sums = String::new();
            for platform in platforms {
                let file_name = format!("terraform-provider-{name}_{version}_{platform}.zip");
                let mut executable = format!("terraform-provider-{name}_v{version}");
                if platform.starts_with("windows_") {
                    executable.push_str(".exe");
                }
                let seed = seed(&[namespace, name, version, platform]);
                let bytes = zip_of_size(&executable, 0o755, package_size, seed);
                let sha256 = hex(&Sha256::digest(&bytes));
                packages.push(Package {
                    platform: platform.clone(),
                    file_name,
                    bytes,
                    sha256,
                });
            }
            let mut sorted: Vec<&Package> = packages.iter().collect();
            sorted.sort_by(|a, b| a.file_name.cmp(&b.file_name));
            for package in sorted {
                let _ = writeln!(sums, "{}  {}", package.sha256, package.file_name);
            }
            let signature = signer.sign(sums.as_bytes())?;
            providers.push(Provider {
                name: (*name).to_owned(),
                version: (*version).to_owned(),
                packages,
                sums: sums.into_bytes(),
                signature,
            });
        }
        Ok(Registry {
            namespace: namespace.to_owned(),
            providers,
            key_id: signer.key_id().to_owned(),
            public_key: signer.public_key().to_owned(),
        })
    }

    /// Routes the registry's answers and files on `server` (not the
    /// discovery document: [`serve_discovery`]).
    pub fn install(&self, server: &TestServer) {
        for provider in &self.providers {
            let ns = &self.namespace;
            let name = &provider.name;
            let version = &provider.version;
            server.route(
                &format!("{PROVIDERS_PATH}{ns}/{name}/versions"),
                Reply::json(&self.versions_document(provider)),
            );
            let files = format!("{FILES_PATH}{ns}/{name}/{version}/");
            let sums = sums_file(name, version);
            server.route(&format!("{files}{sums}"), file_reply(&provider.sums));
            server.route(
                &format!("{files}{sums}.sig"),
                file_reply(&provider.signature),
            );
            for package in &provider.packages {
                server.route(
                    &format!("{files}{}", package.file_name),
                    file_reply(&package.bytes),
                );
                let (os, arch) = package.platform.split_once('_').expect("OS_ARCH");
                server.route(
                    &format!("{PROVIDERS_PATH}{ns}/{name}/{version}/download/{os}/{arch}"),
                    Reply::json(&self.package_document(provider, package)),
                );
            }
        }
    }

    /// The bodies of the requests that must come one after another before
    /// the last byte of `provider`'s package for `platform` can arrive,
    /// with their sizes: the discovery document, the version list, the
    /// package answer, `SHA256SUMS`, its signature, the package.
    pub fn chain(&self, provider: &Provider, platform: &str) -> Vec<(&'static str, u64)> {
        let package = provider
            .packages
            .iter()
            .find(|p| p.platform == platform)
            .expect("a package for the platform");
        vec![
            ("discovery document", DISCOVERY.len() as u64),
            (
                "version list",
                self.versions_document(provider).len() as u64,
            ),
            (
                "package answer",
                self.package_document(provider, package).len() as u64,
            ),
            ("SHA256SUMS", provider.sums.len() as u64),
            ("SHA256SUMS.sig", provider.signature.len() as u64),
            ("package", package.bytes.len() as u64),
        ]
    }

    fn versions_document(&self, provider: &Provider) -> String {
        let platforms: Vec<_> = provider
            .packages
            .iter()
            .map(|p| {
                let (os, arch) = p.platform.split_once('_').expect("OS_ARCH");
                json!({"os": os, "arch": arch})
            })
            .collect();
        json!({
            "id": format!("{}/{}", self.namespace, provider.name),
            "versions": [{
                "version": provider.version,
                "protocols": ["5.0"],
                "platforms": platforms,
            }],
            "warnings": null,
        })
        .to_string()
    }

    fn package_document(&self, provider: &Provider, package: &Package) -> String {
        let (os, arch) = package.platform.split_once('_').expect("OS_ARCH");
        let files = format!(
            "{FILES_PATH}{}/{}/{}/",
            self.namespace, provider.name, provider.version
        );
        let sums = sums_file(&provider.name, &provider.version);
        json!({
            "protocols": ["5.0"],
            "os": os,
            "arch": arch,
            "filename": package.file_name,
            "download_url": format!("{files}{}", package.file_name),
            "shasums_url": format!("{files}{sums}"),
            "shasums_signature_url": format!("{files}{sums}.sig"),
            "shasum": package.sha256,
            "signing_keys": {"gpg_public_keys": [{
                "key_id": self.key_id,
                "ascii_armor": self.public_key,
                "trust_signature": "",
                "source": "tfdisco",
                "source_url": null,
            }]},
        })
        .to_string()
    }
}

/// Routes the discovery document ([`DISCOVERY`]) and a registry's 404 for
/// every other unknown path.
pub fn serve_discovery(server: &TestServer) {
    server.route(tfdisco_core::DISCOVERY_PATH, Reply::json(DISCOVERY));
    server.route_prefix(
        "/",
        Reply::new(404)
            .header("Content-Type", "application/json")
            .body(br#"{"errors":["Not Found"]}"#),
    );
}

fn sums_file(name: &str, version: &str) -> String {
    format!("terraform-provider-{name}_{version}_SHA256SUMS")
}

fn file_reply(bytes: &[u8]) -> Reply {
    Reply::new(200)
        .header("Content-Type", "application/octet-stream")
        .body(bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

pub(crate) fn seed(parts: &[&str]) -> u64 {
    let digest = Sha256::digest(parts.join("\0").as_bytes());
    u64::from_le_bytes(digest[..8].try_into().expect("8 bytes"))
}

/// Bytes no compressor shrinks.
pub(crate) fn incompressible(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        out.extend_from_slice(&rng.next().to_le_bytes());
    }
    out.truncate(len);
    out
}

const LOCAL_HEADER: usize = 30;
const DESCRIPTOR: usize = 16;
const CENTRAL_HEADER: usize = 46;
const END_RECORD: usize = 22;
/// The most a stored deflate block holds.
const STORED_BLOCK: usize = 65_535;

/// The size of a deflate stream of stored blocks holding `n` bytes.
fn stored_deflate_len(n: usize) -> usize {
    n + 5 * n.div_ceil(STORED_BLOCK).max(1)
}

fn zip_len(name: &str, content: usize) -> usize {
    LOCAL_HEADER
        + CENTRAL_HEADER
        + 2 * name.len()
        + DESCRIPTOR
        + END_RECORD
        + stored_deflate_len(content)
}

/// A zip of one file `name` (Unix `mode`) of incompressible content, as
/// large as it can be without passing `size` bytes (exactly `size` unless
/// a block boundary is in the way).
pub fn zip_of_size(name: &str, mode: u32, size: usize, seed: u64) -> Vec<u8> {
    let mut content = size.saturating_sub(zip_len(name, 0));
    while content > 0 && zip_len(name, content) > size {
        content -= 1;
    }
    while zip_len(name, content + 1) <= size {
        content += 1;
    }
    zip_one(name, mode, &incompressible(content, seed))
}

/// A zip of one entry as Go's `archive/zip` writes it with
/// `Method: zip.Deflate` and a Unix mode: a local header with a data
/// descriptor (bit 3; no sizes), the deflated data, the descriptor, the
/// central directory (made by Unix, the mode in the external attributes),
/// dated 2026-01-02 03:04:04. The deflate stream is of stored blocks, what
/// a deflater writes for incompressible data.
pub fn zip_one(name: &str, mode: u32, content: &[u8]) -> Vec<u8> {
    const TIME: u16 = (3 << 11) | (4 << 5) | 2;
    const DATE: u16 = ((2026 - 1980) << 9) | (1 << 5) | 2;
    const FLAGS: u16 = 0x0008;
    const DEFLATE: u16 = 8;
    let mut crc = flate2::Crc::new();
    crc.update(content);
    let crc = crc.sum();
    let mut deflated = Vec::with_capacity(stored_deflate_len(content.len()));
    let mut blocks = content.chunks(STORED_BLOCK).peekable();
    if blocks.peek().is_none() {
        deflated.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = blocks.next() {
        let last = blocks.peek().is_none();
        let len = u16::try_from(block.len()).expect("a stored block");
        deflated.push(u8::from(last));
        deflated.extend_from_slice(&len.to_le_bytes());
        deflated.extend_from_slice(&(!len).to_le_bytes());
        deflated.extend_from_slice(block);
    }
    let size = u32::try_from(content.len()).expect("under 4 GiB");
    let csize = u32::try_from(deflated.len()).expect("under 4 GiB");
    let name_len = u16::try_from(name.len()).expect("a short name");

    let mut out = Vec::with_capacity(zip_len(name, content.len()));
    let u16s = |out: &mut Vec<u8>, values: &[u16]| {
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
    };
    let u32s = |out: &mut Vec<u8>, values: &[u32]| {
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
    };
    out.extend_from_slice(b"PK\x03\x04");
    u16s(&mut out, &[20, FLAGS, DEFLATE, TIME, DATE]);
    u32s(&mut out, &[0, 0, 0]);
    u16s(&mut out, &[name_len, 0]);
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(&deflated);
    out.extend_from_slice(b"PK\x07\x08");
    u32s(&mut out, &[crc, csize, size]);

    let central_at = u32::try_from(out.len()).expect("under 4 GiB");
    out.extend_from_slice(b"PK\x01\x02");
    u16s(&mut out, &[(3 << 8) | 20, 20, FLAGS, DEFLATE, TIME, DATE]);
    u32s(&mut out, &[crc, csize, size]);
    u16s(&mut out, &[name_len, 0, 0, 0, 0]);
    u32s(&mut out, &[(0o100_000 | mode) << 16, 0]);
    out.extend_from_slice(name.as_bytes());
    let central_len = u32::try_from(out.len()).expect("under 4 GiB") - central_at;
    out.extend_from_slice(b"PK\x05\x06");
    u16s(&mut out, &[0, 0, 1, 1]);
    u32s(&mut out, &[central_len, central_at]);
    u16s(&mut out, &[0]);
    out
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn a_zip_of_the_size_asked_that_inflates_to_its_content() {
        for size in [1_000, 65_535 + 200, 1 << 20, 16 << 20] {
            let zip = zip_of_size("terraform-provider-x_v1.0.0", 0o755, size, 7);
            assert!(
                zip.len() <= size && zip.len() + 5 > size,
                "{size}: {}",
                zip.len()
            );
            // The data after the local header and name inflates back, and
            // its CRC and sizes are in the descriptor.
            let start = LOCAL_HEADER + "terraform-provider-x_v1.0.0".len();
            let mut decoder = flate2::read::DeflateDecoder::new(&zip[start..]);
            let mut content = Vec::new();
            decoder.read_to_end(&mut content).expect("inflates");
            let consumed = decoder.total_in() as usize;
            assert_eq!(&zip[start + consumed..start + consumed + 4], b"PK\x07\x08");
            let mut crc = flate2::Crc::new();
            crc.update(&content);
            let field =
                |at: usize| u32::from_le_bytes(zip[at..at + 4].try_into().expect("4 bytes"));
            assert_eq!(field(start + consumed + 4), crc.sum());
            assert_eq!(field(start + consumed + 12) as usize, content.len());
            assert_eq!(
                zip_len("terraform-provider-x_v1.0.0", content.len()),
                zip.len()
            );
        }
    }

    #[test]
    fn the_platform_here_is_first() {
        let all = platforms();
        assert_eq!(all.len(), 3);
        assert_eq!(all[0], current_platform());
    }
}
