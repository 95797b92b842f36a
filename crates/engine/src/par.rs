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
//! first piece). Sealing also keeps the fused AES+GHASH kernel busy: one
//! worker runs it from the front while the others take pieces from the end
//! (see [`ParGcm::seal_in_place`]); opening uses the per-piece split only
//! (the fused kernel is not reachable for a prefix of a message being
//! opened). Small inputs or one-thread pools use the fused single-thread
//! kernel of `aesflow-modes`.

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

/// AES-GCM with a 96-bit nonce that seals and opens large buffers on all
/// the pool's threads; identical output to SP 800-38D GCM.
pub struct ParGcm {
    gcm: Gcm,
    ghash: GhashKey,
    h: u128,
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
        Ok(ParGcm { gcm, ghash, h })
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
        let hm = gf128_pow(self.h, per);
        let last_blocks = nblocks - per * (ys.len() as u64 - 1);
        let hl = gf128_pow(self.h, last_blocks);
        // GHASH(C) by Horner over pieces, starting from the AAD state.
        let mut s = xa;
        for (j, y) in ys.iter().enumerate() {
            let p = if j + 1 == ys.len() { hl } else { hm };
            s = gf128_mul(s, p) ^ y;
        }
        s = gf128_mul(s ^ lengths(aad.len(), len), self.h);
        let mut ej0 = self.e_j0(nonce);
        let tag = (u128::from_be_bytes(ej0) ^ s).to_be_bytes();
        ej0.zeroize();
        tag
    }

    fn pieces(&self, pool: &Pool, nonce: &[u8; 12], buf: &mut [u8], encrypt: bool) -> Vec<u128> {
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
                if encrypt {
                    aes.ctr_xor(&mut ctr, step);
                    ghash.update_padded(&mut x, step);
                } else {
                    ghash.update_padded(&mut x, step);
                    aes.ctr_xor(&mut ctr, step);
                }
            }
            **y = x;
        });
        ys
    }

    /// Encrypt `buf` in place; returns the 16-byte tag.
    ///
    /// On several threads, one worker (the *front*) runs the fused one-thread
    /// kernel from the first piece upwards while the others take pieces from
    /// the end (CTR, then GHASH from a zero state, per piece); they meet
    /// wherever the speeds put them. The front's tag gives its GHASH state
    /// (`tag ⊕ E(J0) = (X ⊕ len)·H`), which the back pieces extend by
    /// Horner's rule. So two threads are never slower than the fused kernel
    /// alone, even when one core is busy with something else.
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
        self.seal_split(pool, nonce, aad, buf, usize::MAX)
    }

    /// [`ParGcm::seal_in_place`] with the front limited to `front_max`
    /// pieces (tests pin the meeting point with it).
    fn seal_split(
        &self,
        pool: &Pool,
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
        front_max: usize,
    ) -> Result<Tag> {
        use std::sync::Mutex;
        struct Claims<'a> {
            pieces: Vec<Option<&'a mut [u8]>>,
            lo: usize,
            hi: usize,
        }
        let len = buf.len();
        let n = len.div_ceil(GCM_PIECE);
        let claims = Mutex::new(Claims {
            pieces: buf.chunks_mut(GCM_PIECE).map(Some).collect(),
            lo: 0,
            hi: n,
        });
        let lock = || claims.lock().unwrap_or_else(|e| e.into_inner());
        let ys = Mutex::new(vec![0u128; n]);
        let mut j0 = [0u8; 16];
        j0[..12].copy_from_slice(nonce);
        j0[15] = 2; // inc32(J0): the first counter block for data
        let aes = self.gcm.aes();
        let front = || -> Result<(usize, Tag)> {
            let mut enc = self.gcm.encryptor(nonce)?;
            enc.update_aad(aad)?;
            let mut m = 0;
            while m < front_max {
                let piece = {
                    let mut c = lock();
                    if c.lo >= c.hi {
                        break;
                    }
                    let i = c.lo;
                    c.lo += 1;
                    c.pieces[i].take().expect("each piece is claimed once")
                };
                enc.update_in_place(piece)?;
                m += 1;
            }
            Ok((m, enc.finalize()))
        };
        let back = |_| loop {
            let (i, piece) = {
                let mut c = lock();
                if c.hi <= c.lo {
                    return;
                }
                c.hi -= 1;
                let i = c.hi;
                (i, c.pieces[i].take().expect("each piece is claimed once"))
            };
            // GCM's inc32 equals the 128-bit increment here: a 96-bit nonce
            // starts the low word at 2 and the text limit keeps it from wrapping.
            let mut ctr = add_counter(&j0, (i * (GCM_PIECE / 16)) as u128);
            let mut x = 0u128;
            for step in piece.chunks_mut(GCM_STEP) {
                aes.ctr_xor(&mut ctr, step);
                self.ghash.update_padded(&mut x, step);
            }
            ctr.zeroize();
            ys.lock().unwrap_or_else(|e| e.into_inner())[i] = x;
        };
        let backs = pool.threads() - 1;
        let (front, ()) = pool.install(|| {
            rayon::join(front, || {
                use rayon::prelude::*;
                (0..backs).into_par_iter().with_max_len(1).for_each(back)
            })
        });
        let (m, front_tag) = front?;
        if m == n {
            return Ok(front_tag);
        }
        let ys = ys.into_inner().unwrap_or_else(|e| e.into_inner());
        let per = GCM_PIECE / 16;
        let blocks = |j: usize| {
            if j + 1 == n {
                len.div_ceil(16) - per * (n - 1)
            } else {
                per
            }
        };
        let mut ej0 = self.e_j0(nonce);
        // s = X·H^b ⊕ y_m: X the GHASH state after the AAD and the front's
        // m pieces, b the blocks of piece m.
        let b = blocks(m) as u64;
        let mut s = if m == 0 {
            let mut xa = 0u128;
            self.ghash.update_padded(&mut xa, aad);
            gf128_mul(xa, gf128_pow(self.h, b))
        } else {
            // tag ⊕ E(J0) = (X ⊕ L)·H, so X·H^b = S·H^(b-1) ⊕ L·H^b.
            let sf = u128::from_be_bytes(front_tag) ^ u128::from_be_bytes(ej0);
            let l = lengths(aad.len(), m * GCM_PIECE);
            gf128_mul(sf, gf128_pow(self.h, b - 1)) ^ gf128_mul(l, gf128_pow(self.h, b))
        } ^ ys[m];
        let hm = gf128_pow(self.h, per as u64);
        for (j, y) in ys.iter().enumerate().skip(m + 1) {
            let p = if j + 1 == n {
                gf128_pow(self.h, blocks(j) as u64)
            } else {
                hm
            };
            s = gf128_mul(s, p) ^ y;
        }
        s = gf128_mul(s ^ lengths(aad.len(), len), self.h);
        let tag = (u128::from_be_bytes(ej0) ^ s).to_be_bytes();
        ej0.zeroize();
        Ok(tag)
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
        let ys = self.pieces(pool, nonce, buf, false);
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

    /// Every meeting point of the front (fused) and the back pieces gives
    /// the serial tag and ciphertext.
    #[test]
    fn split_seal_matches_serial_at_every_meeting_point() {
        let pool = Pool::new(3).unwrap();
        let key = [0x24u8; 32];
        let g = ParGcm::new(&key).unwrap();
        for len in [4 * GCM_PIECE, 4 * GCM_PIECE + 5, 5 * GCM_PIECE - 16] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            for aad in [&b""[..], b"some aad, 27 bytes long...."] {
                let mut want = data.clone();
                let wt = g
                    .gcm()
                    .seal_in_place_detached(&[5; 12], aad, &mut want)
                    .unwrap();
                for front in [0, 1, 2, 4, 5, usize::MAX] {
                    let mut got = data.clone();
                    let t = g.seal_split(&pool, &[5; 12], aad, &mut got, front).unwrap();
                    assert!(got == want, "{len} {front}");
                    assert_eq!(t, wt, "{len} {front}");
                }
            }
        }
    }
}
