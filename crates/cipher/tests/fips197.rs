//! FIPS-197 Appendix A (key expansion) and Appendix C (example vectors),
//! all key sizes, every kernel, both key-expansion styles.

mod common;

use aesflow_cipher::{CipherKey, KeySchedule, OnlineKeyExpansion, RoundKeys};
use aesflow_vectors::decode_hex;
use common::{aes, combos};

fn h(s: &str) -> Vec<u8> {
    decode_hex(s).unwrap()
}

fn b16(s: &str) -> [u8; 16] {
    h(s).try_into().unwrap()
}

/// (key, first round keys, last round key) from Appendix A.1–A.3.
const APPENDIX_A: [(&str, &str, &str); 3] = [
    (
        "2b7e151628aed2a6abf7158809cf4f3c",
        "a0fafe1788542cb123a339392a6c7605",
        "d014f9a8c9ee2589e13f0cc8b6630ca6",
    ),
    (
        "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
        // round key 1 = w[4..8): fe0c91f7 2402f5a5 ec12068e 6c827f6b
        "62f8ead2522c6b7bfe0c91f72402f5a5",
        "e98ba06f448c773c8ecc720401002202",
    ),
    (
        "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
        "1f352c073b6108d72d9810a30914dff4",
        "fe4890d1e6188d0b046df344706c631e",
    ),
];

#[test]
fn appendix_a_key_expansion() {
    for (key, rk1, last) in APPENDIX_A {
        let k = CipherKey::new(&h(key)).unwrap();
        let rk = RoundKeys::new(&k);
        assert_eq!(rk.round_key(0)[..], h(key)[..16]);
        assert_eq!(rk.round_key(1), &b16(rk1));
        assert_eq!(rk.round_key(rk.nr()), &b16(last));
        // Online expansion yields the same keys, forwards and backwards.
        let mut on = OnlineKeyExpansion::new(&k);
        for r in 0..=rk.nr() {
            assert_eq!(on.next_key(), Some((r, *rk.round_key(r))));
        }
        assert_eq!(on.next_key(), None);
        let mut back = OnlineKeyExpansion::reverse(&k);
        for r in (0..=rk.nr()).rev() {
            assert_eq!(back.next_key(), Some((r, *rk.round_key(r))));
        }
        let sched: Vec<_> = KeySchedule::Offline(rk.clone()).enc_keys().collect();
        assert_eq!(sched.len(), rk.nr() + 1);
    }
}

/// Appendix B (the cipher example) and C.1–C.3.
const EXAMPLES: [(&str, &str, &str); 4] = [
    (
        "2b7e151628aed2a6abf7158809cf4f3c",
        "3243f6a8885a308d313198a2e0370734",
        "3925841d02dc09fbdc118597196a0b32",
    ),
    (
        "000102030405060708090a0b0c0d0e0f",
        "00112233445566778899aabbccddeeff",
        "69c4e0d86a7b0430d8cdb78070b4c55a",
    ),
    (
        "000102030405060708090a0b0c0d0e0f1011121314151617",
        "00112233445566778899aabbccddeeff",
        "dda97ca4864cdfe06eaf70a0ec0d7191",
    ),
    (
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "00112233445566778899aabbccddeeff",
        "8ea2b7ca516745bfeafc49904b496089",
    ),
];

#[test]
fn appendix_b_and_c_examples_every_kernel_and_style() {
    let (run, _) = combos();
    for (kernel, style) in run {
        for (key, pt, ct) in EXAMPLES {
            let a = aes(&h(key), kernel, style);
            let mut b = b16(pt);
            a.encrypt_block(&mut b);
            assert_eq!(b, b16(ct), "{} {style} encrypt key {key}", kernel.name());
            a.decrypt_block(&mut b);
            assert_eq!(b, b16(pt), "{} {style} decrypt key {key}", kernel.name());
        }
    }
}
