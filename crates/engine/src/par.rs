//! Parallel modes over a [`Pool`]: CTR, ECB, CBC decryption, GCM.
//!
//! Every operation splits its buffer into pieces of [`PIECE`] bytes (so each
//! piece stays in one core's L2 cache), runs the pieces on the pool's
//! workers, and produces exactly the bytes of the serial mode. CBC
//! *encryption*, CFB encryption and OFB are serial by definition; the
//! multi-stream engine (`aesflow-multistream`) is the way to keep cores busy
//! with those.
//!
//! GCM: the counter-mode part runs per piece; each piece's GHASH is computed
//! from a zero state and the pieces are combined with powers of H:
//! `GHASH(C) = Σ_j GHASH(C_j) · H^{blocks after C_j}` (Horner's rule from the
//! first piece). Sealing and opening run each piece in one pass of the fused
//! AES+GHASH kernel of `aesflow-modes` ([`Gcm::seal_piece`],
//! [`Gcm::open_piece_unverified`]), in place or from an input buffer into an
//! output ([`ParGcm::seal_into`], [`ParGcm::open_into`]: the fused kernel
//! reads one and writes the other, so an out-of-place call costs no copy
//! first); opened plaintext is released only after the combined tag
//! verified. Small inputs or one-thread pools use the fused single-thread
//! kernel.
//!
//! The output's bytes before its first 64-byte boundary (0-3 blocks: a
//! buffer from `malloc` is 16-byte aligned) are a piece of their own, so
//! the stores of every other piece start on a cache line instead of
//! splitting every line. That pays from memory even on one thread, so a
//! one-thread call of [`GCM_ALIGN_MIN`] or more whose output is not
//! aligned also runs by pieces (Zen 5, one core, AES-256, 64 MiB sealed in
//! place 48 bytes past a line: 20-23 GB/s as one call, 24.7-27.3 by
//! pieces, as one call on an aligned buffer; out of place into a buffer 16
//! bytes past a line, by pieces 1.08-1.14x one call).
//!
//! # Scaling on two cores
//!
//! A one-thread GCM seal of a large buffer in place already moves about
//! twice its rate in memory traffic (read + write), so on a machine whose
//! memory does not scale with its cores, the two-thread rows follow the
//! memory system's own scaling (`scripts/mem-scaling` measures it beside a
//! register-only AES control), not a serial part: the per-call serial work
//! (the Horner combine over the pieces with carry-less multiplications by
//! powers of H, E(J0)) is a few µs against milliseconds, the workers are
//! persistent, and nothing is allocated or first-touched in the timed region
//! (`aesflow bench --engine --file-size 0`).

use crate::pool::{PIECE, Pool};
use crate::{Error, Result};
use aesflow_cipher::{Aes, Block};
use aesflow_modes::gcm::{Gcm, GhashImpl, GhashKey, Tag};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

fn add_counter(counter: &Block, blocks: u128) -> Block {
    u128::from_be_bytes(*counter)
        .wrapping_add(blocks)
        .to_be_bytes()
}

/// Counter mode (whole block as a 128-bit big-endian counter, as
/// [`Aes::ctr_xor`]) over `data`, in parallel. On return `counter` is the
/// next unused counter.
pub fn ctr_xor(pool: &Pool, aes: &Aes, counter: &mut Block, data: &mut [u8]) {
    let start = *counter;
    pool.for_each_piece(data, PIECE, |i, piece| {
        let mut c = add_counter(&start, (i * (PIECE / 16)) as u128);
        aes.ctr_xor(&mut c, piece);
    });
    *counter = add_counter(&start, data.len().div_ceil(16) as u128);
}

fn blocks_mut(data: &mut [u8]) -> Result<()> {
    if !data.len().is_multiple_of(16) {
        return Err(Error::InvalidInput(format!(
            "length {} is not a multiple of the 16-byte block",
            data.len()
        )));
    }
    Ok(())
}

/// Run `f` on the blocks of `data` (whole blocks) through an L1-sized block
/// buffer (a byte slice cannot be viewed as blocks without `unsafe` on the
/// supported toolchains).
fn with_blocks(data: &mut [u8], f: impl Fn(&mut [Block])) {
    let mut buf = [[0u8; 16]; 256];
    for piece in data.chunks_mut(16 * 256) {
        let n = piece.len() / 16;
        for (b, c) in buf.iter_mut().zip(piece.chunks_exact(16)) {
            b.copy_from_slice(c);
        }
        f(&mut buf[..n]);
        for (b, c) in buf.iter().zip(piece.chunks_exact_mut(16)) {
            c.copy_from_slice(b);
        }
    }
    buf.zeroize();
}

/// ECB encryption in place, in parallel (length a multiple of 16).
pub fn ecb_encrypt(pool: &Pool, aes: &Aes, data: &mut [u8]) -> Result<()> {
    blocks_mut(data)?;
    pool.for_each_piece(data, PIECE, |_, p| {
        with_blocks(p, |b| aes.encrypt_blocks(b))
    });
    Ok(())
}

/// ECB decryption in place, in parallel (length a multiple of 16).
pub fn ecb_decrypt(pool: &Pool, aes: &Aes, data: &mut [u8]) -> Result<()> {
    blocks_mut(data)?;
    pool.for_each_piece(data, PIECE, |_, p| {
        with_blocks(p, |b| aes.decrypt_blocks(b))
    });
    Ok(())
}

/// CBC decryption in place, in parallel (length a multiple of 16); `iv` is
/// updated to the last ciphertext block, so calls can be chained.
pub fn cbc_decrypt(pool: &Pool, aes: &Aes, iv: &mut Block, data: &mut [u8]) -> Result<()> {
    blocks_mut(data)?;
    if data.is_empty() {
        return Ok(());
    }
    // Each piece's chaining value is the last ciphertext block of the piece
    // before it: save them before any piece is decrypted in place.
    let mut ivs: Vec<Block> = vec![*iv];
    ivs.extend(
        data.chunks(PIECE)
            .map(|c| -> Block { c[c.len() - 16..].try_into().expect("16 bytes") }),
    );
    let next_iv = ivs.pop().expect("at least one piece");
    pool.try_for_each_piece(data, PIECE, |i, piece| {
        aesflow_modes::cbc::decrypt_in_place(aes, &ivs[i], piece)
    })?;
    *iv = next_iv;
    Ok(())
}

/// One piece of a parallel GCM call: the blocks before it, its GHASH value
/// (out), its input (`None`: in place) and its output.
type Piece<'a> = (usize, &'a mut u128, Option<&'a [u8]>, &'a mut [u8]);

/// The bytes of `out` before its first 64-byte boundary, if whole blocks
/// (a buffer from `malloc` is 16-byte aligned: 0-48 bytes): a piece of its
/// own, so that every other piece's stores start on a cache line.
fn head_len(out: &[u8]) -> usize {
    let k = (out.as_ptr() as usize).wrapping_neg() % 64;
    if k.is_multiple_of(16) && k < out.len() {
        k
    } else {
        0
    }
}

/// `f(input, output)` for an out-of-place call: an error if the lengths
/// differ, and on any error `output` zeroed (it holds neither input nor
/// unauthenticated plaintext).
fn wipe_on_error<T>(
    input: &[u8],
    output: &mut [u8],
    f: impl FnOnce(&[u8], &mut [u8]) -> Result<T>,
) -> Result<T> {
    let r = if input.len() == output.len() {
        f(input, output)
    } else {
        Err(Error::InvalidInput(format!(
            "input of {} bytes, output of {}: they must be the same length",
            input.len(),
            output.len()
        )))
    };
    if r.is_err() {
        output.zeroize();
    }
    r
}

/// Multiplication in GF(2^128) with GCM's bit order, on blocks read as
/// big-endian integers (the representation `GhashKey` states use).
/// Constant-time (no secret-dependent branches); bit-serial, the reference
/// the carry-less multiplications (`MulBy`, `HPowers`) are tested against.
pub fn gf128_mul(x: u128, y: u128) -> u128 {
    const R: u128 = 0xE1 << 120;
    let mut z = 0u128;
    let mut v = y;
    for i in 0..128 {
        let bit = (x >> (127 - i)) & 1;
        z ^= v & 0u128.wrapping_sub(bit);
        let lsb = v & 1;
        v = (v >> 1) ^ (R & 0u128.wrapping_sub(lsb));
    }
    z
}

/// `h^n` in GF(2^128) (square and multiply).
pub fn gf128_pow(h: u128, mut n: u64) -> u128 {
    let mut result = 1u128 << 127; // the field's one
    let mut base = h;
    while n > 0 {
        if n & 1 == 1 {
            result = gf128_mul(result, base);
        }
        base = gf128_mul(base, base);
        n >>= 1;
    }
    result
}

/// GCM's length block `[len(A)]_64 ‖ [len(C)]_64` (bits), as an integer.
fn lengths(aad: usize, text: usize) -> u128 {
    (((aad as u64 * 8) as u128) << 64) | (text as u64 * 8) as u128
}

/// Bytes of GCM text a thread must get for a split to pay: the call
/// uses one thread per `GCM_THREAD_MIN` bytes, at most the pool's.
///
/// A split costs a hand-off (the caller wakes the workers and waits for
/// them: 10-23 µs median for an empty two-task call on Zen 5, two vCPUs)
/// and saves at most half the one-thread time on two threads: 1 MiB takes
/// about 45 µs on one thread in cache, so at 1 MiB a thread the saving is
/// about one hand-off, at 2 MiB a thread several. Measured there (medians of
/// 200-400 alternated calls, five runs): two-thread calls of 1-2 MiB ran at
/// 0.45-1.1x the one-thread call, of 4-8 MiB at 1.24-1.46x while the second
/// vCPU was free (0.7-0.9x while another process held it, as at any size).
pub const GCM_THREAD_MIN: usize = 2 << 20;
/// Inputs shorter than this (two threads' worth, [`GCM_THREAD_MIN`]) run on
/// the fused one-thread GCM kernel.
pub const GCM_PARALLEL_MIN: usize = 2 * GCM_THREAD_MIN;
/// One-thread texts of this many bytes or more whose output does not start
/// on a cache line run by pieces, the head before the first line a piece of
/// its own (see the module documentation). Running by pieces costs each
/// piece's start and the combination of their GHASH values (`HPowers`,
/// built on a key's first call by pieces), which the aligned stores repay
/// once the data comes from memory. On Zen 5 (32 MiB L3), AES-256, one
/// core, by pieces against one call, measured with a bit-serial power of H
/// in the combination (about 10 µs a call, against under 1 µs with
/// `HPowers`): out of place 1-3 % slower at 4-16 MiB (in cache or not),
/// 8-12 % faster at 32 MiB; in place level in cache, 15-39 % faster from
/// memory.
pub const GCM_ALIGN_MIN: usize = 32 << 20;
/// Bytes per GCM piece (each piece: one pass of the fused AES+GHASH kernel).
pub const GCM_PIECE: usize = 256 * 1024;

/// Multiplication by a fixed element `c` of GF(2^128) on the GHASH
/// backend (carry-less multiply where the CPU has it): one GHASH step over
/// a zero block is `x · c`. [`gf128_mul`] takes 128 dependent bit steps
/// (≈ 0.3–0.4 µs measured here), too slow to run once per 256 KiB piece.
struct MulBy(GhashKey);

impl MulBy {
    fn new(c: u128) -> MulBy {
        MulBy(GhashKey::new(&c.to_be_bytes(), GhashImpl::detect()))
    }

    fn mul(&self, x: u128) -> u128 {
        let mut s = x;
        self.0.update_padded(&mut s, &[0u8; 16]);
        s
    }
}

/// Bits of the exponents [`HPowers`] takes: a piece's blocks
/// ([`GCM_PIECE`] / 16 = 2^14) and fewer.
const POW_BITS: usize = 15;
const _: () = assert!((GCM_PIECE / 16).is_power_of_two() && GCM_PIECE / 16 < 1 << POW_BITS);

/// Multiplication by `H^(2^i)` for every `i` below [`POW_BITS`] (each a
/// [`MulBy`]), so that `x · H^n` takes one carry-less step per bit set in
/// `n` (at most 15, about 10 ns each) instead of the square-and-multiply of
/// [`gf128_pow`] and [`gf128_mul`] (about 10 µs for a piece's exponent).
/// The exponents are block counts, public: the bits of `n` may branch.
struct HPowers([MulBy; POW_BITS]);

impl HPowers {
    fn new(h: u128) -> HPowers {
        let mut c = h;
        let powers = std::array::from_fn(|_| {
            let m = MulBy::new(c);
            c = m.mul(c);
            m
        });
        c.zeroize();
        HPowers(powers)
    }

    /// `x · H^n` (`n` below `2^POW_BITS`).
    fn mul(&self, mut x: u128, n: u64) -> u128 {
        assert!(n < 1 << POW_BITS, "exponent {n} too large");
        for (i, m) in self.0.iter().enumerate() {
            if n >> i & 1 == 1 {
                x = m.mul(x);
            }
        }
        x
    }
}

/// AES-GCM with a 96-bit nonce that seals and opens large buffers on all
/// the pool's threads; identical output to SP 800-38D GCM.
pub struct ParGcm {
    gcm: Gcm,
    ghash: GhashKey,
    h: u128,
    /// Multiplication by powers of H (the Horner step over pieces, the
    /// head's and the last piece's), built on the first call by pieces.
    powers: std::sync::OnceLock<Box<HPowers>>,
}

impl Drop for ParGcm {
    fn drop(&mut self) {
        self.h.zeroize();
    }
}

impl std::fmt::Debug for ParGcm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParGcm").field("gcm", &self.gcm).finish()
    }
}

impl ParGcm {
    /// GCM with a 16-, 24- or 32-byte key on `kernel` (e.g. the
    /// [`Pool::kernel`] of the pool it will run on), with the variants of
    /// the table of measured CPUs.
    pub fn new(key: &[u8], kernel: &'static dyn aesflow_cipher::Kernel) -> Result<Self> {
        Self::with_gcm(crate::kernel::gcm(key, kernel)?)
    }

    /// GCM with a 16-, 24- or 32-byte key on `pool`'s kernel and plan
    /// ([`Pool::kernel`], [`Pool::plan`]).
    pub fn for_pool(key: &[u8], pool: &Pool) -> Result<Self> {
        Self::with_gcm(crate::kernel::gcm_planned(key, pool.kernel(), pool.plan())?)
    }

    fn with_gcm(gcm: Gcm) -> Result<Self> {
        let mut hb = [0u8; 16];
        gcm.aes().encrypt_block(&mut hb);
        let ghash = GhashKey::new(&hb, GhashImpl::detect());
        let h = u128::from_be_bytes(hb);
        hb.zeroize();
        Ok(ParGcm {
            gcm,
            ghash,
            h,
            powers: std::sync::OnceLock::new(),
        })
    }

    fn powers(&self) -> &HPowers {
        self.powers.get_or_init(|| Box::new(HPowers::new(self.h)))
    }

    /// The one-thread GCM underneath.
    pub fn gcm(&self) -> &Gcm {
        &self.gcm
    }

    /// Whether `len` bytes go to the one-thread kernel (a small input or
    /// a one-thread pool); an error if GCM cannot take that many.
    fn one_thread(pool: &Pool, len: usize) -> Result<bool> {
        if len as u64 > aesflow_modes::gcm::MAX_TEXT_LEN {
            return Err(Error::TooLong);
        }
        Ok(Self::split_threads(pool, len) < 2)
    }

    /// Whether a call on `buf` runs by pieces: split over threads, or on
    /// one thread a text of [`GCM_ALIGN_MIN`] or more whose output does
    /// not start on a cache line (its head a piece of its own, `head_len`:
    /// the bulk's stores then never split a line); else one call of the
    /// fused kernel.
    fn by_pieces(pool: &Pool, buf: &[u8]) -> Result<bool> {
        Ok(
            !Self::one_thread(pool, buf.len())?
                || (buf.len() >= GCM_ALIGN_MIN && head_len(buf) > 0),
        )
    }

    /// The threads a `len`-byte call is split over: one per
    /// [`GCM_THREAD_MIN`] bytes, at most the pool's.
    fn split_threads(pool: &Pool, len: usize) -> usize {
        (len / GCM_THREAD_MIN).clamp(1, pool.threads())
    }

    /// The tag from the per-piece GHASH values (`ys[j]` of piece `j`: a
    /// head of `head` bytes if not 0, then whole [`GCM_PIECE`]s and a last
    /// one) and the lengths; `E(J0)` XOR `GHASH(A ‖ C ‖ len)`.
    fn finish(&self, nonce: &[u8; 12], aad: &[u8], ys: &[u128], head: usize, len: usize) -> Tag {
        let mut xa = 0u128;
        self.ghash.update_padded(&mut xa, aad);
        let pw = self.powers();
        let ys = if head > 0 {
            xa = pw.mul(xa, (head / 16) as u64) ^ ys[0];
            &ys[1..]
        } else {
            ys
        };
        let nblocks = (len - head).div_ceil(16) as u64;
        let per = (GCM_PIECE / 16) as u64;
        let last_blocks = nblocks - per * (ys.len() as u64 - 1);
        // GHASH(C) by Horner over pieces, starting from the AAD state.
        let (last, whole) = ys.split_last().expect("at least one piece");
        let mut s = xa;
        for y in whole {
            s = pw.mul(s, per) ^ y;
        }
        s = pw.mul(s, last_blocks) ^ last;
        self.ghash
            .update_padded(&mut s, &lengths(aad.len(), len).to_be_bytes());
        let mut j0 = [0u8; 16];
        j0[..12].copy_from_slice(nonce);
        j0[15] = 1;
        self.gcm.aes().encrypt_block(&mut j0);
        let tag = (u128::from_be_bytes(j0) ^ s).to_be_bytes();
        j0.zeroize();
        tag
    }

    /// Seal (`encrypt`) or open every [`GCM_PIECE`] of `input` (or of
    /// `buf` itself, in place) into `buf` on the pool, each in one pass of
    /// the fused AES+GHASH kernel at its own counter
    /// ([`Gcm::seal_piece_into`], [`Gcm::open_piece_into_unverified`]),
    /// and assemble the tag from the pieces' GHASH values. Opened plaintext
    /// is unauthenticated until the caller has checked the returned tag.
    fn pieces(
        &self,
        pool: &Pool,
        nonce: &[u8; 12],
        aad: &[u8],
        input: Option<&[u8]>,
        buf: &mut [u8],
        encrypt: bool,
    ) -> Result<Tag> {
        let len = buf.len();
        let head = head_len(buf);
        let mut ys = vec![0u128; usize::from(head > 0) + (len - head).div_ceil(GCM_PIECE)];
        let mut first = [0u8; 16];
        first[..12].copy_from_slice(nonce);
        first[15] = 2; // inc32(J0): the first counter block for data
        let (head_out, rest) = buf.split_at_mut(head);
        let (head_in, rest_in) = input.map(|i| i.split_at(head)).unzip();
        let mut inputs = rest_in.map(|i| i.chunks(GCM_PIECE));
        let outs = (head > 0)
            .then_some((0, head_in, head_out))
            .into_iter()
            .chain(rest.chunks_mut(GCM_PIECE).enumerate().map(|(i, c)| {
                let before = head / 16 + i * (GCM_PIECE / 16);
                (before, inputs.as_mut().and_then(|p| p.next()), c)
            }));
        let mut work: Vec<Piece<'_>> = ys
            .iter_mut()
            .zip(outs)
            .map(|(y, (before, i, c))| (before, y, i, c))
            .collect();
        // Fewer threads than the pool's: each takes a run of consecutive
        // pieces (the others are not woken); else every piece is a task.
        let threads = Self::split_threads(pool, len);
        let per_task = if threads < pool.threads() {
            work.len().div_ceil(threads)
        } else {
            1
        };
        let mut tasks: Vec<&mut [Piece<'_>]> = work.chunks_mut(per_task).collect();
        let failed = std::sync::atomic::AtomicBool::new(false);
        let run = |(before, y, input, piece): &mut Piece<'_>| {
            // GCM's inc32 equals the 128-bit increment here: a 96-bit nonce
            // starts the low word at 2 and the text limit keeps it from wrapping.
            let ctr = add_counter(&first, *before as u128);
            let r = match (*input, encrypt) {
                (None, true) => self.gcm.seal_piece(&ctr, piece),
                (None, false) => self.gcm.open_piece_unverified(&ctr, piece),
                (Some(i), true) => self.gcm.seal_piece_into(&ctr, i, piece),
                (Some(i), false) => self.gcm.open_piece_into_unverified(&ctr, i, piece),
            };
            match r {
                Ok(x) => **y = x,
                Err(_) => failed.store(true, std::sync::atomic::Ordering::Relaxed),
            }
        };
        pool.for_each_mut(&mut tasks, |t| t.iter_mut().for_each(&run));
        if failed.into_inner() {
            return Err(Error::TooLong);
        }
        let tag = self.finish(nonce, aad, &ys, head, len);
        ys.zeroize();
        Ok(tag)
    }

    /// Encrypt `buf` in place; returns the 16-byte tag.
    ///
    /// On several threads every piece runs the fused AES+GHASH kernel of
    /// `aesflow-modes` ([`Gcm::seal_piece`]) at its own counter block, and
    /// the pieces' GHASH values are combined with powers of H. Each thread
    /// runs at the one-thread fused speed, so more threads are never slower
    /// than one.
    pub fn seal_in_place(
        &self,
        pool: &Pool,
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<Tag> {
        self.seal_from(pool, nonce, aad, None, buf)
    }

    /// Encrypt `input` into `output` (the same length); returns the 16-byte
    /// tag. As [`ParGcm::seal_in_place`], with every piece read from
    /// `input` and written to `output` in the same fused pass
    /// ([`Gcm::seal_piece_into`]): no copy first. On error `output` is
    /// zeroed.
    pub fn seal_into(
        &self,
        pool: &Pool,
        nonce: &[u8; 12],
        aad: &[u8],
        input: &[u8],
        output: &mut [u8],
    ) -> Result<Tag> {
        wipe_on_error(input, output, |i, o| {
            self.seal_from(pool, nonce, aad, Some(i), o)
        })
    }

    fn seal_from(
        &self,
        pool: &Pool,
        nonce: &[u8; 12],
        aad: &[u8],
        input: Option<&[u8]>,
        buf: &mut [u8],
    ) -> Result<Tag> {
        if !Self::by_pieces(pool, buf)? {
            return Ok(match input {
                Some(i) => self.gcm.seal_into(nonce, aad, i, buf)?,
                None => self.gcm.seal_in_place_detached(nonce, aad, buf)?,
            });
        }
        self.pieces(pool, nonce, aad, input, buf, true)
    }

    /// Decrypt `buf` in place and verify `tag` in constant time; on failure
    /// `buf` is zeroed and [`Error::Authentication`] returned.
    ///
    /// On several threads every piece is decrypted in one fused pass
    /// ([`Gcm::open_piece_unverified`]) as in [`ParGcm::seal_in_place`]; the
    /// plaintext reaches the caller only once the combined tag verified.
    pub fn open_in_place(
        &self,
        pool: &Pool,
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
        tag: &Tag,
    ) -> Result<()> {
        self.open_from(pool, nonce, aad, None, buf, tag)
    }

    /// Decrypt `input` into `output` (the same length) and verify `tag` in
    /// constant time, as [`ParGcm::open_in_place`] with every piece read
    /// from `input` and written to `output` in one fused pass
    /// ([`Gcm::open_piece_into_unverified`]). On failure (or lengths that
    /// differ) `output` is zeroed and an error returned.
    pub fn open_into(
        &self,
        pool: &Pool,
        nonce: &[u8; 12],
        aad: &[u8],
        input: &[u8],
        tag: &Tag,
        output: &mut [u8],
    ) -> Result<()> {
        wipe_on_error(input, output, |i, o| {
            self.open_from(pool, nonce, aad, Some(i), o, tag)
        })
    }

    fn open_from(
        &self,
        pool: &Pool,
        nonce: &[u8; 12],
        aad: &[u8],
        input: Option<&[u8]>,
        buf: &mut [u8],
        tag: &Tag,
    ) -> Result<()> {
        if !Self::by_pieces(pool, buf)? {
            let r = match input {
                Some(i) => self.gcm.open_into(nonce, aad, i, tag, buf),
                None => self.gcm.open_in_place_detached(nonce, aad, buf, tag),
            };
            return r.map_err(|_| Error::Authentication);
        }
        let result = self.pieces(pool, nonce, aad, input, buf, false);
        let ok = match result {
            Ok(mut t) => {
                let ok: bool = t.ct_eq(tag).into();
                t.zeroize();
                ok
            }
            Err(_) => false,
        };
        if ok {
            Ok(())
        } else {
            buf.zeroize();
            Err(Error::Authentication)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `x · H^n` by the powers of H equals the bit-serial product, for
    /// every bit of the exponent and the piece's own exponent.
    #[test]
    fn powers_match_bit_serial() {
        let g = ParGcm::new(&[0x24u8; 32], aesflow_cipher::detect_best()).unwrap();
        let x = g.h ^ 0x5555_0000_1234;
        let per = (GCM_PIECE / 16) as u64;
        for n in [0, 1, 2, 3, 5, 255, 1000, 1 << 13, per - 1, per] {
            let want = gf128_mul(x, gf128_pow(g.h, n));
            assert_eq!(g.powers().mul(x, n), want, "H^{n}");
        }
    }

    /// The carry-less multiply by a constant equals the bit-serial one.
    #[test]
    fn mul_by_matches_gf128_mul() {
        let mut x = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        for i in 0..200u128 {
            let c = x.rotate_left(17) ^ i;
            assert_eq!(MulBy::new(c).mul(x), gf128_mul(x, c), "{i}");
            x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i;
        }
    }

    /// Outputs at every offset from a cache line, on one thread (a head
    /// piece when the offset is a multiple of 16, else one call) and two:
    /// sealed as the serial seal, in place and out of place, and opened
    /// back; a flipped bit in the head is refused.
    #[test]
    fn head_piece_matches_serial() {
        let g = ParGcm::new(&[0x42u8; 16], aesflow_cipher::detect_best()).unwrap();
        let len = GCM_ALIGN_MIN + GCM_PIECE + 4099;
        let data: Vec<u8> = (0..len + 64).map(|i| (i * 13 + 1) as u8).collect();
        let mut out = vec![0u8; len + 128];
        let mut inp = vec![0u8; len + 128];
        for threads in [1, 2] {
            let pool = Pool::new(threads).unwrap();
            for off in [0, 8, 16, 32, 48] {
                // `off` bytes past a cache line.
                let at = |v: &[u8]| (64 - v.as_ptr() as usize % 64) % 64 + off;
                let (o, i) = (at(&out), at(&inp));
                let p = &data[..len];
                let mut want = p.to_vec();
                let wt = g
                    .gcm()
                    .seal_in_place_detached(&[9; 12], b"ad", &mut want)
                    .unwrap();
                inp[i..i + len].copy_from_slice(p);
                let t = g.seal_into(
                    &pool,
                    &[9; 12],
                    b"ad",
                    &inp[i..i + len],
                    &mut out[o..o + len],
                );
                assert_eq!(t.unwrap(), wt, "{threads} {off}");
                assert!(out[o..o + len] == want[..], "{threads} {off}");
                let t = g.seal_in_place(&pool, &[9; 12], b"ad", &mut inp[i..i + len]);
                assert_eq!(t.unwrap(), wt, "{threads} {off} in place");
                assert!(inp[i..i + len] == want[..], "{threads} {off} in place");
                g.open_in_place(&pool, &[9; 12], b"ad", &mut inp[i..i + len], &wt)
                    .unwrap();
                assert!(inp[i..i + len] == *p, "{threads} {off} opened");
                let r = g.open_into(&pool, &[9; 12], b"ad", &want, &wt, &mut out[o..o + len]);
                r.unwrap();
                assert!(out[o..o + len] == *p, "{threads} {off} opened into");
                want[20] ^= 1;
                let r = g.open_into(&pool, &[9; 12], b"ad", &want, &wt, &mut out[o..o + len]);
                assert!(r.is_err() && out[o..o + len].iter().all(|&b| b == 0));
            }
        }
    }

    /// Per-piece fused sealing equals the serial seal for whole and
    /// partial last pieces, with and without AAD; opening by pieces gives
    /// the data back, and refuses (leaving zeroes) a tampered message.
    #[test]
    fn piecewise_seal_matches_serial() {
        let key = [0x24u8; 32];
        let g = ParGcm::new(&key, aesflow_cipher::detect_best()).unwrap();
        for threads in [2, 3] {
            let pool = Pool::new(threads).unwrap();
            let min = GCM_PARALLEL_MIN;
            for len in [min, min + 5, min + GCM_PIECE - 16] {
                let data: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
                for aad in [&b""[..], b"some aad, 27 bytes long...."] {
                    let mut want = data.clone();
                    let wt = g
                        .gcm()
                        .seal_in_place_detached(&[5; 12], aad, &mut want)
                        .unwrap();
                    let mut got = data.clone();
                    let t = g.seal_in_place(&pool, &[5; 12], aad, &mut got).unwrap();
                    assert!(got == want, "{len}");
                    assert_eq!(t, wt, "{len}");
                    g.open_in_place(&pool, &[5; 12], aad, &mut got, &t).unwrap();
                    assert!(got == data, "{len} opened");
                    // A flipped bit in the last piece: refused, all zeroed.
                    want[len - 1] ^= 4;
                    assert!(
                        g.open_in_place(&pool, &[5; 12], aad, &mut want, &t)
                            .is_err()
                    );
                    assert!(want.iter().all(|&b| b == 0), "{len} zeroed");
                }
            }
        }
    }
}
