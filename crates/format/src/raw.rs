//! Raw modes, byte-identical to `openssl enc -aes-{128,192,256}-MODE -K …
//! -iv … [-nopad]` in both directions: ECB and CBC with PKCS#7 padding
//! (unless `pad` is off, when the input must be whole blocks), CTR (the
//! whole IV as a 128-bit big-endian counter, OpenSSL's convention), CFB
//! (CFB128), CFB8, CFB1 and OFB (NIST SP 800-38A, "Recommendation for Block
//! Cipher Modes of Operation", sections 6.1-6.5). No authentication:
//! prefer Cobblestone.
//!
//! Passphrase files as `openssl enc -pbkdf2 -md sha256 [-iter N]` makes
//! them: `Salted__` ‖ 8-byte salt ‖ ciphertext, with key ‖ IV =
//! PBKDF2-HMAC-SHA-256(passphrase, salt, N, key length + IV length)
//! (RFC 8018, "PKCS #5: Password-Based Cryptography Specification",
//! section 5.2); [`SaltedHeader`] and [`RawParams::from_passphrase`].

use crate::cobblestone::read_full;
use crate::error::{Error, Result};
use crate::par;
use crate::pool::Pool;
use aesflow_cipher::Aes;
use aesflow_modes::{BlockDecryptor, BlockEncryptor, Cfb, Cfb1, Cfb8, Ofb, Padding, cbc, ecb};
use std::io::{self, Read, Write};
use zeroize::Zeroizing;

/// A raw mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RawMode {
    /// Electronic codebook (padded).
    Ecb,
    /// Cipher block chaining (padded).
    Cbc,
    /// Counter mode.
    Ctr,
    /// 128-bit cipher feedback.
    Cfb,
    /// Output feedback.
    Ofb,
    /// 8-bit cipher feedback (one AES call per byte).
    Cfb8,
    /// 1-bit cipher feedback (one AES call per bit).
    Cfb1,
}

impl RawMode {
    /// Every mode: its name and a one-line description.
    const TABLE: [(RawMode, &'static str, &'static str); 7] = [
        (RawMode::Ecb, "ecb", "Electronic codebook, PKCS#7 padded"),
        (RawMode::Cbc, "cbc", "Cipher block chaining, PKCS#7 padded"),
        (
            RawMode::Ctr,
            "ctr",
            "Counter mode (the IV is a 128-bit big-endian counter)",
        ),
        (RawMode::Cfb, "cfb", "128-bit cipher feedback"),
        (RawMode::Ofb, "ofb", "Output feedback"),
        (RawMode::Cfb8, "cfb8", "8-bit cipher feedback"),
        (RawMode::Cfb1, "cfb1", "1-bit cipher feedback"),
    ];

    /// Every mode, in the order of `openssl enc`'s documentation.
    pub fn all() -> impl Iterator<Item = RawMode> {
        Self::TABLE.iter().map(|t| t.0)
    }

    /// Parse `ecb`, `cbc`, `ctr`, `cfb` (or `cfb128`), `ofb`, `cfb8`, `cfb1`
    /// (any case).
    pub fn parse(s: &str) -> Result<Self> {
        let lower = s.to_ascii_lowercase();
        let name = if lower == "cfb128" { "cfb" } else { &lower };
        Self::all().find(|m| m.name() == name).ok_or_else(|| {
            Error::InvalidInput(format!(
                "unknown mode '{s}' (ecb, cbc, ctr, cfb, cfb8, cfb1, ofb)"
            ))
        })
    }

    fn row(self) -> &'static (RawMode, &'static str, &'static str) {
        Self::TABLE
            .iter()
            .find(|t| t.0 == self)
            .expect("every mode is in the table")
    }

    /// The lower-case name.
    pub fn name(self) -> &'static str {
        self.row().1
    }

    /// A one-line description (for help texts).
    pub fn description(self) -> &'static str {
        self.row().2
    }

    fn padded(self) -> bool {
        matches!(self, RawMode::Ecb | RawMode::Cbc)
    }
}

/// Decode hex (whitespace around it ignored); the bytes are zeroized on drop.
pub fn parse_hex(s: &str, what: &str) -> Result<Zeroizing<Vec<u8>>> {
    let s = s.trim();
    let bad = || Error::InvalidInput(format!("{what}: not a hex string"));
    if !s.len().is_multiple_of(2) {
        return Err(Error::InvalidInput(format!(
            "{what}: odd number of hex digits ({})",
            s.len()
        )));
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Zeroizing::new(Vec::with_capacity(s.len() / 2));
    for p in s.as_bytes().chunks(2) {
        out.push(digit(p[0]).ok_or_else(bad)? << 4 | digit(p[1]).ok_or_else(bad)?);
    }
    Ok(out)
}

/// Parameters of a raw-mode run.
pub struct RawParams {
    mode: RawMode,
    key: Zeroizing<Vec<u8>>,
    iv: [u8; 16],
    pad: bool,
    kernel: Option<&'static dyn aesflow_cipher::Kernel>,
}

impl std::fmt::Debug for RawParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawParams")
            .field("mode", &self.mode)
            .field("key_bits", &(self.key.len() * 8))
            .field("pad", &self.pad)
            .finish_non_exhaustive()
    }
}

impl RawParams {
    /// From hex strings as given to `openssl enc -K … -iv …`: the key length
    /// (32, 48 or 64 hex digits) picks AES-128/192/256; the IV (32 hex
    /// digits) is required except for ECB. `pad: false` is `-nopad`.
    pub fn new(mode: RawMode, key_hex: &str, iv_hex: Option<&str>, pad: bool) -> Result<Self> {
        let key = parse_hex(key_hex, "--key")?;
        if ![16, 24, 32].contains(&key.len()) {
            return Err(Error::InvalidInput(format!(
                "--key must be 32, 48 or 64 hex digits (AES-128/192/256), got {}",
                key_hex.trim().len()
            )));
        }
        let mut iv = [0u8; 16];
        match iv_hex {
            Some(h) => {
                let v = parse_hex(h, "--iv")?;
                if v.len() != 16 {
                    return Err(Error::InvalidInput(format!(
                        "--iv must be 32 hex digits, got {}",
                        h.trim().len()
                    )));
                }
                iv.copy_from_slice(&v);
            }
            None if mode != RawMode::Ecb => {
                return Err(Error::InvalidInput(format!(
                    "--iv is required for --mode {}",
                    mode.name()
                )));
            }
            None => {}
        }
        Ok(RawParams {
            mode,
            key,
            iv,
            pad,
            kernel: None,
        })
    }

    /// Key and IV from a passphrase as `openssl enc -pbkdf2 -md sha256
    /// -iter N` derives them (`key_len`: 16, 24 or 32 bytes).
    pub fn from_passphrase(
        mode: RawMode,
        key_len: usize,
        passphrase: &[u8],
        header: &SaltedHeader,
        pad: bool,
    ) -> Result<Self> {
        if ![16, 24, 32].contains(&key_len) || header.iterations == 0 {
            return Err(Error::InvalidInput(
                "PBKDF2: key length 16/24/32 and at least one iteration".into(),
            ));
        }
        let iv_len = if mode == RawMode::Ecb { 0 } else { 16 };
        let mut okm = Zeroizing::new(vec![0u8; key_len + iv_len]);
        pbkdf2_hmac_sha256(passphrase, &header.salt, header.iterations, &mut okm);
        let mut iv = [0u8; 16];
        iv[..iv_len].copy_from_slice(&okm[key_len..]);
        Ok(RawParams {
            mode,
            key: Zeroizing::new(okm[..key_len].to_vec()),
            iv,
            pad,
            kernel: None,
        })
    }

    /// Run on `kernel` instead of the fastest constant-time one.
    pub fn with_kernel(mut self, kernel: &'static dyn aesflow_cipher::Kernel) -> Self {
        self.kernel = Some(kernel);
        self
    }

    /// The mode.
    pub fn mode(&self) -> RawMode {
        self.mode
    }

    /// The `openssl enc` cipher name, e.g. `aes-256-ctr`.
    pub fn openssl_name(&self) -> String {
        format!("aes-{}-{}", self.key.len() * 8, self.mode.name())
    }
}

/// The `openssl enc` salt header: `Salted__` and 8 bytes of salt (the
/// iteration count is not stored; OpenSSL's default is 10000).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SaltedHeader {
    /// The salt.
    pub salt: [u8; 8],
    /// PBKDF2 iterations (`-iter`).
    pub iterations: u32,
}

/// The header's magic.
pub const SALTED_MAGIC: &[u8; 8] = b"Salted__";
/// `openssl enc -pbkdf2`'s default iteration count.
pub const OPENSSL_DEFAULT_ITER: u32 = 10_000;

impl SaltedHeader {
    /// A fresh random salt.
    pub fn new(iterations: u32) -> Result<Self> {
        let mut salt = [0u8; 8];
        getrandom::fill(&mut salt)
            .map_err(|e| Error::io("getting random bytes", io::Error::other(e.to_string())))?;
        Ok(SaltedHeader { salt, iterations })
    }

    /// Parse the 16 header bytes.
    pub fn parse(b: &[u8; 16], iterations: u32) -> Result<Self> {
        if &b[..8] != SALTED_MAGIC {
            return Err(Error::BadHeader(
                "not an `openssl enc -pbkdf2` file (no Salted__ header)".into(),
            ));
        }
        Ok(SaltedHeader {
            salt: b[8..].try_into().expect("8 bytes"),
            iterations,
        })
    }

    /// The 16 header bytes.
    pub fn to_bytes(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(SALTED_MAGIC);
        b[8..].copy_from_slice(&self.salt);
        b
    }
}

/// PBKDF2-HMAC-SHA-256 (RFC 8018 section 5.2) into `out`, by RustCrypto's
/// `pbkdf2`.
pub fn pbkdf2_hmac_sha256(password: &[u8], salt: &[u8], iterations: u32, out: &mut [u8]) {
    pbkdf2::pbkdf2_hmac::<sha2::Sha256>(password, salt, iterations, out);
}

const BATCH: usize = 4 << 20;

/// A raw mode's streaming state: the block modes buffer a partial block
/// (and pad); the others transform each batch in place.
enum RawState<'a> {
    Enc(BlockEncryptor<&'a Aes>),
    Dec(BlockDecryptor<&'a Aes>),
    InPlace(InPlaceFn<'a>),
}

/// A batch transformed in place.
type InPlaceFn<'a> = Box<dyn FnMut(&mut [u8]) -> Result<()> + 'a>;

impl<'a> RawState<'a> {
    fn new(pool: &'a Pool, aes: &'a Aes, p: &RawParams, encrypt: bool) -> Result<Self> {
        let padding = if p.pad && p.mode.padded() {
            Padding::Pkcs7
        } else {
            Padding::None
        };
        let iv = &p.iv;
        Ok(match (p.mode, encrypt) {
            (RawMode::Ecb, true) => RawState::Enc(ecb::encryptor(aes, padding)),
            (RawMode::Ecb, false) => RawState::Dec(ecb::decryptor(aes, padding)),
            (RawMode::Cbc, true) => RawState::Enc(cbc::encryptor(aes, iv, padding)?),
            (RawMode::Cbc, false) => RawState::Dec(cbc::decryptor(aes, iv, padding)?),
            (RawMode::Ctr, _) => {
                let mut counter = *iv;
                RawState::InPlace(Box::new(move |d| {
                    par::ctr_xor(pool, aes, &mut counter, d);
                    Ok(())
                }))
            }
            (RawMode::Cfb, e) => Self::either(Cfb::new(aes, iv)?, e, Cfb::encrypt, Cfb::decrypt),
            (RawMode::Cfb8, e) => {
                Self::either(Cfb8::new(aes, iv)?, e, Cfb8::encrypt, Cfb8::decrypt)
            }
            (RawMode::Ofb, _) => Self::either(
                Ofb::new(aes, iv)?,
                true,
                Ofb::apply_keystream,
                Ofb::apply_keystream,
            ),
            (RawMode::Cfb1, e) => {
                let mut c = Cfb1::new(aes, iv)?;
                RawState::InPlace(Box::new(move |d| {
                    let bits = d.len() * 8;
                    let r = if e {
                        c.encrypt_bits(d, bits)
                    } else {
                        c.decrypt_bits(d, bits)
                    };
                    r.map_err(Error::from)
                }))
            }
        })
    }

    /// The in-place state of `mode`, running `enc` or `dec` on each batch.
    fn either<M: 'a>(
        mut mode: M,
        encrypt: bool,
        enc: fn(&mut M, &mut [u8]),
        dec: fn(&mut M, &mut [u8]),
    ) -> Self {
        let f = if encrypt { enc } else { dec };
        RawState::InPlace(Box::new(move |d| {
            f(&mut mode, d);
            Ok(())
        }))
    }
}

/// The error for a block mode's input that does not end on a block.
fn unaligned(msg: &'static str) -> impl FnOnce(aesflow_modes::Error) -> Error {
    move |e| match e {
        aesflow_modes::Error::NotBlockAligned { .. } => Error::InvalidInput(msg.into()),
        e => e.into(),
    }
}

/// Encrypt (`encrypt`) or decrypt `reader` into `writer`. Returns the bytes
/// written. Padding errors surface at the end (the caller discards the
/// output; file outputs are temporary until success).
pub fn raw_stream(
    pool: &Pool,
    p: &RawParams,
    encrypt: bool,
    reader: &mut (impl Read + ?Sized),
    writer: &mut (impl Write + ?Sized),
    progress: &(dyn Fn(u64) + Sync),
) -> Result<u64> {
    let kernel = p.kernel.unwrap_or_else(crate::kernel::kernel);
    let aes = Aes::with_kernel(&p.key, kernel, aesflow_cipher::KeyExpansion::Offline)?;
    let werr = |e| Error::io("writing output", e);
    let mut buf = Zeroizing::new(vec![0u8; BATCH]);
    let mut out = Zeroizing::new(Vec::with_capacity(BATCH + 32));
    let mut written = 0u64;
    let mut st = RawState::new(pool, &aes, p, encrypt)?;
    loop {
        let n = read_full(reader, &mut buf)?;
        let data = &mut buf[..n];
        out.clear();
        let chunk: &[u8] = match &mut st {
            RawState::Enc(e) => {
                e.update(data, &mut out);
                &out
            }
            RawState::Dec(d) => {
                d.update(data, &mut out);
                &out
            }
            RawState::InPlace(f) => {
                f(data)?;
                data
            }
        };
        writer.write_all(chunk).map_err(werr)?;
        written += chunk.len() as u64;
        progress(n as u64);
        if n < BATCH {
            break;
        }
    }
    out.clear();
    match st {
        RawState::Enc(e) => e.finalize(&mut out).map_err(unaligned(
            "with --no-pad the input must be a multiple of 16 bytes",
        ))?,
        RawState::Dec(d) => d.finalize(&mut out).map_err(unaligned(
            "the input is not a multiple of 16 bytes (truncated?)",
        ))?,
        RawState::InPlace(_) => {}
    }
    writer.write_all(&out).map_err(werr)?;
    written += out.len() as u64;
    writer.flush().map_err(werr)?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        parse_hex(s, "test").unwrap().to_vec()
    }

    /// PBKDF2-HMAC-SHA-256 test vectors (RFC 7914 section 11, and the
    /// widely published "password"/"salt" set).
    #[test]
    fn pbkdf2_sha256_vectors() {
        let mut out = [0u8; 32];
        pbkdf2_hmac_sha256(b"password", b"salt", 1, &mut out);
        assert_eq!(
            out.to_vec(),
            hex("120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b")
        );
        pbkdf2_hmac_sha256(b"password", b"salt", 4096, &mut out);
        assert_eq!(
            out.to_vec(),
            hex("c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a")
        );
        let mut long = [0u8; 64];
        pbkdf2_hmac_sha256(b"passwd", b"salt", 1, &mut long);
        assert_eq!(
            long.to_vec(),
            hex(
                "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc\
                 49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
            )
        );
    }

    #[test]
    fn salted_header_round_trips() {
        let h = SaltedHeader::new(7).unwrap();
        assert_eq!(SaltedHeader::parse(&h.to_bytes(), 7).unwrap(), h);
        assert!(SaltedHeader::parse(&[0u8; 16], 7).is_err());
    }
}
