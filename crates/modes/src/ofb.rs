//! OFB, output feedback (SP 800-38A §6.4): the keystream is `O_1 = E(IV)`,
//! `O_i = E(O_{i-1})`, XORed with the data; encryption and decryption are the
//! same operation. The keystream is serial (each block depends on the last).
//! Never reuse an IV under one key.

use crate::error::{Result, iv16, out_of_place};
use aesflow_cipher::{Aes, Block};
use core::borrow::Borrow;

/// OFB (streaming, in place; any lengths and splits).
pub struct Ofb<A: Borrow<Aes> = Aes> {
    aes: A,
    ks: Block,
    pos: usize,
}

impl<A: Borrow<Aes>> Ofb<A> {
    /// OFB with a 16-byte IV.
    pub fn new(aes: A, iv: &[u8]) -> Result<Self> {
        Ok(Ofb {
            aes,
            ks: iv16(iv)?,
            pos: 16,
        })
    }

    /// XOR the keystream into `buf` (encrypts and decrypts).
    pub fn apply_keystream(&mut self, buf: &mut [u8]) {
        let aes = self.aes.borrow();
        let mut rest = buf;
        while !rest.is_empty() {
            if self.pos == 16 {
                aes.encrypt_block(&mut self.ks);
                self.pos = 0;
            }
            let n = (16 - self.pos).min(rest.len());
            let (head, tail) = rest.split_at_mut(n);
            for (x, k) in head.iter_mut().zip(&self.ks[self.pos..]) {
                *x ^= k;
            }
            self.pos += n;
            rest = tail;
        }
    }
}

zeroize_on_drop!(Ofb.ks);

/// One-shot OFB in place (encrypt = decrypt).
pub fn apply_in_place(aes: &Aes, iv: &[u8], buf: &mut [u8]) -> Result<()> {
    Ofb::new(aes, iv)?.apply_keystream(buf);
    Ok(())
}

/// One-shot OFB from `input` into `output` (same length).
pub fn apply_into(aes: &Aes, iv: &[u8], input: &[u8], output: &mut [u8]) -> Result<()> {
    out_of_place(input, output, |b| apply_in_place(aes, iv, b))
}
