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
use crate::pool::Pool;
use aesflow_modes::gcm::Gcm;
use hmac::{Hmac, Mac};
use sha2::Sha512;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

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
        return Err(Error::Truncated(
            "shorter than the 72-byte minimum (truncated, or not a Cobblestone message)",
        ));
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

fn chunk_count(plain_len: u64) -> u64 {
    plain_len / CHUNK_SIZE as u64 + 1
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
    /// Derive the keys from the input key, a salt and the context.
    pub fn derive(
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
        let gcm = Gcm::new(&okm[..kl])?;
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

    /// Keys for a new message, with a fresh random salt.
    pub fn for_encryption(suite: Suite, input_key: &[u8], context: &[u8]) -> Result<Self> {
        let mut salt = [0u8; SALT_SIZE];
        getrandom::fill(&mut salt)
            .map_err(|e| Error::io("getting random bytes", io::Error::other(e.to_string())))?;
        Self::derive(suite, input_key, &salt, context)
    }

    /// Keys for decrypting the message that starts with `prefix` (at least
    /// 56 bytes): checks the key commitment ([`Error::WrongKey`] if it
    /// does not match).
    pub fn from_prefix(
        suite: Suite,
        input_key: &[u8],
        context: &[u8],
        prefix: &[u8],
    ) -> Result<Self> {
        if prefix.len() < PREFIX_SIZE {
            return Err(Error::Truncated(
                "shorter than the 72-byte minimum (truncated, or not a Cobblestone message)",
            ));
        }
        let salt: [u8; SALT_SIZE] = prefix[..SALT_SIZE].try_into().expect("24 bytes");
        let keys = Self::derive(suite, input_key, &salt, context)?;
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
        let full = plain.len() / CHUNK_SIZE;
        let rest = plain.len() % CHUNK_SIZE;
        if !with_final && rest != 0 {
            return Err(Error::InvalidInput(format!(
                "seal_chunks: {} bytes is not a whole number of {CHUNK_SIZE}-byte chunks \
                 (only the final chunk may be partial: pass with_final = true)",
                plain.len()
            )));
        }
        let n = full + usize::from(with_final);
        if first + n as u64 > MAX_CHUNKS {
            return Err(Error::TooLong);
        }
        out.resize(
            full * ENC_CHUNK_SIZE + if with_final { rest + TAG_SIZE } else { 0 },
            0,
        );
        let mut groups: Vec<(usize, &mut [u8])> = out
            .chunks_mut(ENC_CHUNK_SIZE * CHUNKS_PER_TASK)
            .enumerate()
            .collect();
        pool.for_each_mut(&mut groups, |(g, dst)| {
            for (j, c) in dst.chunks_mut(ENC_CHUNK_SIZE).enumerate() {
                let k = *g * CHUNKS_PER_TASK + j;
                let len = c.len() - TAG_SIZE;
                let (body, tag) = c.split_at_mut(len);
                body.copy_from_slice(&plain[k * CHUNK_SIZE..k * CHUNK_SIZE + len]);
                tag.copy_from_slice(&self.seal_chunk(first + k as u64, body));
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
        let full = enc.len() / ENC_CHUNK_SIZE;
        let rest = enc.len() % ENC_CHUNK_SIZE;
        if with_final && rest < TAG_SIZE || !with_final && rest != 0 {
            return Err(Error::Truncated(
                "the last chunk has an impossible length (truncated or extended)",
            ));
        }
        let n = full + usize::from(with_final);
        if first + n as u64 > MAX_CHUNKS {
            return Err(Error::TooLong);
        }
        let plain_len = full * CHUNK_SIZE + if with_final { rest - TAG_SIZE } else { 0 };
        out.resize(plain_len, 0);
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
            let kn = (k0 + CHUNKS_PER_TASK).min(n);
            let mut off = 0;
            for k in k0..kn {
                let len = if k < full {
                    CHUNK_SIZE
                } else {
                    rest - TAG_SIZE
                };
                let c = &enc[k * ENC_CHUNK_SIZE..k * ENC_CHUNK_SIZE + len + TAG_SIZE];
                let body = &mut dst[off..off + len];
                body.copy_from_slice(&c[..len]);
                if let Err(e) = self.open_chunk(first + k as u64, body, &c[len..]) {
                    *res = Err(e);
                    return;
                }
                off += len;
            }
        });
        let mut err = None;
        for (_, _, r) in groups {
            if let Err(e) = r {
                err = Some(e);
                break;
            }
        }
        if let Some(e) = err {
            out.zeroize();
            out.clear();
            return Err(e);
        }
        Ok(())
    }
}

/// Encrypt a whole message in memory (random salt), chunks in parallel.
pub fn encrypt(
    pool: &Pool,
    suite: Suite,
    input_key: &[u8],
    context: &[u8],
    plaintext: &[u8],
) -> Result<Vec<u8>> {
    let keys = ChunkKeys::for_encryption(suite, input_key, context)?;
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
    let keys = ChunkKeys::from_prefix(suite, input_key, context, ciphertext)?;
    let mut out = Vec::new();
    keys.open_chunks(pool, 0, &ciphertext[PREFIX_SIZE..], true, &mut out)?;
    Ok(out)
}

/// Called with the number of input bytes processed since the last call.
pub type ProgressFn<'a> = &'a (dyn Fn(u64) + Sync);

fn read_full(r: &mut (impl Read + ?Sized), buf: &mut [u8], what: &str) -> Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(format!("reading {what}"), e)),
        }
    }
    Ok(n)
}

/// Encrypt a stream: read `reader` to its end, write the message (prefix
/// included) to `writer`, sealing batches of chunks in parallel. Returns
/// the plaintext length.
pub fn encrypt_stream(
    pool: &Pool,
    keys: &ChunkKeys,
    reader: &mut (impl Read + ?Sized),
    writer: &mut (impl Write + ?Sized),
    progress: ProgressFn<'_>,
) -> Result<u64> {
    let werr = |e| Error::io("writing output", e);
    writer.write_all(&keys.prefix()).map_err(werr)?;
    let batch = CHUNK_SIZE * CHUNKS_PER_BATCH;
    let mut plain = Zeroizing::new(vec![0u8; batch]);
    let mut out = Vec::new();
    let mut index = 0u64;
    let mut total = 0u64;
    loop {
        let n = read_full(reader, &mut plain, "input")?;
        let last = n < batch;
        keys.seal_chunks(pool, index, &plain[..n], last, &mut out)?;
        writer.write_all(&out).map_err(werr)?;
        index += (n / CHUNK_SIZE) as u64;
        total += n as u64;
        progress(n as u64);
        if last {
            break;
        }
    }
    writer.flush().map_err(werr)?;
    Ok(total)
}

/// Decrypt a stream: check the prefix, then open batches of chunks in
/// parallel and write each batch's plaintext only after all its chunks
/// authenticated. An error after earlier batches were written still
/// returns `Err` (the caller must treat the output as invalid). Returns
/// the plaintext length.
pub fn decrypt_stream(
    pool: &Pool,
    suite: Suite,
    input_key: &[u8],
    context: &[u8],
    reader: &mut (impl Read + ?Sized),
    writer: &mut (impl Write + ?Sized),
    progress: ProgressFn<'_>,
) -> Result<u64> {
    let mut prefix = [0u8; PREFIX_SIZE];
    let n = read_full(reader, &mut prefix, "input")?;
    if n < PREFIX_SIZE {
        return Err(Error::Truncated(
            "shorter than the 72-byte minimum (truncated, or not a Cobblestone message)",
        ));
    }
    let keys = ChunkKeys::from_prefix(suite, input_key, context, &prefix)?;
    progress(PREFIX_SIZE as u64);
    decrypt_stream_body(pool, &keys, reader, writer, progress)
}

/// [`decrypt_stream`] after the prefix was read and checked.
pub fn decrypt_stream_body(
    pool: &Pool,
    keys: &ChunkKeys,
    reader: &mut (impl Read + ?Sized),
    writer: &mut (impl Write + ?Sized),
    progress: ProgressFn<'_>,
) -> Result<u64> {
    let werr = |e| Error::io("writing output", e);
    let batch = ENC_CHUNK_SIZE * CHUNKS_PER_BATCH;
    // One byte of look-ahead: a full batch is never the end of the message.
    let mut enc = vec![0u8; batch + 1];
    let mut have = 0;
    let mut plain = Zeroizing::new(Vec::new());
    let mut index = 0u64;
    let mut total = 0u64;
    loop {
        have += read_full(reader, &mut enc[have..], "input")?;
        let last = have < enc.len();
        let take = if last { have } else { batch };
        if last && take < TAG_SIZE {
            return Err(Error::Truncated(if index == 0 {
                "shorter than the 72-byte minimum (truncated, or not a Cobblestone message)"
            } else {
                "the last chunk has an impossible length (truncated or extended)"
            }));
        }
        keys.open_chunks(pool, index, &enc[..take], last, &mut plain)?;
        writer.write_all(&plain).map_err(werr)?;
        progress(take as u64);
        index += (take / ENC_CHUNK_SIZE) as u64;
        total += plain.len() as u64;
        if last {
            break;
        }
        enc.copy_within(batch.., 0);
        have = 1;
    }
    writer.flush().map_err(werr)?;
    Ok(total)
}

/// Chunks per step of the file path (512 KiB of plaintext): a worker reads
/// a step straight into place, seals or opens it and writes it while it is
/// still in the core's L2 cache.
pub const CHUNKS_PER_STEP: usize = 32;

/// Read exactly the total length of `bufs` at `offset` (scatter: one
/// `preadv` call for many buffers). Early end of file is `UnexpectedEof`.
fn read_exact_vectored_at(file: &File, bufs: &mut [&mut [u8]], mut offset: u64) -> io::Result<()> {
    let mut slices: Vec<io::IoSliceMut<'_>> = bufs
        .iter_mut()
        .filter(|b| !b.is_empty())
        .map(|b| io::IoSliceMut::new(b))
        .collect();
    let mut rest: &mut [io::IoSliceMut<'_>] = &mut slices;
    // At most 1024 buffers per call (IOV_MAX on Linux).
    while !rest.is_empty() {
        let k = rest.len().min(1024);
        match rustix::io::preadv(file, &mut rest[..k], offset) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                offset += n as u64;
                io::IoSliceMut::advance_slices(&mut rest, n);
            }
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Write all of `bufs` at `offset` (gather: one `pwritev` call for many
/// buffers).
fn write_all_vectored_at(file: &File, bufs: &[&[u8]], mut offset: u64) -> io::Result<()> {
    let mut slices: Vec<io::IoSlice<'_>> = bufs
        .iter()
        .filter(|b| !b.is_empty())
        .map(|b| io::IoSlice::new(b))
        .collect();
    let mut rest: &mut [io::IoSlice<'_>] = &mut slices;
    while !rest.is_empty() {
        let k = rest.len().min(1024);
        match rustix::io::pwritev(file, &rest[..k], offset) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                offset += n as u64;
                io::IoSlice::advance_slices(&mut rest, n);
            }
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Run `step(buffer, s)` for every step `s in 0..steps` on the pool's I/O
/// loops ([`Pool::try_for_each_io_loop`]: one more than the cores, so a
/// loop whose write waits for the file's lock leaves its core to another
/// loop's reading and sealing). Each loop claims the next step from a
/// shared counter (a busy core simply takes fewer) and keeps one buffer for
/// all its steps, zeroed when the loop ends. Stops at the first error.
fn run_steps(
    pool: &Pool,
    steps: u64,
    step: impl Fn(&mut Vec<u8>, u64) -> Result<()> + Sync,
) -> Result<()> {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
    let next = AtomicU64::new(0);
    let failed = AtomicBool::new(false);
    let loops = (pool.io_loops() as u64).min(steps) as usize;
    pool.try_for_each_io_loop(loops, |_| {
        let mut buf = Zeroizing::new(Vec::new());
        while !failed.load(Relaxed) {
            let s = next.fetch_add(1, Relaxed);
            if s >= steps {
                break;
            }
            if let Err(e) = step(&mut buf, s) {
                failed.store(true, Relaxed);
                return Err(e);
            }
        }
        Ok(())
    })
}

/// Encrypt the first `plain_len` bytes of `input` into `output` at offset
/// `out_offset` (prefix included), every worker reading and writing its own
/// steps with positional I/O. Returns the ciphertext length written.
///
/// Each step of [`CHUNKS_PER_STEP`] chunks is read with one `preadv`
/// straight into its places between the tags of a per-worker buffer,
/// sealed in place and written with one `pwrite`: no allocation or copy
/// per step, and no plaintext is left in memory (the buffer holds only
/// ciphertext after sealing, and is zeroed at the end).
pub fn encrypt_file(
    pool: &Pool,
    keys: &ChunkKeys,
    input: &File,
    plain_len: u64,
    output: &File,
    out_offset: u64,
    progress: ProgressFn<'_>,
) -> Result<u64> {
    let n_chunks = chunk_count(plain_len);
    if n_chunks > MAX_CHUNKS {
        return Err(Error::TooLong);
    }
    let ct_len = ciphertext_len(plain_len);
    output
        .write_all_at(&keys.prefix(), out_offset)
        .map_err(|e| Error::io("writing output", e))?;
    let per = CHUNKS_PER_STEP as u64;
    let body = out_offset + PREFIX_SIZE as u64;
    run_steps(pool, n_chunks.div_ceil(per), |buf, s| {
        let k0 = s * per;
        let kn = (k0 + per).min(n_chunks);
        let p0 = k0 * CHUNK_SIZE as u64;
        let p1 = (kn * CHUNK_SIZE as u64).min(plain_len);
        let c0 = k0 * ENC_CHUNK_SIZE as u64;
        let c1 = (kn * ENC_CHUNK_SIZE as u64).min(ct_len - PREFIX_SIZE as u64);
        buf.resize((c1 - c0) as usize, 0);
        {
            let mut bodies: Vec<&mut [u8]> = buf
                .chunks_mut(ENC_CHUNK_SIZE)
                .map(|c| {
                    let len = c.len() - TAG_SIZE;
                    &mut c[..len]
                })
                .collect();
            read_exact_vectored_at(input, &mut bodies, p0).map_err(|e| {
                if e.kind() == io::ErrorKind::UnexpectedEof {
                    Error::io(
                        "reading input",
                        io::Error::other("the file shrank while being read"),
                    )
                } else {
                    Error::io("reading input", e)
                }
            })?;
        }
        for (j, c) in buf.chunks_mut(ENC_CHUNK_SIZE).enumerate() {
            let len = c.len() - TAG_SIZE;
            let (b, tag) = c.split_at_mut(len);
            tag.copy_from_slice(&keys.seal_chunk(k0 + j as u64, b));
        }
        output
            .write_all_at(buf, body + c0)
            .map_err(|e| Error::io("writing output", e))?;
        progress(p1 - p0);
        Ok(())
    })?;
    Ok(ct_len)
}

/// Decrypt the Cobblestone message occupying `input[in_offset..in_offset +
/// ct_len]` into `output` (from offset 0), every worker reading, opening
/// and writing its own steps. Checks the commitment first. Returns the
/// plaintext length. On error the output holds garbage and must be
/// discarded (the callers write to a temporary file).
///
/// Each step of [`CHUNKS_PER_STEP`] chunks is read with one `pread` into a
/// per-worker buffer, opened in place, and its plaintext written with one
/// `pwritev` that skips the tags — only after every chunk of the step
/// authenticated.
#[allow(clippy::too_many_arguments)]
pub fn decrypt_file(
    pool: &Pool,
    suite: Suite,
    input_key: &[u8],
    context: &[u8],
    input: &File,
    in_offset: u64,
    ct_len: u64,
    output: &File,
    progress: ProgressFn<'_>,
) -> Result<u64> {
    let plain_len = plaintext_len(ct_len)?;
    let mut prefix = [0u8; PREFIX_SIZE];
    input
        .read_exact_at(&mut prefix, in_offset)
        .map_err(|e| Error::io("reading input", e))?;
    let keys = ChunkKeys::from_prefix(suite, input_key, context, &prefix)?;
    output
        .set_len(plain_len)
        .map_err(|e| Error::io("writing output", e))?;
    let n_chunks = chunk_count(plain_len);
    let per = CHUNKS_PER_STEP as u64;
    let body = in_offset + PREFIX_SIZE as u64;
    run_steps(pool, n_chunks.div_ceil(per), |buf, s| {
        let k0 = s * per;
        let kn = (k0 + per).min(n_chunks);
        let c0 = k0 * ENC_CHUNK_SIZE as u64;
        let c1 = (kn * ENC_CHUNK_SIZE as u64).min(ct_len - PREFIX_SIZE as u64);
        buf.resize((c1 - c0) as usize, 0);
        input.read_exact_at(buf, body + c0).map_err(|e| {
            if e.kind() == io::ErrorKind::UnexpectedEof {
                Error::Truncated("the input shrank while being read")
            } else {
                Error::io("reading input", e)
            }
        })?;
        let mut bodies: Vec<&[u8]> = Vec::with_capacity(CHUNKS_PER_STEP);
        for (j, c) in buf.chunks_mut(ENC_CHUNK_SIZE).enumerate() {
            let len = c.len() - TAG_SIZE;
            let (b, tag) = c.split_at_mut(len);
            keys.open_chunk(k0 + j as u64, b, tag)?;
            bodies.push(b);
        }
        write_all_vectored_at(output, &bodies, k0 * CHUNK_SIZE as u64)
            .map_err(|e| Error::io("writing output", e))?;
        progress(c1 - c0);
        Ok(())
    })?;
    Ok(plain_len)
}

/// Random access to a Cobblestone message: opening it checks the
/// commitment and authenticates the final chunk (so the plaintext length is
/// trustworthy); [`RandomAccess::read_range`] then decrypts only the chunks
/// a byte range touches.
pub struct RandomAccess<R> {
    src: R,
    base: u64,
    keys: ChunkKeys,
    plain_len: u64,
}

impl<R> std::fmt::Debug for RandomAccess<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RandomAccess")
            .field("plain_len", &self.plain_len)
            .finish_non_exhaustive()
    }
}

impl<R: Read + Seek> RandomAccess<R> {
    /// Open the message that starts at the current position of `src` and
    /// runs to its end.
    pub fn open(mut src: R, suite: Suite, input_key: &[u8], context: &[u8]) -> Result<Self> {
        let ioe = |e| Error::io("reading input", e);
        let base = src.stream_position().map_err(ioe)?;
        let end = src.seek(SeekFrom::End(0)).map_err(ioe)?;
        let ct_len = end.saturating_sub(base);
        let plain_len = plaintext_len(ct_len)?;
        let mut prefix = [0u8; PREFIX_SIZE];
        src.seek(SeekFrom::Start(base)).map_err(ioe)?;
        src.read_exact(&mut prefix).map_err(ioe)?;
        let keys = ChunkKeys::from_prefix(suite, input_key, context, &prefix)?;
        let mut ra = RandomAccess {
            src,
            base,
            keys,
            plain_len,
        };
        // Authenticate the final chunk: a length from an unauthenticated
        // end would let truncation go unnoticed.
        let last = chunk_count(plain_len) - 1;
        ra.read_chunks(last..last + 1, Pool::inline())?;
        Ok(ra)
    }

    /// The authenticated plaintext length.
    pub fn len(&self) -> u64 {
        self.plain_len
    }

    /// Whether the plaintext is empty.
    pub fn is_empty(&self) -> bool {
        self.plain_len == 0
    }

    fn read_chunks(&mut self, chunks: Range<u64>, pool: &Pool) -> Result<Vec<u8>> {
        let n_chunks = chunk_count(self.plain_len);
        let ct_body = ciphertext_len(self.plain_len) - PREFIX_SIZE as u64;
        let c0 = chunks.start * ENC_CHUNK_SIZE as u64;
        let c1 = (chunks.end * ENC_CHUNK_SIZE as u64).min(ct_body);
        let mut enc = vec![0u8; (c1 - c0) as usize];
        let ioe = |e| Error::io("reading input", e);
        self.src
            .seek(SeekFrom::Start(self.base + PREFIX_SIZE as u64 + c0))
            .map_err(ioe)?;
        self.src.read_exact(&mut enc).map_err(ioe)?;
        let mut out = Vec::new();
        self.keys
            .open_chunks(pool, chunks.start, &enc, chunks.end == n_chunks, &mut out)?;
        Ok(out)
    }

    /// Decrypt plaintext bytes `range` (within `0..len()`), authenticating
    /// every chunk the range touches.
    pub fn read_range(&mut self, range: Range<u64>, pool: &Pool) -> Result<Vec<u8>> {
        if range.start > range.end || range.end > self.plain_len {
            return Err(Error::InvalidInput(format!(
                "range {}..{} outside the plaintext (length {})",
                range.start, range.end, self.plain_len
            )));
        }
        if range.is_empty() {
            return Ok(Vec::new());
        }
        let cs = CHUNK_SIZE as u64;
        let first = range.start / cs;
        let last = ((range.end - 1) / cs).min(chunk_count(self.plain_len) - 1);
        let mut out = self.read_chunks(first..last + 1, pool)?;
        let skip = (range.start - first * cs) as usize;
        out.drain(..skip);
        out.truncate((range.end - range.start) as usize);
        Ok(out)
    }
}

/// Decrypt plaintext bytes `range` of the message in `src` (from its
/// current position to its end); see [`RandomAccess`].
pub fn decrypt_range<R: Read + Seek>(
    pool: &Pool,
    src: R,
    suite: Suite,
    input_key: &[u8],
    context: &[u8],
    range: Range<u64>,
) -> Result<Vec<u8>> {
    RandomAccess::open(src, suite, input_key, context)?.read_range(range, pool)
}
