//! # aesflow-modes: modes of operation over any aesflow AES kernel
//!
//! A block cipher alone enciphers 16 bytes; a *mode of operation* turns it
//! into a cipher for messages. This crate implements the NIST modes on top of
//! [`aesflow_cipher::Aes`] — so every mode runs on every kernel (`reference`,
//! `ttable`, `ctime`, `aesni`, `vaes`) and with both key-expansion styles
//! (offline / online) — plus the fast paths that matter on a CPU.
//!
//! | mode | module | standard | parallel? | notes |
//! |---|---|---|---|---|
//! | ECB | [`ecb`] | [SP 800-38A] §6.1 | enc + dec | leaks equal blocks; tests and building block |
//! | CBC | [`cbc`] | [SP 800-38A] §6.2 | dec only | PKCS#7 optional ([`Padding`]) |
//! | CFB128, CFB8, CFB1 | [`cfb`] | [SP 800-38A] §6.3 | dec (CFB128) | stream mode; 8/1-bit segments are one AES call per byte/bit |
//! | OFB | [`ofb`] | [SP 800-38A] §6.4 | no | stream mode |
//! | CTR | [`ctr`] | [SP 800-38A] §6.5, B.1 | enc + dec | 128-bit big-endian counter, via the kernel's own `ctr_xor` |
//! | GCM | [`gcm`] | [SP 800-38D] | enc + dec | AEAD; any IV length, tags of 4–16 bytes, fused one-pass kernels |
//! | XTS | [`xts`] | IEEE 1619 §5, [SP 800-38E] | enc + dec | storage; ciphertext stealing for units not a multiple of 16 bytes |
//!
//! ## How the papers use modes
//!
//! * Pericàs et al., *Vectorized AES Core for High-Throughput Secure
//!   Environments* (§3, the multiple-stream AES core), build an AES core that
//!   encrypts two streams in parallel in ECB or CBC: CBC *encryption* is
//!   serial within a stream (`C_i` needs `C_{i-1}`), so the way to fill a
//!   pipelined core is to interleave independent streams. Here [`cbc`]
//!   encrypts one stream serially and decrypts in parallel batches; the
//!   multi-stream engine lives in the `aesflow-multistream` crate.
//! * Hodjat & Verbauwhede, *Area-Throughput Trade-Offs for Fully Pipelined
//!   30 to 70 Gbits/s AES Processors*, run their
//!   fully pipelined processors in counter mode, whose keystream blocks are
//!   independent — exactly what [`ctr`] and the CTR half of [`gcm`] exploit on
//!   a CPU (many blocks in flight through the AES units).
//!
//! ## APIs
//!
//! Every mode has one-shot functions (in place and out of place) and a
//! streaming form that accepts any split of the message:
//!
//! * block modes: [`ecb::encrypt`], [`cbc::encrypt`] (…`decrypt`,
//!   `…_in_place`, `…_into`), streaming [`cbc::encryptor`] /
//!   [`cbc::decryptor`] (`update` / `finalize`, PKCS#7 optional);
//! * stream modes: [`Ctr`], [`Ofb`], [`Cfb`], [`Cfb8`], [`Cfb1`] keep their
//!   position between calls;
//! * GCM: [`Gcm::seal`] / [`Gcm::open`] (ciphertext ‖ tag),
//!   [`Gcm::seal_in_place_detached`] / [`Gcm::open_in_place_detached`],
//!   [`Gcm::seal_into`] / [`Gcm::open_into`], and streaming
//!   [`Gcm::encryptor`] / [`Gcm::decryptor`] (the decryptor buffers and
//!   releases plaintext only after the tag verifies); for callers that
//!   split one message across threads, [`Gcm::seal_piece`] /
//!   [`Gcm::open_piece_unverified`] run one piece at its own counter in one
//!   fused pass and return its GHASH value, to be combined into the tag
//!   (and, opening, checked before the plaintext is released).
//!
//! Types that need the cipher take anything that borrows an [`Aes`]
//! (`Aes` or `&Aes`). Errors are [`Error`] values, never panics on user
//! input. Secrets held by mode state are zeroized on drop.
//!
//! ## GCM speed
//!
//! GHASH has a portable constant-time implementation (64-bit multiplies on
//! masked operands, no tables), a PCLMULQDQ one (8 blocks per reduction) and a
//! VPCLMULQDQ one (AVX-512, 4 blocks per register, 16 per reduction). With a
//! hardware AES kernel and offline keys, [`Gcm`] encrypts and authenticates in
//! one pass with a fused kernel of the kernel's register width (AES-NI +
//! PCLMULQDQ; VAES + VPCLMULQDQ on 256-bit registers for `vaes256`, on
//! 512-bit ones for `vaes`), the AES rounds of one group interleaved with the
//! GHASH of the previous.
//! The only `unsafe` code of the crate is in the private `kernels` module.
//!
//! ## RustCrypto
//!
//! With the `rustcrypto` feature (default), [`rustcrypto`] implements the
//! `aead` 0.5 traits for AES-GCM, the `cipher` 0.4 block-cipher traits for
//! AES, and `cipher::StreamCipher` for [`Ctr`] and [`Ofb`].
//!
//! [SP 800-38A]: https://doi.org/10.6028/NIST.SP.800-38A
//! [SP 800-38D]: https://doi.org/10.6028/NIST.SP.800-38D
//! [SP 800-38E]: https://doi.org/10.6028/NIST.SP.800-38E
//! [`Aes`]: aesflow_cipher::Aes
//!
//! ```
//! use aesflow_cipher::Aes;
//! use aesflow_modes::{cbc, Ctr, Gcm, Padding};
//!
//! let aes = Aes::new(&[1u8; 16]).unwrap();
//! let iv = [2u8; 16];
//! let ct = cbc::encrypt(&aes, &iv, Padding::Pkcs7, b"hello").unwrap();
//! assert_eq!(cbc::decrypt(&aes, &iv, Padding::Pkcs7, &ct).unwrap(), b"hello");
//!
//! let mut data = *b"counter mode";
//! Ctr::new(&aes, &iv).unwrap().apply_keystream(&mut data);
//! Ctr::new(&aes, &iv).unwrap().apply_keystream(&mut data);
//! assert_eq!(&data, b"counter mode");
//!
//! let gcm = Gcm::from_aes(&aes);
//! let sealed = gcm.seal(&[0u8; 12], b"aad", b"msg").unwrap();
//! assert_eq!(gcm.open(&[0u8; 12], b"aad", &sealed).unwrap(), b"msg");
//! ```

#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

/// `Drop` for mode types generic over `A: Borrow<Aes>`, zeroizing the
/// named field (the secret state) of each.
macro_rules! zeroize_on_drop {
    ($($ty:ident . $field:ident),+ $(,)?) => {$(
        impl<A: core::borrow::Borrow<aesflow_cipher::Aes>> Drop for $ty<A> {
            fn drop(&mut self) {
                zeroize::Zeroize::zeroize(&mut self.$field);
            }
        }
    )+};
}

pub mod cbc;
pub mod cfb;
pub mod ctr;
pub mod ecb;
pub mod error;
pub mod gcm;
mod kernels;
pub mod ofb;
pub mod padding;
#[cfg(feature = "rustcrypto")]
pub mod rustcrypto;
pub mod streaming;
pub mod xts;

pub use cbc::Cbc;
pub use cfb::{Cfb, Cfb1, Cfb8};
pub use ctr::Ctr;
pub use error::{Error, Result};
pub use gcm::{Gcm, GcmOptions, Tag};
pub use ofb::Ofb;
pub use padding::Padding;
pub use streaming::{BlockDecryptor, BlockEncryptor};
pub use xts::{Xts, XtsStream};
