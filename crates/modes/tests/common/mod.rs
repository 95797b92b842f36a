//! Helpers shared by the integration tests.
#![allow(dead_code)]

use aesflow_cipher::{Aes, Kernel, KeyExpansion, available_kernels};

/// Every (kernel, key-expansion style) this CPU runs.
pub fn configs() -> Vec<(&'static dyn Kernel, KeyExpansion)> {
    let mut v = Vec::new();
    for k in available_kernels() {
        for s in KeyExpansion::ALL {
            v.push((k, s));
        }
    }
    v
}

pub fn label(k: &dyn Kernel, s: KeyExpansion) -> String {
    format!("{}/{}", k.name(), s.name())
}

pub fn aes(key: &[u8], k: &'static dyn Kernel, s: KeyExpansion) -> Aes {
    Aes::with_kernel(key, k, s).unwrap()
}

pub fn hex(s: &str) -> Vec<u8> {
    aesflow_vectors::decode_hex(s).unwrap()
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

/// GCM with a 96-bit nonce through the piece API: `input` cut into pieces of
/// `blocks[j]` blocks (then the rest, possibly empty), each sealed with
/// [`Gcm::seal_piece`] or opened with [`Gcm::open_piece_unverified`] at its
/// own counter, and the tag assembled from the pieces' GHASH values as a
/// caller that splits a message does (Horner's rule over the pieces).
/// Returns the output and the full tag (unchecked).
pub fn gcm_by_pieces<A: core::borrow::Borrow<Aes>>(
    gcm: &aesflow_modes::Gcm<A>,
    nonce: &[u8; 12],
    aad: &[u8],
    input: &[u8],
    blocks: &[usize],
    encrypt: bool,
) -> (Vec<u8>, [u8; 16]) {
    use aesflow_modes::gcm::{GhashImpl, GhashKey};
    let mut h = [0u8; 16];
    gcm.aes().encrypt_block(&mut h);
    let key = GhashKey::new(&h, GhashImpl::Soft);
    let counter = |blocks_before: usize| {
        let mut c = [0u8; 16];
        c[..12].copy_from_slice(nonce);
        c[12..].copy_from_slice(&(blocks_before as u32).wrapping_add(2).to_be_bytes());
        c
    };
    let mut s = 0u128;
    key.update_padded(&mut s, aad);
    let mut out = input.to_vec();
    let (mut at, mut done) = (0, false);
    let mut cuts = blocks.iter();
    while !done {
        let len = match cuts.next() {
            Some(b) => (16 * b).min(out.len() - at),
            None => {
                done = true;
                out.len() - at
            }
        };
        let piece = &mut out[at..at + len];
        let c = counter(at / 16);
        let y = if encrypt {
            gcm.seal_piece(&c, piece)
        } else {
            gcm.open_piece_unverified(&c, piece)
        }
        .unwrap();
        // s · H^(blocks of the piece): GHASH of that many zero blocks.
        key.update_padded(&mut s, &vec![0u8; len.div_ceil(16) * 16]);
        s ^= y;
        at += len;
    }
    let mut lens = [0u8; 16];
    lens[..8].copy_from_slice(&(aad.len() as u64 * 8).to_be_bytes());
    lens[8..].copy_from_slice(&(input.len() as u64 * 8).to_be_bytes());
    key.update_padded(&mut s, &lens);
    let mut j0 = counter(0);
    j0[15] -= 1;
    gcm.aes().encrypt_block(&mut j0);
    (out, (u128::from_be_bytes(j0) ^ s).to_be_bytes())
}
