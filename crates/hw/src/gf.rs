//! The composite field GF((2^4)^2) of the S-box, computed rather than copied.
//!
//! Rijmen's suggestion (cited by Hodjat & Verbauwhede, §4): the inverse in
//! GF(2^8) is computed in GF((2^4)^2) after an isomorphic mapping δ, as
//! Wolkerstorfer, Oswald & Lamberger's ASIC S-box does. An element
//! `a = a_h·x + a_l` of GF((2^4)^2) (`a_h, a_l` in GF(2^4) =
//! `GF(2)[y]/(y^4 + y + 1)`) modulo `x^2 + x + λ` has the inverse
//!
//! ```text
//! d      = λ·a_h² ⊕ (a_h ⊕ a_l)·a_l
//! a⁻¹    = (a_h·d⁻¹)·x + (a_h ⊕ a_l)·d⁻¹
//! ```
//!
//! δ maps the AES polynomial basis to powers of a root of the AES polynomial
//! `t^8 + t^4 + t^3 + t + 1` in GF((2^4)^2); it is found by search here, and
//! the tests check that the whole composite S-box equals FIPS-197's on all
//! 256 bytes. The Verilog emitter takes its XOR networks from these
//! matrices, so the hardware and this model share one derivation.

/// The reduction polynomial of GF(2^4): `y^4 + y + 1`.
pub const GF4_POLY: u8 = 0b1_0011;

/// λ of the extension polynomial `x^2 + x + λ` (Wolkerstorfer et al.'s
/// choice, `{1100}`).
pub const LAMBDA: u8 = 0b1100;

/// Multiplication in GF(2^4).
pub fn gf4_mul(a: u8, b: u8) -> u8 {
    let mut p = 0u8;
    for i in 0..4 {
        if b >> i & 1 == 1 {
            p ^= a << i;
        }
    }
    for bit in (4..7).rev() {
        if p >> bit & 1 == 1 {
            p ^= GF4_POLY << (bit - 4);
        }
    }
    p & 0xf
}

/// The multiplicative inverse in GF(2^4) (0 maps to 0): the 16-entry table
/// of the paper's `x⁻¹` box.
pub fn gf4_inv(a: u8) -> u8 {
    (0..16).find(|&b| gf4_mul(a, b) == 1).unwrap_or(0)
}

/// `λ·a²` in GF(2^4), the square-and-scale box.
pub fn gf4_sq_scl(a: u8) -> u8 {
    gf4_mul(LAMBDA, gf4_mul(a, a))
}

/// Multiplication in GF((2^4)^2); an element is `a_h << 4 | a_l`.
pub fn gf16_2_mul(a: u8, b: u8) -> u8 {
    let (ah, al, bh, bl) = (a >> 4, a & 0xf, b >> 4, b & 0xf);
    let hh = gf4_mul(ah, bh);
    let hi = hh ^ gf4_mul(ah, bl) ^ gf4_mul(al, bh);
    let lo = gf4_mul(LAMBDA, hh) ^ gf4_mul(al, bl);
    hi << 4 | lo
}

/// The inverse in GF((2^4)^2) by the formula of the module docs.
pub fn gf16_2_inv(a: u8) -> u8 {
    let (ah, al) = (a >> 4, a & 0xf);
    let sum = ah ^ al;
    let d = gf4_sq_scl(ah) ^ gf4_mul(sum, al);
    let dinv = gf4_inv(d);
    gf4_mul(ah, dinv) << 4 | gf4_mul(sum, dinv)
}

/// An 8×8 (or 4×4) matrix over GF(2): `cols[i]` is the image of bit `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Matrix {
    /// Column images.
    pub cols: [u8; 8],
    /// Number of input bits (4 or 8).
    pub n: usize,
}

impl Matrix {
    /// The linear map `f` on `n`-bit values, read off its images of unit
    /// vectors.
    pub fn of(n: usize, f: impl Fn(u8) -> u8) -> Matrix {
        let mut cols = [0u8; 8];
        for (i, c) in cols.iter_mut().enumerate().take(n) {
            *c = f(1 << i);
        }
        Matrix { cols, n }
    }

    /// `M·v`.
    pub fn apply(&self, v: u8) -> u8 {
        (0..self.n)
            .filter(|i| v >> i & 1 == 1)
            .fold(0, |acc, i| acc ^ self.cols[i])
    }
}

/// The AES polynomial evaluated at `h` in GF((2^4)^2).
fn aes_poly_at(h: u8) -> u8 {
    let mut pow = [1u8; 9];
    for i in 1..9 {
        pow[i] = gf16_2_mul(pow[i - 1], h);
    }
    pow[8] ^ pow[4] ^ pow[3] ^ pow[1] ^ pow[0]
}

/// The isomorphic mapping δ from GF(2^8) (AES basis) to GF((2^4)^2): bit `i`
/// maps to `h^i` for the smallest root `h` of the AES polynomial.
pub fn delta() -> Matrix {
    let h = (2..=255u8)
        .find(|&h| aes_poly_at(h) == 0)
        .expect("the AES polynomial splits in GF((2^4)^2)");
    let mut cols = [0u8; 8];
    let mut p = 1u8;
    for c in &mut cols {
        *c = p;
        p = gf16_2_mul(p, h);
    }
    Matrix { cols, n: 8 }
}

/// δ⁻¹ followed by the S-box's affine map's linear part (the constant 0x63
/// is added separately): one matrix, as the two boxes sit side by side at
/// the end of the paper's Fig. 4b.
pub fn inverse_delta_affine() -> Matrix {
    let d = delta();
    let mut inv = [0u8; 256];
    for a in 0..=255u8 {
        inv[d.apply(a) as usize] = a;
    }
    Matrix::of(8, |v| aesflow_cipher::sbox::affine(inv[v as usize]) ^ 0x63)
}

/// The multiplication by λ after squaring, as a 4×4 matrix.
pub fn sq_scl_matrix() -> Matrix {
    Matrix::of(4, gf4_sq_scl)
}

/// The S-box computed through the composite field (the model the Verilog
/// follows).
pub fn composite_sub_byte(a: u8) -> u8 {
    inverse_delta_affine().apply(gf16_2_inv(delta().apply(a))) ^ 0x63
}

#[cfg(test)]
mod tests {
    use super::*;
    use aesflow_cipher::sbox::SBOX;

    #[test]
    fn composite_sbox_equals_fips197() {
        for a in 0..=255u8 {
            assert_eq!(composite_sub_byte(a), SBOX[a as usize], "byte {a:#04x}");
        }
    }

    #[test]
    fn delta_is_a_field_isomorphism() {
        let d = delta();
        for a in 0..=255u8 {
            for b in [1u8, 2, 3, 0x53, 0xca, a] {
                let prod = aesflow_cipher::sbox::gf_mul(a, b);
                assert_eq!(d.apply(prod), gf16_2_mul(d.apply(a), d.apply(b)));
            }
        }
    }

    #[test]
    fn extension_polynomial_is_irreducible() {
        for t in 0..16 {
            assert_ne!(gf4_mul(t, t) ^ t ^ LAMBDA, 0);
        }
    }

    #[test]
    fn gf4_inverse_table() {
        for a in 1..16 {
            assert_eq!(gf4_mul(a, gf4_inv(a)), 1);
        }
    }
}
