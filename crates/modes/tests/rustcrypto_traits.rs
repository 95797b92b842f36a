//! The RustCrypto trait adapters interoperate with the RustCrypto crates.
#![cfg(feature = "rustcrypto")]

mod common;
use aes::cipher::{
    BlockDecryptMut, BlockEncryptMut, KeyIvInit, StreamCipher, block_padding::Pkcs7,
};
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aesflow_modes::rustcrypto;
use common::Rng;

#[test]
fn aead_adapter_matches_aes_gcm() {
    let mut rng = Rng(77);
    for len in [0usize, 1, 16, 100, 1000, 5000] {
        let key = rng.bytes(32);
        let nonce = rng.bytes(12);
        let pt = rng.bytes(len);
        let ours = rustcrypto::Aes256Gcm::new_from_slice(&key).unwrap();
        let theirs = aes_gcm::Aes256Gcm::new_from_slice(&key).unwrap();
        let p = Payload {
            msg: &pt,
            aad: b"aad",
        };
        let c1 = ours.encrypt(nonce.as_slice().into(), p).unwrap();
        let c2 = theirs
            .encrypt(
                nonce.as_slice().into(),
                Payload {
                    msg: &pt,
                    aad: b"aad",
                },
            )
            .unwrap();
        assert_eq!(c1, c2);
        assert_eq!(
            ours.decrypt(
                nonce.as_slice().into(),
                Payload {
                    msg: &c2,
                    aad: b"aad"
                }
            )
            .unwrap(),
            pt
        );
        assert!(
            ours.decrypt(
                nonce.as_slice().into(),
                Payload {
                    msg: &c2,
                    aad: b"AAD"
                }
            )
            .is_err()
        );
    }
    let k16 = [1u8; 16];
    let a = rustcrypto::Aes128Gcm::new_from_slice(&k16).unwrap();
    let b = aes_gcm::Aes128Gcm::new_from_slice(&k16).unwrap();
    assert_eq!(
        a.encrypt((&[0u8; 12]).into(), &b"x"[..]).unwrap(),
        b.encrypt((&[0u8; 12]).into(), &b"x"[..]).unwrap()
    );
    assert!(rustcrypto::Aes192Gcm::new_from_slice(&[0; 16]).is_err());
}

#[test]
fn block_cipher_adapter_drives_rustcrypto_cbc() {
    let mut rng = Rng(78);
    let key = rng.bytes(16);
    let iv = rng.bytes(16);
    let pt = rng.bytes(1000);
    let want = cbc::Encryptor::<aes::Aes128>::new_from_slices(&key, &iv)
        .unwrap()
        .encrypt_padded_vec_mut::<Pkcs7>(&pt);
    let got = cbc::Encryptor::<rustcrypto::Aes128>::new_from_slices(&key, &iv)
        .unwrap()
        .encrypt_padded_vec_mut::<Pkcs7>(&pt);
    assert_eq!(got, want);
    let back = cbc::Decryptor::<rustcrypto::Aes128>::new_from_slices(&key, &iv)
        .unwrap()
        .decrypt_padded_vec_mut::<Pkcs7>(&got)
        .unwrap();
    assert_eq!(back, pt);
    // ECB through the trait directly, 8-block parallel path included.
    use aes::cipher::{BlockDecrypt, BlockEncrypt, KeyInit as _};
    let key = rng.bytes(32);
    let ours = rustcrypto::Aes256::new_from_slice(&key).unwrap();
    let theirs = aes::Aes256::new_from_slice(&key).unwrap();
    let mut b1: Vec<aes::Block> = (0..19)
        .map(|_| *aes::Block::from_slice(&rng.bytes(16)))
        .collect();
    let mut b2 = b1.clone();
    ours.encrypt_blocks(&mut b1);
    theirs.encrypt_blocks(&mut b2);
    assert_eq!(b1, b2);
    ours.decrypt_blocks(&mut b1);
    theirs.decrypt_blocks(&mut b2);
    assert_eq!(b1, b2);
}

#[test]
fn stream_cipher_adapters_match_ctr_and_ofb() {
    let mut rng = Rng(79);
    let key = rng.bytes(24);
    let iv = rng.bytes(16);
    let aes = aesflow_cipher::Aes::new(&key).unwrap();
    let pt = rng.bytes(3000);
    let mut a = pt.clone();
    let mut c = aesflow_modes::Ctr::new(&aes, &iv).unwrap();
    StreamCipher::apply_keystream(&mut c, &mut a[..7]);
    StreamCipher::apply_keystream(&mut c, &mut a[7..]);
    let mut b = pt.clone();
    ctr::Ctr128BE::<aes::Aes192>::new_from_slices(&key, &iv)
        .unwrap()
        .apply_keystream(&mut b);
    assert_eq!(a, b);
    let mut a = pt.clone();
    StreamCipher::apply_keystream(&mut aesflow_modes::Ofb::new(&aes, &iv).unwrap(), &mut a);
    let mut b = pt.clone();
    ofb::Ofb::<aes::Aes192>::new_from_slices(&key, &iv)
        .unwrap()
        .apply_keystream(&mut b);
    assert_eq!(a, b);
}
