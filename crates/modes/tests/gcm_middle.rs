//! GCM messages of a few hundred bytes to a few KiB — the one-function path
//! of the AVX-512 kernels (`vaes`, `vaes32`: one reduction per 64 text
//! blocks, chunks of eight registers) and the fused groups just above it —
//! against RustCrypto's `aes-gcm`, for every key size: text lengths at each
//! boundary the path has (a block, a register, a chunk of 4 and of 8
//! registers, a segment of 64 blocks, its limit) and at random, AADs hashed
//! in it (up to 64 bytes) and before it (longer), seal and open, in place
//! and out of place, and a flipped tag or ciphertext bit refused with the
//! output wiped.

mod common;
use aes_gcm::aead::{AeadInPlace, KeyInit};
use aesflow_modes::gcm::{FusedChoice, Gcm, GcmOptions};
use common::Rng;

/// The reference tag and ciphertext.
fn reference(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, [u8; 16]) {
    let mut ct = pt.to_vec();
    let tag = match key.len() {
        16 => aes_gcm::Aes128Gcm::new_from_slice(key)
            .unwrap()
            .encrypt_in_place_detached(nonce.into(), aad, &mut ct),
        24 => aes_gcm::AesGcm::<aes::Aes192, aes_gcm::aead::consts::U12>::new_from_slice(key)
            .unwrap()
            .encrypt_in_place_detached(nonce.into(), aad, &mut ct),
        _ => aes_gcm::Aes256Gcm::new_from_slice(key)
            .unwrap()
            .encrypt_in_place_detached(nonce.into(), aad, &mut ct),
    }
    .unwrap();
    (ct, tag.into())
}

/// `got == want`, a failure naming the first byte that differs (not
/// printing kilobytes).
fn same(got: &[u8], want: &[u8], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
        panic!("{what}: byte {i} of {} differs", want.len());
    }
}

/// Seal and open `pt` every way with `gcm`, each against the reference;
/// a flipped tag bit and a flipped ciphertext bit are refused and the
/// output wiped.
fn check(gcm: &Gcm, key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8], what: &str) {
    let (want, wtag) = reference(key, nonce, aad, pt);
    let mut buf = pt.to_vec();
    let tag = gcm.seal_in_place_detached(nonce, aad, &mut buf).unwrap();
    same(&buf, &want, &format!("{what}: seal in place"));
    assert_eq!(tag, wtag, "{what}: seal in place, tag");
    let mut out = vec![0x5a; pt.len()];
    let tag = gcm.seal_into(nonce, aad, pt, &mut out).unwrap();
    same(&out, &want, &format!("{what}: seal into"));
    assert_eq!(tag, wtag, "{what}: seal into, tag");
    let mut out = vec![0xa5; pt.len()];
    gcm.open_into(nonce, aad, &want, &wtag, &mut out).unwrap();
    same(&out, pt, &format!("{what}: open into"));
    let mut buf = want.clone();
    gcm.open_in_place_detached(nonce, aad, &mut buf, &wtag)
        .unwrap();
    same(&buf, pt, &format!("{what}: open in place"));
    let mut bad = wtag;
    bad[pt.len() % 16] ^= 1 << (pt.len() % 8);
    let mut out = vec![0xa5; pt.len()];
    assert!(
        gcm.open_into(nonce, aad, &want, &bad, &mut out).is_err(),
        "{what}: bad tag"
    );
    assert!(out.iter().all(|&b| b == 0), "{what}: wiped after a bad tag");
    if !pt.is_empty() {
        // A bit of the last (perhaps partial) block, and of the first.
        for i in [pt.len() - 1, 0] {
            let mut c = want.clone();
            c[i] ^= 0x40;
            assert!(
                gcm.open_in_place_detached(nonce, aad, &mut c, &wtag)
                    .is_err(),
                "{what}: flipped ciphertext byte {i}"
            );
            assert!(c.iter().all(|&b| b == 0), "{what}: wiped after a flip");
        }
    }
}

/// The AVX-512 kernels this CPU runs (none: the test is skipped).
fn kernels(key: &[u8]) -> Vec<(FusedChoice, Gcm)> {
    let mut v = Vec::new();
    for fused in [FusedChoice::Vaes, FusedChoice::Vaes32] {
        let aes = aesflow_cipher::Aes::new(key).unwrap();
        if let Ok(g) = Gcm::with_options(aes, GcmOptions { ghash: None, fused }) {
            v.push((fused, g));
        }
    }
    v
}

#[test]
fn middle_sizes_match_rustcrypto_at_the_boundaries() {
    let mut rng = Rng(0x0bad_cafe_f00d_1234);
    let mut lens = vec![
        0usize, 1, 15, 16, 17, 63, 64, 65, 255, 256, 257, 511, 512, 513,
    ];
    // Around the chunks of 8 registers, the segments of 64 blocks and the
    // limit of the path (4 KiB), and past it (the fused groups).
    for b in [768usize, 1024, 1536, 2048, 2560, 3072, 4096, 5120] {
        lens.extend([
            b - 17,
            b - 16,
            b - 1,
            b,
            b + 1,
            b + 15,
            b + 16,
            b + 63,
            b + 64,
        ]);
    }
    let alens = [0usize, 1, 13, 16, 17, 63, 64, 65, 16 * 5 + 3, 300];
    for klen in [16usize, 24, 32] {
        let key = rng.bytes(klen);
        let gcms = kernels(&key);
        if gcms.is_empty() {
            aesflow_vectors::skip!("VAES + VPCLMULQDQ on AVX-512: not on this CPU");
            return;
        }
        for (i, &len) in lens.iter().enumerate() {
            for (fused, gcm) in &gcms {
                // Every AAD length for some texts, one in turn for the rest.
                let which: Vec<usize> = if i % 7 == 0 {
                    alens.to_vec()
                } else {
                    vec![alens[i % alens.len()]]
                };
                for alen in which {
                    let (nonce, aad, pt) = (rng.bytes(12), rng.bytes(alen), rng.bytes(len));
                    let what = format!("{fused:?} AES-{} len {len} aad {alen}", klen * 8);
                    check(gcm, &key, &nonce, &aad, &pt, &what);
                }
            }
        }
    }
}

#[test]
fn middle_sizes_match_rustcrypto_at_random() {
    let mut rng = Rng(0x1357_9bdf_2468_ace0);
    for klen in [16usize, 24, 32] {
        let key = rng.bytes(klen);
        let gcms = kernels(&key);
        if gcms.is_empty() {
            aesflow_vectors::skip!("VAES + VPCLMULQDQ on AVX-512: not on this CPU");
            return;
        }
        for _ in 0..60 {
            let len = rng.below(4400);
            let alen = if rng.below(4) == 0 {
                rng.below(200)
            } else {
                rng.below(65)
            };
            // A nonce of another length now and then (J0 hashed: the
            // generic path, the same results).
            let nlen = if rng.below(8) == 0 {
                1 + rng.below(40)
            } else {
                12
            };
            let (nonce, aad, pt) = (rng.bytes(nlen), rng.bytes(alen), rng.bytes(len));
            for (fused, gcm) in &gcms {
                let what = format!(
                    "{fused:?} AES-{} len {len} aad {alen} nonce {nlen}",
                    klen * 8
                );
                if nlen == 12 {
                    check(gcm, &key, &nonce, &aad, &pt, &what);
                } else {
                    // RustCrypto's `aes-gcm` takes 12-byte nonces only here:
                    // the generic path (no fused kernel) is the reference.
                    let aes = aesflow_cipher::Aes::new(&key).unwrap();
                    let plain = Gcm::with_options(
                        aes,
                        GcmOptions {
                            ghash: None,
                            fused: FusedChoice::Off,
                        },
                    )
                    .unwrap();
                    let mut want = pt.clone();
                    let wtag = plain
                        .seal_in_place_detached(&nonce, &aad, &mut want)
                        .unwrap();
                    let mut got = pt.clone();
                    let tag = gcm.seal_in_place_detached(&nonce, &aad, &mut got).unwrap();
                    same(&got, &want, &what);
                    assert_eq!(tag, wtag, "{what}: tag");
                }
            }
        }
    }
}
