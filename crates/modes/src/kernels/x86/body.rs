//! The GHASH and fused AES-GCM body shared by the register widths.
//!
//! Expanded inside a module that defines `V` (the register type), `LANES`
//! (blocks per register), `REGS` (registers per group) and the primitives
//! `splat`, `from_u128`, `to_u128`, `hxor`, `xor_lane0`, `xor`,
//! `xor3`, `add32`, `clmul`, `swap`, `shuffle`, `aesenc`, `aesenclast`,
//! `load`, `store`, `keys`, `pin` (see `width!` in `x86/mod.rs`).
//!
//! Data layout: a block `b` is held as `u128::from_be_bytes(b)` per lane (a
//! byte-reversing shuffle after the load) — the reflected GHASH domain of
//! `gcm::ghash`. Counter blocks are kept the same way, so the 32-bit GCM
//! counter is dword 0 of each lane and `add32` is exactly `inc32`.
//!
//! The fused kernel, per group of N = `LANES · REGS` blocks (16 at 256 and
//! 512 bits; 32 for the 512-bit kernel with eight registers a group):
//!
//! * **Aggregated reduction** (Gueron and Kounavis's method for GHASH with
//!   a carry-less multiplier): the GHASH of a *run* of RUN groups (4 of 16
//!   blocks, 2 of 32) is `(x ⊕ d_0)·H^(RUN·N) ⊕ d_1·H^(RUN·N−1) ⊕ … ⊕
//!   d_(RUN·N−1)·H`, the 256-bit products summed unreduced across the run
//!   and reduced once — one Montgomery reduction (and one XOR of the lanes)
//!   per 64 blocks, with the last 64 of the key's powers, H^64..H^1,
//!   computed once per key. The last groups of the data go in pairs and
//!   alone, with the last powers; stand-alone GHASH (`ghash_blocks`) in
//!   pairs.
//! * **Karatsuba** products: `lo`, `hi` and `(d_hi ⊕ d_lo)·(H_hi ⊕ H_lo)`,
//!   three carry-less multiplications per block instead of four, the
//!   `H_hi ⊕ H_lo` of every power precomputed (in both qwords, `GhashKey`);
//!   in a fused group the `d_hi ⊕ d_lo` of two registers come from one
//!   pair of qword unpacks and one XOR (the first register's in the low
//!   qwords, the second's in the high ones), and the products of two
//!   registers are added with one three-way XOR each.
//! * **Weave**: AES rounds 1..=REGS of a group each carry one register of
//!   GHASH products (round REGS + 1 the reduction), so the AES and the
//!   carry-less-multiply units work at the same time; `pin` keeps LLVM's
//!   scheduler from regrouping them. Encryption hashes the ciphertext of
//!   the group just before, from the registers that computed it, where
//!   the register file holds both (`HELD`: eight zmm registers a group),
//!   else of the group two before (read back from L1: a load of the group
//!   just before would wait for its store); decryption the group's own.
//!   A one-shot message whose text is whole groups ends in the kernel
//!   (`GcmCall::finish`): `E(J0)` runs at the start, beside the first
//!   group's rounds to encrypt (kept in memory, wiped at the end), and the
//!   length block is hashed with the last groups' state. With eight
//!   512-bit registers a group (`LAZY`), each register's ciphertext and
//!   power vector are loaded in the round that multiplies them (`after`
//!   ties the loads to the round), not before the group: the AES state,
//!   the sums and the round keys fill the register file, and loads made
//!   early would be spilled.
//! * **Counters by XOR**: while no counter of a run carries out of its
//!   last byte (3 runs in 4 for a 96-bit nonce), each counter is the
//!   window's first counter (last byte zero) plus an offset below 256, that
//!   is, XOR: the whitened block of the window's first counter is computed
//!   once per window, and each register's whitened counters are one XOR
//!   with a row of a table of offsets (`CTR_LOW`) — no add, no byte swap,
//!   no XOR with round key 0 per register. The run at each carry takes the
//!   reflected path (add, byte swap, XOR).

/// `$body` once for each of the literals, bound to the constant `$i`.
macro_rules! unrolled {
    ($i:ident in $($n:literal)* => $body:block) => {
        $({
            const $i: usize = $n;
            $body
        })*
    };
}

/// One group of AES-CTR (from the whitened counter blocks `s`) with the
/// GHASH of the N byte-reflected blocks `g` woven between its rounds: after
/// AES round i the products of GHASH register i − 1 by the power vectors
/// `pw`, added to the unreduced sums `sums` (with the state `acc`, if given,
/// XORed into the first block), then — if `reduce` — the reduction. So the
/// AES and carry-less-multiply units work at the same time. Evaluates to
/// (keystream, unreduced sums, reduced state or `acc`). A macro rather than
/// a function so that it is always inlined (`#[inline(always)]` cannot be
/// combined with `#[target_feature]`, and an out-of-line call spills the
/// whole state); `acc` and `reduce` are constants at every expansion.
macro_rules! aes_ghash_group {
    ($nr:ident, $k:expr, $s:expr, $pw:expr, $g:expr, $acc:expr, $sums:expr, $reduce:expr) => {{
        let (k, pw, g): (&[V; 15], &PwSrc<'_>, &GSrc) = ($k, $pw, $g);
        let acc: Option<__m128i> = $acc;
        let mut s: [V; REGS] = $s;
        let mut sums: Sums = $sums;
        let mut held = sums;
        let mut x = acc.unwrap_or(from_u128(0));
        // Zero, the index of the loads of a `LAZY` group (see `GSrc::get`).
        let mut b = 0;
        // Every width has REGS + 1 < 10 ≤ Nr: rounds 1..=REGS + 1 carry the
        // GHASH work, the rest are AES only. Rounds 1..=9 are unrolled here
        // (LLVM would keep a loop at 256 bits: the weave would not survive).
        const { assert!(REGS + 1 < 10 && REGS % 2 == 0) };
        unrolled!(R in 0 1 2 3 4 5 6 7 8 => {
            let kr = round_key(k, 1 + R);
            for si in s.iter_mut() {
                *si = aesenc(*si, kr);
            }
            if R < REGS {
                if LAZY {
                    b = after(b, &s[0]);
                }
                let (gr, pr) = (g.get(R, b), pw.get(R, b));
                let d = match acc {
                    Some(a) if R == 0 => xor_lane0(gr, a),
                    _ => gr,
                };
                // Register pairs: the first's `lo` and `hi` products, held
                // with its blocks; the second's, then both middle products
                // from one vector of both registers' `d_hi ⊕ d_lo` (low
                // qwords the first's, high the second's), and one
                // three-way XOR adds each kind of product of both.
                if R % 2 == 0 {
                    held = (clmul::<0x00>(d, pr.0), d, clmul::<0x11>(d, pr.0));
                } else {
                    let m = xor(unpacklo(held.1, d), unpackhi(held.1, d));
                    let pk0 = pw.get(R - 1, b).1;
                    sums = (
                        xor3(sums.0, held.0, clmul::<0x00>(d, pr.0)),
                        xor3(sums.1, clmul::<0x00>(m, pk0), clmul::<0x11>(m, pr.1)),
                        xor3(sums.2, held.2, clmul::<0x11>(d, pr.0)),
                    );
                }
            } else if R == REGS && $reduce {
                x = reduce(sums);
            }
            if R <= REGS {
                // Keep this round's AES and GHASH work together.
                s.iter_mut().for_each(|si| pin(si));
                let t = if R % 2 == 0 { &mut held } else { &mut sums };
                pin(&mut t.0);
                pin(&mut t.1);
                pin(&mut t.2);
            }
        });
        for i in 10..$nr {
            let ki = round_key(k, i);
            for si in s.iter_mut() {
                *si = aesenc(*si, ki);
            }
        }
        let kl = round_key(k, $nr);
        for si in s.iter_mut() {
            *si = aesenclast(*si, kl);
        }
        (s, sums, x)
    }};
}

macro_rules! gcm_body {
    ($feat:literal) => {
        use super::{BSWAP, GFPOLY, POWERS};

        /// Blocks per group.
        const N: usize = LANES * REGS;

        /// How far ahead of the group being processed its input is
        /// prefetched, in bytes (thirty-two 256-byte or sixteen 512-byte
        /// groups): far enough that a line from memory arrives before its
        /// group's rounds end. On Zen 5, one core, AES-256, 256 MiB in
        /// place: seal 20.1-20.4 GB/s at 4096 bytes, 21.7-22.3 at 8192;
        /// open 20.0-20.2 and 20.7-21.2; out of place level.
        const PREFETCH: usize = 8192;

        /// The shortest data a fused call prefetches unless its caller asks
        /// for every length (`GcmCall::prefetch_always`, `Prefetch::Always`:
        /// Cobblestone's runs of 16 KiB chunks, which stream from memory:
        /// one thread, 256 MiB, Zen 5, 9.2 GB/s without the prefetches,
        /// 15.5 with). Shorter data is usually in cache already (a message
        /// just written), where the prefetches are only instructions beside
        /// the rounds: 16 KiB in cache on Zen 5, AES-128, out of place,
        /// 3-6 % slower with them.
        const PREFETCH_MIN: usize = 64 * 1024;

        /// Unreduced GHASH sums (lo, mid, hi): the 256-bit products
        /// `hi·y^128 + mid·y^64 + lo` added up lane by lane.
        type Sums = (V, V, V);

        /// A power vector: the powers of H of its lanes, and the XOR of each
        /// power's two qwords in both qwords (for Karatsuba's middle
        /// product).
        type Pv = (V, V);

        /// The power vectors of group `h` of a run of RUN groups (one
        /// reduction per RUN·N blocks; the last k groups of a run also serve
        /// a run of k). Register `r`, lane `l` multiplies block `r·LANES +
        /// l` of the group by H^((RUN − h)·N − r·LANES − l); `powers` is
        /// H^72..H^1 descending, `hk` the XOR of each one's qwords
        /// (`GhashKey`), so each vector is two plain loads.
        #[inline]
        #[target_feature(enable = $feat)]
        fn group_vectors(powers: &[u128; POWERS], hk: &[u128; POWERS], h: usize) -> [Pv; REGS] {
            const { assert!(RUN * N <= POWERS && RUN >= 2) };
            let mut pw = [(splat(0), splat(0)); REGS];
            for (r, v) in pw.iter_mut().enumerate() {
                let base = POWERS - (RUN - h) * N + r * LANES;
                let (p, k) = (&powers[base..base + LANES], &hk[base..base + LANES]);
                // SAFETY: each slice holds LANES u128 = 16 · LANES bytes,
                // lane l from element l (little-endian).
                *v = unsafe { (load(p.as_ptr().cast()), load(k.as_ptr().cast())) };
            }
            pw
        }

        /// The products of the blocks `d` by the powers `p`, as sums, with 3
        /// carry-less multiplications (Karatsuba: `lo`, `hi` and the middle
        /// `(d_hi ⊕ d_lo)·(p_hi ⊕ p_lo)`, which `reduce` completes by
        /// adding `lo` and `hi`) rather than 4.
        #[inline]
        #[target_feature(enable = $feat)]
        fn products(d: V, (p, pk): Pv) -> Sums {
            let m = clmul::<0x00>(xor(d, swap(d)), pk);
            (clmul::<0x00>(d, p), m, clmul::<0x11>(d, p))
        }

        /// Three sums added.
        #[inline]
        #[target_feature(enable = $feat)]
        fn add3(a: Sums, b: Sums, c: Sums) -> Sums {
            (xor3(a.0, b.0, c.0), xor3(a.1, b.1, c.1), xor3(a.2, b.2, c.2))
        }

        /// Montgomery reduction of the sums, then the XOR of the lanes
        /// (also the short-message kernel's, `small`, at 512 bits).
        #[inline]
        #[target_feature(enable = $feat)]
        pub(super) fn reduce((lo, mi, hi): Sums) -> __m128i {
            let gf = splat(GFPOLY);
            let mi = xor(mi, xor(lo, hi)); // Karatsuba's middle term
            let mi = xor(xor(mi, swap(lo)), clmul::<0x10>(lo, gf));
            let hi = xor(xor(hi, swap(mi)), clmul::<0x10>(mi, gf));
            hxor(hi)
        }

        /// No sums yet.
        #[inline]
        #[target_feature(enable = $feat)]
        fn no_sums() -> Sums {
            (splat(0), splat(0), splat(0))
        }

        /// The sums plus the products of one group of N byte-reflected
        /// blocks `d` by the power vectors `pw(r, z)` of its registers, the
        /// state `acc` (if given) XORed into the first block. If [`LAZY`],
        /// `z` is a zero passed through `after` once the sums before the
        /// register are computed (as in a fused group), so that a `pw`
        /// that loads (`PwSrc::get`) loads each power vector where it is
        /// used, not all of them first, held and spilled.
        #[inline]
        #[target_feature(enable = $feat)]
        fn ghash_part(
            pw: impl Fn(usize, usize) -> Pv,
            d: &[V; REGS],
            acc: Option<__m128i>,
            mut s: Sums,
        ) -> Sums {
            for (r, di) in d.iter().enumerate() {
                let z = if LAZY { after(0, &s.0) } else { 0 };
                let pi = pw(r, z);
                let di = match acc {
                    Some(a) if r == 0 => xor_lane0(*di, a),
                    _ => *di,
                };
                s = add3(s, products(di, pi), no_sums());
            }
            s
        }

        /// Load one group at `p` and byte-reflect it: (raw, reflected).
        ///
        /// # Safety
        /// `p` must be valid for reading `16 * N` bytes.
        #[inline]
        #[target_feature(enable = $feat)]
        unsafe fn load_group(p: *const u8, mask: V) -> ([V; REGS], [V; REGS]) {
            let (mut c, mut g) = ([splat(0); REGS], [splat(0); REGS]);
            for (r, (cr, gr)) in c.iter_mut().zip(g.iter_mut()).enumerate() {
                // SAFETY: register r's bytes lie within the group.
                *cr = unsafe { load(p.add(r * LANES * 16)) };
                *gr = shuffle(*cr, mask);
            }
            (c, g)
        }

        /// The GHASH input of a fused group: the group's blocks at `p`,
        /// byte-reflected with `mask` — loaded before the group
        /// (`eager`) or, if [`LAZY`], register by register.
        struct GSrc {
            p: *const u8,
            mask: V,
            eager: [V; REGS],
            /// `eager` holds the input even if [`LAZY`] (`GSrc::held`).
            held: bool,
        }

        impl GSrc {
            /// The group at `p`.
            ///
            /// # Safety
            /// `p` must be valid for reading `16 * N` bytes until the
            /// group has run.
            #[inline]
            #[target_feature(enable = $feat)]
            unsafe fn new(p: *const u8, mask: V) -> Self {
                let eager = if LAZY {
                    [splat(0); REGS]
                } else {
                    // SAFETY: guaranteed by the caller.
                    unsafe { load_group(p, mask).1 }
                };
                GSrc { p, mask, eager, held: false }
            }

            /// Blocks already in registers, byte-reflected.
            #[inline]
            #[target_feature(enable = $feat)]
            fn held(g: [V; REGS]) -> Self {
                GSrc { p: core::ptr::null(), mask: splat(0), eager: g, held: true }
            }

            /// Register `r` byte-reflected; if [`LAZY`], loaded `z` bytes
            /// past it, `z` a zero passed through `after` in this round (one
            /// register carried from round to round, the index of the
            /// load's address).
            #[inline]
            #[target_feature(enable = $feat)]
            fn get(&self, r: usize, z: usize) -> V {
                if LAZY && !self.held {
                    let p = self.p.wrapping_byte_add(z);
                    // SAFETY: `z` is 0: register r < REGS of the group (`new`).
                    shuffle(unsafe { load(p.add(r * LANES * 16)) }, self.mask)
                } else {
                    self.eager[r]
                }
            }
        }

        /// The power vectors of group `h` of a run (`group_vectors`):
        /// loaded before the group or, if [`LAZY`], register by register.
        struct PwSrc<'a> {
            powers: &'a [u128; POWERS],
            hk: &'a [u128; POWERS],
            h: usize,
            eager: [Pv; REGS],
        }

        impl<'a> PwSrc<'a> {
            #[inline]
            #[target_feature(enable = $feat)]
            fn new(powers: &'a [u128; POWERS], hk: &'a [u128; POWERS], h: usize) -> Self {
                let eager = if LAZY {
                    [(splat(0), splat(0)); REGS]
                } else {
                    group_vectors(powers, hk, h)
                };
                PwSrc { powers, hk, h, eager }
            }

            /// Register `r`'s power vector; if [`LAZY`], loaded `z` bytes
            /// past it (as `GSrc::get`).
            #[inline]
            #[target_feature(enable = $feat)]
            fn get(&self, r: usize, z: usize) -> Pv {
                if LAZY {
                    let base = POWERS - (RUN - self.h) * N + r * LANES;
                    assert!(base + LANES <= POWERS);
                    let p = self.powers.as_ptr().wrapping_byte_add(z);
                    let k = self.hk.as_ptr().wrapping_byte_add(z);
                    // SAFETY: `z` is 0; elements base .. base + LANES of each
                    // array (LANES u128 = 16 · LANES bytes) lie within it.
                    unsafe { (load(p.add(base).cast()), load(k.add(base).cast())) }
                } else {
                    self.eager[r]
                }
            }
        }

        /// `p`, through an empty `asm!`: LLVM cannot tell that a load from
        /// it reads what an earlier load read, so it loads again (from L1)
        /// rather than keep the first value live — which, for a whole
        /// group, spills it to the stack.
        #[inline]
        fn opaque(p: *const u8) -> *const u8 {
            let mut a = p.addr();
            // SAFETY: the template is a comment: no instruction, no memory.
            unsafe {
                core::arch::asm!("/* {0} */", inout(reg) a, options(nomem, nostack, preserves_flags))
            };
            p.with_addr(a)
        }

        /// Round key `i` of the broadcast keys `k`; if [`LAZY`], loaded
        /// again from `k` where it is used (through `opaque`), so that no
        /// round key is held across a group: beside eight registers of
        /// AES state, the sums and the GHASH inputs, keys held in
        /// registers would be spilled to the stack — copies never wiped.
        /// `k` itself is the call's table, wiped at its end (`gcm_crypt`).
        #[inline]
        #[target_feature(enable = $feat)]
        fn round_key(k: &[V; 15], i: usize) -> V {
            if LAZY {
                let p = opaque(k.as_ptr().cast()).cast::<V>();
                // SAFETY: `opaque` returns `k`'s own address; i < 15.
                unsafe { p.add(i).read() }
            } else {
                k[i]
            }
        }

        /// XOR the keystream `ks` into the group at `src` (or into `c`, the
        /// group already loaded; else loaded again, see `opaque`) and store
        /// it at `p` (`src` itself, or a group that does not overlap it);
        /// evaluates to the result byte-reflected. With `NT`, the stores are
        /// non-temporal (`gcm_crypt`'s `nt`, `carry` the register stored just before
        /// `p`); a separate instantiation, so that the cached path's
        /// registers are those of a kernel without it.
        ///
        /// # Safety
        /// `src` must be valid for reading and `p` for writing `16 * N`
        /// bytes.
        #[inline]
        #[target_feature(enable = $feat)]
        unsafe fn xor_store<const NT: bool>(
            src: *const u8,
            p: *mut u8,
            ks: [V; REGS],
            c: Option<&[V; REGS]>,
            mask: V,
            prefetch: bool,
            carry: &core::cell::Cell<Option<V>>,
        ) -> [V; REGS] {
            let mut g = [splat(0); REGS];
            // One opaque base for the group: the loads below take their
            // offsets from it as displacements.
            let src = opaque(src);
            if c.is_none() && prefetch {
                // The input PREFETCH bytes ahead (and, out of place, the
                // output, for writing): a group's input is loaded only
                // after its rounds, so from memory (a buffer larger than
                // the caches) few misses would be in flight. On Zen 5, one
                // core: 256 MiB in place, GCM seal 0.88x -> 0.93-0.99x Intel
                // ipsec-mb's one job over the same buffer; 64 MiB out of
                // place, AES-256 seal 10.2-10.6 -> 12.5-12.9 GB/s.
                for line in 0..REGS * LANES * 16 / 64 {
                    let a = src.wrapping_add(PREFETCH + line * 64);
                    _mm_prefetch::<_MM_HINT_T0>(a.cast());
                    if !core::ptr::eq(src, p) && !NT {
                        let o = p.wrapping_add(PREFETCH + line * 64);
                        _mm_prefetch::<_MM_HINT_ET0>(o.cast_const().cast());
                    }
                }
            }
            // With `NT`, the register stored just before (`Ctx::carry`).
            let mut prev = if NT { carry.get() } else { None };
            for (r, (gr, kr)) in g.iter_mut().zip(ks).enumerate() {
                // SAFETY: register r's bytes lie within both groups (caller).
                let (i, q) = unsafe { (src.add(r * LANES * 16), p.add(r * LANES * 16)) };
                let v = match c {
                    Some(c) => c[r],
                    // SAFETY: as above.
                    None => unsafe { load(i) },
                };
                let v = xor(v, kr);
                if NT {
                    // SAFETY: as above; with `nt` the registers are 512-bit
                    // and the output 16-byte aligned (`gcm_crypt`), `prev`
                    // the register stored just before `q`.
                    unsafe { super::store_line_nt(q, prev, v) };
                    prev = Some(v);
                } else {
                    // SAFETY: as above.
                    unsafe { store(q, v) };
                }
                *gr = shuffle(v, mask);
            }
            if NT {
                carry.set(prev);
            }
            g
        }

        /// GHASH whole blocks of `data` (a trailing partial block is
        /// ignored) into `x`: one reduction per 2N blocks.
        #[target_feature(enable = $feat)]
        pub(crate) fn ghash_blocks(
            powers: &[u128; POWERS],
            hk: &[u128; POWERS],
            x: &mut u128,
            data: &[u8],
        ) {
            let groups = data.len() / (16 * N);
            // The power vectors of a pair of groups (one reduction per 2N
            // blocks): `[0]` for the first group, `[1]` for the second (or
            // a group on its own); with [`LAZY`], loaded where used (held,
            // LLVM spilled some to the stack).
            let pw = [PwSrc::new(powers, hk, RUN - 2), PwSrc::new(powers, hk, RUN - 1)];
            let mask = splat(BSWAP);
            let p = data.as_ptr();
            let mut acc = from_u128(*x);
            let mut gi = 0;
            while gi < groups {
                // A pair of groups, or the last one alone.
                let first = usize::from(gi + 1 < groups);
                let mut s = no_sums();
                let mut a = Some(acc);
                for h in 1 - first..2 {
                    // SAFETY: group gi lies within `data` (gi < groups).
                    let (_, d) = unsafe { load_group(p.add(gi * N * 16), mask) };
                    s = ghash_part(|r, z| pw[h].get(r, z), &d, a.take(), s);
                    gi += 1;
                }
                acc = reduce(s);
            }
            let done = groups * N * 16;
            let rest = (data.len() - done) / 16 * 16;
            if rest > 0 {
                // Fewer than N blocks: 128-bit multiplications by H^rest..H^1,
                // one reduction, no padding buffer.
                // SAFETY: this width's features include PCLMULQDQ and SSE4.1.
                let y = unsafe {
                    super::ghash_seq(powers, hk, to_u128(acc), &data[done..done + rest], None, None)
                };
                acc = from_u128(y);
            }
            *x = to_u128(acc);
        }

        /// AES-CTR keystream for one group from its whitened counter blocks
        /// `s`, `k` the broadcast round keys; and, given `e` (`E(J0)`'s
        /// block, not whitened), its encryption beside them, with the
        /// keys' first lanes: one more chain, whose rounds keep pace with
        /// the group's. Evaluates to (keystream, `e` encrypted). A macro so
        /// that it is always inlined (as `aes_ghash_group`): out of line,
        /// its arguments and results (keystream) pass through the stack.
        macro_rules! aes_group {
            ($nr:ident, $k:expr, $s:expr, $e:expr) => {{
                let k: &[V; 15] = $k;
                let mut s: [V; REGS] = $s;
                let mut e: Option<__m128i> = $e;
                if let Some(b) = e.as_mut() {
                    *b = _mm_xor_si128(*b, lane0(round_key(k, 0)));
                }
                for i in 1..$nr {
                    let ki = round_key(k, i);
                    for si in s.iter_mut() {
                        *si = aesenc(*si, ki);
                    }
                    if let Some(b) = e.as_mut() {
                        *b = _mm_aesenc_si128(*b, lane0(ki));
                    }
                }
                let kl = round_key(k, $nr);
                for si in s.iter_mut() {
                    *si = aesenclast(*si, kl);
                }
                if let Some(b) = e.as_mut() {
                    *b = _mm_aesenclast_si128(*b, lane0(kl));
                }
                (s, e)
            }};
        }

        /// The first 128-bit lane of `v`.
        #[inline]
        #[target_feature(enable = $feat)]
        fn lane0(v: V) -> __m128i {
            const { assert!(size_of::<V>() >= 16) };
            // SAFETY: `V` is a vector of at least 16 bytes (checked above),
            // any bit pattern of which is a valid `__m128i`.
            unsafe { core::mem::transmute_copy::<V, __m128i>(&v) }
        }

        /// The counter offsets of the registers of a group, lane by lane,
        /// reflected (`r·LANES + l` in dword 0). A table, so that a fused
        /// call loads them rather than builds them.
        static INC: [[u128; LANES]; REGS] = {
            let mut t = [[0; LANES]; REGS];
            let mut r = 0;
            while r < REGS {
                let mut l = 0;
                while l < LANES {
                    t[r][l] = (r * LANES + l) as u128;
                    l += 1;
                }
                r += 1;
            }
            t
        };

        /// What every group of one fused call needs: the round keys
        /// (broadcast), the key's powers of H (`pw`), the byte-swap mask,
        /// and the counter step of a group in the reflected domain (the
        /// offsets of the registers are `INC`). And the data: `groups`
        /// whole groups read at `src` and written at `p` (the same pointer
        /// in place, else buffers that do not overlap), and whether to
        /// prefetch it (`xor_store`).
        struct Ctx<'a> {
            k: [V; 15],
            /// The call's `finish`, read where used: a copy into this
            /// struct loads it whole from the halves the caller stored
            /// (a store-forwarding stall).
            finish: &'a Option<(u128, u128)>,
            /// Where `E(J0)` is kept with `finish` (else zero): a slot of
            /// `gcm_crypt`'s, wiped at its end, not a register held through
            /// the groups (which would be spilled). Computed at the start
            /// (at the end, after the last group, its ten dependent rounds
            /// were the tail's critical path): beside the first group's
            /// rounds to encrypt (`aes_group`, one more chain that keeps
            /// pace with the group's), just before the first group to
            /// decrypt. A pointer rather than a `Cell` in this struct: a
            /// `Cell` makes the whole context mutable behind `&Ctx`, and
            /// LLVM reloads its fields around every store of the data.
            ej0: *mut __m128i,
            powers: &'a [u128; POWERS],
            hk: &'a [u128; POWERS],
            mask: V,
            step: V,
            src: *const u8,
            p: *mut u8,
            groups: usize,
            prefetch: bool,
            /// With non-temporal stores (`seal`/`open` with `NT`): the last
            /// register stored (the groups are stored in order), whose
            /// bytes after the last line boundary it crosses wait for the
            /// next register's to fill their line.
            carry: &'a core::cell::Cell<Option<V>>,
        }

        impl Ctx<'_> {
            /// The power vectors of group `h` of a run (`PwSrc`), loaded
            /// from the key where they are used: no per-call copy.
            #[inline]
            #[target_feature(enable = $feat)]
            fn pw_src(&self, h: usize) -> PwSrc<'_> {
                PwSrc::new(self.powers, self.hk, h)
            }

            /// Group gi: bytes gi·N·16 .. (gi+1)·N·16 at `p` (within the
            /// data for gi < groups).
            #[inline]
            fn at(&self, gi: usize) -> *mut u8 {
                self.p.wrapping_add(gi * N * 16)
            }

            /// Group gi of the input (as `at`).
            #[inline]
            fn src_at(&self, gi: usize) -> *const u8 {
                self.src.wrapping_add(gi * N * 16)
            }

            /// `E(J0)` if the call ends the message (`GcmCall::finish`).
            #[inline]
            #[target_feature(enable = $feat)]
            fn ej0<const NR: usize>(&self) -> Option<__m128i> {
                // SAFETY: `ej0` points to `gcm_crypt`'s slot, alive and
                // written by no one else during the call.
                self.finish.map(|_| unsafe { *self.ej0 })
            }

            /// The call's result from the state `acc` after the data: the
            /// state, or (`finish`) the tag, with `ej0` from [`Ctx::ej0`].
            #[inline]
            #[target_feature(enable = $feat)]
            fn result(&self, acc: __m128i, ej0: Option<__m128i>) -> u128 {
                match (*self.finish, ej0) {
                    (Some((_, lens)), Some(e)) => super::tag_of(self.powers, self.hk, acc, lens, e),
                    _ => to_u128(acc),
                }
            }
        }

        /// Where a fused call starts: the counter block (a vector and its low
        /// 32 bits) and the GHASH state.
        struct Start {
            base: V,
            c: u32,
            acc: __m128i,
        }

        /// How many runs of `len` groups from counter `c` on take the fast
        /// path (`counters`): those whose counters keep the last byte of `c`
        /// from carrying; at most `runs`.
        #[inline]
        fn fast_runs(c: u32, runs: usize, len: usize) -> usize {
            ((256 - (c & 0xff) as usize) / (len * N)).min(runs)
        }

        /// A group's counter: on the byte-swapping path, `v` its first
        /// counter block (reflected); on the fast path (`window`), `v` the
        /// whitened block of the window's first counter and `x` the offset
        /// of the group's first counter in the window.
        #[derive(Clone, Copy)]
        struct Ctr {
            v: V,
            x: usize,
        }

        /// The fast path's start for the runs from counter `base` (reflected),
        /// `c` its low 32 bits: the window of 256 counters that holds it —
        /// counter `c − (c mod 256)` in byte order, XORed with round key 0 —
        /// and `c mod 256`. Block `x` of the window is that block XORed
        /// with `x` in its last byte (`CTR_LOW`): no carry, so the counter's
        /// addition is an XOR.
        #[inline]
        #[target_feature(enable = $feat)]
        fn window(cx: &Ctx<'_>, base: V, c: u32) -> Ctr {
            let low = c & 0xff;
            let first = add32(base, splat(u128::from(low.wrapping_neg())));
            Ctr { v: xor(shuffle(first, cx.mask), round_key(&cx.k, 0)), x: low as usize }
        }

        /// The whitened counter blocks of a group from `ctr`: on the
        /// byte-swapping path `v + inc[r]` byte-swapped, XORed with round
        /// key 0; on the fast path (no counter of the group carries out of
        /// the window's last byte) one XOR each, of the window's whitened
        /// block and the offsets `x + r·LANES + l` in the last byte.
        #[inline]
        #[target_feature(enable = $feat)]
        fn counters(cx: &Ctx<'_>, ctr: Ctr, fast: bool) -> [V; REGS] {
            let mut s = [splat(0); REGS];
            if fast {
                // At most 255 + N < CTR_LOW.len(): every load is within it.
                let t = super::CTR_LOW.as_ptr().wrapping_add(ctr.x & 0xff);
                const { assert!(256 + N <= super::CTR_LOW.len()) };
                for (r, si) in s.iter_mut().enumerate() {
                    // SAFETY: entries x + r·LANES .. x + (r + 1)·LANES of
                    // CTR_LOW, x < 256 (see above): 16 · LANES bytes.
                    *si = xor(ctr.v, unsafe { load(t.add(r * LANES).cast()) });
                }
                return s;
            }
            let k0 = round_key(&cx.k, 0);
            for (si, ii) in s.iter_mut().zip(&INC) {
                // SAFETY: `ii` holds LANES u128 = 16 · LANES bytes.
                let c = add32(ctr.v, unsafe { load(ii.as_ptr().cast()) });
                *si = xor(shuffle(c, cx.mask), k0);
            }
            s
        }

        /// The counter of the group after `ctr`'s.
        #[inline]
        #[target_feature(enable = $feat)]
        fn advance(cx: &Ctx<'_>, ctr: Ctr, fast: bool) -> Ctr {
            if fast {
                Ctr { v: ctr.v, x: ctr.x + N }
            } else {
                Ctr { v: add32(ctr.v, cx.step), x: 0 }
            }
        }

        /// One group of a fused call: group `gi`'s AES-CTR woven with the
        /// GHASH of the byte-reflected blocks `$g` (`aes_ghash_group!`) as
        /// group `[h]` of a run: the `first` (state `$acc` in, sums out), a
        /// `mid` one (sums `$s` in and out), the `last` (sums in, reduced) or
        /// `alone` (state in, reduced); the result written over group `gi`
        /// (`$c`: its input, if already loaded). Evaluates to (the result
        /// byte-reflected, sums, state, next counter base).
        macro_rules! fused_group {
            ($cx:expr, $nr:ident, $at:expr, $base:expr, $fast:expr, $gi:expr, $c:expr, $g:expr, first [$h:expr] $acc:expr) => {
                fused_group!(@ $cx, $nr, $at, $base, $fast, $gi, $c, $g, $h, Some($acc), no_sums(), false)
            };
            ($cx:expr, $nr:ident, $at:expr, $base:expr, $fast:expr, $gi:expr, $c:expr, $g:expr, mid [$h:expr] $s:expr) => {
                fused_group!(@ $cx, $nr, $at, $base, $fast, $gi, $c, $g, $h, None, $s, false)
            };
            ($cx:expr, $nr:ident, $at:expr, $base:expr, $fast:expr, $gi:expr, $c:expr, $g:expr, last $s:expr) => {
                fused_group!(@ $cx, $nr, $at, $base, $fast, $gi, $c, $g, RUN - 1, None, $s, true)
            };
            ($cx:expr, $nr:ident, $at:expr, $base:expr, $fast:expr, $gi:expr, $c:expr, $g:expr, alone $acc:expr) => {
                fused_group!(@ $cx, $nr, $at, $base, $fast, $gi, $c, $g, RUN - 1, Some($acc), no_sums(), true)
            };
            (@ $cx:expr, $nr:ident, $at:expr, $base:expr, $fast:expr, $gi:expr, $c:expr, $g:expr, $h:expr,
             $acc:expr, $sums:expr, $reduce:expr) => {{
                let (cx, fast): (&Ctx<'_>, bool) = ($cx, $fast);
                let (ks, s, x) = aes_ghash_group!(
                    $nr, &cx.k, counters(cx, $base, fast), &cx.pw_src($h), $g, $acc, $sums, $reduce
                );
                // SAFETY: group gi < groups lies within the data (see `Ctx::at`).
                let g = unsafe { xor_store::<NT>(cx.src_at($gi), $at($gi), ks, $c, cx.mask, cx.prefetch, cx.carry) };
                (g, s, x, advance(cx, $base, fast))
            }};
        }

        /// Fused GCM over whole groups of `data` (its length a multiple of
        /// N·16), read from `input` if given (out of place) else from `data`:
        /// CTR from counter block `ctr` (32-bit increments), GHASH of the
        /// ciphertext from state `x`, one reduction per run of RUN groups;
        /// returns the state after it, or the tag (`GcmCall`). `rk`:
        /// NR + 1 round keys. (The 128-bit instantiation is only a test
        /// reference: production AES-NI uses the hand-scheduled `aesni`
        /// kernel.)
        #[cfg_attr(not(test), allow(dead_code))]
        #[target_feature(enable = $feat)]
        pub(crate) fn gcm_crypt<const NR: usize>(mut call: super::GcmCall<'_>) -> u128 {
            assert_eq!(call.rk.len(), NR + 1);
            let (p, src) = call.pointers();
            // `E(J0)`'s slot (`Ctx::ej0`), wiped at the end.
            let mut ej0 = _mm_setzero_si128();
            // Whole output lines by non-temporal stores (`GcmCall::stream`,
            // `store_line_nt`): 512-bit registers, out of place, the output
            // 16-byte aligned, and no ciphertext read back from it (opening
            // hashes the input; sealing only where the ciphertext is hashed
            // from registers, `HELD`).
            let nt = call.stream
                && LANES == 4
                && call.input.is_some()
                && (HELD || !call.encrypt)
                && (p as usize).is_multiple_of(16);
            let mut carry = core::cell::Cell::new(None);
            let mut cx = Ctx {
                k: keys(call.rk),
                finish: &call.finish,
                ej0: &raw mut ej0,
                powers: call.powers,
                hk: call.hk,
                mask: splat(BSWAP),
                step: splat(N as u128),
                src,
                p,
                groups: call.data.len() / (16 * N),
                prefetch: call.prefetch_always || call.data.len() >= PREFETCH_MIN,
                carry: &carry,
            };
            // To decrypt (`seal` runs it beside its first group): once the
            // keys are in `cx`, so that no vector is live across the call
            // (which would save it on the stack).
            if let (Some((j0, _)), false) = (call.finish, call.encrypt) {
                // SAFETY: as in `Ctx::ej0`.
                super::e_j0::<NR>(call.rk, j0, unsafe { &mut *cx.ej0 });
            }
            let ctr = u128::from_be_bytes(call.ctr);
            let start = Start { base: splat(ctr), c: ctr as u32, acc: from_u128(call.x) };
            // SAFETY: `cx.p` is valid for `cx.groups` whole groups (all of
            // `call.data`, exclusively borrowed), and so is `cx.src` (the
            // same, or `call.input`, of the same length: a shared borrow, so
            // it cannot overlap `call.data`).
            let x = unsafe {
                match (call.encrypt, nt) {
                    (true, false) => seal::<NR, false>(&cx, start),
                    (true, true) => seal::<NR, true>(&cx, start),
                    (false, false) => open::<NR, false>(&cx, start),
                    (false, true) => open::<NR, true>(&cx, start),
                }
            };
            if nt {
                if let Some(v) = carry.take() {
                    let end = p.wrapping_add(cx.groups * N * 16);
                    // SAFETY: the last register of the output ends at `end`.
                    unsafe { super::store_tail(end, &v) };
                }
                // The non-temporal stores ordered before whatever the
                // caller does next (as any store is).
                _mm_sfence();
            }
            if SCRUB > 0 {
                super::scrub_stack::<SCRUB>();
            }
            // The broadcast round keys live in `cx` on the stack (it is
            // passed by reference): wiped, as `aesni`'s `Tab` is, one
            // volatile store a key (a volatile store of the whole table
            // is a zeroed copy and a `memcpy`).
            for k in cx.k.iter_mut() {
                // SAFETY: `k` is a valid, exclusive, aligned place.
                unsafe { core::ptr::write_volatile(k, splat(0)) };
            }
            // SAFETY: `cx.ej0` points to the slot `ej0` above: valid,
            // aligned, no reference to it alive.
            unsafe { core::ptr::write_volatile(cx.ej0, _mm_setzero_si128()) };
            // The text the non-temporal stores carried over, likewise.
            // SAFETY: `carry` is a valid exclusive place.
            unsafe { core::ptr::write_volatile(&mut carry, core::cell::Cell::new(Some(splat(0)))) };
            core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
            x
        }

        /// The runs of `$len` groups from group `gi` on, `c` the low 32
        /// bits of counter `base`: stretches of runs on the fast path
        /// (`fast_runs`), each followed by one on the byte-swapping path.
        /// `$run!(b, fast)` does one run from counter `b` and advances `gi`
        /// by `$len`.
        macro_rules! runs {
            ($cx:expr, $run:ident, $base:ident, $c:ident, $gi:ident, $groups:expr, $len:expr) => {
                let len: usize = $len;
                while $gi + len <= $groups {
                    let fast = fast_runs($c, ($groups - $gi) / len, len);
                    if fast > 0 {
                        let mut w = window($cx, $base, $c);
                        for _ in 0..fast {
                            $run!(w, true);
                        }
                        $base = add32($base, splat((fast * len * N) as u128));
                        $c = $c.wrapping_add((fast * len * N) as u32);
                    }
                    if $gi + len <= $groups {
                        let mut b = Ctr { v: $base, x: 0 };
                        $run!(b, false);
                        $base = b.v;
                        $c = $c.wrapping_add((len * N) as u32);
                    }
                }
            };
        }

        /// Fused encryption of the data (`gcm_crypt`) from `start`: the GHASH
        /// of group i's ciphertext runs with group i+1's AES, from
        /// registers, if [`HELD`], else with group i+2's (read back from
        /// memory, so a group's AES never waits for the store of the group
        /// just before it, which the load would wait for); each run of RUN
        /// groups shares one reduction. Returns the state, or the tag
        /// (`Ctx::result`). (Out of line, so
        /// that each direction's loop is its own function.)
        ///
        /// # Safety
        /// `cx.p` must be valid for reading and writing `cx.groups · N · 16`
        /// bytes.
        #[inline(never)]
        #[target_feature(enable = $feat)]
        unsafe fn seal<const NR: usize, const NT: bool>(cx: &Ctx<'_>, start: Start) -> u128 {
            let Start { mut base, mut c, mut acc } = start;
            let (groups, at) = (cx.groups, |gi| cx.at(gi));
            // The reflected ciphertext of group gi, read back from the data.
            let ct = |gi| {
                // SAFETY: every use has gi < groups, a group already written
                // (see `Ctx::at`).
                unsafe { load_group(at(gi), cx.mask).1 }
            };
            // The GHASH input of the fused group gi: the result of group
            // gi − 1 (`prev`, in registers) if [`HELD`], else group gi − 2
            // read back.
            let src = |gi: usize, prev: [V; REGS]| {
                if HELD {
                    GSrc::held(prev)
                } else {
                    // SAFETY: as `ct`.
                    unsafe { GSrc::new(at(gi - 2), cx.mask) }
                }
            };
            // The first groups: AES only (one if [`HELD`], else two); the
            // last one's result (reflected) kept.
            let lead = if HELD { 1 } else { groups.min(2) };
            let mut prev = [splat(0); REGS];
            // `E(J0)` beside the first group, then into its slot (`Ctx::ej0`).
            let mut j0 = cx.finish.map(|(j0, _)| from_u128(j0.swap_bytes()));
            for gi in 0..lead {
                let s = counters(cx, Ctr { v: base, x: 0 }, false);
                let (ks, e) = aes_group!(NR, &cx.k, s, j0.take());
                if let Some(e) = e {
                    // SAFETY: as in `Ctx::ej0`.
                    unsafe { *cx.ej0 = e };
                }
                base = add32(base, cx.step);
                c = c.wrapping_add(N as u32);
                // SAFETY: group gi < groups (see `Ctx::at`).
                prev = unsafe { xor_store::<NT>(cx.src_at(gi), at(gi), ks, None, cx.mask, cx.prefetch, cx.carry) };
            }
            if groups == 1 {
                let (pw, e) = (cx.pw_src(RUN - 1), cx.ej0::<NR>());
                let acc = reduce(ghash_part(|r, z| pw.get(r, z), &prev, Some(acc), no_sums()));
                return cx.result(acc, e);
            }
            let mut gi = lead;
            // Groups gi .. gi + RUN with the GHASH of the groups `src` names.
            macro_rules! run {
                ($b:ident, $fast:literal) => {
                    let (g, mut s, _, mut b) =
                        fused_group!(cx, NR, at, $b, $fast, gi, None, &src(gi, prev), first [0] acc);
                    prev = g;
                    #[allow(clippy::reversed_empty_ranges)] // empty for runs of 2
                    for h in 1..RUN - 1 {
                        (prev, s, _, b) = fused_group!(
                            cx, NR, at, b, $fast, gi + h, None, &src(gi + h, prev), mid [h] s
                        );
                    }
                    (prev, _, acc, $b) = fused_group!(
                        cx, NR, at, b, $fast, gi + RUN - 1, None, &src(gi + RUN - 1, prev), last s
                    );
                    gi += RUN;
                };
            }
            runs!(cx, run, base, c, gi, groups, RUN);
            // Fewer than RUN groups left: pairs, as the last two of a run.
            macro_rules! pair {
                ($b:ident, $fast:literal) => {
                    let (g, s, _, b) = fused_group!(
                        cx, NR, at, $b, $fast, gi, None, &src(gi, prev), first [RUN - 2] acc
                    );
                    (prev, _, acc, $b) =
                        fused_group!(cx, NR, at, b, $fast, gi + 1, None, &src(gi + 1, g), last s);
                    gi += 2;
                };
            }
            runs!(cx, pair, base, c, gi, groups, 2);
            // Not hashed yet: group gi − 1 (`prev`), and gi − 2 unless
            // [`HELD`]; perhaps group gi not run yet.
            let last = Ctr { v: base, x: 0 };
            match (HELD, gi < groups) {
                (true, true) => {
                    let (g, s, _, _) =
                        fused_group!(cx, NR, at, last, false, gi, None, &src(gi, prev), first [RUN - 2] acc);
                    let (pw, e) = (cx.pw_src(RUN - 1), cx.ej0::<NR>());
                    cx.result(reduce(ghash_part(|r, z| pw.get(r, z), &g, None, s)), e)
                }
                (true, false) => {
                    let (pw, e) = (cx.pw_src(RUN - 1), cx.ej0::<NR>());
                    cx.result(reduce(ghash_part(|r, z| pw.get(r, z), &prev, Some(acc), no_sums())), e)
                }
                (false, true) => {
                    let (g, s, _, _) =
                        fused_group!(cx, NR, at, last, false, gi, None, &src(gi, prev), first [RUN - 2] acc);
                    let (pw, e) = (cx.pw_src(RUN - 1), cx.ej0::<NR>());
                    acc = reduce(ghash_part(|r, z| pw.get(r, z), &prev, None, s));
                    cx.result(reduce(ghash_part(|r, z| pw.get(r, z), &g, Some(acc), no_sums())), e)
                }
                (false, false) => {
                    let (p0, p1, e) = (cx.pw_src(RUN - 2), cx.pw_src(RUN - 1), cx.ej0::<NR>());
                    let s = ghash_part(|r, z| p0.get(r, z), &ct(gi - 2), Some(acc), no_sums());
                    cx.result(reduce(ghash_part(|r, z| p1.get(r, z), &prev, None, s)), e)
                }
            }
        }

        /// Fused decryption of the data (`gcm_crypt`) from `start`: each
        /// group's ciphertext is hashed with its own AES; each run of RUN
        /// groups shares one reduction. Returns the state, or the tag
        /// (`Ctx::result`).
        ///
        /// # Safety
        /// `cx.p` must be valid for reading and writing `cx.groups · N · 16`
        /// bytes.
        #[inline(never)]
        #[target_feature(enable = $feat)]
        unsafe fn open<const NR: usize, const NT: bool>(cx: &Ctx<'_>, start: Start) -> u128 {
            let Start { mut base, mut c, mut acc } = start;
            let (groups, at) = (cx.groups, |gi| cx.at(gi));
            let mut gi = 0;
            // The reflected ciphertext of group gi, for its GHASH.
            let gs = |gi: usize| {
                // SAFETY: every use has gi < groups (see `Ctx::at`).
                unsafe { GSrc::new(cx.src_at(gi), cx.mask) }
            };
            // Groups gi .. gi + RUN, each with its own GHASH; the ciphertext
            // is loaded for the GHASH, and again to be decrypted (`opaque`).
            macro_rules! run {
                ($b:ident, $fast:literal) => {
                    let (_, mut s, _, mut b) =
                        fused_group!(cx, NR, at, $b, $fast, gi, None, &gs(gi), first [0] acc);
                    #[allow(clippy::reversed_empty_ranges)] // empty for runs of 2
                    for h in 1..RUN - 1 {
                        (_, s, _, b) =
                            fused_group!(cx, NR, at, b, $fast, gi + h, None, &gs(gi + h), mid [h] s);
                    }
                    (_, _, acc, $b) = fused_group!(
                        cx, NR, at, b, $fast, gi + RUN - 1, None, &gs(gi + RUN - 1), last s
                    );
                    gi += RUN;
                };
            }
            runs!(cx, run, base, c, gi, groups, RUN);
            // Fewer than RUN groups left: pairs, as the last two of a run.
            macro_rules! pair {
                ($b:ident, $fast:literal) => {
                    let (_, s, _, b) =
                        fused_group!(cx, NR, at, $b, $fast, gi, None, &gs(gi), first [RUN - 2] acc);
                    (_, _, acc, $b) =
                        fused_group!(cx, NR, at, b, $fast, gi + 1, None, &gs(gi + 1), last s);
                    gi += 2;
                };
            }
            runs!(cx, pair, base, c, gi, groups, 2);
            if gi < groups {
                // SAFETY: gi < groups (see `Ctx::at`).
                let (c, g) = if LAZY {
                    (None, gs(gi))
                } else {
                    // SAFETY: gi < groups (see `Ctx::at`).
                    let (c, g) = unsafe { load_group(cx.src_at(gi), cx.mask) };
                    (Some(c), GSrc { p: cx.src_at(gi), mask: cx.mask, eager: g, held: false })
                };
                (_, _, acc, _) =
                    fused_group!(cx, NR, at, Ctr { v: base, x: 0 }, false, gi, c.as_ref(), &g, alone acc);
            }
            // Read after the last group's stores: read before, it would be
            // held (spilled) through the group.
            let e = cx.ej0::<NR>();
            cx.result(acc, e)
        }
    };
}
