//! Adapters to the RustCrypto traits (feature `rustcrypto`, on by default),
//! so aesflow can stand in wherever generic RustCrypto code is used:
//!
//! * [`Aes128Gcm`], [`Aes192Gcm`], [`Aes256Gcm`]: `aead` 0.5 `KeyInit`,
//!   `AeadCore` (96-bit nonce, 128-bit tag) and `AeadInPlace` (hence `Aead`
//!   with allocation) over [`Gcm`] — fused fast path included.
//! * [`Aes128`], [`Aes192`], [`Aes256`]: `cipher` 0.4 `KeyInit`,
//!   `BlockCipher`, `BlockEncrypt`, `BlockDecrypt` (8 blocks per parallel
//!   call into the kernel), usable with the RustCrypto mode crates.
//! * `cipher` 0.4 `StreamCipher` for [`Ctr`] and [`Ofb`].
//!
//! `KeyInit::new` uses the default kernel ([`Aes::new`]); if
//! `AESFLOW_KERNEL` names a kernel that cannot run, it falls back to the best
//! available one rather than panic.

use crate::gcm::Gcm;
use crate::{Ctr, Ofb};
use aead::consts::{U0, U12, U16, U24, U32};
use aesflow_cipher::{Aes, KeyExpansion, detect_best};
use cipher::inout::{InOut, InOutBuf};
use cipher::{BlockBackend, BlockClosure, BlockSizeUser, ParBlocksSizeUser};
use core::borrow::Borrow;

fn make_aes(key: &[u8]) -> Aes {
    Aes::new(key)
        .or_else(|_| Aes::with_kernel(key, detect_best(), KeyExpansion::Offline))
        .expect("key length is fixed by the type")
}

macro_rules! gcm_type {
    ($name:ident, $ks:ty, $bits:literal) => {
        #[doc = concat!("AES-", $bits, "-GCM for the `aead` 0.5 traits.")]
        #[derive(Clone, Debug)]
        pub struct $name(pub Gcm);

        impl aead::KeySizeUser for $name {
            type KeySize = $ks;
        }

        impl aead::KeyInit for $name {
            fn new(key: &aead::Key<Self>) -> Self {
                $name(Gcm::from_aes(make_aes(key)))
            }
        }

        impl aead::AeadCore for $name {
            type NonceSize = U12;
            type TagSize = U16;
            type CiphertextOverhead = U0;
        }

        impl aead::AeadInPlace for $name {
            fn encrypt_in_place_detached(
                &self,
                nonce: &aead::Nonce<Self>,
                associated_data: &[u8],
                buffer: &mut [u8],
            ) -> aead::Result<aead::Tag<Self>> {
                self.0
                    .seal_in_place_detached(nonce, associated_data, buffer)
                    .map(Into::into)
                    .map_err(|_| aead::Error)
            }

            fn decrypt_in_place_detached(
                &self,
                nonce: &aead::Nonce<Self>,
                associated_data: &[u8],
                buffer: &mut [u8],
                tag: &aead::Tag<Self>,
            ) -> aead::Result<()> {
                self.0
                    .open_in_place_detached(nonce, associated_data, buffer, tag)
                    .map_err(|_| aead::Error)
            }
        }
    };
}

gcm_type!(Aes128Gcm, U16, "128");
gcm_type!(Aes192Gcm, U24, "192");
gcm_type!(Aes256Gcm, U32, "256");

/// The block backend: one aesflow `Aes`, encrypting or decrypting.
struct Backend<'a> {
    aes: &'a Aes,
    encrypt: bool,
}

impl BlockSizeUser for Backend<'_> {
    type BlockSize = U16;
}

impl ParBlocksSizeUser for Backend<'_> {
    type ParBlocksSize = cipher::consts::U8;
}

impl BlockBackend for Backend<'_> {
    fn proc_block(&mut self, mut block: InOut<'_, '_, cipher::Block<Self>>) {
        let mut b: [u8; 16] = (*block.get_in()).into();
        if self.encrypt {
            self.aes.encrypt_block(&mut b);
        } else {
            self.aes.decrypt_block(&mut b);
        }
        *block.get_out() = b.into();
    }

    fn proc_par_blocks(&mut self, mut blocks: InOut<'_, '_, cipher::ParBlocks<Self>>) {
        let mut b = [[0u8; 16]; 8];
        for (d, s) in b.iter_mut().zip(blocks.get_in().iter()) {
            *d = (*s).into();
        }
        if self.encrypt {
            self.aes.encrypt_blocks(&mut b);
        } else {
            self.aes.decrypt_blocks(&mut b);
        }
        for (d, s) in blocks.get_out().iter_mut().zip(b) {
            *d = s.into();
        }
    }
}

macro_rules! block_type {
    ($name:ident, $ks:ty, $bits:literal) => {
        #[doc = concat!("AES-", $bits, " for the `cipher` 0.4 block-cipher traits.")]
        #[derive(Clone, Debug)]
        pub struct $name(pub Aes);

        impl cipher::KeySizeUser for $name {
            type KeySize = $ks;
        }

        impl cipher::KeyInit for $name {
            fn new(key: &cipher::Key<Self>) -> Self {
                $name(make_aes(key))
            }
        }

        impl BlockSizeUser for $name {
            type BlockSize = U16;
        }

        impl cipher::BlockCipher for $name {}

        impl cipher::BlockEncrypt for $name {
            fn encrypt_with_backend(&self, f: impl BlockClosure<BlockSize = U16>) {
                f.call(&mut Backend {
                    aes: &self.0,
                    encrypt: true,
                })
            }
        }

        impl cipher::BlockDecrypt for $name {
            fn decrypt_with_backend(&self, f: impl BlockClosure<BlockSize = U16>) {
                f.call(&mut Backend {
                    aes: &self.0,
                    encrypt: false,
                })
            }
        }
    };
}

block_type!(Aes128, U16, "128");
block_type!(Aes192, U24, "192");
block_type!(Aes256, U32, "256");

/// Apply an in-place keystream function to an in/out buffer, through a
/// stack buffer (no `unsafe` needed to alias input and output).
fn inout_apply(mut buf: InOutBuf<'_, '_, u8>, mut f: impl FnMut(&mut [u8])) {
    let mut tmp = [0u8; 1024];
    let len = buf.len();
    let mut off = 0;
    while off < len {
        let n = (len - off).min(tmp.len());
        tmp[..n].copy_from_slice(&buf.get_in()[off..off + n]);
        f(&mut tmp[..n]);
        buf.get_out()[off..off + n].copy_from_slice(&tmp[..n]);
        off += n;
    }
    tmp.fill(0);
}

impl<A: Borrow<Aes>> cipher::StreamCipher for Ctr<A> {
    fn try_apply_keystream_inout(
        &mut self,
        buf: InOutBuf<'_, '_, u8>,
    ) -> Result<(), cipher::StreamCipherError> {
        inout_apply(buf, |b| self.apply_keystream(b));
        Ok(())
    }
}

impl<A: Borrow<Aes>> cipher::StreamCipher for Ofb<A> {
    fn try_apply_keystream_inout(
        &mut self,
        buf: InOutBuf<'_, '_, u8>,
    ) -> Result<(), cipher::StreamCipherError> {
        inout_apply(buf, |b| self.apply_keystream(b));
        Ok(())
    }
}
