//! The AESAVS Monte Carlo Test for ECB (AESAVS §6.4.1): 100 outer
//! iterations × 1000 chained block operations, the key updated from the last
//! outputs after each outer iteration, all key sizes, encrypt and decrypt.
//! Every kernel × key-expansion style is cross-checked against the RustCrypto
//! `aes` crate (a dev-dependency used only as an independent oracle).

mod common;

use aesflow_cipher::KeySize;
use common::{aes, combos, report, rustcrypto_block};

/// One block operation with a given key: (key, block) -> output.
trait Oracle {
    fn op(&mut self, key: &[u8], block: &mut [u8; 16], encrypt: bool);
}

/// The MCT chain; returns the 100 outputs (CT[j] of each outer iteration).
fn monte_carlo(size: KeySize, encrypt: bool, oracle: &mut dyn Oracle) -> Vec<[u8; 16]> {
    let mut key: Vec<u8> = (0..size.bytes() as u8)
        .map(|i| i.wrapping_mul(29) ^ 0xa5)
        .collect();
    let mut input = [0x3cu8; 16];
    let mut outs = Vec::with_capacity(100);
    for _ in 0..100 {
        let mut prev = [0u8; 16];
        let mut cur = input;
        for _ in 0..1000 {
            prev = cur;
            oracle.op(&key, &mut cur, encrypt);
        }
        // cur = CT[999], prev = CT[998]
        let mut tail = Vec::new();
        match size {
            KeySize::Aes128 => tail.extend_from_slice(&cur),
            KeySize::Aes192 => {
                tail.extend_from_slice(&prev[8..]);
                tail.extend_from_slice(&cur);
            }
            KeySize::Aes256 => {
                tail.extend_from_slice(&prev);
                tail.extend_from_slice(&cur);
            }
        }
        for (k, t) in key.iter_mut().zip(&tail) {
            *k ^= t;
        }
        input = cur;
        outs.push(cur);
    }
    outs
}

struct RustCrypto;
impl Oracle for RustCrypto {
    fn op(&mut self, key: &[u8], block: &mut [u8; 16], encrypt: bool) {
        rustcrypto_block(key, block, encrypt);
    }
}

/// Our cipher, re-keyed only when the key changes (every 1000 blocks).
struct Ours {
    kernel: &'static dyn aesflow_cipher::Kernel,
    style: aesflow_cipher::KeyExpansion,
    cached: Option<(Vec<u8>, aesflow_cipher::Aes)>,
}
impl Oracle for Ours {
    fn op(&mut self, key: &[u8], block: &mut [u8; 16], encrypt: bool) {
        if self.cached.as_ref().is_none_or(|(k, _)| k != key) {
            self.cached = Some((key.to_vec(), aes(key, self.kernel, self.style)));
        }
        let a = &self.cached.as_ref().unwrap().1;
        if encrypt {
            a.encrypt_block(block)
        } else {
            a.decrypt_block(block)
        }
    }
}

#[test]
fn ecb_monte_carlo_every_kernel_against_rustcrypto() {
    let (run, skipped) = combos();
    let mut oracle_outputs = Vec::new();
    for size in KeySize::ALL {
        for encrypt in [true, false] {
            oracle_outputs.push(monte_carlo(size, encrypt, &mut RustCrypto));
        }
    }
    for (kernel, style) in run {
        let mut ours = Ours {
            kernel,
            style,
            cached: None,
        };
        let mut i = 0;
        for size in KeySize::ALL {
            for encrypt in [true, false] {
                let got = monte_carlo(size, encrypt, &mut ours);
                assert_eq!(
                    got,
                    oracle_outputs[i],
                    "{} {style} {size} {}",
                    kernel.name(),
                    if encrypt { "encrypt" } else { "decrypt" }
                );
                i += 1;
            }
        }
        report(&format!(
            "  ECB Monte Carlo {:<10} {:<8} 3 key sizes × enc/dec × 100×1000 blocks: match RustCrypto",
            kernel.name(),
            style.name()
        ));
    }
    for name in skipped {
        aesflow_vectors::skip!("ECB Monte Carlo {name}: this CPU lacks the instructions");
    }
}
