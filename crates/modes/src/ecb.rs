//! ECB, the electronic codebook mode (SP 800-38A §6.1): every block is
//! enciphered independently with the forward cipher.
//!
//! Equal plaintext blocks give equal ciphertext blocks, so ECB leaks patterns;
//! it exists here for the known-answer tests, as the building block of the
//! other modes and because Pericàs et al. (*Vectorized AES Core for
//! High-Throughput Secure Environments*) evaluate their multi-stream core on
//! ECB/CBC. Input is whole blocks, or use
//! [`Padding::Pkcs7`].
//!
//! ```
//! use aesflow_cipher::Aes;
//! use aesflow_modes::{ecb, Padding};
//! let aes = Aes::new(&[7u8; 16]).unwrap();
//! let ct = ecb::encrypt(&aes, Padding::Pkcs7, b"attack at dawn").unwrap();
//! assert_eq!(ct.len(), 16);
//! assert_eq!(ecb::decrypt(&aes, Padding::Pkcs7, &ct).unwrap(), b"attack at dawn");
//! ```

use crate::error::{Result, aligned, out_of_place};
use crate::padding::Padding;
use crate::streaming::{BlockDecryptor, BlockEncryptor, Chain, decrypt_vec, encrypt_vec};
use aesflow_cipher::Aes;
use core::borrow::Borrow;

/// Encrypt whole blocks in place.
pub fn encrypt_in_place(aes: &Aes, buf: &mut [u8]) -> Result<()> {
    aligned(buf.len())?;
    aes.encrypt_blocks(buf.as_chunks_mut::<16>().0);
    Ok(())
}

/// Decrypt whole blocks in place.
pub fn decrypt_in_place(aes: &Aes, buf: &mut [u8]) -> Result<()> {
    aligned(buf.len())?;
    aes.decrypt_blocks(buf.as_chunks_mut::<16>().0);
    Ok(())
}

/// Encrypt whole blocks from `input` into `output` (same length).
pub fn encrypt_into(aes: &Aes, input: &[u8], output: &mut [u8]) -> Result<()> {
    out_of_place(input, output, |b| encrypt_in_place(aes, b))
}

/// Decrypt whole blocks from `input` into `output` (same length).
pub fn decrypt_into(aes: &Aes, input: &[u8], output: &mut [u8]) -> Result<()> {
    out_of_place(input, output, |b| decrypt_in_place(aes, b))
}

/// Encrypt a message, padding it if asked.
pub fn encrypt(aes: &Aes, padding: Padding, input: &[u8]) -> Result<Vec<u8>> {
    encrypt_vec(aes, &mut Chain::Ecb, padding, input)
}

/// Decrypt a message, checking and stripping the padding if asked.
pub fn decrypt(aes: &Aes, padding: Padding, input: &[u8]) -> Result<Vec<u8>> {
    decrypt_vec(aes, &mut Chain::Ecb, padding, input)
}

/// A streaming ECB encryptor.
pub fn encryptor<A: Borrow<Aes>>(aes: A, padding: Padding) -> BlockEncryptor<A> {
    BlockEncryptor::new(aes, Chain::Ecb, padding)
}

/// A streaming ECB decryptor.
pub fn decryptor<A: Borrow<Aes>>(aes: A, padding: Padding) -> BlockDecryptor<A> {
    BlockDecryptor::new(aes, Chain::Ecb, padding)
}
