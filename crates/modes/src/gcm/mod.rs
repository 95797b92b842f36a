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
//! With an offline key schedule and a hardware AES kernel (`aesni`,
//! `vaes256`, `vaes`, as [`Aes::new`] picks automatically), [`Gcm`] runs a
//! *fused* kernel of the kernel's register width that encrypts and
//! authenticates in one pass: the AES rounds for a group of counter
//! blocks run interleaved with the carry-less multiplications of an earlier
//! group's ciphertext (AES-NI + PCLMULQDQ, 8 blocks a group, in
//! hand-scheduled assembly; VAES + VPCLMULQDQ on ymm or zmm registers, 16
//! blocks a group, Karatsuba multiplication and one reduction per 4
//! groups, aggregated over H^64..H^1; the few blocks after the last group
//! with AES-NI). On zmm registers a second variant,
//! [`FusedChoice::Vaes32`], runs 32 blocks a group (eight independent AES
//! chains, one reduction per 2 groups): on a core that starts two 512-bit
//! `VAESENC` per cycle, four chains leave half its AES throughput unused.
//! Which of the two runs is the plan's choice (`aesflow-plan`: the table of
//! measured CPUs, or a plan the caller passes as [`FusedChoice::Plan`]);
//! `cargo bench -p aesflow-modes --bench modes_speed` and `aesflow bench
//! --modes --mode-ops gcm-seal,gcm-open` measure both side by side.
//! `seal_into` / `open_into` run the fused kernels from the input straight
//! into the output. Other kernels and online key
//! expansion go through the generic path: the kernel's own CTR, then GHASH
//! ([`GhashImpl`]) over the same 4 KiB chunk while it is in cache.
//!
//! A whole message with a 96-bit nonce through a fused kernel (every
//! one-shot `seal*` / `open*`) keeps its fixed cost low: J0, the counter and
//! the length block are built in registers, the AAD is hashed with one
//! reduction (its partial block loaded without a stack buffer), and after
//! the fused kernel's groups one AES-NI batch encrypts the blocks left and
//! `E(J0)` together, then one reduction hashes their ciphertext with the
//! length block (`kernels::gcm_finish`); a text of whole groups of a
//! vector kernel ends in the fused kernel itself (`E(J0)` beside its first
//! group, the length block hashed with its last groups' state); the tag is compared
//! as one masked 128-bit value. The streaming API and other nonce lengths
//! keep the block-by-block state machine.
//!
//! With the `vaes` kernel a short or middle-sized message — up to 4 KiB of
//! text (`kernels::SMALL_TEXT`) — goes through one AVX-512 function instead
//! (`kernels::gcm_small`): the text in chunks of eight AES chains in zmm
//! registers, the last register loaded and stored with a byte mask (no
//! buffer for a partial block), `E(J0)` as a 128-bit AES chain beside the
//! last products, and the AAD (up to 64 bytes in one masked register; a
//! longer one hashed first), every ciphertext block and the length block
//! multiplied by their powers of H and summed, one reduction per 64 blocks
//! with the state carried into the next; decryption hashes the input beside
//! the AES rounds. Nothing secret is spilled to the stack (the round keys
//! are broadcast from the schedule where each chunk uses them); both
//! 512-bit fused variants use it. With the `aesni` kernel a text up to 640
//! bytes skips the fused kernel (`kernels::AESNI_SHORT`).
//!
//! `aesflow bench --modes --mode-ops gcm-seal,gcm-open` measures every
//! variant beside Intel ipsec-mb in the same run; the README's performance
//! section has the figures.
//!
//! # Decryption never releases unauthenticated plaintext
//!
//! [`Gcm::open_in_place_detached`] decrypts and authenticates in the same
//! pass, compares the tag in constant time, and on mismatch zeroes the buffer
//! before returning [`Error::AuthenticationFailed`]. The streaming
//! [`GcmDecryptor`] buffers the ciphertext and only returns plaintext from
//! `finalize`, after the tag verified. The one exception is explicit:
//! [`Gcm::open_piece_unverified`], for a caller that opens a message in
//! pieces (on several threads) and must itself check the assembled tag —
//! and wipe every piece on mismatch — before releasing anything.
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
use aesflow_cipher::{Aes, Block, KeySchedule};
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
    /// The one of the AES kernel's width ([`Kernel::vector_bits`]): AES-NI +
    /// PCLMULQDQ for `aesni`, VAES + VPCLMULQDQ on ymm for `vaes256` and on
    /// zmm for `vaes`, none for a portable kernel or an online key schedule.
    ///
    /// [`Kernel::vector_bits`]: aesflow_cipher::Kernel::vector_bits
    #[default]
    Auto,
    /// Never: always the generic path through the AES kernel.
    Off,
    /// AES-NI + PCLMULQDQ (error if unavailable or online key schedule).
    Aesni,
    /// VAES + VPCLMULQDQ, AVX-512, 16 blocks per group (error if
    /// unavailable or online schedule).
    Vaes,
    /// VAES + VPCLMULQDQ, AVX-512, 32 blocks per group: eight independent
    /// AES chains, for cores that start two 512-bit `VAESENC` per cycle
    /// (four chains are bound by the instruction's latency there). The
    /// same API, results and short-message path as [`FusedChoice::Vaes`];
    /// an error if unavailable or online schedule.
    Vaes32,
    /// VAES + VPCLMULQDQ on 256-bit registers, AVX2 (error if unavailable
    /// or online schedule).
    Vaes256,
    /// As [`Auto`](Self::Auto), with the 512-bit kernel's blocks in flight
    /// (16 or 32) from this plan; `Auto` follows the table of measured CPUs
    /// ([`Plan::for_this_cpu`](aesflow_plan::Plan::for_this_cpu)).
    Plan(aesflow_plan::Plan),
}

impl FusedChoice {
    /// The plan an automatic choice follows.
    fn plan(self) -> aesflow_plan::Plan {
        match self {
            FusedChoice::Plan(p) => p,
            _ => aesflow_plan::Plan::for_this_cpu(),
        }
    }
}

/// When the fused kernels prefetch the text ahead of the group they are
/// on ([`Gcm::with_prefetch`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Prefetch {
    /// Texts of 64 KiB or more: a shorter one is usually in cache already
    /// (a message just written or received), where the prefetches are only
    /// instructions beside the rounds.
    #[default]
    Long,
    /// Every text: the calls are parts of a larger buffer that streams
    /// from memory (Cobblestone's chunks of 16 KiB).
    Always,
    /// As `Always`, and an output written out of place goes past the
    /// caches where the 512-bit kernels can (non-temporal stores of whole
    /// lines): the output of a call on a buffer larger than the caches,
    /// which would leave them anyway, is then not read for ownership first
    /// (a third of an out-of-place call's memory traffic).
    Stream,
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
    prefetch: Prefetch,
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
            FusedChoice::Vaes32 => want(
                Fused::Vaes32,
                "fused 32-block VAES GCM kernel (needs offline keys)",
            )?,
            FusedChoice::Vaes256 => want(
                Fused::Vaes256,
                "fused 256-bit VAES GCM kernel (needs offline keys)",
            )?,
            FusedChoice::Auto | FusedChoice::Plan(_) => match a.kernel().vector_bits() {
                512 if options.fused.plan().gcm_32_blocks() => Some(Fused::Vaes32),
                512 => Some(Fused::Vaes),
                256 => Some(Fused::Vaes256),
                128 => Some(Fused::Aesni),
                _ => None,
            }
            .filter(|f| offline && f.is_available()),
        };
        let mut h = [0u8; 16];
        a.encrypt_block(&mut h);
        let key = GhashKey::new(&h, imp);
        h.zeroize();
        Ok(Gcm {
            aes,
            key,
            fused,
            prefetch: Prefetch::Long,
        })
    }

    /// The same key with the prefetch policy `prefetch` (by default
    /// [`Prefetch::Long`]).
    pub fn with_prefetch(mut self, prefetch: Prefetch) -> Self {
        self.prefetch = prefetch;
        self
    }

    /// The AES instance.
    pub fn aes(&self) -> &Aes {
        self.aes.borrow()
    }

    /// The GHASH backend in use.
    pub fn ghash_impl(&self) -> GhashImpl {
        self.key.implementation()
    }

    /// The fused kernel in use, if any: `"aesni+pclmul"`, `"vaes256+vpclmul"`,
    /// `"vaes+vpclmul"` or (32 blocks per group) `"vaes+vpclmul/32"`.
    pub fn fused_kernel(&self) -> Option<&'static str> {
        self.fused.map(|f| match f {
            Fused::Aesni => "aesni+pclmul",
            Fused::Vaes => "vaes+vpclmul",
            Fused::Vaes32 => "vaes+vpclmul/32",
            Fused::Vaes256 => "vaes256+vpclmul",
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

    /// `E(J0)` for the tag: with AES-NI straight from the offline round keys
    /// when a fused kernel runs (every fused kernel implies AES-NI), else
    /// through the AES kernel.
    fn encrypt_j0(&self, b: &mut Block) {
        match self.fast_keys() {
            Some(rk) => kernels::encrypt_block(rk, b),
            None => self.aes.borrow().encrypt_block(b),
        }
    }

    /// The offline encryption round keys when a fused kernel runs (every
    /// fused kernel implies AES-NI): the few blocks around the fused
    /// kernel's groups run AES-NI on them directly.
    fn fast_keys(&self) -> Option<&[[u8; 16]]> {
        match (self.fused, self.aes.borrow().key_schedule()) {
            (Some(_), KeySchedule::Offline(rk)) if kernels::has_pclmul() => Some(rk.enc()),
            _ => None,
        }
    }

    /// GCM's counter mode over `data` (in place or from `input`), `ctr`
    /// advanced by a block per 16 bytes or part: AES-NI from the round keys
    /// (`fast_keys`), else the AES kernel.
    pub(super) fn ctr_xor(&self, ctr: &mut Block, input: Option<&[u8]>, data: &mut [u8]) {
        match self.fast_keys() {
            Some(rk) => kernels::ctr32(rk, ctr, input, data),
            None => {
                if let Some(i) = input {
                    data.copy_from_slice(i);
                }
                ctr32_xor(self.aes.borrow(), ctr, data)
            }
        }
    }

    /// CTR (inc32) + GHASH over whole blocks, in place.
    #[cfg(test)]
    fn crypt_blocks(&self, ctr: &mut Block, x: &mut u128, data: &mut [u8], encrypt: bool) {
        self.crypt_blocks_from(ctr, x, None, data, encrypt)
    }

    /// CTR (inc32) + GHASH over whole blocks of `data`, in place or from
    /// `input` (as long as `data`): the fused kernel reads `input` and
    /// writes `data` (no copy), the generic path copies first.
    fn crypt_blocks_from(
        &self,
        ctr: &mut Block,
        x: &mut u128,
        mut input: Option<&[u8]>,
        mut data: &mut [u8],
        encrypt: bool,
    ) {
        let aes = self.aes.borrow();
        if let (Some(f), KeySchedule::Offline(rk)) = (self.fused, aes.key_schedule()) {
            let (n, _) = kernels::gcm_fused(
                f,
                rk.enc(),
                &self.key,
                ctr,
                x,
                (input, data),
                encrypt,
                None,
                self.prefetch,
            );
            add32(ctr, (n / 16) as u32);
            data = &mut data[n..];
            input = input.map(|i| &i[n..]);
            if !data.is_empty() {
                // Fewer blocks than a group: AES-NI, then (at most 15
                // blocks) the short-input GHASH.
                if !encrypt {
                    self.key.update_blocks(x, input.unwrap_or(data));
                }
                self.ctr_xor(ctr, input, data);
                if encrypt {
                    self.key.update_blocks(x, data);
                }
            }
            return;
        }
        if let Some(i) = input {
            data.copy_from_slice(i);
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
        Ok(GcmState::new(j0, ctr))
    }

    /// Encrypt `buf` in place; returns the full 16-byte tag (truncate it if
    /// a shorter one is wanted).
    pub fn seal_in_place_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag> {
        self.seal_from(nonce, aad, None, buf)
    }

    /// Seal `input` (or `out` itself, in place) into `out`; the tag.
    fn seal_from(
        &self,
        nonce: &[u8],
        aad: &[u8],
        input: Option<&[u8]>,
        out: &mut [u8],
    ) -> Result<Tag> {
        if let Some(tag) = self.one_shot(nonce, aad, input, out, true)? {
            return Ok(tag.to_be_bytes());
        }
        let mut st = self.state(nonce)?;
        st.aad(self, aad)?;
        st.crypt_from(self, input, out, true)?;
        Ok(st.tag(self))
    }

    /// A whole message with a 96-bit nonce through a fused kernel in one
    /// pass, the common case of `seal_from` / `open_from` (`None`
    /// otherwise): the AAD's GHASH with one reduction, the fused kernel's
    /// whole groups, then the blocks left, `E(J0)` and the length block in
    /// one AES-NI batch and one reduction (`kernels::gcm_finish`), or, if
    /// none are left, `E(J0)` and the length block in the fused kernel; a short
    /// text with the `vaes` kernel all in one function
    /// (`kernels::gcm_small`). Returns
    /// the full tag as `u128::from_be_bytes` (for `open`, computed from the
    /// input ciphertext; the caller compares it): the kernels return it in
    /// registers, and a tag stored as two halves and loaded whole would
    /// stall on store forwarding.
    fn one_shot(
        &self,
        nonce: &[u8],
        aad: &[u8],
        input: Option<&[u8]>,
        out: &mut [u8],
        encrypt: bool,
    ) -> Result<Option<u128>> {
        let (Some(f), Some(rk), true) = (self.fused, self.fast_keys(), nonce.len() == NONCE_LEN)
        else {
            return Ok(None);
        };
        if let Some(i) = input {
            same_len(i.len(), out.len())?;
        }
        if out.len() as u64 > MAX_TEXT_LEN || aad.len() as u64 > MAX_AAD_LEN {
            return Err(Error::MessageTooLong);
        }
        // J0 = nonce ‖ 1 and the first counter, nonce ‖ 2, built in
        // registers as `u128::from_be_bytes` (a block assembled in memory
        // bytewise and read back whole stalls on store forwarding).
        let hi = u64::from_be_bytes(nonce[..8].try_into().expect("8 bytes"));
        let mid = u32::from_be_bytes(nonce[8..].try_into().expect("4 bytes"));
        let j0 = ((hi as u128) << 64) | ((mid as u128) << 32) | 1;
        let lens = ((aad.len() as u128 * 8) << 64) | (out.len() as u128 * 8);
        if matches!(f, Fused::Vaes | Fused::Vaes32) && out.len() <= kernels::SMALL_TEXT {
            // A short message: everything in one function, in registers.
            let (mut x, tail) = match aad.len() {
                0..=kernels::SMALL_AAD => (None, aad),
                _ => (Some(kernels::ghash_padded(&self.key, aad)), &[][..]),
            };
            let tag = kernels::gcm_small(rk, &self.key, (x, tail), j0, (input, out), lens, encrypt);
            x.zeroize();
            return Ok(Some(tag));
        }
        let mut x = if aad.is_empty() {
            0
        } else {
            kernels::ghash_padded(&self.key, aad)
        };
        let ctr = (j0 + 1).to_be_bytes();
        let n = if f == Fused::Aesni && out.len() <= kernels::AESNI_SHORT {
            // Short, with AES-NI: all in `gcm_finish` (see `AESNI_SHORT`).
            0
        } else {
            let fin = Some((j0, lens));
            let (n, tag) = kernels::gcm_fused(
                f,
                rk,
                &self.key,
                &ctr,
                &mut x,
                (input, out),
                encrypt,
                fin,
                self.prefetch,
            );
            if let Some(tag) = tag {
                // The text was whole groups: the kernel ended the message.
                x.zeroize();
                return Ok(Some(tag));
            }
            n
        };
        // inc32 n/16 times: only the low 32 bits count.
        let c = (j0 & !0xffff_ffff) | u128::from((j0 as u32 + 1).wrapping_add((n / 16) as u32));
        let tag = kernels::gcm_finish(
            rk,
            &self.key,
            x,
            (c, j0),
            (input.map(|i| &i[n..]), &mut out[n..]),
            lens,
            encrypt,
        );
        x.zeroize();
        Ok(Some(tag))
    }

    /// Open `input` (or `out` itself, in place) into `out` and verify
    /// `tag` in constant time; on a mismatch `out` is zeroed.
    fn open_from(
        &self,
        nonce: &[u8],
        aad: &[u8],
        input: Option<&[u8]>,
        tag: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        check_tag_len(tag.len())?;
        let mut full = match self.one_shot(nonce, aad, input, out, false)? {
            Some(t) => t,
            None => {
                let mut st = self.state(nonce)?;
                st.aad(self, aad)?;
                st.crypt_from(self, input, out, false)?;
                let mut t = st.tag(self);
                let v = u128::from_be_bytes(t);
                kernels::wipe_block(&mut t);
                v
            }
        };
        let ok = tag_matches(full, tag);
        full.zeroize();
        if ok {
            Ok(())
        } else {
            out.zeroize();
            Err(Error::AuthenticationFailed)
        }
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
        self.open_from(nonce, aad, None, tag, buf)
    }

    /// Encrypt `input` into `output` (same length); returns the tag. The
    /// fused kernels read `input` and write `output` directly (no copy
    /// first). On error `output` is zeroed.
    pub fn seal_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        input: &[u8],
        output: &mut [u8],
    ) -> Result<Tag> {
        same_len(input.len(), output.len())?;
        wipe_on_error(output, |out| self.seal_from(nonce, aad, Some(input), out))
    }

    /// Decrypt `input` into `output` (same length) and verify `tag`; on
    /// failure `output` is zeroed. As [`Gcm::seal_into`], no copy first.
    pub fn open_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        input: &[u8],
        tag: &[u8],
        output: &mut [u8],
    ) -> Result<()> {
        same_len(input.len(), output.len())?;
        wipe_on_error(output, |out| {
            self.open_from(nonce, aad, Some(input), tag, out)
        })
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

    /// Encrypt one piece of a longer message in place, for callers that
    /// split the text (across threads, say) and assemble the tag
    /// themselves. `counter` is the piece's first counter block (for a
    /// 96-bit nonce: `nonce ‖ [2 + blocks before the piece]_32`); counters
    /// advance with GCM's `inc32`. Runs the fused AES+GHASH kernel where
    /// [`Gcm::seal_in_place_detached`] would.
    ///
    /// Returns `GHASH_H(C_j)`: the GHASH of the piece's ciphertext,
    /// zero-padded to whole blocks, from a zero state, as a big-endian
    /// integer (the representation of [`GhashKey`] states). The message's
    /// GHASH is then Horner's rule over the pieces, starting from the AAD's
    /// state: `s ← s · H^(blocks of C_j) ⊕ GHASH_H(C_j)`, then the length
    /// block; every piece but the last must be whole blocks.
    pub fn seal_piece(&self, counter: &Block, buf: &mut [u8]) -> Result<u128> {
        self.piece(counter, None, buf, true)
    }

    /// Decrypt one piece of a longer message in place and return the GHASH
    /// of its ciphertext, as [`Gcm::seal_piece`] (the same value for the same
    /// ciphertext), in one fused pass.
    ///
    /// **The plaintext is unauthenticated.** The caller must combine the
    /// pieces into the message's tag, compare it in constant time with the
    /// received one, and on mismatch wipe every piece before anything can
    /// see it (as [`Gcm::open_in_place_detached`] does).
    pub fn open_piece_unverified(&self, counter: &Block, buf: &mut [u8]) -> Result<u128> {
        self.piece(counter, None, buf, false)
    }

    /// Encrypt one piece of a longer message from `input` into `output`
    /// (same length), as [`Gcm::seal_piece`] does in place: the fused
    /// kernel reads `input` and writes `output` in one pass (no copy
    /// first). Returns the GHASH of the piece's ciphertext; on error
    /// `output` is zeroed.
    pub fn seal_piece_into(
        &self,
        counter: &Block,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<u128> {
        same_len(input.len(), output.len())?;
        wipe_on_error(output, |out| self.piece(counter, Some(input), out, true))
    }

    /// Decrypt one piece of a longer message from `input` into `output`
    /// (same length) in one fused pass, as [`Gcm::open_piece_unverified`]
    /// does in place; returns the GHASH of `input` (the ciphertext).
    ///
    /// **The plaintext in `output` is unauthenticated**: the caller checks
    /// the assembled tag and wipes every piece on mismatch.
    pub fn open_piece_into_unverified(
        &self,
        counter: &Block,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<u128> {
        same_len(input.len(), output.len())?;
        wipe_on_error(output, |out| self.piece(counter, Some(input), out, false))
    }

    fn piece(
        &self,
        counter: &Block,
        input: Option<&[u8]>,
        buf: &mut [u8],
        encrypt: bool,
    ) -> Result<u128> {
        let mut st = GcmState::new([0; 16], *counter);
        st.crypt_from(self, input, buf, encrypt)?;
        Ok(st.text_ghash(self))
    }

    /// A streaming encryptor (AAD first, then data in any split).
    pub fn encryptor(&self, nonce: &[u8]) -> Result<GcmEncryptor<'_, A>> {
        Ok(GcmEncryptor::new(self, self.state(nonce)?))
    }

    /// A streaming decryptor. It buffers the ciphertext and releases the
    /// plaintext only from [`GcmDecryptor::finalize`], after the tag checks.
    pub fn decryptor(&self, nonce: &[u8]) -> Result<GcmDecryptor<'_, A>> {
        Ok(GcmDecryptor::new(self, self.state(nonce)?))
    }
}

/// Whether `tag` (4..=16 bytes) is a prefix of the full tag `full` (as
/// `u128::from_be_bytes`), in constant time: one masked 128-bit difference
/// compared with zero (`subtle`), rather than a comparison byte by byte.
fn tag_matches(full: u128, tag: &[u8]) -> bool {
    let n = tag.len();
    debug_assert!((MIN_TAG_LEN..=TAG_LEN).contains(&n));
    let t = match <[u8; 16]>::try_from(tag) {
        Ok(t) => u128::from_be_bytes(t),
        Err(_) => kernels::be_partial(tag),
    };
    let keep = !0u128 << (8 * (TAG_LEN - n));
    let d = (full & keep) ^ t;
    d.ct_eq(&0).into()
}

/// `f(output)`, and on error `output` zeroed (so that it holds neither
/// input nor unauthenticated plaintext).
fn wipe_on_error<T>(output: &mut [u8], f: impl FnOnce(&mut [u8]) -> Result<T>) -> Result<T> {
    let r = f(output);
    if r.is_err() {
        output.zeroize();
    }
    r
}

mod state;
#[cfg(test)]
mod tests;

pub use state::{GcmDecryptor, GcmEncryptor};
use state::{GcmState, add32, check_tag_len, ctr32_xor, inc32};
