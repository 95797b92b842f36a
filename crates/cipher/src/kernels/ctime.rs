//! The `ctime` kernel: constant-time AES in portable Rust.
//!
//! No memory access is indexed by secret data and no branch depends on it:
//! SubBytes computes the S-box arithmetically (inversion in GF(2^8) by a
//! fixed addition chain of masked multiplications, then the affine map), and
//! ShiftRows, MixColumns and AddRoundKey are fixed data movements and XORs.

use crate::kernel::{Block, Kernel};
use crate::key_schedule::KeySchedule;
use crate::sbox::{affine, gf_inv, inv_affine};
use crate::steps::{add_round_key, inv_mix_columns, inv_shift_rows, mix_columns, shift_rows};

/// The constant-time kernel.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConstantTime;

fn sub_bytes_ct(s: &mut Block) {
    for b in s {
        *b = affine(gf_inv(*b));
    }
}

fn inv_sub_bytes_ct(s: &mut Block) {
    for b in s {
        *b = gf_inv(inv_affine(*b));
    }
}

impl Kernel for ConstantTime {
    fn name(&self) -> &'static str {
        "ctime"
    }
    fn description(&self) -> &'static str {
        "portable constant-time (arithmetic S-box, no secret-indexed loads)"
    }
    fn is_available(&self) -> bool {
        true
    }
    fn is_constant_time(&self) -> bool {
        true
    }
    fn rank(&self) -> u32 {
        10
    }
    fn encrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]) {
        let nr = keys.size().nr();
        for b in blocks {
            for (r, k) in keys.enc_keys().enumerate() {
                if r > 0 {
                    sub_bytes_ct(b);
                    shift_rows(b);
                    if r < nr {
                        mix_columns(b);
                    }
                }
                add_round_key(b, &k);
            }
        }
    }
    fn decrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]) {
        for b in blocks {
            for (r, k) in keys.dec_keys().enumerate() {
                if r > 0 {
                    inv_shift_rows(b);
                    inv_sub_bytes_ct(b);
                }
                add_round_key(b, &k);
                if r > 0 && r < keys.size().nr() {
                    inv_mix_columns(b);
                }
            }
        }
    }
}
