//! Property tests: decryption inverts encryption, every kernel and style
//! agrees with the reference kernel, CTR matches a block-by-block CTR, and
//! everything agrees with RustCrypto `aes` on random keys and blocks.

mod common;

use aesflow_cipher::{Aes, KeyExpansion, kernel_by_name};
use common::{aes, combos, rustcrypto_block};
use proptest::prelude::*;

fn key_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 16),
        prop::collection::vec(any::<u8>(), 24),
        prop::collection::vec(any::<u8>(), 32),
    ]
}

fn rustcrypto_encrypt(key: &[u8], blocks: &mut [[u8; 16]]) {
    for b in blocks {
        rustcrypto_block(key, b, true);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn all_kernels_agree_and_invert(key in key_strategy(), data in prop::collection::vec(any::<[u8; 16]>(), 0..70)) {
        let mut expect = data.clone();
        rustcrypto_encrypt(&key, &mut expect);
        let (run, _) = combos();
        for (kernel, style) in run {
            let a = aes(&key, kernel, style);
            let mut b = data.clone();
            a.encrypt_blocks(&mut b);
            prop_assert_eq!(&b, &expect, "{} {} encrypt", kernel.name(), style);
            a.decrypt_blocks(&mut b);
            prop_assert_eq!(&b, &data, "{} {} decrypt", kernel.name(), style);
        }
    }

    #[test]
    fn ctr_matches_blockwise_counter_mode(
        key in key_strategy(),
        data in prop::collection::vec(any::<u8>(), 0..1100),
        ctr0 in prop_oneof![any::<u128>(), Just(u128::MAX - 3), Just(u64::MAX as u128 - 2)],
    ) {
        // Independent CTR: encrypt counter blocks one at a time with RustCrypto.
        let mut expect = data.clone();
        let mut c = ctr0;
        for chunk in expect.chunks_mut(16) {
            let mut ks = [c.to_be_bytes()];
            rustcrypto_encrypt(&key, &mut ks);
            for (d, k) in chunk.iter_mut().zip(ks[0]) { *d ^= k; }
            c = c.wrapping_add(1);
        }
        let (run, _) = combos();
        for (kernel, style) in run {
            let a = aes(&key, kernel, style);
            let mut b = data.clone();
            let mut counter = ctr0.to_be_bytes();
            // Split at a random-ish block boundary to check counter carry-over.
            let split = (data.len() / 16 / 2) * 16;
            let (x, y) = b.split_at_mut(split);
            a.ctr_xor(&mut counter, x);
            a.ctr_xor(&mut counter, y);
            prop_assert_eq!(&b, &expect, "{} {} ctr", kernel.name(), style);
            prop_assert_eq!(u128::from_be_bytes(counter), c, "{} {} counter", kernel.name(), style);
        }
    }
}

#[test]
fn bad_inputs_are_clear_errors() {
    let e = Aes::new(&[0u8; 15]).unwrap_err();
    assert!(e.to_string().contains("15 bytes"), "{e}");
    let e = Aes::with_kernel_name(&[0u8; 16], "nope", KeyExpansion::Offline).unwrap_err();
    assert!(e.to_string().contains("unknown AES kernel 'nope'"), "{e}");
    assert!(e.to_string().contains("ctime"), "{e}");
    assert!(kernel_by_name("CTIME").is_ok());
}

#[test]
fn default_is_constant_time() {
    let k = aesflow_cipher::detect_best();
    assert!(k.is_constant_time());
    assert_ne!(k.name(), "ttable");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// CBC through every kernel (fused or generic) against a block-by-block
    /// CBC with RustCrypto, split into two calls to check the chaining value.
    #[test]
    fn cbc_matches_blockwise(
        key in key_strategy(),
        data in prop::collection::vec(any::<[u8; 16]>(), 0..70),
        iv in any::<[u8; 16]>(),
        split in 0usize..70,
    ) {
        let mut expect = data.clone();
        let mut chain = iv;
        for b in expect.iter_mut() {
            for (x, y) in b.iter_mut().zip(chain) { *x ^= y; }
            rustcrypto_encrypt(&key, core::slice::from_mut(b));
            chain = *b;
        }
        let split = split.min(data.len());
        let (run, _) = combos();
        for (kernel, style) in run {
            let a = aes(&key, kernel, style);
            let mut b = data.clone();
            type Cbc = fn(&Aes, &mut [u8; 16], &mut [[u8; 16]]);
            let steps: [(&str, Cbc, &Vec<[u8; 16]>); 2] = [
                ("encrypt", Aes::cbc_encrypt, &expect),
                ("decrypt", Aes::cbc_decrypt, &data),
            ];
            for (what, cbc, want) in steps {
                let mut v = iv;
                let (x, y) = b.split_at_mut(split);
                cbc(&a, &mut v, x);
                cbc(&a, &mut v, y);
                prop_assert_eq!(&b, want, "{} {} cbc {}", kernel.name(), style, what);
                prop_assert_eq!(v, chain);
            }
        }
    }
}
