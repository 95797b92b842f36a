//! The `vaes` kernel's parallel chained modes: CBC and CFB128 decryption
//! and XTS, 32 blocks in flight. Expanded after `vaes_body!` in the same
//! module (it uses its round functions and imports).

/// CBC and CFB128 decryption and XTS, compiled for `$features`.
macro_rules! vaes_modes {
    ($features:literal) => {
        use crate::kernel::xts_mul_alpha;
        use crate::x86::v512::xts_mul_alpha4;

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
            let mut c = [_mm512_setzero_si512(); N];
            for (v, s) in c.iter_mut().zip(d.chunks_exact(64)) {
                *v = load64(s);
            }
            let mut prev = [_mm512_setzero_si512(); N];
            prev[0] = preceding(c[0], *chain);
            for r in 1..N {
                prev[r] = preceding(c[r], c[r - 1]);
            }
            // CBC: P = D(C_i) ⊕ C_{i-1}; CFB: P = E(C_{i-1}) ⊕ C_i.
            let (mut x, other) = if CBC { (c, prev) } else { (prev, c) };
            crypt_n::<NR, N, CBC>(&mut x, k);
            for ((v, o), s) in x.iter().zip(&other).zip(d.chunks_exact_mut(64)) {
                store64(s, _mm512_xor_si512(*v, *o));
            }
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
            // SAFETY: `iv` is 16 readable bytes; unaligned load.
            let mut chain = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(iv.as_ptr().cast()) });
            let data = blocks.as_flattened_mut();
            let mut chunks = data.chunks_exact_mut(64 * W);
            for c in &mut chunks {
                chain_step::<NR, W, CBC>(c, &mut chain, &k);
            }
            let mut rest = chunks.into_remainder();
            if W > 4 && rest.len() >= 256 {
                let (a, b) = rest.split_at_mut(256);
                chain_step::<NR, 4, CBC>(a, &mut chain, &k);
                rest = b;
            }
            if rest.len() >= 128 {
                let (a, b) = rest.split_at_mut(128);
                chain_step::<NR, 2, CBC>(a, &mut chain, &k);
                rest = b;
            }
            if rest.len() >= 64 {
                let (a, b) = rest.split_at_mut(64);
                chain_step::<NR, 1, CBC>(a, &mut chain, &k);
                rest = b;
            }
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

        /// XTS over exactly `64 * N` bytes; `t` holds the tweaks of their
        /// first four blocks, and on return those of the next four.
        #[inline]
        #[target_feature(enable = $features)]
        fn xts_step<const NR: usize, const N: usize, const DEC: bool>(
            d: &mut [u8],
            t: &mut __m512i,
            k: &Keys,
        ) {
            assert_eq!(d.len(), 64 * N);
            let mut tw = [*t; N];
            for r in 1..N {
                tw[r] = xts_mul_alpha4(tw[r - 1]);
            }
            let mut x = [_mm512_setzero_si512(); N];
            for ((v, s), tr) in x.iter_mut().zip(d.chunks_exact(64)).zip(&tw) {
                *v = _mm512_xor_si512(load64(s), *tr);
            }
            crypt_n::<NR, N, DEC>(&mut x, k);
            for ((v, s), tr) in x.iter().zip(d.chunks_exact_mut(64)).zip(&tw) {
                store64(s, _mm512_xor_si512(*v, *tr));
            }
            *t = xts_mul_alpha4(tw[N - 1]);
        }

        #[target_feature(enable = $features)]
        fn xts<const NR: usize, const W: usize, const DEC: bool>(
            rk: &[[u8; 16]],
            tweak: &mut Block,
            blocks: &mut [Block],
        ) {
            let k = load_keys(rk);
            let mut ts = [*tweak; 4];
            for j in 1..4 {
                ts[j] = xts_mul_alpha(&ts[j - 1]);
            }
            // SAFETY: `ts` is 64 readable bytes; unaligned load.
            let mut t = unsafe { _mm512_loadu_si512(ts.as_ptr().cast()) };
            let data = blocks.as_flattened_mut();
            let mut chunks = data.chunks_exact_mut(64 * W);
            for c in &mut chunks {
                xts_step::<NR, W, DEC>(c, &mut t, &k);
            }
            let mut rest = chunks.into_remainder();
            if W > 4 && rest.len() >= 256 {
                let (a, b) = rest.split_at_mut(256);
                xts_step::<NR, 4, DEC>(a, &mut t, &k);
                rest = b;
            }
            if rest.len() >= 128 {
                let (a, b) = rest.split_at_mut(128);
                xts_step::<NR, 2, DEC>(a, &mut t, &k);
                rest = b;
            }
            if rest.len() >= 64 {
                let (a, b) = rest.split_at_mut(64);
                xts_step::<NR, 1, DEC>(a, &mut t, &k);
                rest = b;
            }
            let used = rest.len() / 16;
            if !rest.is_empty() {
                let mut x = [_mm512_xor_si512(load_partial(rest), t)];
                crypt_n::<NR, 1, DEC>(&mut x, &k);
                store_partial(rest, _mm512_xor_si512(x[0], t));
            }
            // SAFETY: `ts` is 64 writable bytes; unaligned store.
            unsafe { _mm512_storeu_si512(ts.as_mut_ptr().cast(), t) };
            *tweak = ts[used];
            ts.fill([0; 16]);
        }

        /// # Safety
        /// The CPU must support the features this module is compiled for.
        unsafe fn chain_dispatch<const W: usize, const CBC: bool>(
            rk: &[[u8; 16]],
            iv: &mut Block,
            blocks: &mut [Block],
        ) {
            // SAFETY: the caller guarantees the features these functions
            // enable.
            unsafe {
                match rk.len() - 1 {
                    10 => chain_dec::<10, W, CBC>(rk, iv, blocks),
                    12 => chain_dec::<12, W, CBC>(rk, iv, blocks),
                    14 => chain_dec::<14, W, CBC>(rk, iv, blocks),
                    n => unreachable!("AES has 10, 12 or 14 rounds, not {n}"),
                }
            }
        }

        /// # Safety
        /// The CPU must support the features this module is compiled for.
        unsafe fn xts_dispatch<const W: usize, const DEC: bool>(
            rk: &[[u8; 16]],
            tweak: &mut Block,
            blocks: &mut [Block],
        ) {
            // SAFETY: the caller guarantees the features these functions
            // enable.
            unsafe {
                match rk.len() - 1 {
                    10 => xts::<10, W, DEC>(rk, tweak, blocks),
                    12 => xts::<12, W, DEC>(rk, tweak, blocks),
                    14 => xts::<14, W, DEC>(rk, tweak, blocks),
                    n => unreachable!("AES has 10, 12 or 14 rounds, not {n}"),
                }
            }
        }

        /// CBC (`CBC`) or CFB128 decryption of whole blocks with `W`
        /// registers in flight; `iv` becomes the last ciphertext block.
        ///
        /// # Safety
        /// The CPU must support the features this module is compiled for,
        /// and `aes` (online decryption keys use `AESIMC`).
        pub(super) unsafe fn chain_decrypt<const W: usize, const CBC: bool>(
            keys: &KeySchedule,
            iv: &mut Block,
            blocks: &mut [Block],
        ) {
            let dir = if CBC { Dir::Dec } else { Dir::Enc };
            for_each_keyed(keys, dir, blocks, ONLINE_BATCH, |rk, b| {
                // SAFETY: the caller guarantees the features.
                unsafe { chain_dispatch::<W, CBC>(rk, iv, b) }
            });
        }

        /// XTS of whole blocks with `W` registers in flight (see
        /// `Kernel::xts_blocks`).
        ///
        /// # Safety
        /// As [`chain_decrypt`].
        pub(super) unsafe fn xts_blocks<const W: usize>(
            keys: &KeySchedule,
            tweak: &mut Block,
            blocks: &mut [Block],
            decrypt: bool,
        ) {
            let dir = if decrypt { Dir::Dec } else { Dir::Enc };
            for_each_keyed(keys, dir, blocks, ONLINE_BATCH, |rk, b| {
                // SAFETY: the caller guarantees the features.
                unsafe {
                    if decrypt {
                        xts_dispatch::<W, true>(rk, tweak, b)
                    } else {
                        xts_dispatch::<W, false>(rk, tweak, b)
                    }
                }
            });
        }
    };
}
