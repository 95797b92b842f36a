//! PKCS#7 padding (RFC 5652 §6.3) for the block modes (ECB, CBC).
//!
//! The padded message always gets 1 to 16 bytes of value `n` appended, so
//! every plaintext, including an empty one or a whole number of blocks, has an
//! unambiguous padding. Removal checks all 16 bytes of the last block without
//! data-dependent branches or indexing and reports any malformation as the
//! single error [`Error::BadPadding`] (no detail for a padding oracle to
//! exploit; note that CBC without authentication is malleable anyway —
//! prefer GCM).

use crate::error::{Error, Result};
use subtle::{ConstantTimeEq, ConstantTimeGreater, ConstantTimeLess};

/// Whether a block mode pads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Padding {
    /// No padding: input must be a whole number of blocks.
    #[default]
    None,
    /// PKCS#7 padding.
    Pkcs7,
}

/// The padded length of a `len`-byte message.
pub const fn pkcs7_padded_len(len: usize) -> usize {
    (len / 16 + 1) * 16
}

/// The last, padded block for a tail of fewer than 16 bytes.
///
/// # Panics
/// Never for `tail.len() < 16`; callers in this crate guarantee that.
pub fn pkcs7_pad_block(tail: &[u8]) -> [u8; 16] {
    debug_assert!(tail.len() < 16);
    let n = (16 - tail.len()) as u8;
    let mut b = [n; 16];
    b[..tail.len()].copy_from_slice(tail);
    b
}

/// Pad a whole message (appends 1..=16 bytes).
pub fn pkcs7_pad(data: &mut Vec<u8>) {
    let n = 16 - data.len() % 16;
    data.resize(data.len() + n, n as u8);
}

/// The number of data bytes (0..=15) in a padded last block, checked in
/// constant time.
pub fn pkcs7_unpad_block(block: &[u8; 16]) -> Result<usize> {
    let n = block[15];
    let mut ok = n.ct_gt(&0) & n.ct_lt(&17);
    for (i, &b) in block.iter().enumerate() {
        // Byte i is padding iff i >= 16 - n, i.e. i + n >= 16.
        let in_pad = (i as u8).wrapping_add(n).ct_gt(&15);
        ok &= !in_pad | b.ct_eq(&n);
    }
    if bool::from(ok) {
        Ok(16 - n as usize)
    } else {
        Err(Error::BadPadding)
    }
}

/// Remove padding from a whole decrypted message in place.
pub fn pkcs7_unpad(data: &mut Vec<u8>) -> Result<()> {
    if data.is_empty() || !data.len().is_multiple_of(16) {
        return Err(Error::BadPadding);
    }
    let start = data.len() - 16;
    let last: [u8; 16] = data[start..].try_into().expect("16 bytes");
    let keep = pkcs7_unpad_block(&last)?;
    data.truncate(start + keep);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_all_tail_lengths() {
        for len in 0..40 {
            let mut v: Vec<u8> = (0..len as u8).collect();
            pkcs7_pad(&mut v);
            assert_eq!(v.len(), pkcs7_padded_len(len));
            pkcs7_unpad(&mut v).unwrap();
            assert_eq!(v, (0..len as u8).collect::<Vec<_>>());
        }
    }

    #[test]
    fn malformed_padding_is_rejected() {
        let mut b = [3u8; 16];
        assert_eq!(pkcs7_unpad_block(&b), Ok(13));
        b[13] = 2;
        assert_eq!(pkcs7_unpad_block(&b), Err(Error::BadPadding));
        assert_eq!(pkcs7_unpad_block(&[0; 16]), Err(Error::BadPadding));
        assert_eq!(pkcs7_unpad_block(&[17; 16]), Err(Error::BadPadding));
        assert_eq!(pkcs7_unpad_block(&[16; 16]), Ok(0));
        let mut b = [16u8; 16];
        b[0] = 15;
        assert_eq!(pkcs7_unpad_block(&b), Err(Error::BadPadding));
        assert_eq!(pkcs7_unpad(&mut vec![1; 15]), Err(Error::BadPadding));
        assert_eq!(pkcs7_unpad(&mut vec![]), Err(Error::BadPadding));
    }
}
