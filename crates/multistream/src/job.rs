//! What a call is made of: the [`Mode`], a stream's [`Key`], and the
//! scatter/gather descriptors [`Job`] and [`InPlaceJob`], checked by
//! [`validate`] before anything is written.

use crate::{Error, RoundKeys};
use aesflow_cipher::KeySize;
use core::fmt;

/// A mode of operation the engine runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// CBC encryption: `C_i = E(P_i ^ C_{i-1})`, `C_0 = IV`. Whole blocks.
    CbcEncrypt,
    /// CFB128 encryption: `C_i = P_i ^ E(C_{i-1})`. Any length.
    CfbEncrypt,
    /// CFB128 decryption: `P_i = C_i ^ E(C_{i-1})`. Any length.
    CfbDecrypt,
    /// OFB: `O_i = E(O_{i-1})`, `out = in ^ O_i`; encryption and decryption
    /// are the same. Any length.
    Ofb,
}

impl Mode {
    /// All modes.
    pub const ALL: [Mode; 4] = [
        Mode::CbcEncrypt,
        Mode::CfbEncrypt,
        Mode::CfbDecrypt,
        Mode::Ofb,
    ];

    /// Whether inputs must be a multiple of 16 bytes.
    pub fn needs_whole_blocks(self) -> bool {
        self == Mode::CbcEncrypt
    }

    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::CbcEncrypt => "cbc-encrypt",
            Mode::CfbEncrypt => "cfb128-encrypt",
            Mode::CfbDecrypt => "cfb128-decrypt",
            Mode::Ofb => "ofb",
        }
    }

    pub(crate) fn code(self) -> u8 {
        match self {
            Mode::CbcEncrypt => crate::kernels::CBC_ENC,
            Mode::CfbEncrypt => crate::kernels::CFB_ENC,
            Mode::CfbDecrypt => crate::kernels::CFB_DEC,
            Mode::Ofb => crate::kernels::OFB,
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A job's key: raw bytes (expanded by the engine, once per distinct key
/// slice) or already-expanded round keys.
#[derive(Clone, Copy)]
pub enum Key<'a> {
    /// A 16-, 24- or 32-byte AES key.
    Bytes(&'a [u8]),
    /// Expanded round keys (shared by any number of jobs, never re-expanded).
    Expanded(&'a RoundKeys),
}

impl fmt::Debug for Key<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Bytes(b) => write!(f, "Key::Bytes({} bytes, redacted)", b.len()),
            Key::Expanded(rk) => write!(f, "Key::Expanded({:?})", rk.size()),
        }
    }
}

impl<'a> From<&'a [u8]> for Key<'a> {
    fn from(k: &'a [u8]) -> Self {
        Key::Bytes(k)
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for Key<'a> {
    fn from(k: &'a [u8; N]) -> Self {
        Key::Bytes(k)
    }
}

impl<'a> From<&'a Vec<u8>> for Key<'a> {
    fn from(k: &'a Vec<u8>) -> Self {
        Key::Bytes(k)
    }
}

impl<'a> From<&'a RoundKeys> for Key<'a> {
    fn from(k: &'a RoundKeys) -> Self {
        Key::Expanded(k)
    }
}

/// One stream of a scatter/gather call: key, IV, input and output.
#[derive(Debug)]
pub struct Job<'a> {
    /// The stream's key.
    pub key: Key<'a>,
    /// On entry the IV (CBC/CFB: `C_0`; OFB: `O_0`); on return the value
    /// that continues the stream: the last ciphertext block (CBC, CFB), the
    /// last keystream block (OFB). After a partial final block, OFB returns
    /// that block's keystream (a continuation starts at the next block
    /// boundary) and CFB returns the chaining value of the last whole block
    /// (a CFB stream cannot continue after a partial block). Unchanged for
    /// an empty input.
    pub iv: [u8; 16],
    /// Input bytes.
    pub input: &'a [u8],
    /// Output bytes, as long as `input`.
    pub output: &'a mut [u8],
    /// The mode.
    pub mode: Mode,
}

impl<'a> Job<'a> {
    /// A job.
    pub fn new(
        mode: Mode,
        key: impl Into<Key<'a>>,
        iv: [u8; 16],
        input: &'a [u8],
        output: &'a mut [u8],
    ) -> Self {
        Job {
            key: key.into(),
            iv,
            input,
            output,
            mode,
        }
    }
}

/// Check one job's shape: output as long as input, whole blocks for CBC,
/// and a 16-, 24- or 32-byte key.
pub(crate) fn check_job(
    job: usize,
    key: Key<'_>,
    mode: Mode,
    input: usize,
    output: usize,
) -> Result<(), Error> {
    if input != output {
        return Err(Error::LengthMismatch { job, input, output });
    }
    if mode.needs_whole_blocks() && !input.is_multiple_of(16) {
        return Err(Error::NotBlockAligned { job, len: input });
    }
    if let Key::Bytes(b) = key {
        KeySize::from_len(b.len()).map_err(|error| Error::Key { job, error })?;
    }
    Ok(())
}

/// Check every job without processing any: the errors [`process`](crate::process) would
/// return before writing, so a caller that splits a call (e.g. across
/// cores) can keep the all-or-nothing guarantee.
pub fn validate(jobs: &[Job<'_>]) -> Result<(), Error> {
    for (i, j) in jobs.iter().enumerate() {
        check_job(i, j.key, j.mode, j.input.len(), j.output.len())?;
    }
    Ok(())
}

/// One stream processed in place.
#[derive(Debug)]
pub struct InPlaceJob<'a> {
    /// The stream's key.
    pub key: Key<'a>,
    /// IV on entry, continuation value on return (as [`Job::iv`]).
    pub iv: [u8; 16],
    /// The data, replaced by the result.
    pub data: &'a mut [u8],
    /// The mode.
    pub mode: Mode,
}

impl<'a> InPlaceJob<'a> {
    /// An in-place job.
    pub fn new(mode: Mode, key: impl Into<Key<'a>>, iv: [u8; 16], data: &'a mut [u8]) -> Self {
        InPlaceJob {
            key: key.into(),
            iv,
            data,
            mode,
        }
    }
}
