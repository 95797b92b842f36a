//! The `ttable` kernel: the T-box method of Daemen & Rijmen (*The Design of
//! Rijndael*, §4.2). SubBytes, ShiftRows and MixColumns of one round fold
//! into four table lookups and XORs per column; decryption uses the
//! equivalent inverse cipher (FIPS-197 §5.3.5) with inverse tables.
//!
//! **Not constant-time**: the tables are indexed with secret state bytes, so
//! cache timing leaks information about the key. This kernel exists for
//! comparison with the papers' software baselines and is never chosen by
//! default.

use crate::kernel::{Block, impl_kernel};
use crate::key_schedule::KeySchedule;
use crate::sbox::{INV_SBOX, SBOX, gf_mul};
use crate::steps::inv_mix_columns;

/// The four tables of one direction: `t[r][x]` is the column (a
/// little-endian word) that S-box output `s = sbox[x]` entering at row `r`
/// contributes, `mul[i]·s` in row `(r + i) mod 4` — the first column of
/// MixColumns' (or InvMixColumns') matrix, rotated down by `r`.
const fn tables(sbox: &[u8; 256], mul: [u8; 4]) -> [[u32; 256]; 4] {
    let mut t = [[0u32; 256]; 4];
    let mut x = 0;
    while x < 256 {
        let s = sbox[x];
        let col = u32::from_le_bytes([
            gf_mul(s, mul[0]),
            gf_mul(s, mul[1]),
            gf_mul(s, mul[2]),
            gf_mul(s, mul[3]),
        ]);
        let mut r = 0;
        while r < 4 {
            t[r][x] = col.rotate_left(8 * r as u32);
            r += 1;
        }
        x += 1;
    }
    t
}

/// Encryption tables (SubBytes + MixColumns: `02 01 01 03`).
static TE: [[u32; 256]; 4] = tables(&SBOX, [2, 1, 1, 3]);
/// Decryption tables (InvSubBytes + InvMixColumns: `0e 09 0d 0b`).
static TD: [[u32; 256]; 4] = tables(&INV_SBOX, [0x0e, 0x09, 0x0d, 0x0b]);

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

/// One block through the cipher (`INV`: the equivalent inverse cipher) with
/// the round keys `keys` as words, in the order they are added. Row `r` of
/// output column `c` comes from input column `c + r` (ShiftRows) or `c - r`
/// (InvShiftRows).
#[inline(always)]
fn crypt_one<const INV: bool>(block: &mut Block, keys: &[[u32; 4]]) {
    let (t, sbox) = if INV { (&TD, &INV_SBOX) } else { (&TE, &SBOX) };
    let from = |c: usize, r: usize| if INV { (c + 4 - r) % 4 } else { (c + r) % 4 };
    let nr = keys.len() - 1;
    let mut s = words(block);
    for c in 0..4 {
        s[c] ^= keys[0][c];
    }
    for rk in &keys[1..nr] {
        s = core::array::from_fn(|c| {
            t[0][byte(s[c], 0)]
                ^ t[1][byte(s[from(c, 1)], 1)]
                ^ t[2][byte(s[from(c, 2)], 2)]
                ^ t[3][byte(s[from(c, 3)], 3)]
                ^ rk[c]
        });
    }
    let out: [u32; 4] = core::array::from_fn(|c| {
        u32::from_le_bytes(core::array::from_fn(|r| sbox[byte(s[from(c, r)], r)])) ^ keys[nr][c]
    });
    *block = bytes(out);
}

/// The T-table kernel (not constant-time).
#[derive(Debug, Clone, Copy, Default)]
pub struct TTable;

/// Blocks per online key derivation: online expansion derives the round keys
/// once per group of blocks in flight.
const GROUP: usize = 8;

/// The round keys as words in the order the (equivalent inverse) cipher
/// adds them.
fn load_keys(keys: &KeySchedule, dec: bool, rk: &mut [[u32; 4]; 15]) {
    let nr = keys.size().nr();
    match keys {
        KeySchedule::Offline(k) if dec => {
            for (dst, k) in rk.iter_mut().zip(k.dec_equiv()) {
                *dst = words(k);
            }
        }
        _ if dec => {
            // Derive the keys backwards and turn them into the equivalent
            // inverse cipher's keys on the fly.
            for (r, (dst, mut k)) in rk.iter_mut().zip(keys.dec_keys()).enumerate() {
                if r != 0 && r != nr {
                    inv_mix_columns(&mut k);
                }
                *dst = words(&k);
            }
        }
        _ => {
            for (dst, k) in rk.iter_mut().zip(keys.enc_keys()) {
                *dst = words(&k);
            }
        }
    }
}

/// ECB in either direction; online keys are derived afresh per [`GROUP`].
fn ecb(keys: &KeySchedule, blocks: &mut [Block], dec: bool) {
    if dec {
        ecb_dir::<true>(keys, blocks);
    } else {
        ecb_dir::<false>(keys, blocks);
    }
}

fn ecb_dir<const INV: bool>(keys: &KeySchedule, blocks: &mut [Block]) {
    let n = keys.size().nr() + 1;
    let mut rk = [[0u32; 4]; 15];
    let group = if matches!(keys, KeySchedule::Online(_)) {
        GROUP
    } else {
        usize::MAX
    };
    for chunk in blocks.chunks_mut(group) {
        load_keys(keys, INV, &mut rk);
        for b in chunk {
            crypt_one::<INV>(b, &rk[..n]);
        }
    }
    rk.fill([0; 4]);
}

impl_kernel! {
    impl for TTable {
        name: "ttable",
        description: "T-table lookups (NOT constant-time; for comparison only)",
        available: true,
        constant_time: false,
        rank: 1,
        ecb: ecb,
    }
}
