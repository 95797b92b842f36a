//! CTR, counter mode (SP 800-38A §6.5): the keystream is `E(T_1), E(T_2), …`
//! with `T_{i+1} = T_i + 1`, where — as in SP 800-38A Appendix B.1 and RFC
//! 3686 when its 32-bit block counter does not wrap — the whole 128-bit block
//! is a big-endian counter. Encryption and decryption are the same operation
//! and fully parallel: the bulk goes through the kernel's own counter path
//! ([`Aes::ctr_xor`], fused and pipelined in the hardware kernels). This is
//! the mode of Hodjat & Verbauwhede's *Area-Throughput Trade-Offs for Fully
//! Pipelined 30 to 70 Gbits/s AES Processors*, whose fully pipelined
//! processors need a feedback-free mode.
//!
//! Never reuse a counter value under one key.

use crate::error::{Result, iv16, out_of_place};
use aesflow_cipher::{Aes, Block};
use core::borrow::Borrow;

/// CTR (streaming, in place; any lengths and splits).
pub struct Ctr<A: Borrow<Aes> = Aes> {
    aes: A,
    /// The next unused counter block.
    counter: Block,
    /// Leftover keystream of the last partial block: bytes `pos..16`.
    ks: Block,
    pos: usize,
}

impl<A: Borrow<Aes>> Ctr<A> {
    /// CTR from a 16-byte initial counter block.
    pub fn new(aes: A, initial_counter: &[u8]) -> Result<Self> {
        Ok(Ctr {
            aes,
            counter: iv16(initial_counter)?,
            ks: [0; 16],
            pos: 16,
        })
    }

    /// XOR the keystream into `buf` (encrypts and decrypts).
    pub fn apply_keystream(&mut self, buf: &mut [u8]) {
        let aes = self.aes.borrow();
        let n = (16 - self.pos).min(buf.len());
        let (head, rest) = buf.split_at_mut(n);
        for (x, k) in head.iter_mut().zip(&self.ks[self.pos..]) {
            *x ^= k;
        }
        self.pos += n;
        let whole = rest.len() / 16 * 16;
        let (bulk, tail) = rest.split_at_mut(whole);
        if !bulk.is_empty() {
            aes.ctr_xor(&mut self.counter, bulk);
        }
        if !tail.is_empty() {
            self.ks = [0; 16];
            aes.ctr_xor(&mut self.counter, &mut self.ks);
            for (x, k) in tail.iter_mut().zip(&self.ks) {
                *x ^= k;
            }
            self.pos = tail.len();
        }
    }

    /// The next unused counter block (a partially used block counts as used).
    pub fn counter(&self) -> &Block {
        &self.counter
    }
}

zeroize_on_drop!(Ctr.ks);

/// One-shot CTR in place (encrypt = decrypt).
pub fn apply_in_place(aes: &Aes, initial_counter: &[u8], buf: &mut [u8]) -> Result<()> {
    let mut ctr = iv16(initial_counter)?;
    aes.ctr_xor(&mut ctr, buf);
    Ok(())
}

/// One-shot CTR from `input` into `output` (same length).
pub fn apply_into(
    aes: &Aes,
    initial_counter: &[u8],
    input: &[u8],
    output: &mut [u8],
) -> Result<()> {
    out_of_place(input, output, |b| apply_in_place(aes, initial_counter, b))
}
