//! GCM, Galois/Counter Mode (SP 800-38D): authenticated encryption.
//!
//! `J0` = nonce ‖ 0^31 ‖ 1 for a 96-bit nonce, else GHASH of the zero-padded
//! nonce and its bit length; the data is encrypted in counter mode from
//! `inc32(J0)` (only the low 32 bits count); the tag is
//! `E(J0) ⊕ GHASH(A ‖ 0* ‖ C ‖ 0* ‖ [len A]_64 ‖ [len C]_64)`, truncated to
//! 4..=16 bytes if the caller wishes (SP 800-38D §5.2.1.2 and Appendix C:
//! tags shorter than 12 bytes need care).
//!
//! # Speed
//!
//! With an offline key schedule and a hardware AES kernel (`aesni`, `vaes`,
//! as [`Aes::new`] picks automatically), [`Gcm`] runs a *fused* kernel that
//! encrypts and authenticates in one pass: the AES rounds for the next group
//! of counter blocks run interleaved with the carry-less multiplications of
//! the previous group's ciphertext (VAES + VPCLMULQDQ on AVX-512, 16 blocks a
//! group; AES-NI + PCLMULQDQ, 8 blocks). Other kernels and online key
//! expansion go through the generic path: the kernel's own CTR, then GHASH
//! ([`GhashImpl`]) over the same 4 KiB chunk while it is in cache.
//!
//! Measured on the development machine (2-core Intel Xeon @ 2.5 GHz with
//! AES-NI, PCLMULQDQ and AVX-512F/BW but **no** VAES/VPCLMULQDQ, shared with
//! other jobs), AES-128-GCM seal of 16 KiB, best batch:
//! `cargo run -p aesflow-modes --release --example gcm_speed 16384 128 seal`
//! gives ≈ 4.75 GB/s with the fused AES-NI kernel (hand-scheduled assembly;
//! 3.3 GB/s before it), i.e. CTR speed (≈ 4.9 GB/s; at 1 MiB both ≈ 4.9):
//! the GHASH runs entirely in the shadow of the AES rounds, for every key
//! size. `aesflow bench --modes` (13-byte AAD, best of 5 runs) puts it at
//! 4.5 / 3.9 / 3.3 GB/s for AES-128/192/256 beside `openssl speed -evp
//! aes-N-gcm -aead` at 3.8 / 3.5 / 3.0 in the same runs. The VAES kernel is
//! compiled and selected at run time but could not be run on that machine;
//! it shares its body with the generic 128-bit fused kernel, which the tests
//! compare against the assembly one, and every test forces it wherever the
//! CPU has it.
//!
//! # Decryption never releases unauthenticated plaintext
//!
//! [`Gcm::open_in_place_detached`] decrypts and authenticates in the same
//! pass, compares the tag in constant time, and on mismatch zeroes the buffer
//! before returning [`Error::AuthenticationFailed`]. The streaming
//! [`GcmDecryptor`] buffers the ciphertext and only returns plaintext from
//! `finalize`, after the tag verified.
//!
//! ```
//! use aesflow_modes::gcm::Gcm;
//! let gcm = Gcm::new(&[0x42; 32]).unwrap();
//! let nonce = [7u8; 12];
//! let sealed = gcm.seal(&nonce, b"header", b"secret").unwrap();
//! assert_eq!(gcm.open(&nonce, b"header", &sealed).unwrap(), b"secret");
//! let mut bad = sealed.clone();
//! bad[0] ^= 1;
//! assert!(gcm.open(&nonce, b"header", &bad).is_err());
//! ```

pub mod ghash;

pub use ghash::{GhashImpl, GhashKey};

use crate::error::{Error, Result, same_len};
use crate::kernels::{self, Fused};
use aesflow_cipher::{Aes, Block, Isa, KeySchedule};
use core::borrow::Borrow;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

/// A full-length GCM tag.
pub type Tag = [u8; 16];

/// The recommended nonce length (96 bits).
pub const NONCE_LEN: usize = 12;
/// The full tag length.
pub const TAG_LEN: usize = 16;
/// The shortest tag accepted.
pub const MIN_TAG_LEN: usize = 4;
/// The longest plaintext: 2^39 − 256 bits.
pub const MAX_TEXT_LEN: u64 = (1 << 36) - 32;
/// The longest AAD: 2^64 − 1 bits, rounded down to bytes.
pub const MAX_AAD_LEN: u64 = (1 << 61) - 1;

/// Which fused AES+GHASH kernel to use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FusedChoice {
    /// The one of the AES kernel's family ([`Kernel::isa`]): AES-NI +
    /// PCLMULQDQ for `aesni`, VAES + VPCLMULQDQ for `vaes`, none for a
    /// portable kernel or an online key schedule.
    ///
    /// [`Kernel::isa`]: aesflow_cipher::Kernel::isa
    #[default]
    Auto,
    /// Never: always the generic path through the AES kernel.
    Off,
    /// AES-NI + PCLMULQDQ (error if unavailable or online key schedule).
    Aesni,
    /// VAES + VPCLMULQDQ, AVX-512 (error if unavailable or online schedule).
    Vaes,
}

/// Construction options for [`Gcm::with_options`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GcmOptions {
    /// The GHASH backend (`None`: the one of the AES kernel's family,
    /// [`GhashImpl::for_isa`]).
    pub ghash: Option<GhashImpl>,
    /// The fused kernel policy.
    pub fused: FusedChoice,
}

/// AES-GCM with a key: one-shot seal/open, and streaming.
///
/// Generic over how it holds the cipher: `Gcm<Aes>` owns it (the default;
/// [`Gcm::new`]), `Gcm<&Aes>` borrows it.
#[derive(Clone)]
pub struct Gcm<A: Borrow<Aes> = Aes> {
    aes: A,
    key: GhashKey,
    fused: Option<Fused>,
}

impl<A: Borrow<Aes>> core::fmt::Debug for Gcm<A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Gcm")
            .field("aes", self.aes.borrow())
            .field("ghash", &self.key.implementation())
            .field("fused", &self.fused)
            .finish()
    }
}

impl Gcm<Aes> {
    /// AES-GCM with the default AES kernel (fastest constant-time one) and
    /// offline key expansion. The key is 16, 24 or 32 bytes.
    pub fn new(key: &[u8]) -> Result<Self> {
        Ok(Self::from_aes(Aes::new(key)?))
    }
}

impl<A: Borrow<Aes>> Gcm<A> {
    /// AES-GCM over an AES instance (any kernel, either key expansion),
    /// with automatic choice of GHASH backend and fused kernel.
    pub fn from_aes(aes: A) -> Self {
        Self::with_options(aes, GcmOptions::default()).expect("automatic choices always succeed")
    }

    /// AES-GCM with explicit implementation choices; an error if a requested
    /// implementation is not available.
    pub fn with_options(aes: A, options: GcmOptions) -> Result<Self> {
        let a = aes.borrow();
        let isa = a.kernel().isa();
        let imp = match options.ghash {
            None => GhashImpl::for_isa(isa),
            Some(g) if g.is_available() => g,
            Some(g) => return Err(Error::Unavailable(g.name())),
        };
        let offline = matches!(a.key_schedule(), KeySchedule::Offline(_));
        let want = |f: Fused, name| {
            if f.is_available() && offline {
                Ok(Some(f))
            } else {
                Err(Error::Unavailable(name))
            }
        };
        let fused = match options.fused {
            FusedChoice::Off => None,
            FusedChoice::Aesni => {
                want(Fused::Aesni, "fused AES-NI GCM kernel (needs offline keys)")?
            }
            FusedChoice::Vaes => want(Fused::Vaes, "fused VAES GCM kernel (needs offline keys)")?,
            FusedChoice::Auto => match isa {
                Isa::Vaes => Some(Fused::Vaes),
                Isa::Aesni => Some(Fused::Aesni),
                Isa::Portable => None,
            }
            .filter(|f| offline && f.is_available()),
        };
        let mut h = [0u8; 16];
        a.encrypt_block(&mut h);
        let key = GhashKey::new(&h, imp);
        h.zeroize();
        Ok(Gcm { aes, key, fused })
    }

    /// The AES instance.
    pub fn aes(&self) -> &Aes {
        self.aes.borrow()
    }

    /// The GHASH backend in use.
    pub fn ghash_impl(&self) -> GhashImpl {
        self.key.implementation()
    }

    /// The fused kernel in use, if any: `"aesni+pclmul"` or `"vaes+vpclmul"`.
    pub fn fused_kernel(&self) -> Option<&'static str> {
        self.fused.map(|f| match f {
            Fused::Aesni => "aesni+pclmul",
            Fused::Vaes => "vaes+vpclmul",
        })
    }

    /// The pre-counter block J0 (SP 800-38D §7.1 step 2).
    fn j0(&self, nonce: &[u8]) -> Result<Block> {
        if nonce.is_empty() || nonce.len() as u64 > u64::MAX / 8 {
            return Err(Error::IvLength {
                expected: "at least 1 byte (12 recommended)",
                got: nonce.len(),
            });
        }
        if nonce.len() == NONCE_LEN {
            let mut j = [0u8; 16];
            j[..12].copy_from_slice(nonce);
            j[15] = 1;
            return Ok(j);
        }
        let mut x = 0u128;
        self.key.update_padded(&mut x, nonce);
        let mut len = [0u8; 16];
        len[8..].copy_from_slice(&(nonce.len() as u64 * 8).to_be_bytes());
        self.key.update_blocks(&mut x, &len);
        Ok(x.to_be_bytes())
    }

    /// CTR (inc32) + GHASH over whole blocks.
    fn crypt_blocks(&self, ctr: &mut Block, x: &mut u128, mut data: &mut [u8], encrypt: bool) {
        let aes = self.aes.borrow();
        if let (Some(f), KeySchedule::Offline(rk)) = (self.fused, aes.key_schedule()) {
            let n = kernels::gcm_fused(f, rk.enc(), &self.key.powers, ctr, x, data, encrypt);
            data = &mut data[n..];
        }
        for chunk in data.chunks_mut(4096) {
            if !encrypt {
                self.key.update_blocks(x, chunk);
            }
            ctr32_xor(aes, ctr, chunk);
            if encrypt {
                self.key.update_blocks(x, chunk);
            }
        }
    }

    fn state(&self, nonce: &[u8]) -> Result<GcmState> {
        let j0 = self.j0(nonce)?;
        let mut ctr = j0;
        inc32(&mut ctr);
        Ok(GcmState {
            j0,
            ctr,
            x: 0,
            buf: [0; 16],
            ks: [0; 16],
            part: 0,
            aad_len: 0,
            text_len: 0,
            in_text: false,
        })
    }

    /// Encrypt `buf` in place; returns the full 16-byte tag (truncate it if
    /// a shorter one is wanted).
    pub fn seal_in_place_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag> {
        let mut st = self.state(nonce)?;
        st.aad(self, aad)?;
        st.crypt(self, buf, true)?;
        Ok(st.tag(self))
    }

    /// Decrypt `buf` in place and verify `tag` (4..=16 bytes, a prefix of
    /// the full tag) in constant time. On failure `buf` is zeroed and
    /// [`Error::AuthenticationFailed`] returned.
    pub fn open_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        check_tag_len(tag.len())?;
        let mut st = self.state(nonce)?;
        st.aad(self, aad)?;
        st.crypt(self, buf, false)?;
        let mut full = st.tag(self);
        let ok: bool = full[..tag.len()].ct_eq(tag).into();
        full.zeroize();
        if ok {
            Ok(())
        } else {
            buf.zeroize();
            Err(Error::AuthenticationFailed)
        }
    }

    /// Encrypt `input` into `output` (same length); returns the tag.
    pub fn seal_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        input: &[u8],
        output: &mut [u8],
    ) -> Result<Tag> {
        same_len(input.len(), output.len())?;
        output.copy_from_slice(input);
        self.seal_in_place_detached(nonce, aad, output)
    }

    /// Decrypt `input` into `output` (same length) and verify `tag`; on
    /// failure `output` is zeroed.
    pub fn open_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        input: &[u8],
        tag: &[u8],
        output: &mut [u8],
    ) -> Result<()> {
        same_len(input.len(), output.len())?;
        output.copy_from_slice(input);
        self.open_in_place_detached(nonce, aad, output, tag)
    }

    /// Encrypt: returns ciphertext ‖ 16-byte tag.
    pub fn seal(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(plaintext.len() + TAG_LEN);
        out.extend_from_slice(plaintext);
        let tag = self.seal_in_place_detached(nonce, aad, &mut out)?;
        out.extend_from_slice(&tag);
        Ok(out)
    }

    /// Decrypt ciphertext ‖ 16-byte tag; the plaintext only if it verifies.
    pub fn open(&self, nonce: &[u8], aad: &[u8], sealed: &[u8]) -> Result<Vec<u8>> {
        self.open_with_tag_len(nonce, aad, sealed, TAG_LEN)
    }

    /// Decrypt ciphertext ‖ tag of `tag_len` (4..=16) bytes.
    pub fn open_with_tag_len(
        &self,
        nonce: &[u8],
        aad: &[u8],
        sealed: &[u8],
        tag_len: usize,
    ) -> Result<Vec<u8>> {
        check_tag_len(tag_len)?;
        let Some(ct_len) = sealed.len().checked_sub(tag_len) else {
            return Err(Error::AuthenticationFailed);
        };
        let (ct, tag) = sealed.split_at(ct_len);
        let mut out = ct.to_vec();
        self.open_in_place_detached(nonce, aad, &mut out, tag)?;
        Ok(out)
    }

    /// A streaming encryptor (AAD first, then data in any split).
    pub fn encryptor(&self, nonce: &[u8]) -> Result<GcmEncryptor<'_, A>> {
        Ok(GcmEncryptor {
            gcm: self,
            st: self.state(nonce)?,
        })
    }

    /// A streaming decryptor. It buffers the ciphertext and releases the
    /// plaintext only from [`GcmDecryptor::finalize`], after the tag checks.
    pub fn decryptor(&self, nonce: &[u8]) -> Result<GcmDecryptor<'_, A>> {
        Ok(GcmDecryptor {
            gcm: self,
            st: self.state(nonce)?,
            ct: Vec::new(),
        })
    }
}

fn check_tag_len(n: usize) -> Result<()> {
    if (MIN_TAG_LEN..=TAG_LEN).contains(&n) {
        Ok(())
    } else {
        Err(Error::TagLength(n))
    }
}

fn inc32(b: &mut Block) {
    let c = u32::from_be_bytes([b[12], b[13], b[14], b[15]]).wrapping_add(1);
    b[12..].copy_from_slice(&c.to_be_bytes());
}

/// Counter mode with GCM's `inc32` through the kernel's 128-bit counter
/// path, split where the low 32 bits wrap.
fn ctr32_xor(aes: &Aes, ctr: &mut Block, data: &mut [u8]) {
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
        let used = now.len().div_ceil(16) as u64 as u32;
        ctr[12..].copy_from_slice(&c.wrapping_add(used).to_be_bytes());
        rest = later;
    }
}

/// The running state of one GCM message.
struct GcmState {
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
    fn aad<A: Borrow<Aes>>(&mut self, gcm: &Gcm<A>, mut aad: &[u8]) -> Result<()> {
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
            let n = (16 - self.part).min(aad.len());
            self.buf[self.part..self.part + n].copy_from_slice(&aad[..n]);
            self.part += n;
            aad = &aad[n..];
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

    fn crypt<A: Borrow<Aes>>(
        &mut self,
        gcm: &Gcm<A>,
        data: &mut [u8],
        encrypt: bool,
    ) -> Result<()> {
        match self.text_len.checked_add(data.len() as u64) {
            Some(n) if n <= MAX_TEXT_LEN => self.text_len = n,
            _ => return Err(Error::MessageTooLong),
        }
        self.start_text(gcm);
        let mut data = data;
        if self.part > 0 {
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
        gcm.crypt_blocks(&mut self.ctr, &mut self.x, bulk, encrypt);
        if !tail.is_empty() {
            self.ks = [0; 16];
            ctr32_xor(gcm.aes.borrow(), &mut self.ctr, &mut self.ks);
            for (i, b) in tail.iter_mut().enumerate() {
                let c = if encrypt { *b ^ self.ks[i] } else { *b };
                *b ^= self.ks[i];
                self.buf[i] = c;
            }
            self.part = tail.len();
        }
        Ok(())
    }

    fn tag<A: Borrow<Aes>>(&mut self, gcm: &Gcm<A>) -> Tag {
        self.start_text(gcm);
        if self.part > 0 {
            gcm.key.update_padded(&mut self.x, &self.buf[..self.part]);
            self.part = 0;
        }
        let mut len = [0u8; 16];
        len[..8].copy_from_slice(&(self.aad_len * 8).to_be_bytes());
        len[8..].copy_from_slice(&(self.text_len * 8).to_be_bytes());
        gcm.key.update_blocks(&mut self.x, &len);
        let mut t = self.j0;
        gcm.aes.borrow().encrypt_block(&mut t);
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

impl<A: Borrow<Aes>> GcmEncryptor<'_, A> {
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
        same_len(input.len(), output.len())?;
        output.copy_from_slice(input);
        self.update_in_place(output)
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

impl<A: Borrow<Aes>> GcmDecryptor<'_, A> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// inc32 wraps the low 32 bits only, in the generic and the fused paths.
    #[test]
    fn counter_wraps_in_32_bits_on_every_path() {
        let aes = Aes::new(&[9u8; 16]).unwrap();
        let start: Block = [
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0xff, 0xff, 0xff, 0xf0,
        ];
        let len = 16 * 40 + 16;
        // Reference: one block at a time, inc32 by hand.
        let mut want = vec![0u8; len];
        let mut c = start;
        for blk in want.chunks_mut(16) {
            let mut k = c;
            aes.encrypt_block(&mut k);
            blk.copy_from_slice(&k);
            inc32(&mut c);
        }
        assert_eq!(&c[..12], &start[..12]);
        for fused in [FusedChoice::Off, FusedChoice::Aesni, FusedChoice::Vaes] {
            for ghash in GhashImpl::ALL {
                let opts = GcmOptions {
                    ghash: Some(ghash),
                    fused,
                };
                let Ok(gcm) = Gcm::with_options(&aes, opts) else {
                    continue;
                };
                let (mut ctr, mut x) = (start, 0u128);
                let mut data = vec![0u8; len];
                gcm.crypt_blocks(&mut ctr, &mut x, &mut data, true);
                assert_eq!(data, want, "{opts:?}");
                assert_eq!(ctr, c, "{opts:?}");
                let mut x2 = 0u128;
                gcm.key.update_blocks(&mut x2, &data);
                assert_eq!(x, x2, "{opts:?}");
                // And decryption.
                let (mut ctr, mut x) = (start, 0u128);
                gcm.crypt_blocks(&mut ctr, &mut x, &mut data, false);
                assert!(data.iter().all(|&b| b == 0));
                assert_eq!(x, x2);
            }
        }
    }

    #[test]
    fn bad_inputs_are_errors() {
        let gcm = Gcm::new(&[1u8; 16]).unwrap();
        assert!(matches!(
            gcm.seal(&[], b"", b"x"),
            Err(Error::IvLength { .. })
        ));
        let sealed = gcm.seal(&[0; 12], b"", b"hello").unwrap();
        for bad in [0, 3, 17] {
            assert_eq!(
                gcm.open_with_tag_len(&[0; 12], b"", &sealed, bad),
                Err(Error::TagLength(bad))
            );
        }
        assert_eq!(
            gcm.open(&[0; 12], b"", &sealed[..10]),
            Err(Error::AuthenticationFailed)
        );
        assert_eq!(
            gcm.open_with_tag_len(&[0; 12], b"", &sealed[..5 + 4], 4)
                .unwrap(),
            b"hello"
        );
        assert!(Gcm::new(&[0u8; 15]).is_err());
    }
}
