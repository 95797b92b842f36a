//! XTS-AES (IEEE Std 1619 *Standard for Cryptographic Protection of Data on
//! Block-Oriented Storage Devices*, §5; NIST SP 800-38E): the
//! length-preserving, tweakable mode for data at rest.
//!
//! The key is two AES keys of the same size, `Key1 ‖ Key2` (32 bytes for
//! XTS-AES-128, 64 for XTS-AES-256). A *data unit* (a disk sector, say) of
//! 16 bytes to 2^20 blocks is enciphered under a 128-bit tweak `i` (usually
//! the data unit's sequence number, as a little-endian integer):
//! `T_0 = E_K2(i)`, `T_{j+1} = T_j · α` in GF(2^128) (§5.2: a shift left
//! with the carry reduced by 0x87), and each block
//! `C_j = E_K1(P_j ⊕ T_j) ⊕ T_j` (§5.3.1). Every block of a unit is
//! independent, so the kernels run many in flight (the `vaes` kernel 32,
//! every tweak in vector registers, advanced four lanes at a time by α^16
//! among the rounds). How a tweak is multiplied by α^16 — a carry-less
//! multiply or shifts — is the plan's `xts` variant
//! ([`aesflow_plan::Plan::xts_tweak_mul`]), as the CPUs measured disagree:
//! [`Xts::new`] follows the plan table's row for this CPU, and
//! [`Xts::with_plan`] takes a plan the caller resolved. A call over several units
//! ([`Xts::encrypt_units`], [`XtsStream`]) enciphers their tweaks 16 at a
//! time, in flight together, and hands those units (when they are whole
//! blocks) to the kernel in one call (`Kernel::xts_units`).
//!
//! A data unit that is not a whole number of blocks uses *ciphertext
//! stealing* (§5.3.2, §5.4.2): the last full block's ciphertext gives its
//! head to the final partial block and its tail pads that partial block,
//! which is enciphered with the next tweak into the last full position.
//!
//! XTS has no integrity (a modified ciphertext decrypts to garbage, not an
//! error) and, being deterministic per tweak, shows when a unit returns to
//! an earlier value; it is for storage where the length cannot grow. Use
//! [GCM](crate::gcm) where an authenticator fits.
//!
//! ```
//! use aesflow_modes::Xts;
//! let xts = Xts::new(&[7u8; 64]).unwrap(); // XTS-AES-256
//! let mut sector = [0x5au8; 512];
//! xts.encrypt_sector(42, &mut sector).unwrap();
//! xts.decrypt_sector(42, &mut sector).unwrap();
//! assert_eq!(sector, [0x5a; 512]);
//! ```

use crate::error::{Error, Result};
use crate::kernels::wipe_block;
use aesflow_cipher::{Aes, Block, Kernel, KeyExpansion, detect_best, xts_mul_alpha};
use core::borrow::Borrow;

/// The shortest data unit: one block (IEEE 1619 §5.1).
pub const MIN_UNIT_LEN: usize = 16;
/// The longest data unit: 2^20 blocks (IEEE 1619 §5.1, SP 800-38E).
pub const MAX_UNIT_LEN: usize = 16 << 20;

/// Tweaks enciphered per ECB call when a call covers several data units.
const TWEAK_BATCH: usize = 16;

/// XTS-AES with a key pair: the data-unit cipher (`Key1`) and the tweak
/// cipher (`Key2`), on any kernel.
#[derive(Clone, Debug)]
pub struct Xts<A: Borrow<Aes> = Aes> {
    data: A,
    tweak: A,
}

impl Xts<Aes> {
    /// XTS-AES-128 (32-byte key) or XTS-AES-256 (64-byte key), `Key1 ‖
    /// Key2`, on the fastest constant-time kernel of this CPU, with the
    /// tweak multiply of the plan table's row for this CPU.
    pub fn new(key: &[u8]) -> Result<Self> {
        Self::with_kernel(key, detect_best())
    }

    /// As [`Xts::new`] on a chosen kernel.
    pub fn with_kernel(key: &[u8], kernel: &'static dyn Kernel) -> Result<Self> {
        if key.len() != 32 && key.len() != 64 {
            return Err(Error::XtsKeyLength(key.len()));
        }
        let (k1, k2) = key.split_at(key.len() / 2);
        let mul = aesflow_plan::Plan::for_this_cpu().xts_tweak_mul();
        Ok(Xts {
            data: Aes::with_kernel(k1, kernel, KeyExpansion::Offline)?.with_xts_tweak_mul(mul),
            tweak: Aes::with_kernel(k2, kernel, KeyExpansion::Offline)?,
        })
    }

    /// The same XTS with the tweak multiply `plan` chooses (a plan the
    /// caller resolved, e.g. from `aesflow tune`'s file) instead of the
    /// table's. The output is the same either way; only the speed differs.
    pub fn with_plan(mut self, plan: &aesflow_plan::Plan) -> Self {
        self.data = self.data.with_xts_tweak_mul(plan.xts_tweak_mul());
        self
    }
}

impl<A: Borrow<Aes>> Xts<A> {
    /// XTS from its two ciphers (any kernel, either key expansion; they
    /// should have the same key size).
    pub fn from_aes(data: A, tweak: A) -> Self {
        Xts { data, tweak }
    }

    /// The data-unit cipher (`Key1`).
    pub fn data_cipher(&self) -> &Aes {
        self.data.borrow()
    }

    /// Encrypt one data unit in place under a 128-bit tweak.
    pub fn encrypt_unit(&self, tweak: &Block, unit: &mut [u8]) -> Result<()> {
        self.unit(tweak, unit, false)
    }

    /// Decrypt one data unit in place under a 128-bit tweak.
    pub fn decrypt_unit(&self, tweak: &Block, unit: &mut [u8]) -> Result<()> {
        self.unit(tweak, unit, true)
    }

    /// Encrypt one data unit whose tweak is its sequence number (as a
    /// 128-bit little-endian integer).
    pub fn encrypt_sector(&self, seq: u128, unit: &mut [u8]) -> Result<()> {
        self.unit(&seq.to_le_bytes(), unit, false)
    }

    /// Decrypt one data unit whose tweak is its sequence number.
    pub fn decrypt_sector(&self, seq: u128, unit: &mut [u8]) -> Result<()> {
        self.unit(&seq.to_le_bytes(), unit, true)
    }

    /// Encrypt consecutive data units of `unit_len` bytes in place, the
    /// first with sequence number `first`; the last may be shorter (at
    /// least 16 bytes). Returns the next unit's sequence number.
    pub fn encrypt_units(&self, first: u128, unit_len: usize, buf: &mut [u8]) -> Result<u128> {
        self.units(first, unit_len, buf, false)
    }

    /// Decrypt consecutive data units (see [`Xts::encrypt_units`]).
    pub fn decrypt_units(&self, first: u128, unit_len: usize, buf: &mut [u8]) -> Result<u128> {
        self.units(first, unit_len, buf, true)
    }

    /// A stream over consecutive data units of `unit_len` bytes, the first
    /// with sequence number `first`.
    pub fn stream(&self, first: u128, unit_len: usize) -> Result<XtsStream<'_, A>> {
        check_len(unit_len)?;
        Ok(XtsStream {
            xts: self,
            next: first,
            unit_len,
        })
    }

    /// Consecutive units: their tweaks are enciphered [`TWEAK_BATCH`] at a
    /// time (one ECB call, the blocks in flight together, instead of one
    /// latency-bound block per unit), then the whole units of whole blocks
    /// go to the kernel in one call ([`Aes::xts_units`]: keys loaded once,
    /// one unit's start overlapping the previous unit's rounds).
    fn units(&self, first: u128, unit_len: usize, buf: &mut [u8], dec: bool) -> Result<u128> {
        check_len(unit_len)?;
        if let Some(last) = buf.chunks(unit_len).last() {
            check_len(last.len())?;
        }
        let mut seq = first;
        let mut tweaks = [[0u8; 16]; TWEAK_BATCH];
        for group in buf.chunks_mut(unit_len * TWEAK_BATCH) {
            let n = group.len().div_ceil(unit_len);
            for (i, t) in tweaks[..n].iter_mut().enumerate() {
                *t = seq.wrapping_add(i as u128).to_le_bytes();
            }
            self.tweak.borrow().encrypt_blocks(&mut tweaks[..n]);
            // The whole units of whole blocks in one kernel call; a unit
            // that steals (a partial block) through `enciphered`.
            let whole = if unit_len.is_multiple_of(16) {
                group.len() / unit_len
            } else {
                0
            };
            let (head, tail) = group.split_at_mut(whole * unit_len);
            if whole > 0 {
                let (blocks, _) = head.as_chunks_mut::<16>();
                self.data
                    .borrow()
                    .xts_units(&mut tweaks[..whole], unit_len / 16, blocks, dec);
            }
            for (unit, t) in tail.chunks_mut(unit_len).zip(&mut tweaks[whole..n]) {
                self.enciphered(t, unit, dec);
            }
            seq = seq.wrapping_add(n as u128);
        }
        tweaks.iter_mut().for_each(wipe_block);
        Ok(seq)
    }

    fn unit(&self, tweak: &Block, unit: &mut [u8], dec: bool) -> Result<()> {
        check_len(unit.len())?;
        let mut t = *tweak;
        self.tweak.borrow().encrypt_block(&mut t);
        self.enciphered(&mut t, unit, dec);
        Ok(())
    }

    /// One unit (of a valid length) under its enciphered tweak `t`, which
    /// is wiped.
    fn enciphered(&self, t: &mut Block, unit: &mut [u8], dec: bool) {
        let data = self.data.borrow();
        let whole = unit.len() / 16;
        let partial = unit.len() % 16;
        let (blocks, tail) = unit.as_chunks_mut::<16>();
        if partial == 0 {
            data.xts_blocks(t, blocks, dec);
        } else if !dec {
            // §5.3.2: the last full block's ciphertext CC lends its head to
            // the partial block and its tail to the stolen block PP.
            data.xts_blocks(t, blocks, false);
            let last = &mut blocks[whole - 1];
            let mut pp = *last;
            pp[..partial].copy_from_slice(tail);
            tail.copy_from_slice(&last[..partial]);
            data.xts_blocks(t, core::slice::from_mut(&mut pp), false);
            *last = pp;
            wipe_block(&mut pp);
        } else {
            // §5.4.2: the full blocks before the last with T_0..T_{m-2};
            // the last full one with T_m gives PP; then CC with T_{m-1}.
            data.xts_blocks(t, &mut blocks[..whole - 1], true);
            let mut t_last = xts_mul_alpha(t);
            let last = &mut blocks[whole - 1];
            let mut pp = *last;
            data.xts_blocks(&mut t_last, core::slice::from_mut(&mut pp), true);
            let mut cc = pp;
            cc[..partial].copy_from_slice(tail);
            tail.copy_from_slice(&pp[..partial]);
            data.xts_blocks(t, core::slice::from_mut(&mut cc), true);
            *last = cc;
            wipe_block(&mut pp);
            wipe_block(&mut cc);
            wipe_block(&mut t_last);
        }
        wipe_block(t);
    }
}

fn check_len(len: usize) -> Result<()> {
    if (MIN_UNIT_LEN..=MAX_UNIT_LEN).contains(&len) {
        Ok(())
    } else {
        Err(Error::DataUnitLength(len))
    }
}

/// Consecutive data units with running sequence numbers: each call takes
/// whole data units, [`XtsStream::encrypt_final`] / `decrypt_final` a
/// shorter last one.
#[derive(Debug)]
pub struct XtsStream<'a, A: Borrow<Aes> = Aes> {
    xts: &'a Xts<A>,
    next: u128,
    unit_len: usize,
}

impl<A: Borrow<Aes>> XtsStream<'_, A> {
    /// The sequence number of the next data unit.
    pub fn next_seq(&self) -> u128 {
        self.next
    }

    /// Encrypt whole data units in place ([`Error::DataUnitLength`] if
    /// `buf` is not a multiple of the unit length; nothing is changed then).
    pub fn encrypt(&mut self, buf: &mut [u8]) -> Result<()> {
        self.whole(buf, false)
    }

    /// Decrypt whole data units in place.
    pub fn decrypt(&mut self, buf: &mut [u8]) -> Result<()> {
        self.whole(buf, true)
    }

    /// Encrypt a last, possibly shorter, data unit (16 bytes at least).
    pub fn encrypt_final(self, unit: &mut [u8]) -> Result<()> {
        self.xts.encrypt_sector(self.next, unit)
    }

    /// Decrypt a last, possibly shorter, data unit.
    pub fn decrypt_final(self, unit: &mut [u8]) -> Result<()> {
        self.xts.decrypt_sector(self.next, unit)
    }

    fn whole(&mut self, buf: &mut [u8], dec: bool) -> Result<()> {
        if !buf.len().is_multiple_of(self.unit_len) {
            return Err(Error::DataUnitLength(buf.len() % self.unit_len));
        }
        self.next = self.xts.units(self.next, self.unit_len, buf, dec)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::cipher::KeyInit;
    use aesflow_cipher::XtsTweakMul;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    /// RustCrypto `xts-mode`'s ciphertext of one sector.
    fn reference(key: &[u8], seq: u128, data: &[u8]) -> Vec<u8> {
        let mut out = data.to_vec();
        let (k1, k2) = key.split_at(key.len() / 2);
        if key.len() == 32 {
            let c = |k| aes::Aes128::new_from_slice(k).unwrap();
            xts_mode::Xts128::new(c(k1), c(k2)).encrypt_sector(&mut out, seq.to_le_bytes());
        } else {
            let c = |k| aes::Aes256::new_from_slice(k).unwrap();
            xts_mode::Xts128::new(c(k1), c(k2)).encrypt_sector(&mut out, seq.to_le_bytes());
        }
        out
    }

    /// Each tweak multiply, named explicitly (whichever the plan picks),
    /// against `xts-mode`: every length from 16 to 600 bytes (ciphertext
    /// stealing at every partial length, the kernels' register and step
    /// tails) and buffers of many steps, both directions, both key sizes.
    #[test]
    fn both_tweak_multiplies_match_xts_mode() {
        let mut rng = StdRng::seed_from_u64(0x7e57_0a7f);
        let lens = (16..=600).chain([4096 + 7, 16384, 65536 + 13, 1 << 20]);
        for klen in [32, 64] {
            let key: Vec<u8> = (0..klen).map(|_| rng.random()).collect();
            let (k1, k2) = key.split_at(klen / 2);
            for mul in [XtsTweakMul::Clmul, XtsTweakMul::Shift] {
                let data = Aes::new(k1).unwrap().with_xts_tweak_mul(mul);
                let xts = Xts::from_aes(data, Aes::new(k2).unwrap());
                assert_eq!(xts.data_cipher().xts_tweak_mul(), mul);
                for len in lens.clone() {
                    let pt: Vec<u8> = (0..len).map(|_| rng.random()).collect();
                    let seq: u128 = rng.random();
                    let mut buf = pt.clone();
                    xts.encrypt_sector(seq, &mut buf).unwrap();
                    assert!(buf == reference(&key, seq, &pt), "{mul:?} {klen} {len}");
                    xts.decrypt_sector(seq, &mut buf).unwrap();
                    assert!(buf == pt, "{mul:?} {klen} {len} decrypt");
                }
            }
        }
    }
}
