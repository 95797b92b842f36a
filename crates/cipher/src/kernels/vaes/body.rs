//! The `vaes` kernel's ECB and CTR body (see the parent module).

/// The kernel body, parameterised by the target features it is compiled for,
/// the function `$check` that panics unless the CPU has them (and `aes`,
/// whose `AESIMC` converts online decryption keys), and the four 512-bit AES
/// round operations.
macro_rules! vaes_body {
    ($features:literal, $check:path, $enc:path, $enclast:path, $dec:path, $declast:path) => {
        use crate::kernel::Block;
        use crate::kernels::aesni::{ONLINE_BATCH, ctr_keyed, for_each_keyed};
        use crate::key_schedule::KeySchedule;
        use core::arch::x86_64::*;

        use crate::x86::v512::{
            Keys, broadcast_keys as load_keys, counters, load_partial, load64, store_partial,
            store64,
        };

        crate::x86::aes_rounds!(, $features, __m512i, _mm512_xor_si512,
            enc: $enc, $enclast, dec: $dec, $declast);

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
            let rest = in_pieces!(blocks.as_flattened_mut(), 64, W, ecb_step::<NR, _, DEC>(&k));
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
            let rest = in_pieces!(data, 64, W, ctr_step::<NR, _>(ctr, &k));
            if !rest.is_empty() {
                // Up to 63 bytes; a partial final block consumes its counter.
                let mut x = [_mm512_setzero_si512()];
                counters::<1>(*ctr, &mut x);
                *ctr = ctr.wrapping_add(rest.len().div_ceil(16) as u128);
                enc_n::<NR, 1>(&mut x, &k);
                store_partial(rest, _mm512_xor_si512(load_partial(rest), x[0]));
            }
        }

        /// Counter mode with `W` registers in flight (see
        /// `Kernel::ctr_xor`).
        pub(super) fn ctr_xor<const W: usize>(
            keys: &KeySchedule,
            counter: &mut Block,
            data: &mut [u8],
        ) {
            $check();
            ctr_keyed(keys, counter, data, |rk, c, d| {
                // SAFETY: `$check` confirmed the features.
                unsafe { by_rounds!(rk => ctr::<_, W>(rk, c, d)) }
            });
        }
    };
}
