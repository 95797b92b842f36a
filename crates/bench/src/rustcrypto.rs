//! The RustCrypto peers, both generations: `aes` 0.8 / `aes-gcm` 0.10 /
//! `cbc` 0.1 / `ctr` 0.9 ([`Peer::RustCrypto`]) and the current `aes` 0.9 /
//! `aes-gcm` 0.11 / `cbc` 0.2 / `ctr` 0.10 ([`Peer::RustCrypto09`]), each as
//! a [`Contender`] on `n` bytes of one stream.

use crate::measure::{Contender, fill, test_key};
use crate::row::Peer;
use aesflow_cipher::KeySize;
use std::hint::black_box;

/// What a RustCrypto contender does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// ECB encryption of whole blocks.
    EcbEnc,
    /// ECB decryption of whole blocks.
    EcbDec,
    /// CBC encryption of whole blocks.
    CbcEnc,
    /// CBC decryption of whole blocks.
    CbcDec,
    /// CTR (`Ctr128BE`).
    Ctr,
    /// AES-GCM seal, 12-byte nonce, `aad`.
    GcmSeal,
    /// AES-GCM open of a sealed message (tag checked).
    GcmOpen,
    /// XTS encryption of one data unit (`xts-mode` 0.5; the 0.8
    /// generation only).
    XtsEnc,
    /// XTS decryption of one data unit.
    XtsDec,
}

/// The XTS key of a key size: `Key1 ‖ Key2`, two different AES keys.
pub fn xts_key(size: KeySize) -> Vec<u8> {
    let mut k = test_key(size);
    k.extend(test_key(size).iter().map(|b| b ^ 0x5c));
    k
}

/// The AAD of the AEAD rows (13 bytes, as `openssl speed -aead` uses: a TLS
/// record header).
pub const AEAD_AAD: [u8; 13] = [0x17; 13];

/// A RustCrypto contender for `work` on `n` bytes (`n` a multiple of 16
/// for the block modes), or `None` for a peer other than the two
/// RustCrypto generations.
pub fn contender(peer: Peer, size: KeySize, work: Work, n: usize) -> Option<Contender<'static>> {
    match (peer, work) {
        (Peer::RustCrypto, Work::XtsEnc | Work::XtsDec) => Some(xts(size, work, n)),
        (Peer::RustCrypto09, Work::XtsEnc | Work::XtsDec) => None,
        (Peer::RustCrypto, _) => Some(old(size, work, n)),
        (Peer::RustCrypto09, _) => Some(new(size, work, n)),
        _ => None,
    }
}

/// `xts-mode` 0.5 (on `aes` 0.8) on one data unit of `n` bytes.
fn xts(size: KeySize, work: Work, n: usize) -> Contender<'static> {
    use aes::cipher::KeyInit;
    let key = xts_key(size);
    let half = key.len() / 2;
    let mut data = vec![0u8; n];
    fill(&mut data);
    macro_rules! with {
        ($c:ty) => {{
            let x = xts_mode::Xts128::new(
                <$c>::new_from_slice(&key[..half]).expect("key length"),
                <$c>::new_from_slice(&key[half..]).expect("key length"),
            );
            Box::new(move || {
                let t = xts_mode::get_tweak_default(7);
                if work == Work::XtsEnc {
                    x.encrypt_sector(black_box(&mut data[..]), t)
                } else {
                    x.decrypt_sector(black_box(&mut data[..]), t)
                }
            }) as Contender<'static>
        }};
    }
    match size {
        KeySize::Aes256 => with!(aes::Aes256),
        _ => with!(aes::Aes128),
    }
}

fn old(size: KeySize, work: Work, n: usize) -> Contender<'static> {
    use aes::cipher::{
        BlockDecrypt, BlockDecryptMut, BlockEncrypt, BlockEncryptMut, KeyInit, KeyIvInit,
        StreamCipher,
    };
    use aes_gcm::{AeadInPlace, AesGcm, Nonce, aead::consts::U12};
    let key = test_key(size);
    let mut data = vec![0u8; n];
    fill(&mut data);
    macro_rules! with {
        ($c:ty) => {{
            let mut blocks: Vec<aes::Block> = data
                .chunks_exact(16)
                .map(aes::Block::clone_from_slice)
                .collect();
            match work {
                Work::EcbEnc | Work::EcbDec => {
                    let c = <$c>::new_from_slice(&key).expect("key length");
                    Box::new(move || {
                        let b = black_box(&mut blocks[..]);
                        if work == Work::EcbEnc {
                            c.encrypt_blocks(b)
                        } else {
                            c.decrypt_blocks(b)
                        }
                    }) as Contender<'static>
                }
                Work::CbcEnc => {
                    let mut c = cbc::Encryptor::<$c>::new_from_slices(&key, &[3u8; 16])
                        .expect("key and IV lengths");
                    Box::new(move || c.encrypt_blocks_mut(black_box(&mut blocks[..])))
                }
                Work::CbcDec => {
                    let mut c = cbc::Decryptor::<$c>::new_from_slices(&key, &[3u8; 16])
                        .expect("key and IV lengths");
                    Box::new(move || c.decrypt_blocks_mut(black_box(&mut blocks[..])))
                }
                Work::Ctr => {
                    let mut c = ctr::Ctr128BE::<$c>::new_from_slices(&key, &[0u8; 16])
                        .expect("key and IV lengths");
                    Box::new(move || c.apply_keystream(black_box(&mut data[..])))
                }
                Work::XtsEnc | Work::XtsDec => unreachable!("xts() serves XTS"),
                Work::GcmSeal | Work::GcmOpen => {
                    let c = AesGcm::<$c, U12>::new_from_slice(&key).expect("key length");
                    let nonce = Nonce::from_slice(&[1u8; 12]);
                    let mut ct = data.clone();
                    let tag = c
                        .encrypt_in_place_detached(nonce, &AEAD_AAD, &mut ct)
                        .expect("within limits");
                    Box::new(move || {
                        if work == Work::GcmSeal {
                            let t = c.encrypt_in_place_detached(
                                nonce,
                                &AEAD_AAD,
                                black_box(&mut data[..]),
                            );
                            black_box(t.expect("within limits"));
                        } else {
                            data.copy_from_slice(&ct);
                            c.decrypt_in_place_detached(
                                nonce,
                                &AEAD_AAD,
                                black_box(&mut data[..]),
                                &tag,
                            )
                            .expect("authentic");
                        }
                    })
                }
            }
        }};
    }
    match size {
        KeySize::Aes128 => with!(aes::Aes128),
        KeySize::Aes192 => with!(aes::Aes192),
        KeySize::Aes256 => with!(aes::Aes256),
    }
}

fn new(size: KeySize, work: Work, n: usize) -> Contender<'static> {
    use aes_gcm11::{AeadInOut, AesGcm, Nonce, aead::consts::U12};
    use aes09::cipher::{
        BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, KeyInit,
        KeyIvInit, StreamCipher,
    };
    let key = test_key(size);
    let mut data = vec![0u8; n];
    fill(&mut data);
    macro_rules! with {
        ($c:ty) => {{
            let mut blocks: Vec<aes09::Block> = data
                .chunks_exact(16)
                .map(|c| aes09::Block::try_from(c).expect("16 bytes"))
                .collect();
            match work {
                Work::EcbEnc | Work::EcbDec => {
                    let c = <$c>::new_from_slice(&key).expect("key length");
                    Box::new(move || {
                        let b = black_box(&mut blocks[..]);
                        if work == Work::EcbEnc {
                            c.encrypt_blocks(b)
                        } else {
                            c.decrypt_blocks(b)
                        }
                    }) as Contender<'static>
                }
                Work::CbcEnc => {
                    let mut c = cbc02::Encryptor::<$c>::new_from_slices(&key, &[3u8; 16])
                        .expect("key and IV lengths");
                    Box::new(move || c.encrypt_blocks(black_box(&mut blocks[..])))
                }
                Work::CbcDec => {
                    let mut c = cbc02::Decryptor::<$c>::new_from_slices(&key, &[3u8; 16])
                        .expect("key and IV lengths");
                    Box::new(move || c.decrypt_blocks(black_box(&mut blocks[..])))
                }
                Work::Ctr => {
                    let mut c = ctr010::Ctr128BE::<$c>::new_from_slices(&key, &[0u8; 16])
                        .expect("key and IV lengths");
                    Box::new(move || c.apply_keystream(black_box(&mut data[..])))
                }
                Work::XtsEnc | Work::XtsDec => unreachable!("xts-mode 0.5 has no 0.9 twin"),
                Work::GcmSeal | Work::GcmOpen => {
                    let c = AesGcm::<$c, U12>::new_from_slice(&key).expect("key length");
                    let nonce: Nonce<U12> = [1u8; 12].into();
                    let mut ct = data.clone();
                    let tag = c
                        .encrypt_inout_detached(&nonce, &AEAD_AAD, (&mut ct[..]).into())
                        .expect("within limits");
                    Box::new(move || {
                        if work == Work::GcmSeal {
                            let t = c.encrypt_inout_detached(
                                &nonce,
                                &AEAD_AAD,
                                black_box(&mut data[..]).into(),
                            );
                            black_box(t.expect("within limits"));
                        } else {
                            data.copy_from_slice(&ct);
                            c.decrypt_inout_detached(
                                &nonce,
                                &AEAD_AAD,
                                black_box(&mut data[..]).into(),
                                &tag,
                            )
                            .expect("authentic");
                        }
                    })
                }
            }
        }};
    }
    match size {
        KeySize::Aes128 => with!(aes09::Aes128),
        KeySize::Aes192 => with!(aes09::Aes192),
        KeySize::Aes256 => with!(aes09::Aes256),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both generations run every work item (a smoke test: the peers are
    /// checked against aesflow's outputs by the modes' differential tests).
    #[test]
    fn every_contender_runs() {
        for peer in [Peer::RustCrypto, Peer::RustCrypto09] {
            for work in [
                Work::EcbEnc,
                Work::EcbDec,
                Work::CbcEnc,
                Work::CbcDec,
                Work::Ctr,
                Work::GcmSeal,
                Work::GcmOpen,
                Work::XtsEnc,
                Work::XtsDec,
            ] {
                for size in KeySize::ALL {
                    if matches!(work, Work::XtsEnc | Work::XtsDec)
                        && (size == KeySize::Aes192 || peer == Peer::RustCrypto09)
                    {
                        continue;
                    }
                    let mut f = contender(peer, size, work, 64).unwrap();
                    f();
                    f();
                }
            }
        }
        assert!(contender(Peer::Openssl, KeySize::Aes128, Work::Ctr, 16).is_none());
    }
}
