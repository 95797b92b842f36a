//! GHASH (SP 800-38D §6.4), the universal hash of GCM, with three backends.
//!
//! # Representation
//!
//! GCM's field GF(2^128) = GF(2)\[x\]/(x^128 + x^7 + x^2 + x + 1) stores the
//! coefficient of x^0 in the *most* significant bit of the first byte. Every
//! backend here works on `t = u128::from_be_bytes(block)` — the bit-reflected
//! element, which is what a byte-swapping load gives a carry-less multiplier.
//! In that domain the field is GF(2)\[y\]/Q with y = x^-1 and the reciprocal
//! polynomial Q = y^128 + y^127 + y^126 + y^121 + 1, and a product
//! `t_a · t_b` needs a division by y^127. The hash key is therefore stored
//! premultiplied by `y` (`key = t_H · y mod Q`, the classic "H << 1 mod P"),
//! and each multiplication ends with a Montgomery reduction by y^128: two
//! folds of 64 bits, each one carry-less multiply by
//! `y^63 + y^62 + y^57` (the constant `0xc2 << 56`) plus a swap of halves.
//! Then `mont(t_a, key_b) = t_{a·b}` and `mont(key_a, key_b) = key_{a·b}`, so
//! the powers of H needed for aggregated reduction come out directly.
//!
//! # Backends
//!
//! * [`GhashImpl::Soft`] — portable and constant-time: 64×64-bit carry-less
//!   multiplication with integer multiplies on bits spread four apart
//!   ("holes", as BearSSL's `ghash_ctmul64`), the high half obtained from the
//!   bit-reversed operands. No table, no secret-dependent branch or index.
//! * [`GhashImpl::Pclmul`] — PCLMULQDQ on 128-bit registers, 16 blocks per
//!   reduction with H^16..H^1 (x86-64 with AVX).
//! * [`GhashImpl::Vpclmul`] — VPCLMULQDQ on 512-bit registers: 4 blocks per
//!   register, 32 blocks per reduction with H^32..H^1 (AVX-512F/BW +
//!   VPCLMULQDQ).
//!
//! The key holds H^72..H^1 and, for Karatsuba multiplication, the XOR of
//! each power's two halves, computed once per key (the fused VAES GCM
//! kernels of `kernels` reduce once per 64 blocks, the short-message one
//! once per message of up to 72 blocks with its AAD and length block, and
//! they load these tables directly into their registers: no per-message
//! setup).

use crate::kernels;
use aesflow_cipher::Isa;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// The reduction constant `y^63 + y^62 + y^57` in the high qword, 1 in the low.
pub(crate) const GFPOLY: u128 = 0xc200_0000_0000_0000_0000_0000_0000_0001;

/// Number of stored powers of H: 64 for the fused kernels' runs of 64
/// blocks, 72 for a short message's AAD (up to 4 blocks), text (up to 67)
/// and length block under one reduction (`kernels::gcm_small`).
pub(crate) const POWERS: usize = 72;

/// A GHASH implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GhashImpl {
    /// Portable constant-time (64-bit multiplies with masks).
    Soft,
    /// x86-64 PCLMULQDQ, 128-bit, 16 blocks per reduction.
    Pclmul,
    /// x86-64 VPCLMULQDQ, 512-bit, 32 blocks per reduction.
    Vpclmul,
}

impl GhashImpl {
    /// All implementations, slowest first.
    pub const ALL: [GhashImpl; 3] = [GhashImpl::Soft, GhashImpl::Pclmul, GhashImpl::Vpclmul];

    /// Whether this CPU runs it.
    pub fn is_available(self) -> bool {
        match self {
            GhashImpl::Soft => true,
            GhashImpl::Pclmul => kernels::has_pclmul(),
            GhashImpl::Vpclmul => kernels::has_vpclmul(),
        }
    }

    /// The backend of a family of code paths ([`Isa`]): the one that
    /// follows the AES kernel's choice — `Soft` for a portable kernel,
    /// `Pclmul` for `aesni`, `Vpclmul` for `vaes` — falling back to a
    /// narrower one this CPU runs.
    pub fn for_isa(isa: Isa) -> GhashImpl {
        let want = match isa {
            Isa::Portable => GhashImpl::Soft,
            Isa::Aesni => GhashImpl::Pclmul,
            Isa::Vaes => GhashImpl::Vpclmul,
        };
        *Self::ALL[..=want as usize]
            .iter()
            .rev()
            .find(|g| g.is_available())
            .unwrap_or(&GhashImpl::Soft)
    }

    /// The fastest available one.
    pub fn detect() -> GhashImpl {
        Self::for_isa(Isa::Vaes)
    }

    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            GhashImpl::Soft => "soft",
            GhashImpl::Pclmul => "pclmul",
            GhashImpl::Vpclmul => "vpclmul",
        }
    }
}

/// The GHASH key: H^72..H^1 (premultiplied by y) and the backend.
///
/// Aligned to 64 bytes, `powers` first and `hk` 1152 bytes after it: the
/// fused kernels load four powers (and their `hk`) per 512-bit register
/// from element 4·i on, each load then within one cache line (a load
/// that straddles two costs the 512-bit kernels a few percent).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
#[repr(C, align(64))]
pub struct GhashKey {
    /// `powers[i] = key^(POWERS - i)`: descending, H^1 last.
    pub(crate) powers: [u128; POWERS],
    /// `hk[i]`: the XOR of the two qwords of `powers[i]`, in both qwords
    /// (Karatsuba's middle factor), laid out as `powers` so that a run of
    /// lanes is one load.
    pub(crate) hk: [u128; POWERS],
    #[zeroize(skip)]
    imp: GhashImpl,
}

impl core::fmt::Debug for GhashKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "GhashKey({}, <secret>)", self.imp.name())
    }
}

impl GhashKey {
    /// The key for hash subkey `h` (= E_K(0^128) in GCM), with a backend;
    /// an unavailable backend falls back to [`GhashImpl::Soft`].
    pub fn new(h: &[u8; 16], imp: GhashImpl) -> Self {
        let imp = if imp.is_available() {
            imp
        } else {
            GhashImpl::Soft
        };
        let t = u128::from_be_bytes(*h);
        // key = t · y mod Q, branch-free.
        let carry = 0u128.wrapping_sub(t >> 127);
        let k1 = (t << 1) ^ (carry & GFPOLY);
        let mut powers = [0u128; POWERS];
        powers[POWERS - 1] = k1;
        // With PCLMULQDQ if this CPU has it (as fast as the portable
        // arithmetic is slow: 63 products per key), else portably.
        if !kernels::clmul_powers(&mut powers) {
            for i in (0..POWERS - 1).rev() {
                powers[i] = mont_mul(powers[i + 1], k1);
            }
        }
        let hk = powers.map(|p| {
            let k = ((p >> 64) ^ p) as u64 as u128;
            (k << 64) | k
        });
        GhashKey { powers, hk, imp }
    }

    /// The backend in use.
    pub fn implementation(&self) -> GhashImpl {
        self.imp
    }

    /// Absorb `data` into the state `x` (in the reflected domain), the last
    /// partial block zero-padded as GCM requires.
    pub fn update_padded(&self, x: &mut u128, data: &[u8]) {
        let whole = data.len() / 16 * 16;
        self.update_blocks(x, &data[..whole]);
        if whole < data.len() {
            let mut last = [0u8; 16];
            last[..data.len() - whole].copy_from_slice(&data[whole..]);
            self.update_blocks(x, &last);
        }
    }

    /// Absorb whole blocks (`data.len()` a multiple of 16; a tail is ignored).
    pub(crate) fn update_blocks(&self, x: &mut u128, data: &[u8]) {
        let data = &data[..data.len() / 16 * 16];
        if data.is_empty() {
            return;
        }
        match self.imp {
            GhashImpl::Soft => soft_update(&self.powers, x, data),
            GhashImpl::Pclmul => kernels::ghash_clmul(false, self, x, data),
            GhashImpl::Vpclmul => kernels::ghash_clmul(true, self, x, data),
        }
    }
}

/// GHASH of a whole message (state 0, zero-padded), as block bytes.
pub fn ghash(h: &[u8; 16], data: &[u8], imp: GhashImpl) -> [u8; 16] {
    let key = GhashKey::new(h, imp);
    let mut x = 0;
    key.update_padded(&mut x, data);
    x.to_be_bytes()
}

// ---------------------------------------------------------------------------
// Portable constant-time arithmetic.

/// Low 64 bits of the carry-less product (BearSSL's `bmul64`): the operands
/// are split into four interleaved bit classes so that the integer multiply's
/// carries land in bits that are masked away.
#[inline]
fn bmul64(x: u64, y: u64) -> u64 {
    const M0: u64 = 0x1111_1111_1111_1111;
    const M1: u64 = M0 << 1;
    const M2: u64 = M0 << 2;
    const M3: u64 = M0 << 3;
    let (x0, x1, x2, x3) = (x & M0, x & M1, x & M2, x & M3);
    let (y0, y1, y2, y3) = (y & M0, y & M1, y & M2, y & M3);
    let m = |a: u64, b: u64| a.wrapping_mul(b);
    let z0 = m(x0, y0) ^ m(x1, y3) ^ m(x2, y2) ^ m(x3, y1);
    let z1 = m(x0, y1) ^ m(x1, y0) ^ m(x2, y3) ^ m(x3, y2);
    let z2 = m(x0, y2) ^ m(x1, y1) ^ m(x2, y0) ^ m(x3, y3);
    let z3 = m(x0, y3) ^ m(x1, y2) ^ m(x2, y1) ^ m(x3, y0);
    (z0 & M0) | (z1 & M1) | (z2 & M2) | (z3 & M3)
}

/// Full 128-bit carry-less product of two 64-bit values, constant-time.
#[inline]
pub(crate) fn clmul64(x: u64, y: u64) -> u128 {
    let lo = bmul64(x, y);
    let hi = bmul64(x.reverse_bits(), y.reverse_bits()).reverse_bits() >> 1;
    ((hi as u128) << 64) | lo as u128
}

/// One Montgomery fold of the low 64 bits: `v · y^-64 mod Q` (for the part
/// of `v` that the caller then adds in).
#[inline]
fn fold(v: u128) -> u128 {
    let l = v as u64 as u128;
    // l · (y^63 + y^62 + y^57): three shifts, no multiply needed.
    let t = (l << 63) ^ (l << 62) ^ (l << 57);
    v.rotate_left(64) ^ t
}

/// `a · b · y^-128 mod Q` (see the module docs), constant-time.
#[inline]
pub(crate) fn mont_mul(a: u128, b: u128) -> u128 {
    let (a0, a1) = (a as u64, (a >> 64) as u64);
    let (b0, b1) = (b as u64, (b >> 64) as u64);
    let lo = clmul64(a0, b0);
    let hi = clmul64(a1, b1);
    let mi = clmul64(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    // 256-bit product = hi·y^128 + mi·y^64 + lo; fold lo into mi, mi into hi.
    let mi = mi ^ fold(lo);
    hi ^ fold(mi)
}

fn soft_update(powers: &[u128; POWERS], x: &mut u128, data: &[u8]) {
    let k = powers[POWERS - 1];
    let mut acc = *x;
    for b in data.as_chunks::<16>().0 {
        acc = mont_mul(acc ^ u128::from_be_bytes(*b), k);
    }
    *x = acc;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit-by-bit GF(2^128) multiply straight from SP 800-38D Algorithm 1.
    fn spec_mul(x: [u8; 16], y: [u8; 16]) -> [u8; 16] {
        let x = u128::from_be_bytes(x);
        let mut v = u128::from_be_bytes(y);
        let mut z = 0u128;
        for i in 0..128 {
            if (x >> (127 - i)) & 1 == 1 {
                z ^= v;
            }
            let lsb = v & 1;
            v >>= 1;
            if lsb == 1 {
                v ^= 0xe1 << 120;
            }
        }
        z.to_be_bytes()
    }

    fn spec_ghash(h: [u8; 16], data: &[u8]) -> [u8; 16] {
        let mut y = [0u8; 16];
        for c in data.chunks(16) {
            let mut b = [0u8; 16];
            b[..c.len()].copy_from_slice(c);
            for (a, b) in y.iter_mut().zip(b) {
                *a ^= b;
            }
            y = spec_mul(y, h);
        }
        y
    }

    #[test]
    fn clmul64_matches_schoolbook() {
        let mut s = 0x1234_5678_9abc_def0u64;
        for _ in 0..1000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = s;
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let b = s;
            let mut r = 0u128;
            for i in 0..64 {
                if (b >> i) & 1 == 1 {
                    r ^= (a as u128) << i;
                }
            }
            assert_eq!(clmul64(a, b), r);
        }
        assert_eq!(
            clmul64(u64::MAX, u64::MAX),
            0x5555_5555_5555_5555_5555_5555_5555_5555
        );
    }

    #[test]
    fn every_backend_matches_the_spec() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) as u8
        };
        for len in [
            0usize, 1, 15, 16, 17, 31, 32, 100, 127, 128, 129, 255, 256, 257, 300, 1000, 4099,
        ] {
            let h: [u8; 16] = core::array::from_fn(|_| next());
            let data: Vec<u8> = (0..len).map(|_| next()).collect();
            let want = spec_ghash(h, &data);
            for imp in GhashImpl::ALL.into_iter().filter(|i| i.is_available()) {
                assert_eq!(ghash(&h, &data, imp), want, "{imp:?} len {len}");
                // Incremental in odd block counts too.
                let key = GhashKey::new(&h, imp);
                let mut x = 0;
                let blocks = data.len() / 16 * 16;
                let mut at = 0;
                for step in [16usize, 48, 272, 16 * 9].iter().cycle() {
                    if at >= blocks {
                        break;
                    }
                    let end = (at + step).min(blocks);
                    key.update_blocks(&mut x, &data[at..end]);
                    at = end;
                }
                key.update_padded(&mut x, &data[blocks..]);
                assert_eq!(x.to_be_bytes(), want, "{imp:?} incremental len {len}");
            }
        }
    }
}
