//! Raw modes, byte-identical to `openssl enc -aes-{128,192,256}-MODE -K …
//! -iv … [-nopad]` in both directions: ECB and CBC with PKCS#7 padding
//! (unless `pad` is off, when the input must be whole blocks), CTR (the
//! whole IV as a 128-bit big-endian counter, OpenSSL's convention), CFB
//! (CFB128) and OFB. No authentication: prefer Cobblestone.

use crate::error::{Error, Result};
use crate::par;
use crate::pool::Pool;
use aesflow_cipher::Aes;
use aesflow_modes::{Cfb, Ofb, Padding};
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
}

impl RawMode {
    /// Parse `ecb`, `cbc`, `ctr`, `cfb`, `ofb`.
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "ecb" => RawMode::Ecb,
            "cbc" => RawMode::Cbc,
            "ctr" => RawMode::Ctr,
            "cfb" | "cfb128" => RawMode::Cfb,
            "ofb" => RawMode::Ofb,
            _ => {
                return Err(Error::InvalidInput(format!(
                    "unknown mode '{s}' (ecb, cbc, ctr, cfb, ofb)"
                )));
            }
        })
    }

    /// The lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            RawMode::Ecb => "ecb",
            RawMode::Cbc => "cbc",
            RawMode::Ctr => "ctr",
            RawMode::Cfb => "cfb",
            RawMode::Ofb => "ofb",
        }
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
        Ok(RawParams { mode, key, iv, pad })
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

fn read_some(r: &mut (impl Read + ?Sized), buf: &mut [u8]) -> Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io("reading input", e)),
        }
    }
    Ok(n)
}

const BATCH: usize = 4 << 20;

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
    let aes = Aes::new(&p.key)?;
    let werr = |e| Error::io("writing output", e);
    let mut buf = Zeroizing::new(vec![0u8; BATCH]);
    let mut out = Zeroizing::new(Vec::with_capacity(BATCH + 32));
    let mut written = 0u64;
    let padding = if p.pad && p.mode.padded() {
        Padding::Pkcs7
    } else {
        Padding::None
    };
    enum St<'a> {
        Enc(aesflow_modes::BlockEncryptor<&'a Aes>),
        Dec(aesflow_modes::BlockDecryptor<&'a Aes>),
        Ctr([u8; 16]),
        Cfb(Cfb<&'a Aes>),
        Ofb(Ofb<&'a Aes>),
    }
    let mut st = match (p.mode, encrypt) {
        (RawMode::Ecb, true) => St::Enc(aesflow_modes::ecb::encryptor(&aes, padding)),
        (RawMode::Ecb, false) => St::Dec(aesflow_modes::ecb::decryptor(&aes, padding)),
        (RawMode::Cbc, true) => St::Enc(aesflow_modes::cbc::encryptor(&aes, &p.iv, padding)?),
        (RawMode::Cbc, false) => St::Dec(aesflow_modes::cbc::decryptor(&aes, &p.iv, padding)?),
        (RawMode::Ctr, _) => St::Ctr(p.iv),
        (RawMode::Cfb, _) => St::Cfb(Cfb::new(&aes, &p.iv)?),
        (RawMode::Ofb, _) => St::Ofb(Ofb::new(&aes, &p.iv)?),
    };
    loop {
        let n = read_some(reader, &mut buf)?;
        let data = &mut buf[..n];
        out.clear();
        let chunk: &[u8] = match &mut st {
            St::Enc(e) => {
                e.update(data, &mut out);
                &out
            }
            St::Dec(d) => {
                d.update(data, &mut out);
                &out
            }
            St::Ctr(c) => {
                par::ctr_xor(pool, &aes, c, data);
                data
            }
            St::Cfb(c) => {
                if encrypt {
                    c.encrypt(data)
                } else {
                    c.decrypt(data)
                }
                data
            }
            St::Ofb(o) => {
                o.apply_keystream(data);
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
        St::Enc(e) => e.finalize(&mut out).map_err(|e| match e {
            aesflow_modes::Error::NotBlockAligned { .. } => {
                Error::InvalidInput("with --no-pad the input must be a multiple of 16 bytes".into())
            }
            e => e.into(),
        })?,
        St::Dec(d) => d.finalize(&mut out).map_err(|e| match e {
            aesflow_modes::Error::NotBlockAligned { .. } => {
                Error::InvalidInput("the input is not a multiple of 16 bytes (truncated?)".into())
            }
            e => e.into(),
        })?,
        _ => {}
    }
    writer.write_all(&out).map_err(werr)?;
    written += out.len() as u64;
    writer.flush().map_err(werr)?;
    Ok(written)
}
