//! The `reference` kernel: FIPS-197's cipher (§5.1) and inverse cipher (§5.3)
//! written with the step functions of [`crate::steps`], one block at a time.
//!
//! Meant for clarity and as the baseline the other kernels are tested
//! against. Not constant-time (SubBytes indexes a table with state bytes).

use super::Steps;
use crate::kernel::{Block, impl_kernel};
use crate::key_schedule::KeySchedule;
use crate::steps;

/// The reference kernel.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reference;

impl Steps for Block {
    type Key = [u8; 16];
    fn sub_shift<const INV: bool>(&mut self) {
        if INV {
            steps::inv_shift_rows(self);
            steps::inv_sub_bytes(self);
        } else {
            steps::sub_bytes(self);
            steps::shift_rows(self);
        }
    }
    fn mix_columns<const INV: bool>(&mut self) {
        if INV {
            steps::inv_mix_columns(self);
        } else {
            steps::mix_columns(self);
        }
    }
    fn add_round_key(&mut self, key: &[u8; 16]) {
        steps::add_round_key(self, key);
    }
}

/// Encrypt one block with round keys taken in order from `keys`
/// (FIPS-197 Figure 5).
pub fn cipher(block: &mut Block, keys: impl Iterator<Item = [u8; 16]>, nr: usize) {
    super::crypt::<_, false>(block, keys, nr);
}

/// Decrypt one block with round keys taken in reverse order (round Nr first)
/// from `keys` (FIPS-197 Figure 12, InvCipher).
pub fn inv_cipher(block: &mut Block, keys: impl Iterator<Item = [u8; 16]>, nr: usize) {
    super::crypt::<_, true>(block, keys, nr);
}

/// ECB, one block at a time; `dec` selects the inverse cipher.
fn ecb(keys: &KeySchedule, blocks: &mut [Block], dec: bool) {
    let nr = keys.size().nr();
    for b in blocks {
        if dec {
            inv_cipher(b, keys.dec_keys(), nr);
        } else {
            cipher(b, keys.enc_keys(), nr);
        }
    }
}

impl_kernel! {
    impl for Reference {
        name: "reference",
        description: "FIPS-197 steps literally, one block at a time (not constant-time)",
        available: true,
        constant_time: false,
        rank: 0,
        ecb: ecb,
    }
}
