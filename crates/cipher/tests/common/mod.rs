//! Shared helpers for the cipher integration tests.

#![allow(dead_code)]

use aes::cipher::{BlockDecrypt, BlockEncrypt, KeyInit, generic_array::GenericArray};
use aesflow_cipher::{Aes, Kernel, KeyExpansion, kernels};
use std::io::Write;

/// One block through RustCrypto's `aes` (the independent oracle) with a
/// 16-, 24- or 32-byte key; `encrypt` selects the direction.
pub fn rustcrypto_block(key: &[u8], block: &mut [u8; 16], encrypt: bool) {
    fn run<C: KeyInit + BlockEncrypt + BlockDecrypt>(key: &[u8], b: &mut [u8; 16], enc: bool) {
        let c = C::new_from_slice(key).expect("a valid AES key");
        let b = GenericArray::from_mut_slice(b);
        if enc {
            c.encrypt_block(b)
        } else {
            c.decrypt_block(b)
        }
    }
    match key.len() {
        16 => run::<aes::Aes128>(key, block, encrypt),
        24 => run::<aes::Aes192>(key, block, encrypt),
        _ => run::<aes::Aes256>(key, block, encrypt),
    }
}

/// Every (kernel, style) combination this CPU can run, and the kernels it
/// cannot (reported as skipped).
pub fn combos() -> (Vec<(&'static dyn Kernel, KeyExpansion)>, Vec<&'static str>) {
    let mut run = Vec::new();
    let mut skipped = Vec::new();
    for &k in kernels() {
        if k.is_available() {
            for style in KeyExpansion::ALL {
                run.push((k, style));
            }
        } else {
            skipped.push(k.name());
        }
    }
    (run, skipped)
}

/// An `Aes` for a (kernel, style) combination.
pub fn aes(key: &[u8], kernel: &'static dyn Kernel, style: KeyExpansion) -> Aes {
    Aes::with_kernel(key, kernel, style).expect("valid key and available kernel")
}

/// Print a line that `cargo test` shows even when it captures test output.
pub fn report(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

/// Blocks from bytes (length must be a multiple of 16).
pub fn to_blocks(bytes: &[u8]) -> Vec<[u8; 16]> {
    assert_eq!(bytes.len() % 16, 0, "not a whole number of blocks");
    bytes
        .chunks_exact(16)
        .map(|c| c.try_into().unwrap())
        .collect()
}
