//! The AES S-box, derived from its definition (FIPS-197 §5.1.1).
//!
//! SubBytes maps each byte `b` to `affine(b⁻¹)`, where `b⁻¹` is the
//! multiplicative inverse in GF(2^8) modulo the AES polynomial
//! `x^8 + x^4 + x^3 + x + 1` (`0x11b`), with `0⁻¹ = 0`, and `affine` is the
//! fixed GF(2)-affine map with constant `0x63`. Both tables are computed by
//! `const fn`s at compile time; nothing is typed in. The tests compare them
//! with the table printed in FIPS-197 (Figure 7).

/// Multiply two elements of GF(2^8) modulo the AES polynomial (`0x11b`).
///
/// Constant-time: a fixed eight-step loop with masks, no data-dependent branch.
pub const fn gf_mul(a: u8, b: u8) -> u8 {
    let mut a = a;
    let mut b = b;
    let mut p = 0u8;
    let mut i = 0;
    while i < 8 {
        p ^= a & (0u8.wrapping_sub(b & 1));
        let hi = 0u8.wrapping_sub(a >> 7);
        a = (a << 1) ^ (hi & 0x1b);
        b >>= 1;
        i += 1;
    }
    p
}

/// `xtime`: multiplication by `x` (`0x02`) in GF(2^8) (FIPS-197 §4.2.1).
pub const fn xtime(a: u8) -> u8 {
    (a << 1) ^ (0u8.wrapping_sub(a >> 7) & 0x1b)
}

/// Multiplicative inverse in GF(2^8), with `0 ↦ 0`: `a^254` by a fixed
/// addition chain (7 squarings, 4 multiplications).
///
/// Constant-time: the sequence of operations does not depend on `a`.
pub const fn gf_inv(a: u8) -> u8 {
    let x2 = gf_mul(a, a);
    let x3 = gf_mul(x2, a);
    let x6 = gf_mul(x3, x3);
    let x12 = gf_mul(x6, x6);
    let x15 = gf_mul(x12, x3);
    let x30 = gf_mul(x15, x15);
    let x60 = gf_mul(x30, x30);
    let x120 = gf_mul(x60, x60);
    let x240 = gf_mul(x120, x120);
    let x252 = gf_mul(x240, x12);
    gf_mul(x252, x2)
}

/// The S-box computed arithmetically (`affine(a⁻¹)`), without a table.
///
/// Constant-time and slow (~11 field multiplications); used where the
/// input is secret and speed is secondary, such as the key schedule.
pub const fn sub_byte_ct(a: u8) -> u8 {
    affine(gf_inv(a))
}

/// The affine transformation of SubBytes: `b'_i = b_i ⊕ b_{i+4} ⊕ b_{i+5} ⊕ b_{i+6} ⊕ b_{i+7} ⊕ c_i`
/// with `c = 0x63`.
pub const fn affine(b: u8) -> u8 {
    b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63
}

/// The inverse of [`affine`].
pub const fn inv_affine(b: u8) -> u8 {
    b.rotate_left(1) ^ b.rotate_left(3) ^ b.rotate_left(6) ^ 0x05
}

/// The S-box (`inverse`: the inverse S-box) as a table, from its
/// definition.
const fn build(inverse: bool) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let x = i as u8;
        t[i] = if inverse {
            gf_inv(inv_affine(x))
        } else {
            affine(gf_inv(x))
        };
        i += 1;
    }
    t
}

/// The S-box used by SubBytes (FIPS-197 Figure 7), computed at compile time.
///
/// Indexing this table with secret data is **not** constant-time; the
/// `reference` and `ttable` kernels do so and say so. The `ctime` kernel
/// computes the S-box arithmetically instead.
pub const SBOX: [u8; 256] = build(false);

/// The inverse S-box used by InvSubBytes (FIPS-197 Figure 14).
pub const INV_SBOX: [u8; 256] = build(true);

#[cfg(test)]
mod tests {
    use super::*;

    /// FIPS-197 Figure 7, typed from the standard (the test's independent oracle).
    #[rustfmt::skip]
    const FIPS_SBOX: [u8; 256] = [
        0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
        0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
        0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
        0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
        0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
        0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
        0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
        0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
        0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
        0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
        0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
        0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
        0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
        0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
        0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
        0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
    ];

    #[test]
    fn sbox_matches_fips197_figure7() {
        assert_eq!(SBOX, FIPS_SBOX);
    }

    #[test]
    fn inverse_sbox_inverts() {
        for i in 0..=255u8 {
            assert_eq!(INV_SBOX[SBOX[i as usize] as usize], i);
        }
        // FIPS-197 Figure 14 spot checks.
        assert_eq!(INV_SBOX[0x00], 0x52);
        assert_eq!(INV_SBOX[0xff], 0x7d);
    }

    #[test]
    fn field_inverse() {
        assert_eq!(gf_inv(0), 0);
        for a in 1..=255u8 {
            assert_eq!(gf_mul(a, gf_inv(a)), 1, "a = {a:#04x}");
        }
        // FIPS-197 §4.2: {57}·{83} = {c1}, {57}·{13} = {fe}.
        assert_eq!(gf_mul(0x57, 0x83), 0xc1);
        assert_eq!(gf_mul(0x57, 0x13), 0xfe);
    }
}
