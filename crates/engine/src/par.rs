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
//! first piece). Sealing runs each piece on the fused AES+GHASH kernel of
//! `aesflow-modes` (see [`ParGcm::seal_in_place`]); opening runs CTR and
//! then GHASH per 16 KiB step of a piece (the fused kernel is reachable for
//! opening only with the whole message's tag). Small inputs or one-thread
//! pools use the fused single-thread kernel.

use crate::error::{Error, Result};
use crate::pool::{PIECE, Pool};
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

/// Multiplication in GF(2^128) with GCM's bit order, on blocks read as
/// big-endian integers (the representation `GhashKey` states use).
/// Constant-time (no secret-dependent branches); used a few times per call.
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

/// Inputs shorter than this run on the fused one-thread GCM kernel.
pub const GCM_PARALLEL_MIN: usize = 1 << 20;
/// Bytes per GCM piece (each piece: CTR then GHASH, 16 KiB at a time).
pub const GCM_PIECE: usize = 256 * 1024;
const GCM_STEP: usize = 16 * 1024;

/// Multiplication by a fixed element `c` of GF(2^128) on the GHASH
/// backend (carry-less multiply where the CPU has it): one GHASH step over
/// a zero block is `x · c`. [`gf128_mul`] takes 128 dependent bit steps
/// (≈ 0.3–0.4 µs measured here): 4 of them per 256 KiB piece were ≈ 10%
/// of a two-thread 256 MiB seal at VAES speed.
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

/// AES-GCM with a 96-bit nonce that seals and opens large buffers on all
/// the pool's threads; identical output to SP 800-38D GCM.
pub struct ParGcm {
    gcm: Gcm,
    ghash: GhashKey,
    h: u128,
    /// `· H⁻¹` and `· H⁻²`, for the per-piece fused sealing.
    by_h_inv: MulBy,
    by_h_inv2: MulBy,
    /// `· H^(blocks of a whole piece)`, Horner's step over pieces.
    by_piece: MulBy,
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
    /// GCM with a 16-, 24- or 32-byte key.
    pub fn new(key: &[u8]) -> Result<Self> {
        let gcm = Gcm::new(key)?;
        let mut hb = [0u8; 16];
        gcm.aes().encrypt_block(&mut hb);
        let ghash = GhashKey::new(&hb, GhashImpl::detect());
        let h = u128::from_be_bytes(hb);
        hb.zeroize();
        // H⁻¹ = H^(2^128 − 2): square and multiply over the 128-bit exponent.
        let mut h_inv = 1u128 << 127; // the field's one
        for bit in (0..128).rev() {
            h_inv = gf128_mul(h_inv, h_inv);
            if bit != 0 {
                h_inv = gf128_mul(h_inv, h);
            }
        }
        let mut h_inv2 = gf128_mul(h_inv, h_inv);
        let mut hm = gf128_pow(h, (GCM_PIECE / 16) as u64);
        let g = ParGcm {
            gcm,
            ghash,
            h,
            by_h_inv: MulBy::new(h_inv),
            by_h_inv2: MulBy::new(h_inv2),
            by_piece: MulBy::new(hm),
        };
        h_inv.zeroize();
        h_inv2.zeroize();
        hm.zeroize();
        Ok(g)
    }

    /// The one-thread GCM underneath.
    pub fn gcm(&self) -> &Gcm {
        &self.gcm
    }

    fn check(len: usize) -> Result<()> {
        if len as u64 > aesflow_modes::gcm::MAX_TEXT_LEN {
            return Err(Error::TooLong);
        }
        Ok(())
    }

    /// The tag from the per-piece GHASH values (`ys[j]` of piece `j`) and the
    /// lengths; `E(J0)` XOR `GHASH(A ‖ C ‖ len)`.
    fn finish(&self, nonce: &[u8; 12], aad: &[u8], ys: &[u128], len: usize) -> Tag {
        let mut xa = 0u128;
        self.ghash.update_padded(&mut xa, aad);
        let nblocks = len.div_ceil(16) as u64;
        let per = (GCM_PIECE / 16) as u64;
        let last_blocks = nblocks - per * (ys.len() as u64 - 1);
        let mut hl = gf128_pow(self.h, last_blocks);
        // GHASH(C) by Horner over pieces, starting from the AAD state.
        let (last, whole) = ys.split_last().expect("at least one piece");
        let mut s = xa;
        for y in whole {
            s = self.by_piece.mul(s) ^ y;
        }
        s = gf128_mul(s, hl) ^ last;
        hl.zeroize();
        self.ghash
            .update_padded(&mut s, &lengths(aad.len(), len).to_be_bytes());
        let mut ej0 = self.e_j0(nonce);
        let tag = (u128::from_be_bytes(ej0) ^ s).to_be_bytes();
        ej0.zeroize();
        tag
    }

    /// Open's pieces: GHASH of each piece's ciphertext (from a zero state),
    /// then CTR, 16 KiB at a time; returns the per-piece GHASH values.
    fn open_pieces(&self, pool: &Pool, nonce: &[u8; 12], buf: &mut [u8]) -> Vec<u128> {
        let mut ys = vec![0u128; buf.len().div_ceil(GCM_PIECE)];
        let mut j0 = [0u8; 16];
        j0[..12].copy_from_slice(nonce);
        j0[15] = 2; // inc32(J0): the first counter block for data
        let aes = self.gcm.aes();
        let ghash = &self.ghash;
        let mut work: Vec<(usize, &mut u128, &mut [u8])> = ys
            .iter_mut()
            .zip(buf.chunks_mut(GCM_PIECE))
            .enumerate()
            .map(|(i, (y, c))| (i, y, c))
            .collect();
        pool.for_each_mut(&mut work, |(i, y, piece)| {
            // GCM's inc32 equals the 128-bit increment here: a 96-bit nonce
            // starts the low word at 2 and the text limit keeps it from wrapping.
            let mut ctr = add_counter(&j0, (*i * (GCM_PIECE / 16)) as u128);
            let mut x = 0u128;
            for step in piece.chunks_mut(GCM_STEP) {
                ghash.update_padded(&mut x, step);
                aes.ctr_xor(&mut ctr, step);
            }
            **y = x;
        });
        ys
    }

    /// Encrypt `buf` in place; returns the 16-byte tag.
    ///
    /// On several threads every piece runs the fused AES+GHASH kernel of
    /// `aesflow-modes`, started at the piece's own counter block: GCM with
    /// a 16-byte IV starts from `J0 = IV·H² ⊕ [128]_64·H`, so the IV that
    /// gives `J0 = nonce ‖ (1 + first block of the piece)` is `(J0 ⊕
    /// [128]_64·H)·H⁻²`. The piece's tag then yields its GHASH value `y =
    /// (tag ⊕ E(J0))·H⁻¹ ⊕ len`, and the pieces are combined as in
    /// [`ParGcm::open_in_place`]. Each thread runs at the one-thread fused
    /// speed, so more threads are never slower than one.
    pub fn seal_in_place(
        &self,
        pool: &Pool,
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<Tag> {
        Self::check(buf.len())?;
        if pool.threads() == 1 || buf.len() < GCM_PARALLEL_MIN {
            return Ok(self.gcm.seal_in_place_detached(nonce, aad, buf)?);
        }
        let mut ys = vec![0u128; buf.len().div_ceil(GCM_PIECE)];
        let mut base = [0u8; 16];
        base[..12].copy_from_slice(nonce);
        base[15] = 1; // J0
        let iv_len = u128::from(16u8 * 8); // the length block of a 16-byte IV
        let mut lh = iv_len;
        self.ghash.update_padded(&mut lh, &[0u8; 16]); // [128]_64 · H
        let mut work: Vec<(usize, &mut u128, &mut [u8])> = ys
            .iter_mut()
            .zip(buf.chunks_mut(GCM_PIECE))
            .enumerate()
            .map(|(i, (y, c))| (i, y, c))
            .collect();
        let failed = std::sync::atomic::AtomicBool::new(false);
        pool.for_each_mut(&mut work, |(i, y, piece)| {
            // J0 of the piece: its first data counter is inc32(J0). GCM's
            // inc32 equals the 128-bit increment here (the text limit keeps
            // the low word from wrapping).
            let j0 = u128::from_be_bytes(add_counter(&base, (*i * (GCM_PIECE / 16)) as u128));
            let mut iv = self.by_h_inv2.mul(j0 ^ lh).to_be_bytes();
            let tag = self.gcm.encryptor(&iv).and_then(|mut e| {
                e.update_in_place(piece)?;
                Ok(e.finalize())
            });
            iv.zeroize();
            let Ok(tag) = tag else {
                failed.store(true, std::sync::atomic::Ordering::Relaxed);
                return;
            };
            let mut ej0 = j0.to_be_bytes();
            self.gcm.aes().encrypt_block(&mut ej0);
            let s = u128::from_be_bytes(tag) ^ u128::from_be_bytes(ej0);
            ej0.zeroize();
            **y = self.by_h_inv.mul(s) ^ lengths(0, piece.len());
        });
        if failed.into_inner() {
            return Err(Error::TooLong);
        }
        Ok(self.finish(nonce, aad, &ys, buf.len()))
    }

    /// `E_K(J0)` for a 96-bit nonce.
    fn e_j0(&self, nonce: &[u8; 12]) -> [u8; 16] {
        let mut j0 = [0u8; 16];
        j0[..12].copy_from_slice(nonce);
        j0[15] = 1;
        self.gcm.aes().encrypt_block(&mut j0);
        j0
    }

    /// Decrypt `buf` in place and verify `tag` in constant time; on failure
    /// `buf` is zeroed and [`Error::ChunkAuthentication`]`(0)` returned.
    pub fn open_in_place(
        &self,
        pool: &Pool,
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
        tag: &Tag,
    ) -> Result<()> {
        Self::check(buf.len())?;
        if pool.threads() == 1 || buf.len() < GCM_PARALLEL_MIN {
            return self
                .gcm
                .open_in_place_detached(nonce, aad, buf, tag)
                .map_err(|_| Error::ChunkAuthentication(0));
        }
        let ys = self.open_pieces(pool, nonce, buf);
        let mut t = self.finish(nonce, aad, &ys, buf.len());
        let ok: bool = t.ct_eq(tag).into();
        t.zeroize();
        if ok {
            Ok(())
        } else {
            buf.zeroize();
            Err(Error::ChunkAuthentication(0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h_inverse() {
        let g = ParGcm::new(&[0x24u8; 32]).unwrap();
        assert_eq!(g.by_h_inv.mul(g.h), 1u128 << 127);
        assert_eq!(g.by_h_inv2.mul(gf128_mul(g.h, g.h)), 1u128 << 127);
        let hm = gf128_pow(g.h, (GCM_PIECE / 16) as u64);
        assert_eq!(g.by_piece.mul(g.h ^ 5), gf128_mul(g.h ^ 5, hm));
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

    /// Per-piece fused sealing equals the serial seal for whole and
    /// partial last pieces, with and without AAD.
    #[test]
    fn piecewise_seal_matches_serial() {
        let key = [0x24u8; 32];
        let g = ParGcm::new(&key).unwrap();
        for threads in [2, 3] {
            let pool = Pool::new(threads).unwrap();
            for len in [4 * GCM_PIECE, 4 * GCM_PIECE + 5, 5 * GCM_PIECE - 16] {
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
                }
            }
        }
    }
}
