//! Streaming (update/finalize) encryptors and decryptors for the block modes
//! ECB and CBC, with optional PKCS#7 padding.
//!
//! Made by [`crate::ecb::encryptor`], [`crate::cbc::encryptor`] and their
//! `decryptor` twins. `update` may be called with any split of the input and
//! appends whole blocks of output to a `Vec`; `finalize` pads (encryption) or
//! checks and strips the padding (decryption). A decryptor with padding holds
//! back the last block until `finalize`, since only then is it known to be the
//! padded one.

use crate::error::{Error, Result};
use crate::padding::{Padding, pkcs7_pad_block, pkcs7_unpad_block};
use aesflow_cipher::{Aes, Block};
use core::borrow::Borrow;
use zeroize::Zeroize;

/// The chaining state of a block mode.
#[derive(Clone, Debug)]
pub(crate) enum Chain {
    /// No chaining.
    Ecb,
    /// CBC with the previous ciphertext block (the IV at first).
    Cbc(Block),
}

impl Chain {
    pub(crate) fn encrypt(&mut self, aes: &Aes, blocks: &mut [Block]) {
        match self {
            Chain::Ecb => aes.encrypt_blocks(blocks),
            Chain::Cbc(iv) => crate::cbc::encrypt_chain(aes, iv, blocks),
        }
    }

    pub(crate) fn decrypt(&mut self, aes: &Aes, blocks: &mut [Block]) {
        match self {
            Chain::Ecb => aes.decrypt_blocks(blocks),
            Chain::Cbc(iv) => crate::cbc::decrypt_chain(aes, iv, blocks),
        }
    }
}

impl Drop for Chain {
    fn drop(&mut self) {
        if let Chain::Cbc(iv) = self {
            iv.zeroize();
        }
    }
}

/// Top up the partial block `buf[..*n]` from `input`; returns the rest of
/// `input` (the block is full if `*n == 16`).
pub(crate) fn fill_block<'a>(buf: &mut Block, n: &mut usize, input: &'a [u8]) -> &'a [u8] {
    let take = (16 - *n).min(input.len());
    buf[*n..*n + take].copy_from_slice(&input[..take]);
    *n += take;
    &input[take..]
}

/// The state of either streaming direction.
struct Stream<A: Borrow<Aes>> {
    aes: A,
    chain: Chain,
    padding: Padding,
    /// Pending input: a partial block (decryption with padding: also a
    /// full one held back until more input or `finalize`).
    buf: Block,
    n: usize,
}

impl<A: Borrow<Aes>> Stream<A> {
    fn new(aes: A, chain: Chain, padding: Padding) -> Self {
        Stream {
            aes,
            chain,
            padding,
            buf: [0; 16],
            n: 0,
        }
    }

    /// Run the chain over `input[..whole]` appended to `out`, and keep
    /// `input[whole..]` (at most a block) pending.
    fn bulk(&mut self, input: &[u8], whole: usize, out: &mut Vec<u8>, encrypt: bool) {
        let start = out.len();
        out.extend_from_slice(&input[..whole]);
        let (blocks, _) = out[start..].as_chunks_mut::<16>();
        let aes = self.aes.borrow();
        if encrypt {
            self.chain.encrypt(aes, blocks);
        } else {
            self.chain.decrypt(aes, blocks);
        }
        let rest = &input[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.n = rest.len();
    }
}

impl<A: Borrow<Aes>> Drop for Stream<A> {
    fn drop(&mut self) {
        self.buf.zeroize();
    }
}

/// Streaming ECB/CBC encryption.
pub struct BlockEncryptor<A: Borrow<Aes> = Aes>(Stream<A>);

impl<A: Borrow<Aes>> BlockEncryptor<A> {
    pub(crate) fn new(aes: A, chain: Chain, padding: Padding) -> Self {
        BlockEncryptor(Stream::new(aes, chain, padding))
    }

    /// Encrypt more input; appends every completed block to `out`.
    pub fn update(&mut self, mut input: &[u8], out: &mut Vec<u8>) {
        let s = &mut self.0;
        if s.n > 0 {
            input = fill_block(&mut s.buf, &mut s.n, input);
            if s.n < 16 {
                return;
            }
            s.chain
                .encrypt(s.aes.borrow(), core::slice::from_mut(&mut s.buf));
            out.extend_from_slice(&s.buf);
            s.n = 0;
        }
        s.bulk(input, input.len() / 16 * 16, out, true);
    }

    /// Finish: pad (PKCS#7) and encrypt the last block, or fail with
    /// [`Error::NotBlockAligned`] when unpadded input was not whole blocks.
    pub fn finalize(mut self, out: &mut Vec<u8>) -> Result<()> {
        let s = &mut self.0;
        match s.padding {
            Padding::None if s.n != 0 => Err(Error::NotBlockAligned { len: s.n }),
            Padding::None => Ok(()),
            Padding::Pkcs7 => {
                let mut last = pkcs7_pad_block(&s.buf[..s.n]);
                s.chain
                    .encrypt(s.aes.borrow(), core::slice::from_mut(&mut last));
                out.extend_from_slice(&last);
                Ok(())
            }
        }
    }
}

/// Streaming ECB/CBC decryption.
pub struct BlockDecryptor<A: Borrow<Aes> = Aes>(Stream<A>);

impl<A: Borrow<Aes>> BlockDecryptor<A> {
    pub(crate) fn new(aes: A, chain: Chain, padding: Padding) -> Self {
        BlockDecryptor(Stream::new(aes, chain, padding))
    }

    /// Decrypt more input; appends released plaintext blocks to `out`.
    pub fn update(&mut self, mut input: &[u8], out: &mut Vec<u8>) {
        if input.is_empty() {
            return;
        }
        let s = &mut self.0;
        let padded = s.padding == Padding::Pkcs7;
        // Complete the pending block only if more input follows it (with
        // padding) — or always (without).
        if s.n > 0 {
            input = fill_block(&mut s.buf, &mut s.n, input);
            if s.n < 16 || (padded && input.is_empty()) {
                return;
            }
            s.chain
                .decrypt(s.aes.borrow(), core::slice::from_mut(&mut s.buf));
            out.extend_from_slice(&s.buf);
            s.n = 0;
        }
        // Hold back the tail: a partial block, or with padding the last full one.
        let mut keep = input.len() % 16;
        if keep == 0 && padded && !input.is_empty() {
            keep = 16;
        }
        s.bulk(input, input.len() - keep, out, false);
    }

    /// Finish: decrypt the held-back block and strip the padding.
    /// Errors: [`Error::NotBlockAligned`] for a partial final block (with
    /// or without padding; `len` is the bytes of that block),
    /// [`Error::BadPadding`] for malformed padding or, with padding, no
    /// input at all.
    pub fn finalize(mut self, out: &mut Vec<u8>) -> Result<()> {
        let s = &mut self.0;
        match s.padding {
            _ if !s.n.is_multiple_of(16) => Err(Error::NotBlockAligned { len: s.n }),
            Padding::None => Ok(()),
            Padding::Pkcs7 if s.n != 16 => Err(Error::BadPadding),
            Padding::Pkcs7 => {
                let mut last = s.buf;
                s.chain
                    .decrypt(s.aes.borrow(), core::slice::from_mut(&mut last));
                let keep = pkcs7_unpad_block(&last);
                if let Ok(k) = keep {
                    out.extend_from_slice(&last[..k]);
                }
                last.zeroize();
                keep.map(|_| ())
            }
        }
    }
}

/// One-shot encryption with padding, shared by ECB and CBC.
pub(crate) fn encrypt_vec(
    aes: &Aes,
    chain: &mut Chain,
    padding: Padding,
    input: &[u8],
) -> Result<Vec<u8>> {
    let mut out = input.to_vec();
    match padding {
        Padding::None => crate::error::aligned(input.len())?,
        Padding::Pkcs7 => crate::padding::pkcs7_pad(&mut out),
    }
    let (blocks, _) = out.as_chunks_mut::<16>();
    chain.encrypt(aes, blocks);
    Ok(out)
}

/// One-shot decryption with padding, shared by ECB and CBC.
pub(crate) fn decrypt_vec(
    aes: &Aes,
    chain: &mut Chain,
    padding: Padding,
    input: &[u8],
) -> Result<Vec<u8>> {
    match padding {
        Padding::None => crate::error::aligned(input.len())?,
        Padding::Pkcs7 if input.is_empty() || !input.len().is_multiple_of(16) => {
            return Err(Error::BadPadding);
        }
        Padding::Pkcs7 => {}
    }
    let mut out = input.to_vec();
    let (blocks, _) = out.as_chunks_mut::<16>();
    chain.decrypt(aes, blocks);
    if padding == Padding::Pkcs7
        && let Err(e) = crate::padding::pkcs7_unpad(&mut out)
    {
        out.zeroize();
        return Err(e);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::{Error, Padding, cbc, ecb};
    use aesflow_cipher::Aes;

    #[test]
    fn unpadded_streaming_and_errors() {
        let aes = Aes::new(&[3u8; 24]).unwrap();
        let iv = [9u8; 16];
        let pt: Vec<u8> = (0..96u8).collect();
        let want = cbc::encrypt(&aes, &iv, Padding::None, &pt).unwrap();
        let mut e = cbc::encryptor(&aes, &iv, Padding::None).unwrap();
        let mut out = Vec::new();
        pt.chunks(7).for_each(|c| e.update(c, &mut out));
        e.finalize(&mut out).unwrap();
        assert_eq!(out, want);
        let mut d = cbc::decryptor(&aes, &iv, Padding::None).unwrap();
        let mut back = Vec::new();
        want.chunks(11).for_each(|c| d.update(c, &mut back));
        d.finalize(&mut back).unwrap();
        assert_eq!(back, pt);
        // Partial final block without padding.
        let mut e = ecb::encryptor(&aes, Padding::None);
        e.update(&pt[..17], &mut out);
        assert_eq!(e.finalize(&mut out), Err(Error::NotBlockAligned { len: 1 }));
        assert_eq!(
            ecb::encrypt(&aes, Padding::None, &pt[..17]),
            Err(Error::NotBlockAligned { len: 17 })
        );
        // Wrong key: bad padding (overwhelmingly likely for this input),
        // from both the one-shot and the streaming decryptor.
        let ct = cbc::encrypt(&aes, &iv, Padding::Pkcs7, b"0123456789").unwrap();
        let other = Aes::new(&[4u8; 24]).unwrap();
        assert_eq!(
            cbc::decrypt(&other, &iv, Padding::Pkcs7, &ct),
            Err(Error::BadPadding)
        );
        let mut d = cbc::decryptor(&other, &iv, Padding::Pkcs7).unwrap();
        let mut sink = Vec::new();
        d.update(&ct, &mut sink);
        assert!(sink.is_empty(), "the padded block is held back");
        assert_eq!(d.finalize(&mut sink), Err(Error::BadPadding));
        // A partial final block is NotBlockAligned with padding too, as
        // the doc says (it was BadPadding); no input at all is BadPadding.
        let long = cbc::encrypt(&aes, &iv, Padding::Pkcs7, &pt).unwrap();
        for cut in [1, 15, 17, 31, 97] {
            let mut d = cbc::decryptor(&aes, &iv, Padding::Pkcs7).unwrap();
            let mut sink = Vec::new();
            d.update(&long[..cut], &mut sink);
            assert_eq!(
                d.finalize(&mut sink),
                Err(Error::NotBlockAligned { len: cut % 16 }),
                "cut {cut}"
            );
        }
        let d = cbc::decryptor(&aes, &iv, Padding::Pkcs7).unwrap();
        assert_eq!(d.finalize(&mut sink), Err(Error::BadPadding));
        // Truncated / empty input.
        assert_eq!(
            cbc::decrypt(&aes, &iv, Padding::Pkcs7, &ct[..15]),
            Err(Error::BadPadding)
        );
        assert_eq!(
            cbc::decrypt(&aes, &iv, Padding::Pkcs7, &[]),
            Err(Error::BadPadding)
        );
        assert!(matches!(
            cbc::encrypt(&aes, &iv[..8], Padding::Pkcs7, b""),
            Err(Error::IvLength { .. })
        ));
        let mut buf = [0u8; 2];
        assert!(matches!(
            crate::Cfb1::new(&aes, &iv)
                .unwrap()
                .encrypt_bits(&mut buf, 17),
            Err(Error::BitLength {
                bits: 17,
                capacity: 16
            })
        ));
    }
}
