//! The `ttable` kernel: the T-box method of Daemen & Rijmen (*The Design of
//! Rijndael*, §4.2). SubBytes, ShiftRows and MixColumns of one round fold
//! into four table lookups and XORs per column; decryption uses the
//! equivalent inverse cipher (FIPS-197 §5.3.5) with inverse tables.
//!
//! **Not constant-time**: the tables are indexed with secret state bytes, so
//! cache timing leaks information about the key. This kernel exists for
//! comparison with the papers' software baselines and is never chosen by
//! default.

use crate::kernel::{Block, Kernel};
use crate::key_schedule::KeySchedule;
use crate::sbox::{INV_SBOX, SBOX, gf_mul};
use crate::steps::inv_mix_columns;

const fn te0() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let s = SBOX[i];
        t[i] = (gf_mul(s, 2) as u32)
            | ((s as u32) << 8)
            | ((s as u32) << 16)
            | ((gf_mul(s, 3) as u32) << 24);
        i += 1;
    }
    t
}

const fn td0() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let s = INV_SBOX[i];
        t[i] = (gf_mul(s, 0x0e) as u32)
            | ((gf_mul(s, 0x09) as u32) << 8)
            | ((gf_mul(s, 0x0d) as u32) << 16)
            | ((gf_mul(s, 0x0b) as u32) << 24);
        i += 1;
    }
    t
}

const fn rotate(t: [u32; 256], bits: u32) -> [u32; 256] {
    let mut out = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        out[i] = t[i].rotate_left(bits);
        i += 1;
    }
    out
}

/// Encryption tables: `TE[r][x]` is the MixColumns column contributed by
/// S-box output `S[x]` entering at row `r` (little-endian column words).
static TE: [[u32; 256]; 4] = [
    te0(),
    rotate(te0(), 8),
    rotate(te0(), 16),
    rotate(te0(), 24),
];
/// Decryption tables (InvSubBytes + InvMixColumns).
static TD: [[u32; 256]; 4] = [
    td0(),
    rotate(td0(), 8),
    rotate(td0(), 16),
    rotate(td0(), 24),
];

#[inline(always)]
fn words(b: &[u8; 16]) -> [u32; 4] {
    core::array::from_fn(|c| {
        u32::from_le_bytes([b[4 * c], b[4 * c + 1], b[4 * c + 2], b[4 * c + 3]])
    })
}

#[inline(always)]
fn bytes(w: [u32; 4]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for c in 0..4 {
        out[4 * c..4 * c + 4].copy_from_slice(&w[c].to_le_bytes());
    }
    out
}

#[inline(always)]
fn byte(w: u32, r: usize) -> usize {
    ((w >> (8 * r)) & 0xff) as usize
}

fn encrypt_one(block: &mut Block, keys: &[[u32; 4]]) {
    let nr = keys.len() - 1;
    let mut s = words(block);
    for c in 0..4 {
        s[c] ^= keys[0][c];
    }
    for rk in &keys[1..nr] {
        s = core::array::from_fn(|c| {
            TE[0][byte(s[c], 0)]
                ^ TE[1][byte(s[(c + 1) % 4], 1)]
                ^ TE[2][byte(s[(c + 2) % 4], 2)]
                ^ TE[3][byte(s[(c + 3) % 4], 3)]
                ^ rk[c]
        });
    }
    let out: [u32; 4] = core::array::from_fn(|c| {
        (SBOX[byte(s[c], 0)] as u32
            | (SBOX[byte(s[(c + 1) % 4], 1)] as u32) << 8
            | (SBOX[byte(s[(c + 2) % 4], 2)] as u32) << 16
            | (SBOX[byte(s[(c + 3) % 4], 3)] as u32) << 24)
            ^ keys[nr][c]
    });
    *block = bytes(out);
}

fn decrypt_one(block: &mut Block, dkeys: &[[u32; 4]]) {
    let nr = dkeys.len() - 1;
    let mut s = words(block);
    for c in 0..4 {
        s[c] ^= dkeys[0][c];
    }
    for rk in &dkeys[1..nr] {
        s = core::array::from_fn(|c| {
            TD[0][byte(s[c], 0)]
                ^ TD[1][byte(s[(c + 3) % 4], 1)]
                ^ TD[2][byte(s[(c + 2) % 4], 2)]
                ^ TD[3][byte(s[(c + 1) % 4], 3)]
                ^ rk[c]
        });
    }
    let out: [u32; 4] = core::array::from_fn(|c| {
        (INV_SBOX[byte(s[c], 0)] as u32
            | (INV_SBOX[byte(s[(c + 3) % 4], 1)] as u32) << 8
            | (INV_SBOX[byte(s[(c + 2) % 4], 2)] as u32) << 16
            | (INV_SBOX[byte(s[(c + 1) % 4], 3)] as u32) << 24)
            ^ dkeys[nr][c]
    });
    *block = bytes(out);
}

/// The T-table kernel (not constant-time).
#[derive(Debug, Clone, Copy, Default)]
pub struct TTable;

/// Blocks per online key derivation: online expansion derives the round keys
/// once per group of blocks in flight.
const GROUP: usize = 8;

impl Kernel for TTable {
    fn name(&self) -> &'static str {
        "ttable"
    }
    fn description(&self) -> &'static str {
        "T-table lookups (NOT constant-time; for comparison only)"
    }
    fn is_available(&self) -> bool {
        true
    }
    fn is_constant_time(&self) -> bool {
        false
    }
    fn rank(&self) -> u32 {
        1
    }
    fn encrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]) {
        let n = keys.size().nr() + 1;
        let mut rk = [[0u32; 4]; 15];
        let group = if matches!(keys, KeySchedule::Online(_)) {
            GROUP
        } else {
            usize::MAX
        };
        for chunk in blocks.chunks_mut(group) {
            for (dst, k) in rk.iter_mut().zip(keys.enc_keys()) {
                *dst = words(&k);
            }
            for b in chunk {
                encrypt_one(b, &rk[..n]);
            }
        }
        rk.fill([0; 4]);
    }
    fn decrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]) {
        let nr = keys.size().nr();
        let mut rk = [[0u32; 4]; 15];
        let group = if matches!(keys, KeySchedule::Online(_)) {
            GROUP
        } else {
            usize::MAX
        };
        for chunk in blocks.chunks_mut(group) {
            match keys {
                KeySchedule::Offline(k) => {
                    for (dst, k) in rk.iter_mut().zip(k.dec_equiv()) {
                        *dst = words(k);
                    }
                }
                KeySchedule::Online(_) => {
                    // Derive the keys backwards and turn them into the
                    // equivalent inverse cipher's keys on the fly.
                    for (r, (dst, mut k)) in rk.iter_mut().zip(keys.dec_keys()).enumerate() {
                        if r != 0 && r != nr {
                            inv_mix_columns(&mut k);
                        }
                        *dst = words(&k);
                    }
                }
            }
            for b in chunk {
                decrypt_one(b, &rk[..=nr]);
            }
        }
        rk.fill([0; 4]);
    }
}
