//! Adapters to the RustCrypto traits (feature `rustcrypto`, on by default),
//! so aesflow can stand in wherever generic RustCrypto code is used:
//!
//! * [`Aes128Gcm`], [`Aes192Gcm`], [`Aes256Gcm`]: `aead` 0.5 `KeyInit`,
//!   `AeadCore` (96-bit nonce, 128-bit tag) and `AeadInPlace` (hence `Aead`
//!   with allocation) over [`Gcm`] — fused fast path included.
//! * [`Aes128`], [`Aes192`], [`Aes256`]: `cipher` 0.4 `KeyInit`,
//!   `BlockCipher`, `BlockEncrypt`, `BlockDecrypt` (32 blocks per parallel
//!   call into the kernel), usable with the RustCrypto mode crates.
//! * `cipher` 0.4 `StreamCipher` for [`Ctr`] and [`Ofb`].
//!
//! With the `rustcrypto-next` feature (default) the same types also
//! implement the next generation of the traits, that of `aes` 0.9 and
//! `aes-gcm` 0.11 ([`next`]): `aead` 0.6 `AeadCore` + `AeadInOut` (hence
//! `Aead` and `AeadInPlace`), `cipher` 0.5 `BlockCipherEncrypt` /
//! `BlockCipherDecrypt`, `StreamCipher`, and `KeyInit` of `crypto-common`
//! 0.2. One value works with crates of either generation.
//!
//! `KeyInit::new` uses the fastest constant-time kernel of this CPU
//! ([`Aes::new`], which does not read `AESFLOW_KERNEL`).

use crate::gcm::Gcm;
use crate::{Ctr, Ofb};
use aead::consts::{U0, U12, U16, U24, U32};
use aesflow_cipher::Aes;
use cipher::inout::{InOut, InOutBuf};
use cipher::{BlockBackend, BlockClosure, BlockSizeUser, ParBlocksSizeUser};
use core::borrow::Borrow;

fn make_aes(key: &[u8]) -> Aes {
    Aes::new(key).expect("key length is fixed by the type")
}

/// Seal in place for the AEAD traits of either generation.
fn seal<T: From<[u8; 16]>, E>(
    gcm: &Gcm,
    nonce: &[u8],
    aad: &[u8],
    buf: &mut [u8],
    e: E,
) -> Result<T, E> {
    gcm.seal_in_place_detached(nonce, aad, buf)
        .map(Into::into)
        .map_err(|_| e)
}

/// Open in place for the AEAD traits of either generation.
fn open<E>(gcm: &Gcm, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8], e: E) -> Result<(), E> {
    gcm.open_in_place_detached(nonce, aad, buf, tag)
        .map_err(|_| e)
}

/// `KeySizeUser` and `KeyInit` of the `crypto-common` generation `$cc`
/// re-exports, for the newtype `$name` built by `$new` from the key.
macro_rules! key_init {
    ($cc:ident, $name:ident, $ks:ty, |$key:ident| $new:expr) => {
        impl $cc::KeySizeUser for $name {
            type KeySize = $ks;
        }

        impl $cc::KeyInit for $name {
            fn new($key: &$cc::Key<Self>) -> Self {
                $name($new)
            }
        }
    };
}

macro_rules! gcm_type {
    ($name:ident, $ks:ty, $bits:literal) => {
        #[doc = concat!("AES-", $bits, "-GCM for the `aead` 0.5 traits.")]
        #[derive(Clone, Debug)]
        pub struct $name(pub Gcm);

        key_init!(aead, $name, $ks, |key| Gcm::from_aes(make_aes(key)));

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
                seal(&self.0, nonce, associated_data, buffer, aead::Error)
            }

            fn decrypt_in_place_detached(
                &self,
                nonce: &aead::Nonce<Self>,
                associated_data: &[u8],
                buffer: &mut [u8],
                tag: &aead::Tag<Self>,
            ) -> aead::Result<()> {
                open(&self.0, nonce, associated_data, buffer, tag, aead::Error)
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
    type ParBlocksSize = cipher::consts::U32;
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
        let mut b = [[0u8; 16]; 32];
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

        key_init!(cipher, $name, $ks, |key| make_aes(key));

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

macro_rules! stream_type {
    ($ty:ident) => {
        impl<A: Borrow<Aes>> cipher::StreamCipher for $ty<A> {
            fn try_apply_keystream_inout(
                &mut self,
                buf: InOutBuf<'_, '_, u8>,
            ) -> Result<(), cipher::StreamCipherError> {
                inout_apply(buf, |b| self.apply_keystream(b));
                Ok(())
            }
        }
    };
}

stream_type!(Ctr);
stream_type!(Ofb);

/// The `aead` 0.6 / `cipher` 0.5 traits (`crypto-common` 0.2 generation)
/// for the same types as above.
#[cfg(feature = "rustcrypto-next")]
pub mod next {
    use super::{Aes128, Aes128Gcm, Aes192, Aes192Gcm, Aes256, Aes256Gcm, make_aes, open, seal};
    use crate::gcm::Gcm;
    use crate::{Ctr, Ofb};
    use aead06::{AeadCore, AeadInOut, TagPosition};
    use aesflow_cipher::Aes;
    use cipher05::consts::{U12, U16, U24, U32};
    use cipher05::{
        Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
        BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, InOut,
        InOutBuf, ParBlocks, ParBlocksSizeUser, StreamCipher, StreamCipherError,
    };
    use core::borrow::Borrow;

    macro_rules! gcm_next {
        ($name:ident, $ks:ty) => {
            key_init!(cipher05, $name, $ks, |key| Gcm::from_aes(make_aes(key)));

            impl AeadCore for $name {
                type NonceSize = U12;
                type TagSize = U16;
                const TAG_POSITION: TagPosition = TagPosition::Postfix;
            }

            impl AeadInOut for $name {
                fn encrypt_inout_detached(
                    &self,
                    nonce: &aead06::Nonce<Self>,
                    associated_data: &[u8],
                    buffer: InOutBuf<'_, '_, u8>,
                ) -> aead06::Result<aead06::Tag<Self>> {
                    let buf = buffer.into_out_with_copied_in();
                    seal(&self.0, nonce, associated_data, buf, aead06::Error)
                }

                fn decrypt_inout_detached(
                    &self,
                    nonce: &aead06::Nonce<Self>,
                    associated_data: &[u8],
                    buffer: InOutBuf<'_, '_, u8>,
                    tag: &aead06::Tag<Self>,
                ) -> aead06::Result<()> {
                    let buf = buffer.into_out_with_copied_in();
                    open(&self.0, nonce, associated_data, buf, tag, aead06::Error)
                }
            }
        };
    }

    gcm_next!(Aes128Gcm, U16);
    gcm_next!(Aes192Gcm, U24);
    gcm_next!(Aes256Gcm, U32);

    /// The block backend of the 0.5 traits (32 blocks per parallel call: the VAES kernels keep 32 in flight).
    struct Backend<'a>(&'a Aes);

    impl BlockSizeUser for Backend<'_> {
        type BlockSize = U16;
    }

    impl ParBlocksSizeUser for Backend<'_> {
        type ParBlocksSize = U32;
    }

    /// The 8 blocks as the kernel's `[[u8; 16]]`, in the output buffer (the
    /// input copied there first unless it is the same memory): no copy
    /// through a stack buffer.
    fn with_blocks(blocks: InOut<'_, '_, ParBlocks<Backend<'_>>>, f: impl FnOnce(&mut [[u8; 16]])) {
        let out: &mut [Block<Backend<'_>>] = blocks.into_out_with_copied_in();
        f(cipher05::Array::cast_slice_to_core_mut(out));
    }

    /// One direction of the backend: the trait, its two methods, and the
    /// `Aes` methods behind them.
    macro_rules! backend_next {
        ($tr:ident, $one:ident, $par:ident, $aes_one:ident, $aes_par:ident) => {
            impl $tr for Backend<'_> {
                fn $one(&self, mut block: InOut<'_, '_, Block<Self>>) {
                    let mut b: [u8; 16] = (*block.get_in()).into();
                    self.0.$aes_one(&mut b);
                    *block.get_out() = b.into();
                }

                fn $par(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
                    with_blocks(blocks, |b| self.0.$aes_par(b));
                }
            }
        };
    }

    backend_next!(
        BlockCipherEncBackend,
        encrypt_block,
        encrypt_par_blocks,
        encrypt_block,
        encrypt_blocks
    );
    backend_next!(
        BlockCipherDecBackend,
        decrypt_block,
        decrypt_par_blocks,
        decrypt_block,
        decrypt_blocks
    );

    macro_rules! block_next {
        ($name:ident, $ks:ty) => {
            key_init!(cipher05, $name, $ks, |key| make_aes(key));

            impl BlockSizeUser for $name {
                type BlockSize = U16;
            }

            impl BlockCipherEncrypt for $name {
                fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = U16>) {
                    f.call(&Backend(&self.0))
                }
            }

            impl BlockCipherDecrypt for $name {
                fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = U16>) {
                    f.call(&Backend(&self.0))
                }
            }
        };
    }

    block_next!(Aes128, U16);
    block_next!(Aes192, U24);
    block_next!(Aes256, U32);

    macro_rules! stream_next {
        ($ty:ident) => {
            /// The keystream never repeats within 2^128 blocks.
            impl<A: Borrow<Aes>> StreamCipher for $ty<A> {
                fn check_remaining(&self, _data_len: usize) -> Result<(), StreamCipherError> {
                    Ok(())
                }

                fn unchecked_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) {
                    self.apply_keystream(buf.into_out_with_copied_in());
                }

                fn unchecked_write_keystream(&mut self, buf: &mut [u8]) {
                    buf.fill(0);
                    self.apply_keystream(buf);
                }
            }
        };
    }

    stream_next!(Ctr);
    stream_next!(Ofb);

    #[cfg(test)]
    mod tests {
        //! Differential tests against RustCrypto `aes` 0.9, `aes-gcm` 0.11,
        //! `cbc` 0.2 and `ctr` 0.10 on random inputs.
        use super::*;
        use aead06::{Aead, Nonce};
        use cipher05::KeyInit;
        use rand::{Rng, RngCore};

        fn bytes(n: usize) -> Vec<u8> {
            let mut v = vec![0u8; n];
            rand::rng().fill_bytes(&mut v);
            v
        }

        fn check_gcm<Ours, Theirs>(key_len: usize)
        where
            Ours: KeyInit + AeadInOut + AeadCore<NonceSize = U12, TagSize = U16>,
            Theirs: aead06::KeyInit + AeadInOut + AeadCore<NonceSize = U12, TagSize = U16>,
        {
            for _ in 0..40 {
                let n = rand::rng().random_range(0..5000);
                let (key, nonce, aad, msg) = (bytes(key_len), bytes(12), bytes(n % 40), bytes(n));
                let ours = Ours::new_from_slice(&key).unwrap();
                let theirs = Theirs::new_from_slice(&key).unwrap();
                let nonce_o = Nonce::<Ours>::try_from(&nonce[..]).unwrap();
                let nonce_t = Nonce::<Theirs>::try_from(&nonce[..]).unwrap();
                let payload = || aead06::Payload {
                    msg: &msg,
                    aad: &aad,
                };
                let ct = ours.encrypt(&nonce_o, payload()).unwrap();
                assert_eq!(ct, theirs.encrypt(&nonce_t, payload()).unwrap());
                let back = aead06::Payload {
                    msg: &ct,
                    aad: &aad,
                };
                assert_eq!(ours.decrypt(&nonce_o, back).unwrap(), msg);
                // Out of place (distinct in/out buffers) and in place.
                let mut out = vec![0u8; n];
                let buf = InOutBuf::new(&msg, &mut out).unwrap();
                let tag = ours.encrypt_inout_detached(&nonce_o, &aad, buf).unwrap();
                assert_eq!([&out[..], &tag[..]].concat(), ct);
                let mut inplace = msg.clone();
                let tag2 = ours
                    .encrypt_inout_detached(&nonce_o, &aad, inplace.as_mut_slice().into())
                    .unwrap();
                assert_eq!((inplace.as_slice(), tag2), (out.as_slice(), tag));
                // Tampering is rejected.
                let mut bad = ct.clone();
                let i = rand::rng().random_range(0..bad.len());
                bad[i] ^= 1;
                let tampered = aead06::Payload {
                    msg: &bad,
                    aad: &aad,
                };
                assert!(ours.decrypt(&nonce_o, tampered).is_err());
            }
        }

        #[test]
        fn gcm_matches_aes_gcm_0_11() {
            check_gcm::<Aes128Gcm, aes_gcm011::Aes128Gcm>(16);
            check_gcm::<Aes256Gcm, aes_gcm011::Aes256Gcm>(32);
            type Theirs192 = aes_gcm011::AesGcm<aes09::Aes192, U12>;
            check_gcm::<Aes192Gcm, Theirs192>(24);
            assert!(Aes128Gcm::new_from_slice(&[0; 32]).is_err());
        }

        fn check_block<Ours, Theirs>(key_len: usize)
        where
            Ours:
                KeyInit + BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16>,
            Theirs: KeyInit + BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>,
        {
            for _ in 0..20 {
                let n = rand::rng().random_range(0..300);
                let key = bytes(key_len);
                let data = bytes(16 * n);
                let ours = Ours::new_from_slice(&key).unwrap();
                let theirs = Theirs::new_from_slice(&key).unwrap();
                let mut a: Vec<Block<Ours>> = data
                    .chunks(16)
                    .map(|c| Block::<Ours>::try_from(c).unwrap())
                    .collect();
                let mut b: Vec<Block<Theirs>> = data
                    .chunks(16)
                    .map(|c| Block::<Theirs>::try_from(c).unwrap())
                    .collect();
                ours.encrypt_blocks(&mut a);
                theirs.encrypt_blocks(&mut b);
                assert!(a.iter().zip(&b).all(|(x, y)| x[..] == y[..]));
                ours.decrypt_blocks(&mut a);
                assert_eq!(a.concat(), data);
            }
        }

        #[test]
        fn block_cipher_matches_aes_0_9() {
            check_block::<Aes128, aes09::Aes128>(16);
            check_block::<Aes192, aes09::Aes192>(24);
            check_block::<Aes256, aes09::Aes256>(32);
        }

        #[test]
        fn cbc_mode_crate_runs_on_our_cipher() {
            use cipher05::block_padding::Pkcs7;
            use cipher05::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit};
            let (key, iv, msg) = (bytes(16), bytes(16), bytes(1000));
            let ours = cbc02::Encryptor::<Aes128>::new_from_slices(&key, &iv)
                .unwrap()
                .encrypt_padded_vec::<Pkcs7>(&msg);
            let theirs = cbc02::Encryptor::<aes09::Aes128>::new_from_slices(&key, &iv)
                .unwrap()
                .encrypt_padded_vec::<Pkcs7>(&msg);
            assert_eq!(ours, theirs);
            let back = cbc02::Decryptor::<Aes128>::new_from_slices(&key, &iv)
                .unwrap()
                .decrypt_padded_vec::<Pkcs7>(&ours)
                .unwrap();
            assert_eq!(back, msg);
        }

        #[test]
        fn stream_ciphers_match_ctr_0_10() {
            use cipher05::KeyIvInit;
            for _ in 0..20 {
                let n = rand::rng().random_range(0..3000);
                let (key, iv, msg) = (bytes(32), bytes(16), bytes(n));
                let aes = Aes::new(&key).unwrap();
                let mut ours = msg.clone();
                let mut c = Ctr::new(&aes, &iv).unwrap();
                let split = n / 3;
                StreamCipher::apply_keystream(&mut c, &mut ours[..split]);
                StreamCipher::apply_keystream(&mut c, &mut ours[split..]);
                let mut theirs = msg.clone();
                ctr010::Ctr128BE::<aes09::Aes256>::new_from_slices(&key, &iv)
                    .unwrap()
                    .apply_keystream(&mut theirs);
                assert_eq!(ours, theirs);
                // OFB: the keystream equals encrypting zeros.
                let mut ks = vec![0u8; n];
                StreamCipher::write_keystream(&mut Ofb::new(&aes, &iv).unwrap(), &mut ks);
                let mut o = msg.clone();
                StreamCipher::apply_keystream(&mut Ofb::new(&aes, &iv).unwrap(), &mut o);
                let x: Vec<u8> = msg.iter().zip(&ks).map(|(a, b)| a ^ b).collect();
                assert_eq!(o, x);
            }
        }
    }
}
