//! Single-stream references computed with RustCrypto.

#![allow(dead_code)]

use aes::{Aes128, Aes192, Aes256};
use aesflow_multistream::Mode;
use cbc::cipher::block_padding::NoPadding;
use cbc::cipher::{AsyncStreamCipher, BlockEncryptMut, KeyIvInit, StreamCipher};
use rand::Rng;

fn cbc_enc<C>(key: &[u8], iv: &[u8; 16], buf: &mut [u8])
where
    C: cbc::cipher::BlockEncryptMut
        + cbc::cipher::BlockCipher
        + cbc::cipher::KeyInit
        + cbc::cipher::BlockSizeUser<BlockSize = cbc::cipher::consts::U16>,
{
    let len = buf.len();
    cbc::Encryptor::<C>::new_from_slices(key, iv)
        .unwrap()
        .encrypt_padded_mut::<NoPadding>(buf, len)
        .unwrap();
}

/// Encrypt/decrypt `data` as one stream alone.
pub fn reference(mode: Mode, key: &[u8], iv: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let mut buf = data.to_vec();
    macro_rules! with_cipher {
        ($c:ty) => {
            match mode {
                Mode::CbcEncrypt => cbc_enc::<$c>(key, iv, &mut buf),
                Mode::CfbEncrypt => cfb_mode::Encryptor::<$c>::new_from_slices(key, iv)
                    .unwrap()
                    .encrypt(&mut buf),
                Mode::CfbDecrypt => cfb_mode::Decryptor::<$c>::new_from_slices(key, iv)
                    .unwrap()
                    .decrypt(&mut buf),
                Mode::Ofb => ofb::Ofb::<$c>::new_from_slices(key, iv)
                    .unwrap()
                    .apply_keystream(&mut buf),
            }
        };
    }
    match key.len() {
        16 => with_cipher!(Aes128),
        24 => with_cipher!(Aes192),
        32 => with_cipher!(Aes256),
        n => panic!("bad key length {n}"),
    }
    buf
}

/// The continuation value a whole-block stream should return.
pub fn expected_iv(mode: Mode, key: &[u8], iv: &[u8; 16], data: &[u8], out: &[u8]) -> [u8; 16] {
    let n = data.len();
    if n == 0 {
        return *iv;
    }
    assert_eq!(n % 16, 0);
    match mode {
        Mode::CbcEncrypt | Mode::CfbEncrypt => out[n - 16..].try_into().unwrap(),
        Mode::CfbDecrypt => data[n - 16..].try_into().unwrap(),
        // O_n = P_n ^ C_n.
        Mode::Ofb => {
            let _ = key;
            let mut o = [0u8; 16];
            for i in 0..16 {
                o[i] = data[n - 16 + i] ^ out[n - 16 + i];
            }
            o
        }
    }
}

pub fn random_key(rng: &mut impl Rng) -> Vec<u8> {
    let len = [16, 24, 32][rng.random_range(0..3)];
    (0..len).map(|_| rng.random()).collect()
}

pub fn random_bytes(rng: &mut impl Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.random()).collect()
}

/// A random length: whole blocks (0..=256) for CBC, any 0..=4096 otherwise.
pub fn random_len(rng: &mut impl Rng, mode: Mode) -> usize {
    if mode.needs_whole_blocks() || rng.random_bool(0.5) {
        16 * rng.random_range(0..=256)
    } else {
        rng.random_range(0..=4096)
    }
}

pub fn random_mode(rng: &mut impl Rng) -> Mode {
    Mode::ALL[rng.random_range(0..4)]
}
