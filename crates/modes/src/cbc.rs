//! CBC, cipher block chaining (SP 800-38A §6.2): `C_i = E(P_i ⊕ C_{i-1})`,
//! `C_0 = E(P_0 ⊕ IV)`.
//!
//! Encryption is inherently serial (one block at a time through the kernel);
//! decryption is parallel — the blocks are deciphered in batches with the
//! kernel's multi-block path and then XORed with the previous ciphertexts.
//! The IV must be unpredictable (SP 800-38A Appendix C). CBC has no integrity:
//! prefer [GCM](crate::gcm) for new formats.
//!
//! [`Cbc`] keeps the chaining value between calls, for in-place streaming of
//! whole blocks; the free functions are one-shot; [`encryptor`] /
//! [`decryptor`] stream arbitrary splits with optional PKCS#7 padding.

use crate::error::{Result, aligned, iv16, out_of_place};
use crate::padding::Padding;
use crate::streaming::{BlockDecryptor, BlockEncryptor, Chain, decrypt_vec, encrypt_vec};
use aesflow_cipher::{Aes, Block};
use core::borrow::Borrow;

/// Serial CBC encryption of whole blocks; `iv` becomes the last ciphertext.
/// The kernel's own CBC loop keeps the round keys in registers.
pub(crate) fn encrypt_chain(aes: &Aes, iv: &mut Block, blocks: &mut [Block]) {
    aes.cbc_encrypt(iv, blocks);
}

/// Parallel CBC decryption of whole blocks; `iv` becomes the last ciphertext.
pub(crate) fn decrypt_chain(aes: &Aes, iv: &mut Block, blocks: &mut [Block]) {
    aes.cbc_decrypt(iv, blocks);
}

/// CBC with a running chaining value: in-place streaming of whole blocks.
pub struct Cbc<A: Borrow<Aes> = Aes> {
    aes: A,
    iv: Block,
}

impl<A: Borrow<Aes>> Cbc<A> {
    /// CBC with a 16-byte IV.
    pub fn new(aes: A, iv: &[u8]) -> Result<Self> {
        Ok(Cbc { aes, iv: iv16(iv)? })
    }

    /// Encrypt whole blocks in place, continuing the chain.
    pub fn encrypt_blocks(&mut self, buf: &mut [u8]) -> Result<()> {
        aligned(buf.len())?;
        encrypt_chain(self.aes.borrow(), &mut self.iv, buf.as_chunks_mut::<16>().0);
        Ok(())
    }

    /// Decrypt whole blocks in place, continuing the chain.
    pub fn decrypt_blocks(&mut self, buf: &mut [u8]) -> Result<()> {
        aligned(buf.len())?;
        decrypt_chain(self.aes.borrow(), &mut self.iv, buf.as_chunks_mut::<16>().0);
        Ok(())
    }

    /// The current chaining value (the IV for the next block).
    pub fn iv(&self) -> &Block {
        &self.iv
    }
}

zeroize_on_drop!(Cbc.iv);

/// Encrypt whole blocks in place.
pub fn encrypt_in_place(aes: &Aes, iv: &[u8], buf: &mut [u8]) -> Result<()> {
    Cbc::new(aes, iv)?.encrypt_blocks(buf)
}

/// Decrypt whole blocks in place.
pub fn decrypt_in_place(aes: &Aes, iv: &[u8], buf: &mut [u8]) -> Result<()> {
    Cbc::new(aes, iv)?.decrypt_blocks(buf)
}

/// Encrypt whole blocks from `input` into `output` (same length).
pub fn encrypt_into(aes: &Aes, iv: &[u8], input: &[u8], output: &mut [u8]) -> Result<()> {
    out_of_place(input, output, |b| encrypt_in_place(aes, iv, b))
}

/// Decrypt whole blocks from `input` into `output` (same length).
pub fn decrypt_into(aes: &Aes, iv: &[u8], input: &[u8], output: &mut [u8]) -> Result<()> {
    out_of_place(input, output, |b| decrypt_in_place(aes, iv, b))
}

/// Encrypt a message, padding it if asked.
pub fn encrypt(aes: &Aes, iv: &[u8], padding: Padding, input: &[u8]) -> Result<Vec<u8>> {
    encrypt_vec(aes, &mut Chain::Cbc(iv16(iv)?), padding, input)
}

/// Decrypt a message, checking and stripping the padding if asked.
pub fn decrypt(aes: &Aes, iv: &[u8], padding: Padding, input: &[u8]) -> Result<Vec<u8>> {
    decrypt_vec(aes, &mut Chain::Cbc(iv16(iv)?), padding, input)
}

/// A streaming CBC encryptor.
pub fn encryptor<A: Borrow<Aes>>(aes: A, iv: &[u8], padding: Padding) -> Result<BlockEncryptor<A>> {
    Ok(BlockEncryptor::new(aes, Chain::Cbc(iv16(iv)?), padding))
}

/// A streaming CBC decryptor.
pub fn decryptor<A: Borrow<Aes>>(aes: A, iv: &[u8], padding: Padding) -> Result<BlockDecryptor<A>> {
    Ok(BlockDecryptor::new(aes, Chain::Cbc(iv16(iv)?), padding))
}
