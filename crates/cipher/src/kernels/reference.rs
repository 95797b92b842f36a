//! The `reference` kernel: FIPS-197's cipher (§5.1) and inverse cipher (§5.3)
//! written with the step functions of [`crate::steps`], one block at a time.
//!
//! Meant for clarity and as the baseline the other kernels are tested
//! against. Not constant-time (SubBytes indexes a table with state bytes).

use crate::kernel::{Block, impl_kernel};
use crate::key_schedule::KeySchedule;
use crate::steps::{
    add_round_key, final_round, inv_mix_columns, inv_shift_rows, inv_sub_bytes, round,
};

/// The reference kernel.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reference;

/// Encrypt one block with round keys taken in order from `keys`
/// (FIPS-197 Figure 5).
pub fn cipher(block: &mut Block, mut keys: impl Iterator<Item = [u8; 16]>, nr: usize) {
    add_round_key(block, &next_key(&mut keys));
    for _ in 1..nr {
        round(block, &next_key(&mut keys));
    }
    final_round(block, &next_key(&mut keys));
}

/// Decrypt one block with round keys taken in reverse order (round Nr first)
/// from `keys` (FIPS-197 Figure 12, InvCipher).
pub fn inv_cipher(block: &mut Block, mut keys: impl Iterator<Item = [u8; 16]>, nr: usize) {
    add_round_key(block, &next_key(&mut keys));
    for _ in 1..nr {
        inv_shift_rows(block);
        inv_sub_bytes(block);
        add_round_key(block, &next_key(&mut keys));
        inv_mix_columns(block);
    }
    inv_shift_rows(block);
    inv_sub_bytes(block);
    add_round_key(block, &next_key(&mut keys));
}

fn next_key(keys: &mut impl Iterator<Item = [u8; 16]>) -> [u8; 16] {
    keys.next()
        .expect("a key schedule yields Nr + 1 round keys")
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
