mod common;
use aes_gcm::aead::{AeadInPlace, KeyInit};
use aesflow_modes::gcm::{FusedChoice, Gcm, GcmOptions, GhashImpl};
use common::Rng;

#[test]
fn gcm_matches_rustcrypto_all_impls() {
    let mut rng = Rng(0x1234_5678);
    for &klen in &[16usize, 24, 32] {
        for len in [
            0usize, 1, 15, 16, 17, 127, 128, 129, 255, 256, 257, 1000, 4096, 5000, 70000,
        ] {
            let key = rng.bytes(klen);
            let nonce = rng.bytes(12);
            let alen = rng.below(70);
            let aad = rng.bytes(alen);
            let pt = rng.bytes(len);
            let mut want = pt.clone();
            let tag = match klen {
                16 => aes_gcm::Aes128Gcm::new_from_slice(&key)
                    .unwrap()
                    .encrypt_in_place_detached((&nonce[..]).into(), &aad, &mut want)
                    .unwrap(),
                32 => aes_gcm::Aes256Gcm::new_from_slice(&key)
                    .unwrap()
                    .encrypt_in_place_detached((&nonce[..]).into(), &aad, &mut want)
                    .unwrap(),
                _ => {
                    aes_gcm::AesGcm::<aes::Aes192, aes_gcm::aead::consts::U12>::new_from_slice(&key)
                        .unwrap()
                        .encrypt_in_place_detached((&nonce[..]).into(), &aad, &mut want)
                        .unwrap()
                }
            };
            want.extend_from_slice(&tag);
            for ghash in GhashImpl::ALL.into_iter().filter(|g| g.is_available()) {
                for fused in [
                    FusedChoice::Off,
                    FusedChoice::Aesni,
                    FusedChoice::Vaes,
                    FusedChoice::Auto,
                ] {
                    let aes = aesflow_cipher::Aes::new(&key).unwrap();
                    let Ok(gcm) = Gcm::with_options(
                        aes,
                        GcmOptions {
                            ghash: Some(ghash),
                            fused,
                        },
                    ) else {
                        continue;
                    };
                    let got = gcm.seal(&nonce, &aad, &pt).unwrap();
                    assert_eq!(got, want, "{ghash:?} {fused:?} klen {klen} len {len}");
                    assert_eq!(gcm.open(&nonce, &aad, &got).unwrap(), pt);
                }
            }
        }
    }
}
