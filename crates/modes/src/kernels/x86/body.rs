//! The GHASH and fused AES-GCM body shared by both register widths.
//!
//! Expanded inside a module that defines `V` (the register type), `LANES`
//! (blocks per register), `REGS` (registers per group) and the primitives
//! `splat`, `lanes`, `from_u128`, `to_u128`, `hxor`, `xor_lane0`, `xor`,
//! `add32`, `clmul`, `swap`, `shuffle`, `aesenc`, `aesenclast`, `load`,
//! `store`, `keys` (see `width!` in `x86/mod.rs`).
//!
//! Data layout: a block `b` is held as `u128::from_be_bytes(b)` per lane (a
//! byte-reversing shuffle after the load) — the reflected GHASH domain of
//! `gcm::ghash`. Counter blocks are kept the same way, so the 32-bit GCM
//! counter is dword 0 of each lane and `add32` is exactly `inc32`.

/// One group of AES-CTR (counters `base + inc[r]`) with the GHASH of the N
/// byte-reflected blocks `g` into `acc` woven between its rounds: after AES
/// round i the products of GHASH register i − 1, then the reduction — so the
/// AES and carry-less-multiply units work at the same time. Evaluates to
/// (keystream, new GHASH state). A macro rather than a function so that it is
/// always inlined (`#[inline(always)]` cannot be combined with
/// `#[target_feature]`, and an out-of-line call spills the whole state).
macro_rules! aes_ghash_group {
    ($nr:ident, $k:expr, $base:expr, $inc:expr, $mask:expr, $pw:expr, $g:expr, $acc:expr) => {{
        let (k, pw, g): (&[V; 15], &[V; REGS], &[V; REGS]) = ($k, $pw, $g);
        let mut s = [splat(0); REGS];
        for (si, ii) in s.iter_mut().zip($inc) {
            *si = xor(shuffle(add32($base, *ii), $mask), k[0]);
        }
        let zero = splat(0);
        let (mut lo, mut mi, mut hi) = (zero, zero, zero);
        let mut x = from_u128(0);
        for (round, ki) in k[1..$nr].iter().enumerate() {
            for si in s.iter_mut() {
                *si = aesenc(*si, *ki);
            }
            if round < REGS {
                let d = if round == 0 {
                    xor_lane0(g[0], $acc)
                } else {
                    g[round]
                };
                let p = pw[round];
                lo = xor(lo, clmul::<0x00>(d, p));
                hi = xor(hi, clmul::<0x11>(d, p));
                mi = xor(mi, xor(clmul::<0x01>(d, p), clmul::<0x10>(d, p)));
            } else if round == REGS {
                x = reduce(lo, mi, hi);
            }
        }
        for si in s.iter_mut() {
            *si = aesenclast(*si, k[$nr]);
        }
        // Both widths have REGS + 1 < Nr, so the reduction ran above.
        const { assert!(REGS + 1 < 10) };
        (s, x)
    }};
}

macro_rules! gcm_body {
    ($feat:literal) => {
        use super::{BSWAP, GFPOLY};

        /// Blocks per group.
        const N: usize = LANES * REGS;

        /// Register `r`, lane `l` of a group multiplies block `r·LANES + l`
        /// by H^(N − r·LANES − l); `powers` is H^16..H^1 descending.
        #[inline]
        #[target_feature(enable = $feat)]
        fn power_vectors(powers: &[u128; 16]) -> [V; REGS] {
            let mut pw = [splat(0); REGS];
            for (r, v) in pw.iter_mut().enumerate() {
                let base = 16 - N + r * LANES;
                let mut l = [0u128; LANES];
                l.copy_from_slice(&powers[base..base + LANES]);
                *v = lanes(l);
            }
            pw
        }

        /// Montgomery reduction of hi·y^128 + mi·y^64 + lo, then the XOR of
        /// the lanes.
        #[inline]
        #[target_feature(enable = $feat)]
        fn reduce(lo: V, mi: V, hi: V) -> __m128i {
            let gf = splat(GFPOLY);
            let mi = xor(xor(mi, swap(lo)), clmul::<0x10>(lo, gf));
            let hi = xor(xor(hi, swap(mi)), clmul::<0x10>(mi, gf));
            hxor(hi)
        }

        /// GHASH one group of N byte-reflected blocks `d` into state `x`:
        /// `(x ⊕ d_0)·H^N ⊕ d_1·H^(N-1) ⊕ … ⊕ d_(N-1)·H`, one reduction.
        #[inline]
        #[target_feature(enable = $feat)]
        fn ghash_group(pw: &[V; REGS], d: &[V; REGS], x: __m128i) -> __m128i {
            let d0 = xor_lane0(d[0], x);
            let mut lo = clmul::<0x00>(d0, pw[0]);
            let mut hi = clmul::<0x11>(d0, pw[0]);
            let mut mi = xor(clmul::<0x01>(d0, pw[0]), clmul::<0x10>(d0, pw[0]));
            for (di, pi) in d[1..].iter().zip(&pw[1..]) {
                lo = xor(lo, clmul::<0x00>(*di, *pi));
                hi = xor(hi, clmul::<0x11>(*di, *pi));
                mi = xor(mi, xor(clmul::<0x01>(*di, *pi), clmul::<0x10>(*di, *pi)));
            }
            reduce(lo, mi, hi)
        }

        /// GHASH whole blocks of `data` (a trailing partial block is
        /// ignored) into `x`.
        #[target_feature(enable = $feat)]
        pub(crate) fn ghash_blocks(powers: &[u128; 16], x: &mut u128, data: &[u8]) {
            let pw = power_vectors(powers);
            let mask = splat(BSWAP);
            let groups = data.len() / (16 * N);
            let p = data.as_ptr();
            let mut acc = from_u128(*x);
            let mut d = [splat(0); REGS];
            for g in 0..groups {
                for (r, dr) in d.iter_mut().enumerate() {
                    // SAFETY: this register's bytes end at
                    // (g·N + (r+1)·LANES)·16 ≤ groups·N·16 ≤ data.len().
                    *dr = shuffle(unsafe { load(p.add((g * N + r * LANES) * 16)) }, mask);
                }
                acc = ghash_group(&pw, &d, acc);
            }
            let done = groups * N * 16;
            let rest = (data.len() - done) / 16 * 16;
            if rest > 0 {
                // Fewer than N blocks: 128-bit multiplications by H^rest..H^1,
                // one reduction, no padding buffer.
                // SAFETY: this width's features include PCLMULQDQ and SSE4.1.
                let y = unsafe { super::ghash_few(powers, to_u128(acc), &data[done..done + rest]) };
                acc = from_u128(y);
            }
            *x = to_u128(acc);
        }

        /// AES-CTR keystream for one group: counters `base + inc[r]` (32-bit
        /// lane-0 dword adds), `k` the broadcast round keys.
        #[inline]
        #[target_feature(enable = $feat)]
        fn aes_group<const NR: usize>(k: &[V; 15], base: V, inc: &[V; REGS], mask: V) -> [V; REGS] {
            let mut s = [splat(0); REGS];
            for (si, ii) in s.iter_mut().zip(inc) {
                *si = xor(shuffle(add32(base, *ii), mask), k[0]);
            }
            for ki in &k[1..NR] {
                for si in s.iter_mut() {
                    *si = aesenc(*si, *ki);
                }
            }
            for si in s.iter_mut() {
                *si = aesenclast(*si, k[NR]);
            }
            s
        }

        /// Fused GCM over whole groups of `data` (its length a multiple of
        /// N·16): CTR from counter block `ctr` (32-bit increments), GHASH of
        /// the ciphertext into `x`. `rk`: NR + 1 round keys. (The 128-bit
        /// instantiation is only a test reference: production AES-NI uses
        /// the hand-scheduled `aesni` kernel.)
        #[cfg_attr(not(test), allow(dead_code))]
        #[target_feature(enable = $feat)]
        pub(crate) fn gcm_crypt<const NR: usize>(call: super::GcmCall<'_>) {
            assert_eq!(call.rk.len(), NR + 1);
            let k = keys(call.rk);
            let pw = power_vectors(call.powers);
            let mask = splat(BSWAP);
            let mut base = splat(u128::from_be_bytes(call.ctr));
            let mut inc = [splat(0); REGS];
            for (r, v) in inc.iter_mut().enumerate() {
                let mut l = [0u128; LANES];
                for (i, li) in l.iter_mut().enumerate() {
                    *li = (r * LANES + i) as u128;
                }
                *v = lanes(l);
            }
            let step = splat(N as u128);
            let groups = call.data.len() / (16 * N);
            let p = call.data.as_mut_ptr();
            let mut acc = from_u128(*call.x);
            let mut g = [splat(0); REGS];
            if call.encrypt {
                // The GHASH of group i's ciphertext runs with group i+1's AES.
                for gi in 0..groups {
                    let ks = if gi == 0 {
                        aes_group::<NR>(&k, base, &inc, mask)
                    } else {
                        let (ks, x) = aes_ghash_group!(NR, &k, base, &inc, mask, &pw, &g, acc);
                        acc = x;
                        ks
                    };
                    base = add32(base, step);
                    for (r, (gr, kr)) in g.iter_mut().zip(ks).enumerate() {
                        let off = (gi * N + r * LANES) * 16;
                        // SAFETY: off + LANES·16 ≤ groups·N·16 = call.data.len().
                        let c = xor(unsafe { load(p.add(off)) }, kr);
                        // SAFETY: as above; `call.data` is exclusively borrowed.
                        unsafe { store(p.add(off), c) };
                        *gr = shuffle(c, mask);
                    }
                }
                if groups > 0 {
                    acc = ghash_group(&pw, &g, acc);
                }
            } else {
                let mut c = [splat(0); REGS];
                for gi in 0..groups {
                    for (r, (cr, gr)) in c.iter_mut().zip(g.iter_mut()).enumerate() {
                        // SAFETY: off + LANES·16 ≤ groups·N·16 = call.data.len().
                        *cr = unsafe { load(p.add((gi * N + r * LANES) * 16)) };
                        *gr = shuffle(*cr, mask);
                    }
                    let (ks, x) = aes_ghash_group!(NR, &k, base, &inc, mask, &pw, &g, acc);
                    acc = x;
                    base = add32(base, step);
                    for (r, (cr, kr)) in c.iter().zip(ks).enumerate() {
                        // SAFETY: as above; `call.data` is exclusively borrowed.
                        unsafe { store(p.add((gi * N + r * LANES) * 16), xor(*cr, kr)) };
                    }
                }
            }
            *call.x = to_u128(acc);
        }
    };
}
