//! The checks every variant must pass, run in simulation against aesflow's
//! cipher (`aesflow-cipher`) and CTR mode (`aesflow-modes`):
//!
//! * [`check_blocks`]: every output equals the FIPS-197 encryption of its
//!   input under its key, appears exactly [`Variant::latency`] cycles after
//!   its block was accepted, and blocks under one key are accepted on
//!   consecutive cycles (one block per clock in steady state);
//! * [`check_ctr`]: the keystream of the counter-mode top equals
//!   `aesflow_modes::ctr` from the loaded seed, across a key change in the
//!   middle of the stream (blocks issued before the change under the old
//!   key, after it under the new one, the counter running on), with one
//!   block per clock before and after it.

use crate::sim::{CoreOp, CtrOp, Trace, run_core, run_ctr};
use crate::tools::Error;
use crate::{KeyMode, KeySize, Variant};
use aesflow_cipher::{Aes, Block};
use serde::{Deserialize, Serialize};

/// A key and the blocks encrypted under it.
#[derive(Clone, Debug)]
pub struct Case {
    /// The key: 16, 24 or 32 bytes.
    pub key: Vec<u8>,
    /// Plaintext blocks.
    pub blocks: Vec<Block>,
}

/// What [`check_blocks`] measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BlocksReport {
    /// Blocks checked.
    pub blocks: usize,
    /// Keys loaded.
    pub keys: usize,
    /// The latency every block showed (cycles).
    pub latency: u64,
    /// Cycles simulated.
    pub cycles: u64,
}

/// What [`check_ctr`] measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CtrReport {
    /// Keystream blocks checked.
    pub blocks: usize,
    /// Cycles between the last block under the old key and the first under
    /// the new one, minus one (0: no bubble).
    pub key_change_bubble: u64,
    /// Cycles from the key load to the first keystream block (first key).
    pub first_output_after_key: u64,
}

fn fail(msg: String) -> Error {
    Error::Check(msg)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A small deterministic generator (SplitMix64) for random keys and blocks:
/// a failing run is reproduced from its seed.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A random block.
    pub fn block(&mut self) -> Block {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&self.next_u64().to_le_bytes());
        b[8..].copy_from_slice(&self.next_u64().to_le_bytes());
        b
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n.div_ceil(8))
            .flat_map(|_| self.next_u64().to_le_bytes())
            .take(n)
            .collect()
    }
}

/// `keys` random AES-128 keys with `blocks` random blocks each.
pub fn random_cases(seed: u64, keys: usize, blocks: usize) -> Vec<Case> {
    random_cases_of(KeySize::Aes128, seed, keys, blocks)
}

/// `keys` random keys of `size` with `blocks` random blocks each.
pub fn random_cases_of(size: KeySize, seed: u64, keys: usize, blocks: usize) -> Vec<Case> {
    let mut r = SplitMix(seed);
    (0..keys)
        .map(|_| Case {
            key: r.bytes(size.bytes()),
            blocks: (0..blocks).map(|_| r.block()).collect(),
        })
        .collect()
}

/// FIPS-197 Appendix C.1 (AES-128) and Appendix B.
pub fn fips197_cases() -> Vec<Case> {
    fips197_cases_of(KeySize::Aes128)
}

/// FIPS-197's example vectors for `size`: Appendix C.1 and B (AES-128),
/// C.2 (AES-192), C.3 (AES-256). Appendix C's key is the bytes 00, 01, …
/// and its plaintext 00 11 22 … ff; the expected ciphertexts are checked
/// against aesflow-cipher by the tests.
pub fn fips197_cases_of(size: KeySize) -> Vec<Case> {
    let c = Case {
        key: (0..size.bytes() as u8).collect(),
        blocks: vec![*b"\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff"],
    };
    let mut v = vec![c];
    if size == KeySize::Aes128 {
        v.push(Case {
            key: b"\x2b\x7e\x15\x16\x28\xae\xd2\xa6\xab\xf7\x15\x88\x09\xcf\x4f\x3c".to_vec(),
            blocks: vec![*b"\x32\x43\xf6\xa8\x88\x5a\x30\x8d\x31\x31\x98\xa2\xe0\x37\x07\x34"],
        });
    }
    v
}

/// Run `cases` through `aes_core` and check every output, its cycle and the
/// block-per-clock rate.
pub fn check_blocks(v: &Variant, cases: &[Case]) -> Result<BlocksReport, Error> {
    let mut ops = Vec::new();
    let mut expected = Vec::new();
    for c in cases {
        ops.push(CoreOp::Key(c.key.clone()));
        let aes = Aes::new(&c.key).map_err(|e| fail(e.to_string()))?;
        for b in &c.blocks {
            ops.push(CoreOp::Block(*b));
            let mut e = *b;
            aes.encrypt_block(&mut e);
            expected.push((c.key.clone(), *b, e));
        }
    }
    let t = run_core(v, &ops)?;
    compare_blocks(v, cases, &expected, &t)
}

fn compare_blocks(
    v: &Variant,
    cases: &[Case],
    expected: &[(Vec<u8>, Block, Block)],
    t: &Trace,
) -> Result<BlocksReport, Error> {
    let name = v.name();
    if t.accepted.len() != expected.len() || t.outputs.len() != expected.len() {
        return Err(fail(format!(
            "{name}: {} blocks presented, {} accepted, {} output",
            expected.len(),
            t.accepted.len(),
            t.outputs.len()
        )));
    }
    let l = v.latency() as u64;
    for (i, ((key, pt, ct), (cyc, out))) in expected.iter().zip(&t.outputs).enumerate() {
        if out != ct {
            return Err(fail(format!(
                "{name}: block {i} (key {}, plaintext {}): got {}, FIPS-197 gives {}",
                hex(key),
                hex(pt),
                hex(out),
                hex(ct)
            )));
        }
        let lat = cyc - t.accepted[i];
        if lat != l {
            return Err(fail(format!(
                "{name}: block {i} took {lat} cycles, the latency is {l}"
            )));
        }
    }
    // One block per clock within each key's run.
    let mut i = 0;
    for c in cases {
        for j in 1..c.blocks.len() {
            let (a, b) = (t.accepted[i + j - 1], t.accepted[i + j]);
            if b != a + 1 {
                return Err(fail(format!(
                    "{name}: blocks {} and {} under one key accepted {} cycles apart",
                    i + j - 1,
                    i + j,
                    b - a
                )));
            }
        }
        i += c.blocks.len();
    }
    Ok(BlocksReport {
        blocks: expected.len(),
        keys: cases.len(),
        latency: l,
        cycles: t.cycles,
    })
}

/// The counter-mode top: `n1` keystream blocks under `k1` from `seed`, a key
/// change to `k2`, `n2` more; checked against `aesflow_modes::ctr`.
pub fn check_ctr(
    v: &Variant,
    k1: &[u8],
    k2: &[u8],
    seed: &Block,
    n1: usize,
    n2: usize,
) -> Result<CtrReport, Error> {
    let name = v.name();
    let ops = [
        CtrOp::Seed(*seed),
        CtrOp::Key(k1.to_vec()),
        CtrOp::Run(n1 as u32),
        CtrOp::Key(k2.to_vec()),
        CtrOp::Run(n2 as u32),
    ];
    let t = run_ctr(v, &ops)?;
    let keystream = |key: &[u8], start: &Block, n: usize| -> Result<Vec<u8>, Error> {
        let aes = Aes::new(key).map_err(|e| fail(e.to_string()))?;
        let mut buf = vec![0u8; 16 * n];
        aesflow_modes::ctr::apply_in_place(&aes, start, &mut buf)
            .map_err(|e| fail(e.to_string()))?;
        Ok(buf)
    };
    let mut expected = keystream(k1, seed, n1)?;
    let next = (u128::from_be_bytes(*seed).wrapping_add(n1 as u128)).to_be_bytes();
    expected.extend(keystream(k2, &next, n2)?);
    let got: Vec<u8> = t.outputs.iter().flat_map(|(_, b)| *b).collect();
    if got.len() != expected.len() {
        return Err(fail(format!(
            "{name}: {} keystream blocks expected, {} output",
            n1 + n2,
            t.outputs.len()
        )));
    }
    if let Some(i) =
        (0..n1 + n2).find(|&i| got[16 * i..16 * i + 16] != expected[16 * i..16 * i + 16])
    {
        return Err(fail(format!(
            "{name}: keystream block {i} ({} key) is {}, aesflow-modes CTR gives {}",
            if i < n1 { "first" } else { "second" },
            hex(&got[16 * i..16 * i + 16]),
            hex(&expected[16 * i..16 * i + 16])
        )));
    }
    let l = v.latency() as u64;
    for (i, (c, _)) in t.outputs.iter().enumerate() {
        if *c != t.accepted[i] + l {
            return Err(fail(format!("{name}: keystream block {i} off its latency")));
        }
        let same_run = i != n1 && i > 0;
        if same_run && t.accepted[i] != t.accepted[i - 1] + 1 {
            return Err(fail(format!(
                "{name}: counter blocks {} and {i} issued {} cycles apart",
                i - 1,
                t.accepted[i] - t.accepted[i - 1]
            )));
        }
    }
    let bubble = if n1 > 0 && n2 > 0 {
        t.accepted[n1] - t.accepted[n1 - 1] - 1
    } else {
        0
    };
    // The first key load happens at edge 1 after reset (the seed at 0).
    let first = t.outputs.first().map_or(0, |(c, _)| c - 1);
    if v.keys == KeyMode::Online && bubble != 1 {
        return Err(fail(format!(
            "{name}: an online key change must cost exactly its key_load cycle, it cost {bubble}"
        )));
    }
    Ok(CtrReport {
        blocks: n1 + n2,
        key_change_bubble: bubble,
        first_output_after_key: first,
    })
}
