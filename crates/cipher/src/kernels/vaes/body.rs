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
            Ctr, Keys, broadcast_keys as load_keys, counters, load_n, load_partial, store_n,
            store_partial, xor_n,
        };

        crate::x86::aes_rounds!(, $features, __m512i, _mm512_xor_si512,
            enc: $enc, $enclast, dec: $dec, $declast);

        crate::x86::ecb_ctr_steps!($features, 64, _mm512_setzero_si512);

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

        #[target_feature(enable = $features)]
        fn ctr<const NR: usize, const W: usize>(rk: &[[u8; 16]], ctr: &mut u128, data: &mut [u8]) {
            let k = load_keys(rk);
            let mut st = Ctr::new(*ctr);
            let rest = in_pieces!(data, 64, W, ctr_step::<NR, _>(&mut st, &k));
            *ctr = st.c;
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
