//! Cobblestone: C2SP chunked encryption (c2sp.org/chunked-encryption, v1)
//! instantiated with HKDF-Expand over SHA-512 and AES-GCM.
//!
//! * Derivation: `key ‖ base_nonce ‖ commitment = HKDF-Expand(PRK = input
//!   key, info = "c2sp.org/chunked-encryption@v1+" ‖ aead_name ‖ 0x00 ‖ salt
//!   ‖ context, L = key_len + 12 + 32)` — no extract step.
//! * Message: `salt (24) ‖ commitment (32) ‖ chunk_0 ‖ chunk_1 ‖ …`; every
//!   plaintext chunk is 16384 bytes except the last, which is always
//!   shorter (0–16383 bytes); chunk `i` is sealed with nonce
//!   `base_nonce XOR i` (96-bit big-endian), empty AAD, 16-byte tag.
//! * Decryption checks the commitment before any chunk, and rejects a
//!   message shorter than 72 bytes or whose last encrypted chunk is not
//!   16–16399 bytes long.
//!
//! Chunks are sealed and opened in parallel on a [`Pool`]: in memory
//! ([`encrypt`], [`decrypt`]), on streams ([`encrypt_stream`],
//! [`decrypt_stream`], which releases plaintext only after the chunks it
//! comes from are authenticated), on files with positional I/O from every
//! worker ([`encrypt_file`], [`decrypt_file`]), and with random access
//! ([`RandomAccess`], [`decrypt_range`]).

use crate::error::{Error, Result};
use crate::kernel::KernelPlan;
use crate::pool::Pool;
use aesflow_cipher::Kernel;
use aesflow_modes::gcm::{Gcm, Prefetch};
use hmac::{Hmac, Mac};
use sha2::Sha512;
use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

mod file;
mod random;
mod stream;

pub use file::{CHUNKS_PER_STEP, decrypt_file, encrypt_file};
pub use random::{RandomAccess, decrypt_range};
pub(crate) use stream::read_full;
pub use stream::{ProgressFn, decrypt_stream, encrypt_stream};

/// Plaintext bytes per chunk (all but the last, which is shorter).
pub const CHUNK_SIZE: usize = 16384;
/// GCM tag bytes per chunk.
pub const TAG_SIZE: usize = 16;
/// Bytes of a full encrypted chunk.
pub const ENC_CHUNK_SIZE: usize = CHUNK_SIZE + TAG_SIZE;
/// Salt bytes.
pub const SALT_SIZE: usize = 24;
/// Key-commitment bytes.
pub const COMMITMENT_SIZE: usize = 32;
/// The fixed prefix: salt ‖ commitment.
pub const PREFIX_SIZE: usize = SALT_SIZE + COMMITMENT_SIZE;
/// The shortest valid message (prefix and one empty chunk).
pub const MIN_CIPHERTEXT: u64 = (PREFIX_SIZE + TAG_SIZE) as u64;
/// At most 2^38 chunks.
pub const MAX_CHUNKS: u64 = 1 << 38;
/// The [`Error::Truncated`] message for input shorter than [`MIN_CIPHERTEXT`].
pub(crate) const TOO_SHORT: &str =
    "shorter than the 72-byte minimum (truncated, or not a Cobblestone message)";
/// Chunks per parallel task (256 KiB of plaintext: stays in L2).
pub const CHUNKS_PER_TASK: usize = 16;
/// Chunks per batch in the streaming and file paths (4 MiB).
pub const CHUNKS_PER_BATCH: usize = 256;

const LABEL: &[u8] = b"c2sp.org/chunked-encryption@v1+";

/// The instantiation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Suite {
    /// HKDF-SHA-512 and AES-128-GCM.
    Cobblestone128,
    /// HKDF-SHA-512 and AES-256-GCM.
    #[default]
    Cobblestone256,
}

impl Suite {
    /// The suite whose input keys are `len` bytes long (16: Cobblestone-128,
    /// 32: Cobblestone-256), if any.
    pub fn for_key_len(len: usize) -> Option<Suite> {
        [Suite::Cobblestone128, Suite::Cobblestone256]
            .into_iter()
            .find(|s| s.key_len() == len)
    }

    /// Input-key (and AEAD key) length in bytes.
    pub fn key_len(self) -> usize {
        match self {
            Suite::Cobblestone128 => 16,
            Suite::Cobblestone256 => 32,
        }
    }

    /// The IANA AEAD name used in the derivation.
    pub fn aead_name(self) -> &'static str {
        match self {
            Suite::Cobblestone128 => "AEAD_AES_128_GCM",
            Suite::Cobblestone256 => "AEAD_AES_256_GCM",
        }
    }

    /// "Cobblestone-128" / "Cobblestone-256".
    pub fn name(self) -> &'static str {
        match self {
            Suite::Cobblestone128 => "Cobblestone-128",
            Suite::Cobblestone256 => "Cobblestone-256",
        }
    }
}

/// The ciphertext length for a plaintext length.
pub fn ciphertext_len(plain_len: u64) -> u64 {
    PREFIX_SIZE as u64 + (plain_len / CHUNK_SIZE as u64 + 1) * TAG_SIZE as u64 + plain_len
}

/// The plaintext length of a ciphertext length, or the error for an
/// impossible one (truncated or extended message).
pub fn plaintext_len(ct_len: u64) -> Result<u64> {
    if ct_len < MIN_CIPHERTEXT {
        return Err(Error::Truncated(TOO_SHORT));
    }
    let body = ct_len - PREFIX_SIZE as u64;
    let full = body / ENC_CHUNK_SIZE as u64;
    let last = body % ENC_CHUNK_SIZE as u64;
    if last < TAG_SIZE as u64 {
        return Err(Error::Truncated(
            "the last chunk has an impossible length (truncated or extended)",
        ));
    }
    if full + 1 > MAX_CHUNKS {
        return Err(Error::TooLong);
    }
    Ok(full * CHUNK_SIZE as u64 + last - TAG_SIZE as u64)
}

/// The number of chunks of a message with `plain_len` plaintext bytes (the
/// last one is always shorter than [`CHUNK_SIZE`], possibly empty).
pub fn chunk_count(plain_len: u64) -> u64 {
    plain_len / CHUNK_SIZE as u64 + 1
}

/// Where `chunks` lie in a message of `plain_len` plaintext bytes: their
/// plaintext byte range, and their byte range in the encrypted body (the
/// message after its [`PREFIX_SIZE`]-byte prefix).
pub fn chunk_bytes(chunks: &Range<u64>, plain_len: u64) -> (Range<u64>, Range<u64>) {
    let (cs, ecs) = (CHUNK_SIZE as u64, ENC_CHUNK_SIZE as u64);
    let body = ciphertext_len(plain_len) - PREFIX_SIZE as u64;
    (
        chunks.start * cs..(chunks.end * cs).min(plain_len),
        chunks.start * ecs..(chunks.end * ecs).min(body),
    )
}

/// `chunks` cut into consecutive runs of at most `per` chunks.
pub fn chunk_runs(chunks: Range<u64>, per: u64) -> impl Iterator<Item = Range<u64>> {
    (chunks.start..chunks.end)
        .step_by(per as usize)
        .map(move |k| k..(k + per).min(chunks.end))
}

/// HKDF-Expand (RFC 5869 §2.3) with HMAC-SHA-512 and any PRK length.
fn hkdf_expand_sha512(prk: &[u8], info: &[u8], okm: &mut [u8]) {
    let mut t: Zeroizing<Vec<u8>> = Zeroizing::new(Vec::new());
    for (i, out) in okm.chunks_mut(64).enumerate() {
        let mut mac =
            <Hmac<Sha512> as Mac>::new_from_slice(prk).expect("HMAC takes any key length");
        mac.update(&t);
        mac.update(info);
        mac.update(&[(i + 1) as u8]);
        let block = mac.finalize().into_bytes();
        t.clear();
        t.extend_from_slice(&block);
        out.copy_from_slice(&block[..out.len()]);
    }
}

/// The derived per-message keys of one Cobblestone message.
pub struct ChunkKeys {
    suite: Suite,
    gcm: Gcm,
    base_nonce: Zeroizing<[u8; 12]>,
    salt: [u8; SALT_SIZE],
    commitment: [u8; COMMITMENT_SIZE],
}

impl std::fmt::Debug for ChunkKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkKeys")
            .field("suite", &self.suite)
            .field("salt", &self.salt)
            .finish_non_exhaustive()
    }
}

impl ChunkKeys {
    /// Derive the keys from the input key, a salt and the context; the
    /// chunks are sealed and opened on `on`: a kernel (with the plan of the
    /// table of measured CPUs) or a [`Pool`] (its kernel and its plan).
    pub fn derive(
        on: impl Into<KernelPlan>,
        suite: Suite,
        input_key: &[u8],
        salt: &[u8; SALT_SIZE],
        context: &[u8],
    ) -> Result<Self> {
        if input_key.len() != suite.key_len() {
            return Err(Error::InvalidInput(format!(
                "{} needs a {}-byte key, got {} bytes",
                suite.name(),
                suite.key_len(),
                input_key.len()
            )));
        }
        let mut info = Vec::with_capacity(LABEL.len() + 17 + SALT_SIZE + context.len());
        info.extend_from_slice(LABEL);
        info.extend_from_slice(suite.aead_name().as_bytes());
        info.push(0);
        info.extend_from_slice(salt);
        info.extend_from_slice(context);
        let kl = suite.key_len();
        let mut okm = Zeroizing::new(vec![0u8; kl + 12 + COMMITMENT_SIZE]);
        hkdf_expand_sha512(input_key, &info, &mut okm);
        // Chunks come in runs over buffers that stream from memory: the
        // fused kernel prefetches each 16 KiB chunk as it would a long
        // message.
        let gcm = on.into().gcm(&okm[..kl])?.with_prefetch(Prefetch::Always);
        let mut base_nonce = Zeroizing::new([0u8; 12]);
        base_nonce.copy_from_slice(&okm[kl..kl + 12]);
        let mut commitment = [0u8; COMMITMENT_SIZE];
        commitment.copy_from_slice(&okm[kl + 12..]);
        Ok(ChunkKeys {
            suite,
            gcm,
            base_nonce,
            salt: *salt,
            commitment,
        })
    }

    /// The AES kernel the chunks are sealed and opened on.
    pub fn kernel(&self) -> &'static dyn Kernel {
        self.gcm.aes().kernel()
    }

    /// The fused AES+GHASH kernel the chunks run through, if any (e.g.
    /// `"vaes+vpclmul/32"` where the plan picks 32-block groups).
    pub fn gcm_kernel(&self) -> Option<&'static str> {
        self.gcm.fused_kernel()
    }

    /// Keys for a new message, with a fresh random salt, on `on` (as
    /// [`ChunkKeys::derive`]).
    pub fn for_encryption(
        on: impl Into<KernelPlan>,
        suite: Suite,
        input_key: &[u8],
        context: &[u8],
    ) -> Result<Self> {
        let mut salt = [0u8; SALT_SIZE];
        getrandom::fill(&mut salt)
            .map_err(|e| Error::io("getting random bytes", io::Error::other(e.to_string())))?;
        Self::derive(on, suite, input_key, &salt, context)
    }

    /// Keys for decrypting the message that starts with `prefix` (at least
    /// 56 bytes): checks the key commitment ([`Error::WrongKey`] if it
    /// does not match), on `on` (as [`ChunkKeys::derive`]).
    pub fn from_prefix(
        on: impl Into<KernelPlan>,
        suite: Suite,
        input_key: &[u8],
        context: &[u8],
        prefix: &[u8],
    ) -> Result<Self> {
        if prefix.len() < PREFIX_SIZE {
            return Err(Error::Truncated(TOO_SHORT));
        }
        let salt: [u8; SALT_SIZE] = prefix[..SALT_SIZE].try_into().expect("24 bytes");
        let keys = Self::derive(on, suite, input_key, &salt, context)?;
        if !bool::from(keys.commitment.ct_eq(&prefix[SALT_SIZE..PREFIX_SIZE])) {
            return Err(Error::WrongKey);
        }
        Ok(keys)
    }

    /// The suite.
    pub fn suite(&self) -> Suite {
        self.suite
    }

    /// The message prefix: salt ‖ commitment.
    pub fn prefix(&self) -> [u8; PREFIX_SIZE] {
        let mut p = [0u8; PREFIX_SIZE];
        p[..SALT_SIZE].copy_from_slice(&self.salt);
        p[SALT_SIZE..].copy_from_slice(&self.commitment);
        p
    }

    /// The nonce of chunk `index`: base nonce XOR the index (big-endian).
    fn nonce(&self, index: u64) -> Zeroizing<[u8; 12]> {
        let mut n = self.base_nonce.clone();
        for (a, b) in n[4..].iter_mut().zip(index.to_be_bytes()) {
            *a ^= b;
        }
        n
    }

    /// Seal chunk `index` in place; returns its tag.
    pub fn seal_chunk(&self, index: u64, buf: &mut [u8]) -> [u8; TAG_SIZE] {
        debug_assert!(buf.len() <= CHUNK_SIZE);
        self.gcm
            .seal_in_place_detached(&self.nonce(index)[..], &[], buf)
            .expect("a 12-byte nonce and a chunk are always valid")
    }

    /// Open chunk `index` in place ([`Error::ChunkAuthentication`] on a bad
    /// tag; the buffer is then zeroed).
    pub fn open_chunk(&self, index: u64, buf: &mut [u8], tag: &[u8]) -> Result<()> {
        self.gcm
            .open_in_place_detached(&self.nonce(index)[..], &[], buf, tag)
            .map_err(|_| Error::ChunkAuthentication(index))
    }

    /// Seal chunk `index` from `plain` into `out` (same length), out of
    /// place: the fused GCM kernels read the one and write the other, no
    /// copy first. Returns the tag.
    fn seal_chunk_into(
        &self,
        gcm: &Gcm,
        index: u64,
        plain: &[u8],
        out: &mut [u8],
    ) -> [u8; TAG_SIZE] {
        debug_assert!(plain.len() <= CHUNK_SIZE);
        gcm.seal_into(&self.nonce(index)[..], &[], plain, out)
            .expect("a 12-byte nonce and a chunk are always valid")
    }

    /// Open chunk `index` from `enc` into `out` (same length), out of
    /// place; on a bad tag [`Error::ChunkAuthentication`] and `out` zeroed.
    fn open_chunk_into(
        &self,
        gcm: &Gcm,
        (index, enc, tag): (u64, &[u8], &[u8]),
        out: &mut [u8],
    ) -> Result<()> {
        gcm.open_into(&self.nonce(index)[..], &[], enc, tag, out)
            .map_err(|_| Error::ChunkAuthentication(index))
    }

    /// The GCM a run of chunks on `pool` that writes `out_len` bytes out
    /// of place runs on: past the caches ([`Prefetch::Stream`]) when the
    /// output is larger than the last-level cache (which it would leave
    /// anyway) and the pool has more than one thread, else through them.
    /// The streamed stores save the reads for ownership, memory traffic,
    /// which bounds the run when two or more cores share the memory; on
    /// one core the joins of unaligned lines cost about what they save.
    /// Zen 5, AES-256, 256 MiB, outputs 16 bytes past a line (the example
    /// `stream_stores`), streamed against cached, two threads: seal
    /// 1.04-1.13x, open 1.17-1.21x; one thread: seal 0.89-0.98x, open
    /// 0.92-1.03x. (The streaming key is a copy made for the run: a run
    /// that large costs far more than the copy.)
    fn run_gcm(&self, pool: &Pool, out_len: usize) -> Cow<'_, Gcm> {
        if pool.threads() > 1 && out_len >= aesflow_engine::cache::last_level_cache() {
            Cow::Owned(self.gcm.clone().with_prefetch(Prefetch::Stream))
        } else {
            Cow::Borrowed(&self.gcm)
        }
    }

    /// Seal consecutive chunks, the first with index `first`, in parallel.
    ///
    /// `plain` holds `n` chunks: full ones, and if `with_final` a last short
    /// one (possibly empty); without `with_final` its length must be a
    /// multiple of [`CHUNK_SIZE`] ([`Error::InvalidInput`] otherwise, `out`
    /// untouched). `out` is resized to the ciphertext length.
    pub fn seal_chunks(
        &self,
        pool: &Pool,
        first: u64,
        plain: &[u8],
        with_final: bool,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        out.resize(sealed_run_len(first, plain.len(), with_final)?, 0);
        self.seal_chunks_into(pool, first, plain, with_final, out)
    }

    /// [`ChunkKeys::seal_chunks`] into a caller-owned slice of exactly
    /// [`sealed_len`] bytes ([`Error::InvalidInput`] for another length).
    pub fn seal_chunks_into(
        &self,
        pool: &Pool,
        first: u64,
        plain: &[u8],
        with_final: bool,
        out: &mut [u8],
    ) -> Result<()> {
        check_out_len(out, sealed_run_len(first, plain.len(), with_final)?)?;
        let gcm = &*self.run_gcm(pool, out.len());
        pool.for_each_piece(out, ENC_CHUNK_SIZE * CHUNKS_PER_TASK, |g, dst| {
            for (j, c) in dst.chunks_mut(ENC_CHUNK_SIZE).enumerate() {
                let k = g * CHUNKS_PER_TASK + j;
                let len = c.len() - TAG_SIZE;
                let (body, tag) = c.split_at_mut(len);
                let src = &plain[k * CHUNK_SIZE..k * CHUNK_SIZE + len];
                tag.copy_from_slice(&self.seal_chunk_into(gcm, first + k as u64, src, body));
            }
        });
        Ok(())
    }

    /// Open consecutive encrypted chunks, the first with index `first`, in
    /// parallel, into `out` (resized to the plaintext length). `enc` holds
    /// full encrypted chunks and, if `with_final`, a last one of 16–16399
    /// bytes. On error `out` is cleared (no plaintext of the batch is
    /// released); the error names the lowest failing chunk.
    pub fn open_chunks(
        &self,
        pool: &Pool,
        first: u64,
        enc: &[u8],
        with_final: bool,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        out.resize(opened_run_len(first, enc.len(), with_final)?, 0);
        self.open_chunks_into(pool, first, enc, with_final, out)
            .inspect_err(|_| out.clear())
    }

    /// [`ChunkKeys::open_chunks`] into a caller-owned slice of exactly
    /// [`opened_len`] bytes ([`Error::InvalidInput`] for another length);
    /// on error `out` is zeroed.
    pub fn open_chunks_into(
        &self,
        pool: &Pool,
        first: u64,
        enc: &[u8],
        with_final: bool,
        out: &mut [u8],
    ) -> Result<()> {
        check_out_len(out, opened_run_len(first, enc.len(), with_final)?)?;
        let gcm = &*self.run_gcm(pool, out.len());
        let full = enc.len() / ENC_CHUNK_SIZE;
        let n = full + usize::from(with_final);
        let groups_n = n.div_ceil(CHUNKS_PER_TASK);
        let mut groups: Vec<(usize, &mut [u8], Result<()>)> = out
            .chunks_mut(CHUNK_SIZE * CHUNKS_PER_TASK)
            .enumerate()
            .map(|(g, d)| (g, d, Ok(())))
            .collect();
        while groups.len() < groups_n {
            // A final empty chunk after a full group.
            groups.push((groups.len(), &mut [], Ok(())));
        }
        pool.for_each_mut(&mut groups, |(g, dst, res)| {
            let k0 = *g * CHUNKS_PER_TASK;
            let mut off = 0;
            for k in k0..(k0 + CHUNKS_PER_TASK).min(n) {
                let c = &enc[k * ENC_CHUNK_SIZE..((k + 1) * ENC_CHUNK_SIZE).min(enc.len())];
                let len = c.len() - TAG_SIZE;
                let body = &mut dst[off..off + len];
                let chunk = (first + k as u64, &c[..len], &c[len..]);
                if let Err(e) = self.open_chunk_into(gcm, chunk, body) {
                    *res = Err(e);
                    return;
                }
                off += len;
            }
        });
        let r = groups.into_iter().map(|(_, _, r)| r).find(Result::is_err);
        if let Some(Err(e)) = r {
            out.zeroize();
            return Err(e);
        }
        Ok(())
    }
}

/// The ciphertext length of `plain` bytes sealed as consecutive chunks:
/// full chunks and, if `with_final`, a last shorter one (possibly empty).
pub fn sealed_len(plain: usize, with_final: bool) -> usize {
    let tail = if with_final {
        plain % CHUNK_SIZE + TAG_SIZE
    } else {
        0
    };
    plain / CHUNK_SIZE * ENC_CHUNK_SIZE + tail
}

/// The plaintext length of `enc` bytes of consecutive encrypted chunks, or
/// [`Error::Truncated`] if impossible (a partial chunk without
/// `with_final`, or a last chunk shorter than its tag).
pub fn opened_len(enc: usize, with_final: bool) -> Result<usize> {
    let (full, rest) = (enc / ENC_CHUNK_SIZE, enc % ENC_CHUNK_SIZE);
    match (with_final, rest) {
        (false, 0) => Ok(full * CHUNK_SIZE),
        (true, r) if r >= TAG_SIZE => Ok(full * CHUNK_SIZE + r - TAG_SIZE),
        _ => Err(Error::Truncated(
            "the last chunk has an impossible length (truncated or extended)",
        )),
    }
}

/// [`sealed_len`] of a run starting at chunk `first`, checked: whole
/// chunks unless `with_final`, and within [`MAX_CHUNKS`].
fn sealed_run_len(first: u64, plain: usize, with_final: bool) -> Result<usize> {
    if !with_final && !plain.is_multiple_of(CHUNK_SIZE) {
        return Err(Error::InvalidInput(format!(
            "seal_chunks: {plain} bytes is not a whole number of {CHUNK_SIZE}-byte chunks \
             (only the final chunk may be partial: pass with_final = true)"
        )));
    }
    check_chunk_count(first, plain / CHUNK_SIZE + usize::from(with_final))?;
    Ok(sealed_len(plain, with_final))
}

/// [`opened_len`] of a run starting at chunk `first`, checked against
/// [`MAX_CHUNKS`].
fn opened_run_len(first: u64, enc: usize, with_final: bool) -> Result<usize> {
    let len = opened_len(enc, with_final)?;
    check_chunk_count(first, enc / ENC_CHUNK_SIZE + usize::from(with_final))?;
    Ok(len)
}

fn check_chunk_count(first: u64, n: usize) -> Result<()> {
    if first + n as u64 > MAX_CHUNKS {
        return Err(Error::TooLong);
    }
    Ok(())
}

fn check_out_len(out: &[u8], want: usize) -> Result<()> {
    if out.len() != want {
        return Err(Error::InvalidInput(format!(
            "the output slice must be {want} bytes, got {}",
            out.len()
        )));
    }
    Ok(())
}

/// Encrypt a whole message in memory (random salt), chunks in parallel.
pub fn encrypt(
    pool: &Pool,
    suite: Suite,
    input_key: &[u8],
    context: &[u8],
    plaintext: &[u8],
) -> Result<Vec<u8>> {
    let keys = ChunkKeys::for_encryption(pool, suite, input_key, context)?;
    encrypt_with_keys(pool, &keys, plaintext)
}

/// Encrypt a whole message in memory with given keys (e.g. a fixed salt).
pub fn encrypt_with_keys(pool: &Pool, keys: &ChunkKeys, plaintext: &[u8]) -> Result<Vec<u8>> {
    let mut body = Vec::new();
    keys.seal_chunks(pool, 0, plaintext, true, &mut body)?;
    let mut out = Vec::with_capacity(PREFIX_SIZE + body.len());
    out.extend_from_slice(&keys.prefix());
    out.extend_from_slice(&body);
    Ok(out)
}

/// Decrypt a whole message in memory, chunks in parallel.
pub fn decrypt(
    pool: &Pool,
    suite: Suite,
    input_key: &[u8],
    context: &[u8],
    ciphertext: &[u8],
) -> Result<Vec<u8>> {
    plaintext_len(ciphertext.len() as u64)?;
    let keys = ChunkKeys::from_prefix(pool, suite, input_key, context, ciphertext)?;
    let mut out = Vec::new();
    keys.open_chunks(pool, 0, &ciphertext[PREFIX_SIZE..], true, &mut out)?;
    Ok(out)
}
