//! CFB, cipher feedback (SP 800-38A §6.3), with segment sizes 128, 8 and 1
//! bits: the previous `s` ciphertext bits are shifted into an input register
//! whose encryption gives the next `s` bits of keystream.
//!
//! * [`Cfb`] — CFB128, a stream mode: any lengths, any split across calls.
//!   Encryption is serial; decryption of whole blocks is batched (all the
//!   cipher inputs are known ciphertext).
//! * [`Cfb8`] — CFB8: one block-cipher call per byte.
//! * [`Cfb1`] — CFB1: one call per *bit*; bits are packed MSB first.

use crate::error::{Error, Result, iv16, out_of_place};
use aesflow_cipher::{Aes, Block};
use core::borrow::Borrow;
use zeroize::Zeroize;

/// CFB128 (streaming, in place).
pub struct Cfb<A: Borrow<Aes> = Aes> {
    aes: A,
    /// Feedback register; bytes `..pos` already replaced by this segment's
    /// ciphertext, bytes `pos..` still keystream. `pos == 16`: need E(reg).
    reg: Block,
    pos: usize,
}

impl<A: Borrow<Aes>> Cfb<A> {
    /// CFB128 with a 16-byte IV.
    pub fn new(aes: A, iv: &[u8]) -> Result<Self> {
        Ok(Cfb {
            aes,
            reg: iv16(iv)?,
            pos: 16,
        })
    }

    /// Encrypt in place (any length; calls may split the message anywhere).
    pub fn encrypt(&mut self, buf: &mut [u8]) {
        let aes = self.aes.borrow();
        for b in buf {
            if self.pos == 16 {
                aes.encrypt_block(&mut self.reg);
                self.pos = 0;
            }
            self.reg[self.pos] ^= *b;
            *b = self.reg[self.pos];
            self.pos += 1;
        }
    }

    /// Decrypt in place (any length; calls may split the message anywhere).
    pub fn decrypt(&mut self, mut buf: &mut [u8]) {
        let aes = self.aes.borrow();
        // Finish the current segment byte by byte.
        while self.pos < 16 && !buf.is_empty() {
            let c = buf[0];
            buf[0] ^= self.reg[self.pos];
            self.reg[self.pos] = c;
            self.pos += 1;
            buf = &mut buf[1..];
        }
        // Whole blocks through the kernel's parallel CFB128 decryption:
        // keystream_i = E(C_{i-1}).
        let whole = buf.len() / 16 * 16;
        let (blocks, _) = buf[..whole].as_chunks_mut::<16>();
        aes.cfb_decrypt(&mut self.reg, blocks);
        // Any tail starts a new segment.
        let tail = &mut buf[whole..];
        if !tail.is_empty() {
            aes.encrypt_block(&mut self.reg);
            for (i, b) in tail.iter_mut().enumerate() {
                let c = *b;
                *b ^= self.reg[i];
                self.reg[i] = c;
            }
            self.pos = tail.len();
        }
    }
}

/// CFB8 (streaming, in place): one AES call per byte.
pub struct Cfb8<A: Borrow<Aes> = Aes> {
    aes: A,
    reg: Block,
}

impl<A: Borrow<Aes>> Cfb8<A> {
    /// CFB8 with a 16-byte IV.
    pub fn new(aes: A, iv: &[u8]) -> Result<Self> {
        Ok(Cfb8 {
            aes,
            reg: iv16(iv)?,
        })
    }

    fn step(&mut self, b: &mut u8, encrypt: bool) {
        let mut o = self.reg;
        self.aes.borrow().encrypt_block(&mut o);
        let c = if encrypt { *b ^ o[0] } else { *b };
        *b ^= o[0];
        o.zeroize();
        self.reg.copy_within(1.., 0);
        self.reg[15] = c;
    }

    /// Encrypt in place.
    pub fn encrypt(&mut self, buf: &mut [u8]) {
        buf.iter_mut().for_each(|b| self.step(b, true));
    }

    /// Decrypt in place.
    pub fn decrypt(&mut self, buf: &mut [u8]) {
        buf.iter_mut().for_each(|b| self.step(b, false));
    }
}

/// CFB1 (streaming, in place): one AES call per bit. Bits are numbered MSB
/// first: bit `i` is `buf[i / 8] >> (7 - i % 8) & 1`.
pub struct Cfb1<A: Borrow<Aes> = Aes> {
    aes: A,
    reg: u128,
}

impl<A: Borrow<Aes>> Cfb1<A> {
    /// CFB1 with a 16-byte IV.
    pub fn new(aes: A, iv: &[u8]) -> Result<Self> {
        Ok(Cfb1 {
            aes,
            reg: u128::from_be_bytes(iv16(iv)?),
        })
    }

    fn run(&mut self, buf: &mut [u8], bits: usize, encrypt: bool) -> Result<()> {
        if bits > buf.len().saturating_mul(8) {
            return Err(Error::BitLength {
                bits,
                capacity: buf.len().saturating_mul(8),
            });
        }
        let aes = self.aes.borrow();
        for i in 0..bits {
            let mut o = self.reg.to_be_bytes();
            aes.encrypt_block(&mut o);
            let shift = 7 - i % 8;
            let x = (buf[i / 8] >> shift) & 1;
            let y = x ^ (o[0] >> 7);
            o.zeroize();
            buf[i / 8] = (buf[i / 8] & !(1 << shift)) | (y << shift);
            let c = if encrypt { y } else { x };
            self.reg = (self.reg << 1) | c as u128;
        }
        Ok(())
    }

    /// Encrypt the first `bits` bits of `buf` in place.
    pub fn encrypt_bits(&mut self, buf: &mut [u8], bits: usize) -> Result<()> {
        self.run(buf, bits, true)
    }

    /// Decrypt the first `bits` bits of `buf` in place.
    pub fn decrypt_bits(&mut self, buf: &mut [u8], bits: usize) -> Result<()> {
        self.run(buf, bits, false)
    }
}

zeroize_on_drop!(Cfb.reg, Cfb8.reg, Cfb1.reg);

/// One-shot CFB128 encryption in place.
pub fn encrypt_in_place(aes: &Aes, iv: &[u8], buf: &mut [u8]) -> Result<()> {
    Cfb::new(aes, iv)?.encrypt(buf);
    Ok(())
}

/// One-shot CFB128 decryption in place.
pub fn decrypt_in_place(aes: &Aes, iv: &[u8], buf: &mut [u8]) -> Result<()> {
    Cfb::new(aes, iv)?.decrypt(buf);
    Ok(())
}

/// One-shot CFB128 encryption from `input` into `output` (same length).
pub fn encrypt_into(aes: &Aes, iv: &[u8], input: &[u8], output: &mut [u8]) -> Result<()> {
    out_of_place(input, output, |b| encrypt_in_place(aes, iv, b))
}

/// One-shot CFB128 decryption from `input` into `output` (same length).
pub fn decrypt_into(aes: &Aes, iv: &[u8], input: &[u8], output: &mut [u8]) -> Result<()> {
    out_of_place(input, output, |b| decrypt_in_place(aes, iv, b))
}
