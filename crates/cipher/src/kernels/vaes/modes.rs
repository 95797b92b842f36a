//! The `vaes` kernel's parallel chained modes: CBC and CFB128 decryption
//! and XTS (one unit, or many in one call), 32 blocks in flight, and the
//! entry points of ECB and the chained modes. Expanded after `vaes_body!`
//! in the same module (it uses its round functions and imports).

/// CBC and CFB128 decryption and XTS, compiled for `$features`; `$check`
/// as for `vaes_body!`; `$mul8` and `$mul16` multiply each lane of a
/// register of XTS tweaks by α^8 and α^16 with shifts alone, `$mul8c` and
/// `$mul16c` with the reduction a carry-less multiply (the two
/// [`XtsTweakMul`](crate::kernel::XtsTweakMul) variants; an emulation
/// without `VPCLMULQDQ` passes the shift forms for both).
macro_rules! vaes_modes {
    ($features:literal, $check:path, $mul8:path, $mul16:path, $mul8c:path, $mul16c:path) => {
        use crate::kernel::XtsTweakMul;
        use crate::x86::v512::{load64, splat, store64, xts_mul_alpha4, xts_tweaks_at};

        /// The register whose lanes are the ciphertext blocks preceding
        /// those of `c`: lane 3 of `prev`, then lanes 0..3 of `c`.
        #[inline]
        #[target_feature(enable = $features)]
        fn preceding(c: __m512i, prev: __m512i) -> __m512i {
            _mm512_alignr_epi64::<6>(c, prev)
        }

        /// CBC (`CBC`) or CFB128 decryption of exactly `64 * N` bytes;
        /// lane 3 of `chain` holds the ciphertext block before them, and on
        /// return their last one.
        #[inline]
        #[target_feature(enable = $features)]
        fn chain_step<const NR: usize, const N: usize, const CBC: bool>(
            d: &mut [u8],
            chain: &mut __m512i,
            k: &Keys,
        ) {
            assert_eq!(d.len(), 64 * N);
            let c = load_n::<N>(d);
            let mut prev = [_mm512_setzero_si512(); N];
            prev[0] = preceding(c[0], *chain);
            for r in 1..N {
                prev[r] = preceding(c[r], c[r - 1]);
            }
            // CBC: P = D(C_i) ⊕ C_{i-1}; CFB: P = E(C_{i-1}) ⊕ C_i.
            let (mut x, other) = if CBC { (c, prev) } else { (prev, c) };
            crypt_n::<NR, N, CBC>(&mut x, k);
            xor_n(&mut x, &other);
            store_n(d, &x);
            *chain = c[N - 1];
        }

        #[target_feature(enable = $features)]
        fn chain_dec<const NR: usize, const W: usize, const CBC: bool>(
            rk: &[[u8; 16]],
            iv: &mut Block,
            blocks: &mut [Block],
        ) {
            let Some(&last) = blocks.last() else {
                return;
            };
            let k = load_keys(rk);
            let mut chain = crate::x86::v512::splat(iv);
            let data = blocks.as_flattened_mut();
            let rest = in_pieces!(data, 64, W, chain_step::<NR, _, CBC>(&mut chain, &k));
            if !rest.is_empty() {
                // One to three blocks.
                let c = load_partial(rest);
                let prev = preceding(c, chain);
                let (mut x, other) = if CBC { ([c], prev) } else { ([prev], c) };
                crypt_n::<NR, 1, CBC>(&mut x, &k);
                store_partial(rest, _mm512_xor_si512(x[0], other));
            }
            *iv = last;
        }

        /// Units of whole steps shorter than this many steps of `W`
        /// registers, in a call over several units, take [`xts_steps`].
        const XTS_SHORT_STEPS: usize = 3;

        /// Three steps' general-purpose XTS tweaks (up to 16 each),
        /// aligned for whole-register loads.
        #[repr(C, align(64))]
        struct TweakRing([[u128; 16]; 3]);

        impl TweakRing {
            /// Overwrite with zeros (volatile stores, not optimised away).
            #[inline]
            #[target_feature(enable = $features)]
            fn wipe(&mut self) {
                let p = self.0.as_mut_ptr().cast::<__m512i>();
                for i in 0..size_of::<Self>() / 64 {
                    // SAFETY: `p.add(i)` is 64 writable bytes inside
                    // `self`, 64-aligned.
                    unsafe { core::ptr::write_volatile(p.add(i), _mm512_setzero_si512()) };
                }
            }

            /// Register `i` (tweaks `4i..4i + 4`) of step slot `s`, read
            /// from memory.
            #[inline]
            #[target_feature(enable = $features)]
            fn register(&self, s: usize, i: usize) -> __m512i {
                let four = &self.0[s][4 * i..4 * i + 4];
                // SAFETY: `four` is 64 readable bytes, 64-aligned (a
                // multiple of 64 bytes into the aligned ring).
                unsafe { _mm512_load_si512(four.as_ptr().cast()) }
            }
        }

        // The XTS rounds' scheduling tie (`x86::tie_fn`); it also keeps the
        // rounds interleaved across registers.
        crate::x86::tie_fn!(__m512i, zmm_reg, $features);

        /// An XTS tweak times α^(4W): the advance of a general-purpose
        /// tweak per step of `W` registers.
        #[inline]
        fn xts_advance_u128<const W: usize>(t: u128) -> u128 {
            match W {
                8 => crate::x86::xts_mul_alpha_u128::<32>(t),
                4 => crate::x86::xts_mul_alpha_u128::<16>(t),
                2 => crate::x86::xts_mul_alpha_u128::<8>(t),
                _ => unreachable!("W is 2, 4 or 8"),
            }
        }

        /// XTS, `W` (even, at most 8) registers per step, every tweak in
        /// vector registers (see [`xts_vec`]); `CL`: the tweaks' reduction
        /// a carry-less multiply instead of shifts.
        #[target_feature(enable = $features)]
        fn xts<const NR: usize, const W: usize, const DEC: bool, const CL: bool>(
            rk: &[[u8; 16]],
            tweak: &mut Block,
            blocks: &mut [Block],
        ) {
            // A slice of constant length: the key loads unroll into
            // registers (no zeroed array on the stack and reload).
            let k = load_keys(&rk[..=NR]);
            xts_keyed::<NR, W, DEC, CL>(&k, tweak, blocks);
        }

        /// XTS of consecutive data units of `unit_blocks` (> 0) blocks,
        /// unit `u` under `tweaks[u]`: the round keys loaded once, and
        /// every unit's work in one loop (no call per unit), so the next
        /// unit's loads and start-up tweaks overlap this one's rounds.
        #[target_feature(enable = $features)]
        fn xts_many<const NR: usize, const W: usize, const CL: bool, const DEC: bool>(
            rk: &[[u8; 16]],
            tweaks: &mut [Block],
            unit_blocks: usize,
            blocks: &mut [Block],
        ) {
            if unit_blocks % (4 * W) == 0 && unit_blocks < XTS_SHORT_STEPS * 4 * W {
                return xts_steps::<NR, W, DEC, CL>(rk, tweaks, unit_blocks, blocks);
            }
            let k = load_keys(&rk[..=NR]);
            for (t, unit) in tweaks.iter_mut().zip(blocks.chunks_exact_mut(unit_blocks)) {
                xts_keyed::<NR, W, DEC, CL>(&k, t, unit);
            }
        }

        /// The general-purpose tweak chain of [`xts_steps`]: the first
        /// tweak of the next step to make.
        struct StepChains {
            /// The unit and the step within it they belong to.
            unit: usize,
            step: usize,
            a: u128,
        }

        /// XTS of data units of whole steps (`unit_blocks` a multiple of
        /// `4W`), unit `u` under `tweaks[u]`. The first `W/2` registers'
        /// tweaks of a step come from a chain of `2W` doublings on
        /// general-purpose registers (its start advanced by α^(4W) to the
        /// unit's next step; a new unit's from its tweak), two steps
        /// ahead, interleaved with the rounds and stored to a stack ring
        /// (as [`xts_vec`] stores its tweaks for the last round); the other `W/2` registers are
        /// those times α^(2W) (four vector instructions each). What bounds
        /// short units on Zen 4 is the vector work beside the rounds (the
        /// integer units are idle); the chains of different units are
        /// independent, so none is carried from unit to unit.
        #[target_feature(enable = $features)]
        fn xts_steps<const NR: usize, const W: usize, const DEC: bool, const CL: bool>(
            rk: &[[u8; 16]],
            tweaks: &mut [Block],
            unit_blocks: usize,
            blocks: &mut [Block],
        ) {
            const { assert!(W % 2 == 0 && W <= 8) };
            let k = load_keys(&rk[..=NR]);
            let per_unit = unit_blocks / (4 * W);
            debug_assert!(per_unit > 0 && unit_blocks % (4 * W) == 0);
            let steps = tweaks.len() * per_unit;
            let mut ring = TweakRing([[0; 16]; 3]);
            // `begin` a step's chains (a new unit's from its tweak), make
            // its tweaks, `finish`: `c` moves on to the next step.
            let begin = |c: &mut StepChains, tweaks: &[Block]| {
                if c.step == 0 && c.unit < tweaks.len() {
                    c.a = u128::from_le_bytes(tweaks[c.unit]);
                }
            };
            let finish = |c: &mut StepChains, tweaks: &mut [Block]| {
                // The chains' starts advanced by α^(4W); at a unit's last
                // step, `a` is the unit's next unused tweak.
                c.a = xts_advance_u128::<W>(c.a);
                c.step += 1;
                if c.step == per_unit {
                    if let Some(t) = tweaks.get_mut(c.unit) {
                        *t = c.a.to_le_bytes();
                    }
                    c.unit += 1;
                    c.step = 0;
                }
            };
            let mut c = StepChains {
                unit: 0,
                step: 0,
                a: 0,
            };
            // Steps 0 and 1 before the loop.
            for s in 0..2.min(steps) {
                begin(&mut c, tweaks);
                let mut ta = c.a;
                for j in 0..2 * W {
                    ring.0[s][j] = ta;
                    ta = crate::x86::xts_mul_alpha_u128::<1>(ta);
                }
                finish(&mut c, tweaks);
            }
            let data = blocks.as_flattened_mut();
            let mut cur = 0;
            for ch in data.chunks_exact_mut(64 * W) {
                let ahead = if cur == 0 { 2 } else { cur - 1 };
                // Past the last step the chains run on into the ring's
                // free slot, unused (no branch in the rounds).
                begin(&mut c, tweaks);
                let mut x = load_n::<W>(ch);
                let mut tws = [k[0]; W];
                for i in 0..W {
                    tws[i] = if i < W / 2 {
                        ring.register(cur, i)
                    } else {
                        xts_half_vec::<W, CL>(tws[i - W / 2])
                    };
                }
                for (v, t) in x.iter_mut().zip(&tws) {
                    *v = _mm512_ternarylogic_epi64::<0x96>(*v, *t, k[0]);
                }
                let mut ta = c.a;
                let out = &mut ring.0[ahead];
                middle_n::<NR, W, DEC>(&mut x, &k, |r, x| {
                    if r <= W {
                        for v in x.iter_mut() {
                            tie(&mut ta, v);
                        }
                        for o in &mut out[2 * r - 2..2 * r] {
                            *o = ta;
                            ta = crate::x86::xts_mul_alpha_u128::<1>(ta);
                        }
                    }
                });
                finish(&mut c, tweaks);
                let mut last = [k[NR]; W];
                for (l, t) in last.iter_mut().zip(&tws) {
                    *l = _mm512_xor_si512(*l, *t);
                }
                last_n::<W, DEC>(&mut x, &last);
                store_n(ch, &x);
                cur = if cur == 2 { 0 } else { cur + 1 };
            }
            ring.wipe();
        }

        /// Each lane of `t` times α^8 (`CL`: reduced by a carry-less
        /// multiply, else by shifts).
        #[inline]
        #[target_feature(enable = $features)]
        fn xts_mul8<const CL: bool>(t: __m512i) -> __m512i {
            if CL { $mul8c(t) } else { $mul8(t) }
        }

        /// Each lane of `t` times α^(2W): the second half of a step's
        /// tweak registers from the first, and the next step's first half
        /// from the second.
        #[inline]
        #[target_feature(enable = $features)]
        fn xts_half_vec<const W: usize, const CL: bool>(t: __m512i) -> __m512i {
            match (W, CL) {
                (8, true) => $mul16c(t),
                (8, false) => $mul16(t),
                (4, _) => xts_mul8::<CL>(t),
                _ => (0..W / 2).fold(t, |t, _| xts_mul_alpha4(t)),
            }
        }

        /// [`xts`] with the round keys in registers.
        #[inline]
        #[target_feature(enable = $features)]
        fn xts_keyed<const NR: usize, const W: usize, const DEC: bool, const CL: bool>(
            k: &Keys,
            tweak: &mut Block,
            blocks: &mut [Block],
        ) {
            const { assert!(W % 2 == 0 && W <= 8) };
            let k = *k;
            // Register `i` of the first step: T_4i..T_4i+3. The first two
            // computed from T_0 by per-lane shifts (`xts_tweaks_at`, nine
            // instructions each; a chain of α^4 steps through memory
            // delayed the first step), registers 2 and 3 as those times
            // α^8; only the first half of a step's registers is carried.
            let bcast = splat(tweak);
            let mut tw = [bcast; W];
            tw[0] = xts_tweaks_at(bcast, 0);
            tw[1] = xts_tweaks_at(bcast, 4);
            for i in 2..W / 2 {
                tw[i] = xts_mul8::<CL>(tw[i - 2]);
            }
            let data = blocks.as_flattened_mut();
            let mut chunks = data.chunks_exact_mut(64 * W);
            xts_vec::<NR, W, DEC, CL>(&k, &mut tw, &mut chunks);
            // Fewer than 4W blocks: whole registers with `tw[0]` advanced
            // by α^4 after each (a short serial chain, once per call;
            // indexing `tw` by a variable would keep it in memory, a store
            // and reload on the tweak chain of every step), then one to
            // three blocks.
            let mut t = tw[0];
            let rest = chunks.into_remainder();
            let mut regs = rest.chunks_exact_mut(64);
            for c in &mut regs {
                let mut x = [_mm512_xor_si512(load64(c), t)];
                crypt_n::<NR, 1, DEC>(&mut x, &k);
                store64(c, _mm512_xor_si512(x[0], t));
                t = xts_mul_alpha4(t);
            }
            let tail = regs.into_remainder();
            if !tail.is_empty() {
                let mut x = [_mm512_xor_si512(load_partial(tail), t)];
                crypt_n::<NR, 1, DEC>(&mut x, &k);
                store_partial(tail, _mm512_xor_si512(x[0], t));
            }
            let mut ts = [[0u8; 16]; 4];
            // SAFETY: `ts` is 64 writable bytes; unaligned store.
            unsafe { _mm512_storeu_si512(ts.as_mut_ptr().cast(), t) };
            *tweak = ts[tail.len() / 16];
            ts.fill([0; 16]);
        }

        /// XTS's main loop: `chunks` (whole steps of `W` registers) under
        /// the tweaks whose first `W/2` registers `tw[..W/2]` hold (those
        /// of the first step; on return `tw[0]` holds the next unused
        /// tweaks).
        ///
        /// Every tweak is in vector registers and the loop carries only the
        /// first half of a step's: the second half is those times α^(2W),
        /// and the next step's first half the second half times α^(2W)
        /// again (a lane rotation and a carry-less multiply of the bytes
        /// rotated round, or byte shifts and shifted copies: four or seven
        /// instructions per register, no chain of doublings). With the
        /// carry-less multiply, what the loop carries is not the tweak T
        /// but `U = T ⊕ k_last`, the last round's key itself (read from the
        /// stack as `VAESENCLAST`'s memory operand, no XOR per register):
        /// the first XOR is a three-way `VPTERNLOGQ` of the data, U and the
        /// constant `k_0 ⊕ k_last`, and since the multiply is linear, the
        /// next U is U·α^(2W) ⊕ (k_last·α^(2W) ⊕ k_last), a constant folded
        /// into the multiply's last XOR (with shifts, whose multiply has no
        /// room for it, T and `k_last ⊕ T` per register). The next step's
        /// tweaks are made one register after each of the first rounds, and
        /// a scheduling barrier after every round keeps the rounds
        /// interleaved across the registers (LLVM otherwise ran them a
        /// register at a time). A step's tweaks go to a stack buffer that
        /// the last round reads back: in registers they, the round keys (15
        /// for AES-256) and the data outgrow the 32 zmm registers.
        #[inline]
        #[target_feature(enable = $features)]
        fn xts_vec<const NR: usize, const W: usize, const DEC: bool, const CL: bool>(
            k: &Keys,
            tw: &mut [__m512i; W],
            chunks: &mut core::slice::ChunksExactMut<'_, u8>,
        ) {
            let mut stash = TweakStash([_mm512_setzero_si512(); 8]);
            // `U = T ⊕ k_last` and its constants (see above) with the
            // carry-less multiply; with shifts (`CL` false) the loop
            // carries T and XORs `k_last` into each last-round key, which
            // llvm-mca's Zen 4 model puts ahead (its final three-way XOR
            // has no room for the constant).
            let kl = k[NR];
            let fold = if CL { kl } else { _mm512_setzero_si512() };
            let k0l = _mm512_xor_si512(k[0], fold);
            let c = _mm512_xor_si512(xts_half_vec::<W, CL>(fold), fold);
            let next = |t: __m512i| _mm512_xor_si512(xts_half_vec::<W, CL>(t), c);
            let mut first = *tw;
            for f in first.iter_mut().take(W / 2) {
                *f = _mm512_xor_si512(*f, fold);
            }
            for ch in chunks.by_ref() {
                let mut x = load_n::<W>(ch);
                let mut step = first;
                for i in 0..W / 2 {
                    step[W / 2 + i] = next(first[i]);
                }
                for i in 0..W {
                    x[i] = _mm512_ternarylogic_epi64::<0x96>(x[i], step[i], k0l);
                    stash.set(i, step[i]);
                }
                stash.spill();
                middle_n::<NR, W, DEC>(&mut x, k, |r, x| {
                    crate::x86::v512::round_barrier(x);
                    if r <= W / 2 {
                        first[r - 1] = next(step[W / 2 + r - 1]);
                    }
                });
                let mut last = [kl; W];
                for (i, l) in last.iter_mut().enumerate() {
                    *l = if CL {
                        stash.get(i)
                    } else {
                        _mm512_xor_si512(kl, stash.get(i))
                    };
                }
                last_n::<W, DEC>(&mut x, &last);
                store_n(ch, &x);
                // Opaque to LLVM, so each carried tweak is one three-way
                // XOR in the loop (it otherwise kept `U·α^(2W)` apart for
                // the exit's `⊕ k_last`: one more instruction per step).
                for f in first.iter_mut().take(W / 2) {
                    // SAFETY: an empty instruction sequence that reads and
                    // writes one vector register in place; it touches no
                    // memory, stack or flags.
                    unsafe {
                        core::arch::asm!(
                            "/* {0} */",
                            inout(zmm_reg) *f,
                            options(pure, nomem, nostack, preserves_flags)
                        );
                    }
                }
            }
            stash.wipe();
            tw[0] = _mm512_xor_si512(first[0], fold);
        }

        /// A step's tweak registers on the stack, for [`xts_vec`]'s last
        /// round; aligned for whole-register stores and loads (which
        /// forward).
        #[repr(C, align(64))]
        struct TweakStash([__m512i; 8]);

        impl TweakStash {
            /// Store register `i`.
            #[inline]
            #[target_feature(enable = $features)]
            fn set(&mut self, i: usize, v: __m512i) {
                let p: *mut __m512i = &mut self.0[i];
                // SAFETY: `p` is 64 writable bytes, 64-aligned.
                unsafe { _mm512_store_si512(p.cast(), v) }
            }

            /// Register `i`, loaded.
            #[inline]
            #[target_feature(enable = $features)]
            fn get(&self, i: usize) -> __m512i {
                let p: *const __m512i = &self.0[i];
                // SAFETY: `p` is 64 readable bytes, 64-aligned.
                unsafe { _mm512_load_si512(p.cast()) }
            }

            /// Make the stores stay stores: an empty instruction sequence
            /// that may read and write the buffer, so LLVM loads the
            /// registers back in [`TweakStash::get`] instead of keeping the
            /// stored values in registers (and spilling others).
            #[inline]
            fn spill(&mut self) {
                // SAFETY: an empty instruction sequence; it touches no
                // register but its input, no stack and no flags.
                unsafe {
                    core::arch::asm!(
                        "/* {0} */",
                        in(reg) self.0.as_mut_ptr(),
                        options(nostack, preserves_flags)
                    );
                }
            }

            /// Overwrite with zeros (volatile stores, not optimised away).
            #[inline]
            #[target_feature(enable = $features)]
            fn wipe(&mut self) {
                for v in &mut self.0 {
                    // SAFETY: `v` is a valid, aligned register slot.
                    unsafe { core::ptr::write_volatile(v, _mm512_setzero_si512()) };
                }
            }
        }

        /// What [`keyed`] runs: ECB, CBC or CFB128 decryption (the state is
        /// the chaining value; CBC is the one with decryption keys) or XTS
        /// (the tweak).
        const ECB: u8 = 0;
        const CHAIN: u8 = 1;
        const XTS: u8 = 2;

        /// `OP` in the direction `DEC` with AES-`NR` and `W` registers in
        /// flight.
        #[target_feature(enable = $features)]
        fn run<const NR: usize, const W: usize, const OP: u8, const CL: bool, const DEC: bool>(
            rk: &[[u8; 16]],
            state: &mut Block,
            blocks: &mut [Block],
        ) {
            match OP {
                ECB => ecb::<NR, W, DEC>(rk, blocks),
                CHAIN => chain_dec::<NR, W, DEC>(rk, state, blocks),
                _ => xts::<NR, W, DEC, CL>(rk, state, blocks),
            }
        }

        /// `OP` over whole blocks with `W` registers in flight, on any key
        /// schedule.
        fn keyed<const W: usize, const OP: u8, const CL: bool>(
            keys: &KeySchedule,
            state: &mut Block,
            blocks: &mut [Block],
            dec: bool,
        ) {
            $check();
            for_each_keyed(keys, dec, blocks, ONLINE_BATCH, |rk, b| {
                // SAFETY: `$check` confirmed the features.
                unsafe { by_rounds!(rk, dec => run::<_, W, OP, CL, ?>(rk, state, b)) }
            });
        }

        /// ECB encryption or decryption with `W` registers in flight.
        /// Fewer than four blocks (one register) with AES-NI (see
        /// `aesni::ecb_ni`).
        pub(super) fn ecb_blocks<const W: usize>(keys: &KeySchedule, blocks: &mut [Block], dec: bool) {
            if blocks.len() < 4 {
                $check();
                return crate::kernels::aesni::ecb_ni(keys, blocks, dec);
            }
            keyed::<W, ECB, false>(keys, &mut [0; 16], blocks, dec);
        }

        /// CBC (`CBC`) or CFB128 decryption of whole blocks with `W`
        /// registers in flight; `iv` becomes the last ciphertext block.
        pub(super) fn chain_decrypt<const W: usize, const CBC: bool>(
            keys: &KeySchedule,
            iv: &mut Block,
            blocks: &mut [Block],
        ) {
            keyed::<W, CHAIN, false>(keys, iv, blocks, CBC);
        }

        /// XTS of whole blocks with `W` registers in flight and the
        /// tweaks multiplied as `mul` says (see `Kernel::xts_blocks`).
        pub(super) fn xts_blocks<const W: usize>(
            keys: &KeySchedule,
            tweak: &mut Block,
            blocks: &mut [Block],
            decrypt: bool,
            mul: XtsTweakMul,
        ) {
            match mul {
                XtsTweakMul::Clmul => keyed::<W, XTS, true>(keys, tweak, blocks, decrypt),
                XtsTweakMul::Shift => keyed::<W, XTS, false>(keys, tweak, blocks, decrypt),
            }
        }

        /// XTS of data units of `unit_blocks` blocks each with `W`
        /// registers in flight (see `Kernel::xts_units`): the keys loaded
        /// once per call (with online expansion, once per group of units
        /// of about [`ONLINE_BATCH`] blocks).
        pub(super) fn xts_units<const W: usize>(
            keys: &KeySchedule,
            tweaks: &mut [Block],
            unit_blocks: usize,
            blocks: &mut [Block],
            decrypt: bool,
            mul: XtsTweakMul,
        ) {
            if !crate::kernel::xts_units_shape(tweaks.len(), unit_blocks, blocks.len()) {
                return;
            }
            match mul {
                XtsTweakMul::Clmul => {
                    xts_units_as::<W, true>(keys, tweaks, unit_blocks, blocks, decrypt)
                }
                XtsTweakMul::Shift => {
                    xts_units_as::<W, false>(keys, tweaks, unit_blocks, blocks, decrypt)
                }
            }
        }

        /// [`xts_units`] with the multiply chosen (`CL`).
        fn xts_units_as<const W: usize, const CL: bool>(
            keys: &KeySchedule,
            tweaks: &mut [Block],
            unit_blocks: usize,
            blocks: &mut [Block],
            decrypt: bool,
        ) {
            $check();
            // Whole units per key derivation (online keys); stored keys
            // take the whole slice at once.
            let per = ONLINE_BATCH.div_ceil(unit_blocks) * unit_blocks;
            let mut rest = tweaks;
            for_each_keyed(keys, decrypt, blocks, per, |rk, b| {
                let (t, r) = core::mem::take(&mut rest).split_at_mut(b.len() / unit_blocks);
                rest = r;
                // SAFETY: `$check` confirmed the features.
                unsafe { by_rounds!(rk, decrypt => xts_many::<_, W, CL, ?>(rk, t, unit_blocks, b)) }
            });
        }

        /// CBC encryption: serial, so the 128-bit AES-NI loop is as fast as
        /// it gets (a CPU with VAES has AES-NI).
        pub(super) fn cbc_encrypt(keys: &KeySchedule, iv: &mut Block, blocks: &mut [Block]) {
            $check();
            crate::kernels::aesni::cbc_encrypt_ni(keys, iv, blocks);
        }
    };
}
