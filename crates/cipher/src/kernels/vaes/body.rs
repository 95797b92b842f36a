//! The `vaes` kernel's ECB and CTR body (see the parent module).

/// The kernel body, parameterised by the target features it is compiled for
/// and the four 512-bit AES round operations.
macro_rules! vaes_body {
    ($features:literal, $enc:path, $enclast:path, $dec:path, $declast:path) => {
        use crate::kernel::Block;
        use crate::kernels::aesni::{Dir, ONLINE_BATCH, for_each_keyed};
        use crate::key_schedule::KeySchedule;
        use core::arch::x86_64::*;

        use crate::x86::v512::{
            Keys, broadcast_keys as load_keys, counters, load_partial, load64, store_partial,
            store64,
        };

        #[inline]
        #[target_feature(enable = $features)]
        fn enc_n<const NR: usize, const N: usize>(x: &mut [__m512i; N], k: &Keys) {
            for v in x.iter_mut() {
                *v = _mm512_xor_si512(*v, k[0]);
            }
            for kr in &k[1..NR] {
                for v in x.iter_mut() {
                    *v = $enc(*v, *kr);
                }
            }
            for v in x.iter_mut() {
                *v = $enclast(*v, k[NR]);
            }
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn dec_n<const NR: usize, const N: usize>(x: &mut [__m512i; N], k: &Keys) {
            for v in x.iter_mut() {
                *v = _mm512_xor_si512(*v, k[0]);
            }
            for kr in &k[1..NR] {
                for v in x.iter_mut() {
                    *v = $dec(*v, *kr);
                }
            }
            for v in x.iter_mut() {
                *v = $declast(*v, k[NR]);
            }
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn crypt_n<const NR: usize, const N: usize, const DEC: bool>(
            x: &mut [__m512i; N],
            k: &Keys,
        ) {
            if DEC {
                dec_n::<NR, N>(x, k)
            } else {
                enc_n::<NR, N>(x, k)
            }
        }

        /// ECB over exactly `64 * N` bytes (`4 * N` blocks).
        #[inline]
        #[target_feature(enable = $features)]
        fn ecb_step<const NR: usize, const N: usize, const DEC: bool>(d: &mut [u8], k: &Keys) {
            assert_eq!(d.len(), 64 * N);
            let mut x = [_mm512_setzero_si512(); N];
            for (v, c) in x.iter_mut().zip(d.chunks_exact(64)) {
                *v = load64(c);
            }
            crypt_n::<NR, N, DEC>(&mut x, k);
            for (v, c) in x.iter().zip(d.chunks_exact_mut(64)) {
                store64(c, *v);
            }
        }

        #[target_feature(enable = $features)]
        fn ecb<const NR: usize, const W: usize, const DEC: bool>(
            rk: &[[u8; 16]],
            blocks: &mut [Block],
        ) {
            let k = load_keys(rk);
            let data = blocks.as_flattened_mut();
            let mut chunks = data.chunks_exact_mut(64 * W);
            for c in &mut chunks {
                ecb_step::<NR, W, DEC>(c, &k);
            }
            let mut rest = chunks.into_remainder();
            if W > 4 && rest.len() >= 256 {
                let (a, b) = rest.split_at_mut(256);
                ecb_step::<NR, 4, DEC>(a, &k);
                rest = b;
            }
            if rest.len() >= 128 {
                let (a, b) = rest.split_at_mut(128);
                ecb_step::<NR, 2, DEC>(a, &k);
                rest = b;
            }
            if rest.len() >= 64 {
                let (a, b) = rest.split_at_mut(64);
                ecb_step::<NR, 1, DEC>(a, &k);
                rest = b;
            }
            if !rest.is_empty() {
                // One to three whole blocks.
                let mut x = [load_partial(rest)];
                crypt_n::<NR, 1, DEC>(&mut x, &k);
                store_partial(rest, x[0]);
            }
        }

        /// CTR over exactly `64 * N` bytes.
        #[inline]
        #[target_feature(enable = $features)]
        fn ctr_step<const NR: usize, const N: usize>(d: &mut [u8], ctr: &mut u128, k: &Keys) {
            assert_eq!(d.len(), 64 * N);
            let mut x = [_mm512_setzero_si512(); N];
            counters::<N>(*ctr, &mut x);
            *ctr = ctr.wrapping_add(4 * N as u128);
            enc_n::<NR, N>(&mut x, k);
            for (v, c) in x.iter().zip(d.chunks_exact_mut(64)) {
                store64(c, _mm512_xor_si512(load64(c), *v));
            }
        }

        #[target_feature(enable = $features)]
        fn ctr<const NR: usize, const W: usize>(rk: &[[u8; 16]], ctr: &mut u128, data: &mut [u8]) {
            let k = load_keys(rk);
            let mut chunks = data.chunks_exact_mut(64 * W);
            for c in &mut chunks {
                ctr_step::<NR, W>(c, ctr, &k);
            }
            let mut rest = chunks.into_remainder();
            if W > 4 && rest.len() >= 256 {
                let (a, b) = rest.split_at_mut(256);
                ctr_step::<NR, 4>(a, ctr, &k);
                rest = b;
            }
            if rest.len() >= 128 {
                let (a, b) = rest.split_at_mut(128);
                ctr_step::<NR, 2>(a, ctr, &k);
                rest = b;
            }
            if rest.len() >= 64 {
                let (a, b) = rest.split_at_mut(64);
                ctr_step::<NR, 1>(a, ctr, &k);
                rest = b;
            }
            if !rest.is_empty() {
                // Up to 63 bytes; a partial final block consumes its counter.
                let mut x = [_mm512_setzero_si512()];
                counters::<1>(*ctr, &mut x);
                *ctr = ctr.wrapping_add(rest.len().div_ceil(16) as u128);
                enc_n::<NR, 1>(&mut x, &k);
                store_partial(rest, _mm512_xor_si512(load_partial(rest), x[0]));
            }
        }

        /// # Safety
        /// The CPU must support the features this module is compiled for.
        unsafe fn ecb_dispatch<const W: usize, const DEC: bool>(
            rk: &[[u8; 16]],
            blocks: &mut [Block],
        ) {
            // SAFETY: the caller guarantees the features these functions
            // enable.
            unsafe {
                match rk.len() - 1 {
                    10 => ecb::<10, W, DEC>(rk, blocks),
                    12 => ecb::<12, W, DEC>(rk, blocks),
                    14 => ecb::<14, W, DEC>(rk, blocks),
                    n => unreachable!("AES has 10, 12 or 14 rounds, not {n}"),
                }
            }
        }

        /// # Safety
        /// The CPU must support the features this module is compiled for.
        unsafe fn ctr_dispatch<const W: usize>(rk: &[[u8; 16]], c: &mut u128, data: &mut [u8]) {
            // SAFETY: the caller guarantees the features these functions
            // enable.
            unsafe {
                match rk.len() - 1 {
                    10 => ctr::<10, W>(rk, c, data),
                    12 => ctr::<12, W>(rk, c, data),
                    14 => ctr::<14, W>(rk, c, data),
                    n => unreachable!("AES has 10, 12 or 14 rounds, not {n}"),
                }
            }
        }

        /// ECB encryption or decryption with `W` registers in flight.
        ///
        /// # Safety
        /// The CPU must support the features this module is compiled for,
        /// and `aes` (online decryption keys use `AESIMC`).
        pub(super) unsafe fn ecb_blocks<const W: usize, const DEC: bool>(
            keys: &KeySchedule,
            blocks: &mut [Block],
        ) {
            let dir = if DEC { Dir::Dec } else { Dir::Enc };
            for_each_keyed(keys, dir, blocks, ONLINE_BATCH, |rk, b| {
                // SAFETY: the caller guarantees the features.
                unsafe { ecb_dispatch::<W, DEC>(rk, b) }
            });
        }

        /// Counter mode with `W` registers in flight (see
        /// `Kernel::ctr_xor`).
        ///
        /// # Safety
        /// The CPU must support the features this module is compiled for.
        pub(super) unsafe fn ctr_xor<const W: usize>(
            keys: &KeySchedule,
            counter: &mut Block,
            data: &mut [u8],
        ) {
            let mut c = u128::from_be_bytes(*counter);
            for_each_keyed(keys, Dir::Enc, data, ONLINE_BATCH * 16, |rk, d| {
                // SAFETY: the caller guarantees the features.
                unsafe { ctr_dispatch::<W>(rk, &mut c, d) }
            });
            *counter = c.to_be_bytes();
        }
    };
}
