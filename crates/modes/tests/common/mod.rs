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
