//! The running state of one GCM message, and the streaming encryptor and
//! decryptor built on it.

use super::{Gcm, MAX_AAD_LEN, MAX_TEXT_LEN, MIN_TAG_LEN, TAG_LEN, Tag};
use crate::error::{Error, Result, out_of_place, same_len};
use crate::kernels;
use crate::streaming::fill_block;
use aesflow_cipher::{Aes, Block};
use core::borrow::Borrow;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

pub(super) fn check_tag_len(n: usize) -> Result<()> {
    if (MIN_TAG_LEN..=TAG_LEN).contains(&n) {
        Ok(())
    } else {
        Err(Error::TagLength(n))
    }
}

pub(super) fn inc32(b: &mut Block) {
    add32(b, 1);
}

/// `n` applications of `inc32`: the low 32 bits plus `n`, modulo 2^32.
pub(super) fn add32(b: &mut Block, n: u32) {
    let c = u32::from_be_bytes([b[12], b[13], b[14], b[15]]).wrapping_add(n);
    b[12..].copy_from_slice(&c.to_be_bytes());
}

/// Counter mode with GCM's `inc32` through the kernel's 128-bit counter
/// path, split where the low 32 bits wrap.
pub(super) fn ctr32_xor(aes: &Aes, ctr: &mut Block, data: &mut [u8]) {
    let mut rest = data;
    while !rest.is_empty() {
        let c = u32::from_be_bytes([ctr[12], ctr[13], ctr[14], ctr[15]]);
        let until_wrap = (1u64 << 32) - c as u64;
        let take = if rest.len().div_ceil(16) as u64 <= until_wrap {
            rest.len()
        } else {
            (until_wrap * 16) as usize
        };
        let (now, later) = rest.split_at_mut(take);
        let mut block = *ctr;
        aes.ctr_xor(&mut block, now);
        block.zeroize();
        add32(ctr, now.len().div_ceil(16) as u64 as u32);
        rest = later;
    }
}

/// The running state of one GCM message.
pub(super) struct GcmState {
    j0: Block,
    /// The next unused counter block.
    ctr: Block,
    /// GHASH state (reflected domain).
    x: u128,
    /// AAD phase: pending AAD bytes; text phase: ciphertext of the current
    /// partial block.
    buf: Block,
    /// Keystream of the current partial block.
    ks: Block,
    /// Bytes in `buf` (0..16).
    part: usize,
    aad_len: u64,
    text_len: u64,
    in_text: bool,
}

impl Drop for GcmState {
    fn drop(&mut self) {
        kernels::wipe_block(&mut self.j0);
        kernels::wipe_block(&mut self.ctr);
        self.x.zeroize();
        kernels::wipe_block(&mut self.buf);
        kernels::wipe_block(&mut self.ks);
    }
}

impl GcmState {
    /// A message from pre-counter block `j0`; `ctr` the first data counter.
    pub(super) fn new(j0: Block, ctr: Block) -> Self {
        GcmState {
            j0,
            ctr,
            x: 0,
            buf: [0; 16],
            ks: [0; 16],
            part: 0,
            aad_len: 0,
            text_len: 0,
            in_text: false,
        }
    }

    pub(super) fn aad<A: Borrow<Aes>>(&mut self, gcm: &Gcm<A>, mut aad: &[u8]) -> Result<()> {
        if self.in_text {
            return Err(Error::Order("AAD after message data"));
        }
        if aad.is_empty() {
            return Ok(());
        }
        match self.aad_len.checked_add(aad.len() as u64) {
            Some(n) if n <= MAX_AAD_LEN => self.aad_len = n,
            _ => return Err(Error::MessageTooLong),
        }
        if self.part > 0 {
            aad = fill_block(&mut self.buf, &mut self.part, aad);
            if self.part < 16 {
                return Ok(());
            }
            gcm.key.update_blocks(&mut self.x, &self.buf);
            self.part = 0;
        }
        let whole = aad.len() / 16 * 16;
        gcm.key.update_blocks(&mut self.x, &aad[..whole]);
        let rest = &aad[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.part = rest.len();
        Ok(())
    }

    fn start_text<A: Borrow<Aes>>(&mut self, gcm: &Gcm<A>) {
        if !self.in_text {
            if self.part > 0 {
                gcm.key.update_padded(&mut self.x, &self.buf[..self.part]);
            }
            self.part = 0;
            self.in_text = true;
        }
    }

    pub(super) fn crypt<A: Borrow<Aes>>(
        &mut self,
        gcm: &Gcm<A>,
        data: &mut [u8],
        encrypt: bool,
    ) -> Result<()> {
        self.crypt_from(gcm, None, data, encrypt)
    }

    /// As `crypt`, reading the text from `input` (as long as `data`) if
    /// given and writing the result to `data`.
    pub(super) fn crypt_from<A: Borrow<Aes>>(
        &mut self,
        gcm: &Gcm<A>,
        mut input: Option<&[u8]>,
        data: &mut [u8],
        encrypt: bool,
    ) -> Result<()> {
        if let Some(i) = input {
            same_len(i.len(), data.len())?;
        }
        // Empty data does not start the text phase: AAD may still follow
        // (as it may after the decryptor's `update(&[])`).
        if data.is_empty() {
            return Ok(());
        }
        match self.text_len.checked_add(data.len() as u64) {
            Some(n) if n <= MAX_TEXT_LEN => self.text_len = n,
            _ => return Err(Error::MessageTooLong),
        }
        self.start_text(gcm);
        let mut data = data;
        if self.part > 0 {
            // A partial block pending (streaming only): in place.
            if let Some(i) = input.take() {
                data.copy_from_slice(i);
            }
            let n = (16 - self.part).min(data.len());
            let (head, rest) = data.split_at_mut(n);
            for (i, b) in head.iter_mut().enumerate() {
                let c = if encrypt {
                    *b ^ self.ks[self.part + i]
                } else {
                    *b
                };
                *b ^= self.ks[self.part + i];
                self.buf[self.part + i] = c;
            }
            self.part += n;
            data = rest;
            if self.part < 16 {
                return Ok(());
            }
            gcm.key.update_blocks(&mut self.x, &self.buf);
            self.part = 0;
        }
        let whole = data.len() / 16 * 16;
        let (bulk, tail) = data.split_at_mut(whole);
        let (ibulk, itail) = input.map(|i| i.split_at(whole)).unzip();
        gcm.crypt_blocks_from(&mut self.ctr, &mut self.x, ibulk, bulk, encrypt);
        if !tail.is_empty() {
            if let Some(t) = itail {
                tail.copy_from_slice(t);
            }
            self.ks = [0; 16];
            gcm.ctr_xor(&mut self.ctr, None, &mut self.ks);
            for (i, b) in tail.iter_mut().enumerate() {
                let c = if encrypt { *b ^ self.ks[i] } else { *b };
                *b ^= self.ks[i];
                self.buf[i] = c;
            }
            self.part = tail.len();
        }
        Ok(())
    }

    /// The GHASH state after the text so far, its partial last block
    /// zero-padded (no length block).
    pub(super) fn text_ghash<A: Borrow<Aes>>(&mut self, gcm: &Gcm<A>) -> u128 {
        self.start_text(gcm);
        if self.part > 0 {
            gcm.key.update_padded(&mut self.x, &self.buf[..self.part]);
            self.part = 0;
        }
        self.x
    }

    pub(super) fn tag<A: Borrow<Aes>>(&mut self, gcm: &Gcm<A>) -> Tag {
        self.text_ghash(gcm);
        let mut len = [0u8; 16];
        len[..8].copy_from_slice(&(self.aad_len * 8).to_be_bytes());
        len[8..].copy_from_slice(&(self.text_len * 8).to_be_bytes());
        gcm.key.update_blocks(&mut self.x, &len);
        let mut t = self.j0;
        gcm.encrypt_j0(&mut t);
        for (a, b) in t.iter_mut().zip(self.x.to_be_bytes()) {
            *a ^= b;
        }
        t
    }
}

/// Streaming GCM encryption: [`update_aad`](Self::update_aad) (any number
/// of calls, all before the data), then [`update`](Self::update) /
/// [`update_in_place`](Self::update_in_place) with any split, then
/// [`finalize`](Self::finalize) for the tag.
pub struct GcmEncryptor<'a, A: Borrow<Aes> = Aes> {
    gcm: &'a Gcm<A>,
    st: GcmState,
}

impl<'a, A: Borrow<Aes>> GcmEncryptor<'a, A> {
    pub(super) fn new(gcm: &'a Gcm<A>, st: GcmState) -> Self {
        GcmEncryptor { gcm, st }
    }

    /// Absorb more AAD; [`Error::Order`] once data has started.
    pub fn update_aad(&mut self, aad: &[u8]) -> Result<()> {
        self.st.aad(self.gcm, aad)
    }

    /// Encrypt in place.
    pub fn update_in_place(&mut self, buf: &mut [u8]) -> Result<()> {
        self.st.crypt(self.gcm, buf, true)
    }

    /// Encrypt `input` into `output` (same length).
    pub fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<()> {
        out_of_place(input, output, |b| self.update_in_place(b))
    }

    /// The full 16-byte tag.
    pub fn finalize(mut self) -> Tag {
        self.st.tag(self.gcm)
    }
}

/// Streaming GCM decryption that never releases unauthenticated plaintext:
/// ciphertext given to [`update`](Self::update) is buffered (in memory) and
/// decrypted and verified in one pass by [`finalize`](Self::finalize).
pub struct GcmDecryptor<'a, A: Borrow<Aes> = Aes> {
    gcm: &'a Gcm<A>,
    st: GcmState,
    ct: Vec<u8>,
}

impl<'a, A: Borrow<Aes>> GcmDecryptor<'a, A> {
    pub(super) fn new(gcm: &'a Gcm<A>, st: GcmState) -> Self {
        GcmDecryptor {
            gcm,
            st,
            ct: Vec::new(),
        }
    }

    /// Absorb more AAD; [`Error::Order`] once data has started.
    pub fn update_aad(&mut self, aad: &[u8]) -> Result<()> {
        if !self.ct.is_empty() {
            return Err(Error::Order("AAD after message data"));
        }
        self.st.aad(self.gcm, aad)
    }

    /// Buffer more ciphertext.
    pub fn update(&mut self, ciphertext: &[u8]) -> Result<()> {
        if (self.ct.len() + ciphertext.len()) as u64 > MAX_TEXT_LEN {
            return Err(Error::MessageTooLong);
        }
        self.ct.extend_from_slice(ciphertext);
        Ok(())
    }

    /// Decrypt, verify `tag` (4..=16 bytes) and return the plaintext, or an
    /// error (the buffered data is zeroed).
    pub fn finalize(mut self, tag: &[u8]) -> Result<Vec<u8>> {
        check_tag_len(tag.len())?;
        let mut out = core::mem::take(&mut self.ct);
        self.st.crypt(self.gcm, &mut out, false)?;
        let mut full = self.st.tag(self.gcm);
        let ok: bool = full[..tag.len()].ct_eq(tag).into();
        full.zeroize();
        if ok {
            Ok(out)
        } else {
            out.zeroize();
            Err(Error::AuthenticationFailed)
        }
    }
}
