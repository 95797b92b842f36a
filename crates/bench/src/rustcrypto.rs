//! The RustCrypto peers, both generations: `aes` 0.8 / `aes-gcm` 0.10 /
//! `cbc` 0.1 / `ctr` 0.9 ([`Peer::RustCrypto`]) and the current `aes` 0.9 /
//! `aes-gcm` 0.11 / `cbc` 0.2 / `ctr` 0.10 ([`Peer::RustCrypto09`]), each as
//! a [`Contender`] on `n` bytes of one stream.

use crate::measure::{Contender, fill, test_key};
use crate::modes::ModeOp;
use crate::row::Peer;
use aesflow_cipher::KeySize;
use std::hint::black_box;

/// What a RustCrypto contender does: the kernels section's ECB (its CTR
/// is [`ModeOp::Ctr`]) or an operation of the modes section, with their
/// parameters (`Ctr128BE`; AES-GCM with a 12-byte nonce and [`AEAD_AAD`],
/// open checking the tag; XTS on one data unit, `xts-mode` 0.5, the 0.8
/// generation only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// ECB encryption of whole blocks.
    EcbEnc,
    /// ECB decryption of whole blocks.
    EcbDec,
    /// A modes-section operation.
    Mode(ModeOp),
}

const XTS_ENC: ModeOp = ModeOp::XtsEnc;
const XTS_DEC: ModeOp = ModeOp::XtsDec;

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
        (Peer::RustCrypto, Work::Mode(XTS_ENC | XTS_DEC)) => Some(xts(size, work, n, n)),
        (Peer::RustCrypto09, Work::Mode(XTS_ENC | XTS_DEC)) => None,
        (Peer::RustCrypto, _) => Some(old(size, work, n)),
        (Peer::RustCrypto09, _) => Some(new(size, work, n)),
        _ => None,
    }
}

/// `xts-mode` 0.5 (on `aes` 0.8) on `n` bytes: data units of `unit` bytes
/// (`encrypt_area`, sequence numbers from 7), or one unit if `unit >= n`.
pub fn xts(size: KeySize, work: Work, n: usize, unit: usize) -> Contender<'static> {
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
                let (enc, d) = (work == Work::Mode(XTS_ENC), black_box(&mut data[..]));
                if unit >= n {
                    let t = xts_mode::get_tweak_default(7);
                    if enc {
                        x.encrypt_sector(d, t)
                    } else {
                        x.decrypt_sector(d, t)
                    }
                } else if enc {
                    x.encrypt_area(d, unit, 7, xts_mode::get_tweak_default)
                } else {
                    x.decrypt_area(d, unit, 7, xts_mode::get_tweak_default)
                }
            }) as Contender<'static>
        }};
    }
    match size {
        KeySize::Aes256 => with!(aes::Aes256),
        _ => with!(aes::Aes128),
    }
}

/// One RustCrypto generation's block-mode and AEAD contender: the two
/// generations differ only in crate names, in how a block is made from a
/// slice and in the names of the CBC and AEAD calls.
macro_rules! generation {
    (
        $(#[$doc:meta])*
        fn $name:ident;
        use { $($uses:tt)* }
        aes: $aes:ident, cbc: $cbc:ident, ctr: $ctr:ident,
        block: $block:expr,
        cbc_calls: ($cbc_enc:ident, $cbc_dec:ident),
        aead_calls: ($seal:ident, $open:ident),
    ) => {
        $(#[$doc])*
        fn $name(size: KeySize, work: Work, n: usize) -> Contender<'static> {
            use { $($uses)* };
            let key = test_key(size);
            let mut data = vec![0u8; n];
            fill(&mut data);
            macro_rules! with {
                ($c:ty) => {{
                    let mut blocks: Vec<$aes::Block> =
                        data.chunks_exact(16).map($block).collect();
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
                        Work::Mode(ModeOp::CbcEnc) => {
                            let mut c = $cbc::Encryptor::<$c>::new_from_slices(&key, &[3u8; 16])
                                .expect("key and IV lengths");
                            Box::new(move || c.$cbc_enc(black_box(&mut blocks[..])))
                        }
                        Work::Mode(ModeOp::CbcDec) => {
                            let mut c = $cbc::Decryptor::<$c>::new_from_slices(&key, &[3u8; 16])
                                .expect("key and IV lengths");
                            Box::new(move || c.$cbc_dec(black_box(&mut blocks[..])))
                        }
                        Work::Mode(ModeOp::Ctr) => {
                            let mut c = $ctr::Ctr128BE::<$c>::new_from_slices(&key, &[0u8; 16])
                                .expect("key and IV lengths");
                            Box::new(move || c.apply_keystream(black_box(&mut data[..])))
                        }
                        Work::Mode(XTS_ENC | XTS_DEC) => unreachable!("xts() serves XTS"),
                        Work::Mode(ModeOp::GcmSeal | ModeOp::GcmOpen) => {
                            let c = AesGcm::<$c, U12>::new_from_slice(&key).expect("key length");
                            let nonce: Nonce<U12> = [1u8; 12].into();
                            let mut ct = data.clone();
                            let tag = c
                                .$seal(&nonce, &AEAD_AAD, (&mut ct[..]).into())
                                .expect("within limits");
                            Box::new(move || {
                                if work == Work::Mode(ModeOp::GcmSeal) {
                                    let t = c.$seal(
                                        &nonce,
                                        &AEAD_AAD,
                                        black_box(&mut data[..]).into(),
                                    );
                                    black_box(t.expect("within limits"));
                                } else {
                                    data.copy_from_slice(&ct);
                                    c.$open(
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
                KeySize::Aes128 => with!($aes::Aes128),
                KeySize::Aes192 => with!($aes::Aes192),
                KeySize::Aes256 => with!($aes::Aes256),
            }
        }
    };
}

/// AES-GCM seal in place with RustCrypto (`aes-gcm` 0.10): the tag. The
/// gateway rows' reference, independent of aesflow.
///
/// # Panics
///
/// If `key` is not 16, 24 or 32 bytes.
pub fn gcm_seal(key: &[u8], nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    use aes::cipher::KeyInit;
    use aes_gcm::{AeadInPlace, AesGcm, Nonce, aead::consts::U12};
    let nonce: &Nonce<U12> = nonce.into();
    macro_rules! seal {
        ($c:ty) => {
            AesGcm::<$c, U12>::new_from_slice(key)
                .expect("an AES key")
                .encrypt_in_place_detached(nonce, aad, buf)
                .expect("within limits")
                .into()
        };
    }
    match key.len() {
        16 => seal!(aes::Aes128),
        24 => seal!(aes::Aes192),
        _ => seal!(aes::Aes256),
    }
}

generation! {
    /// `aes` 0.8 / `cbc` 0.1 / `ctr` 0.9 / `aes-gcm` 0.10.
    fn old;
    use {
        aes::cipher::{
            BlockDecrypt, BlockDecryptMut, BlockEncrypt, BlockEncryptMut, KeyInit, KeyIvInit,
            StreamCipher,
        },
        aes_gcm::{AeadInPlace, AesGcm, Nonce, aead::consts::U12},
    }
    aes: aes, cbc: cbc, ctr: ctr,
    block: aes::Block::clone_from_slice,
    cbc_calls: (encrypt_blocks_mut, decrypt_blocks_mut),
    aead_calls: (encrypt_in_place_detached, decrypt_in_place_detached),
}

generation! {
    /// `aes` 0.9 / `cbc` 0.2 / `ctr` 0.10 / `aes-gcm` 0.11.
    fn new;
    use {
        aes_gcm11::{AeadInOut, AesGcm, Nonce, aead::consts::U12},
        aes09::cipher::{
            BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, KeyInit,
            KeyIvInit, StreamCipher,
        },
    }
    aes: aes09, cbc: cbc02, ctr: ctr010,
    block: |c| aes09::Block::try_from(c).expect("16 bytes"),
    cbc_calls: (encrypt_blocks, decrypt_blocks),
    aead_calls: (encrypt_inout_detached, decrypt_inout_detached),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both generations run every work item (a smoke test: the peers are
    /// checked against aesflow's outputs by the modes' differential tests).
    #[test]
    fn every_contender_runs() {
        for peer in [Peer::RustCrypto, Peer::RustCrypto09] {
            let ecb = [Work::EcbEnc, Work::EcbDec];
            for work in ecb.into_iter().chain(ModeOp::ALL.map(Work::Mode)) {
                for size in KeySize::ALL {
                    if matches!(work, Work::Mode(XTS_ENC | XTS_DEC))
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
        assert!(contender(Peer::Openssl, KeySize::Aes128, Work::Mode(ModeOp::Ctr), 16).is_none());
    }
}
