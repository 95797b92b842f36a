//! The error type of every fallible operation in this crate.
//!
//! Nothing here panics on user input: wrong lengths, a bad IV or nonce, a
//! bad tag length, bad padding and a failed authentication are all [`Error`]s.

use core::fmt;

/// An error from a mode of operation.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// Building the AES instance failed (bad key length, unavailable kernel).
    Cipher(aesflow_cipher::Error),
    /// The IV / initial counter block has the wrong length.
    IvLength {
        /// What the mode accepts.
        expected: &'static str,
        /// What was given.
        got: usize,
    },
    /// Input for a mode without padding is not a whole number of blocks.
    NotBlockAligned {
        /// The input length in bytes.
        len: usize,
    },
    /// An output buffer has the wrong length.
    OutputLength {
        /// The length needed.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// PKCS#7 padding is malformed (wrong key, corrupted or truncated data).
    BadPadding,
    /// A GCM tag length outside 4..=16 bytes.
    TagLength(usize),
    /// The GCM tag did not verify; no plaintext was released.
    AuthenticationFailed,
    /// The message exceeds the mode's limit (GCM: 2^36 - 32 bytes of
    /// plaintext, 2^61 - 1 bytes of AAD).
    MessageTooLong,
    /// A bit count larger than the buffer holds (CFB1).
    BitLength {
        /// The bits asked for.
        bits: usize,
        /// The bits the buffer holds.
        capacity: usize,
    },
    /// An operation out of order (GCM: AAD after message data).
    Order(&'static str),
    /// A requested accelerated implementation is not available here.
    Unavailable(&'static str),
    /// An XTS key that is not 32 or 64 bytes (two AES-128 or AES-256 keys).
    XtsKeyLength(usize),
    /// An XTS data unit outside 16 bytes ..= 2^20 blocks (or, streaming,
    /// input that is not whole data units: the bytes left over).
    DataUnitLength(usize),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Cipher(e) => e.fmt(f),
            Error::IvLength { expected, got } => {
                write!(f, "IV must be {expected}, got {got} bytes")
            }
            Error::NotBlockAligned { len } => write!(
                f,
                "input of {len} bytes is not a whole number of 16-byte blocks (use padding?)"
            ),
            Error::OutputLength { expected, got } => {
                write!(f, "output buffer must be {expected} bytes, got {got}")
            }
            Error::BadPadding => f.write_str("bad PKCS#7 padding (wrong key or corrupted data)"),
            Error::TagLength(n) => write!(f, "GCM tag must be 4 to 16 bytes, got {n}"),
            Error::AuthenticationFailed => {
                f.write_str("authentication failed: wrong key, nonce, AAD or tampered data")
            }
            Error::MessageTooLong => f.write_str("message too long for this mode"),
            Error::BitLength { bits, capacity } => {
                write!(f, "{bits} bits asked for, buffer holds {capacity}")
            }
            Error::Order(what) => write!(f, "operation out of order: {what}"),
            Error::Unavailable(what) => write!(f, "{what} is not available on this CPU/build"),
            Error::XtsKeyLength(n) => write!(
                f,
                "an XTS key is two AES keys, 32 or 64 bytes (XTS-AES-128 or -256), not {n} bytes"
            ),
            Error::DataUnitLength(n) => write!(
                f,
                "an XTS data unit is 16 bytes to 2^20 blocks (whole units when streaming), \
                 got {n} bytes"
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Cipher(e) => Some(e),
            _ => None,
        }
    }
}

impl From<aesflow_cipher::Error> for Error {
    fn from(e: aesflow_cipher::Error) -> Self {
        Error::Cipher(e)
    }
}

impl From<aesflow_cipher::KeyError> for Error {
    fn from(e: aesflow_cipher::KeyError) -> Self {
        Error::Cipher(e.into())
    }
}

/// Result alias.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// A 16-byte IV from a slice, or [`Error::IvLength`].
pub(crate) fn iv16(iv: &[u8]) -> Result<[u8; 16]> {
    iv.try_into().map_err(|_| Error::IvLength {
        expected: "16 bytes",
        got: iv.len(),
    })
}

/// `Ok` if `len` is a multiple of 16.
pub(crate) fn aligned(len: usize) -> Result<()> {
    if len.is_multiple_of(16) {
        Ok(())
    } else {
        Err(Error::NotBlockAligned { len })
    }
}

/// The out-of-place form of an in-place operation: checks that `output` is
/// as long as `input`, copies `input` there and runs `f` on it. If `f`
/// fails (a bad IV or nonce, unaligned data, a tag mismatch), `output` is
/// zeroed: a failed call never leaves the input (plaintext, or ciphertext
/// that did not authenticate) or a partial result in the caller's buffer.
pub(crate) fn out_of_place<T>(
    input: &[u8],
    output: &mut [u8],
    f: impl FnOnce(&mut [u8]) -> Result<T>,
) -> Result<T> {
    same_len(input.len(), output.len())?;
    output.copy_from_slice(input);
    let r = f(output);
    if r.is_err() {
        zeroize::Zeroize::zeroize(output);
    }
    r
}

/// `Ok` if the output has the same length as the input.
pub(crate) fn same_len(input: usize, output: usize) -> Result<()> {
    if input == output {
        Ok(())
    } else {
        Err(Error::OutputLength {
            expected: input,
            got: output,
        })
    }
}

#[cfg(test)]
mod tests {
    use aesflow_cipher::Aes;

    /// A failed `*_into` call leaves zeros, not the copied input, in the
    /// caller's output buffer.
    #[test]
    fn failed_into_calls_leave_no_input_behind() {
        let aes = Aes::new(&[7u8; 16]).unwrap();
        let input = [0x5au8; 48];
        let mut out = [0xffu8; 48];
        assert!(crate::cbc::encrypt_into(&aes, &[0u8; 15], &input, &mut out).is_err());
        assert_eq!(out, [0u8; 48]);
        let (unaligned, mut out) = ([0x5au8; 40], [0xffu8; 40]);
        assert!(crate::ecb::encrypt_into(&aes, &unaligned, &mut out).is_err());
        assert_eq!(out, [0u8; 40]);
        // Same length, good IV: the output is the ciphertext.
        let mut out = [0u8; 48];
        crate::cbc::encrypt_into(&aes, &[0u8; 16], &input, &mut out).unwrap();
        assert_ne!(out, input);
        assert_ne!(out, [0u8; 48]);
    }
}
