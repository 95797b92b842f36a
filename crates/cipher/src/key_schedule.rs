//! Key expansion (FIPS-197 §5.2), offline and online.
//!
//! Liu & Baas (*Parallel AES Encryption Engines for Many-Core Processor
//! Arrays*, §4) build every engine in two variants:
//! * **offline** key expansion: the round keys are computed once and stored
//!   ([`RoundKeys`]); the cipher only reads them;
//! * **online** key expansion: each round key is derived from the previous one
//!   while the block goes through the rounds ([`OnlineKeyExpansion`]); only the
//!   last `Nk` words are ever held.
//!
//! Both produce the same round keys and therefore the same ciphertext; the
//! tests check that for every kernel.
//!
//! Online decryption needs the round keys in reverse order. The key expansion
//! is invertible (`w[i-Nk] = w[i] ⊕ f(w[i-1])`), so [`OnlineKeyExpansion`] can
//! also run backwards from the last `Nk` words ([`OnlineKeyExpansion::reverse`]),
//! still holding only `Nk` words.
//!
//! Secret key material lives in types that are zeroized on drop.

use crate::steps::{Word, key_rot_word, key_sub_word, key_xor, rcon};
use core::fmt;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// The three AES key sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeySize {
    /// AES-128: Nk = 4, Nr = 10.
    Aes128,
    /// AES-192: Nk = 6, Nr = 12.
    Aes192,
    /// AES-256: Nk = 8, Nr = 14.
    Aes256,
}

impl KeySize {
    /// All key sizes, smallest first.
    pub const ALL: [KeySize; 3] = [KeySize::Aes128, KeySize::Aes192, KeySize::Aes256];

    /// Key length in 32-bit words (Nk).
    pub const fn nk(self) -> usize {
        match self {
            KeySize::Aes128 => 4,
            KeySize::Aes192 => 6,
            KeySize::Aes256 => 8,
        }
    }

    /// Number of rounds (Nr).
    pub const fn nr(self) -> usize {
        self.nk() + 6
    }

    /// Key length in bytes.
    pub const fn bytes(self) -> usize {
        self.nk() * 4
    }

    /// Key length in bits.
    pub const fn bits(self) -> usize {
        self.nk() * 32
    }

    /// The key size for a key of `len` bytes.
    pub fn from_len(len: usize) -> Result<Self, KeyError> {
        match len {
            16 => Ok(KeySize::Aes128),
            24 => Ok(KeySize::Aes192),
            32 => Ok(KeySize::Aes256),
            other => Err(KeyError::BadLength(other)),
        }
    }

    /// The key size for `bits` = 128, 192 or 256.
    pub fn from_bits(bits: usize) -> Result<Self, KeyError> {
        Self::from_len(bits / 8).map_err(|_| KeyError::BadLength(bits / 8))
    }
}

impl fmt::Display for KeySize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AES-{}", self.bits())
    }
}

/// An invalid key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyError {
    /// The key was not 16, 24 or 32 bytes long.
    BadLength(usize),
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::BadLength(n) => write!(
                f,
                "an AES key is 16, 24 or 32 bytes (128, 192 or 256 bits), not {n} bytes"
            ),
        }
    }
}

impl std::error::Error for KeyError {}

/// A cipher key (16, 24 or 32 bytes), zeroized on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct CipherKey {
    bytes: [u8; 32],
    #[zeroize(skip)]
    size: KeySize,
}

impl CipherKey {
    /// A key from its bytes; the length selects AES-128/192/256.
    pub fn new(key: &[u8]) -> Result<Self, KeyError> {
        let size = KeySize::from_len(key.len())?;
        let mut bytes = [0u8; 32];
        bytes[..key.len()].copy_from_slice(key);
        Ok(CipherKey { bytes, size })
    }

    /// The key size.
    pub fn size(&self) -> KeySize {
        self.size
    }

    /// The key bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.size.bytes()]
    }

    fn word(&self, i: usize) -> Word {
        [
            self.bytes[4 * i],
            self.bytes[4 * i + 1],
            self.bytes[4 * i + 2],
            self.bytes[4 * i + 3],
        ]
    }
}

impl fmt::Debug for CipherKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CipherKey({}, <secret>)", self.size)
    }
}

/// The function applied to `w[i-1]` to get `w[i]` (FIPS-197 §5.2, Figure 11):
/// KeyRotWord + KeySubWord + Rcon at the start of each `Nk` group, KeySubWord
/// alone at `i mod Nk = 4` when `Nk > 6`, and nothing otherwise.
#[inline]
pub fn key_schedule_core(prev: Word, i: usize, nk: usize) -> Word {
    key_schedule_step(prev, i % nk, i / nk, nk)
}

/// [`key_schedule_core`] for word `i = group·Nk + pos`, with the position
/// already known (a loop that counts `pos` and `group` avoids two integer
/// divisions per word, which dominated the expansion's time).
#[inline]
fn key_schedule_step(prev: Word, pos: usize, group: usize, nk: usize) -> Word {
    if pos == 0 {
        key_xor(key_sub_word(key_rot_word(prev)), rcon(group))
    } else if nk > 6 && pos == 4 {
        key_sub_word(prev)
    } else {
        prev
    }
}

/// The maximum number of round keys (AES-256: Nr + 1 = 15).
pub const MAX_ROUND_KEYS: usize = 15;

/// Offline key expansion: all `Nr + 1` round keys, computed once.
///
/// Also holds the round keys of the *equivalent inverse cipher*
/// (FIPS-197 §5.3.5: InvMixColumns applied to round keys 1..Nr-1, in
/// decryption order), which the table-driven and AES-NI kernels use.
/// Zeroized on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct RoundKeys {
    enc: [[u8; 16]; MAX_ROUND_KEYS],
    dec_equiv: [[u8; 16]; MAX_ROUND_KEYS],
    #[zeroize(skip)]
    size: KeySize,
}

impl RoundKeys {
    /// Expand a cipher key (FIPS-197 §5.2 KeyExpansion).
    pub fn new(key: &CipherKey) -> Self {
        let size = key.size();
        let nk = size.nk();
        let nr = size.nr();
        let mut w = [[0u8; 4]; 4 * MAX_ROUND_KEYS];
        for (i, wi) in w.iter_mut().enumerate().take(nk) {
            *wi = key.word(i);
        }
        let (mut pos, mut group) = (0, 1);
        for i in nk..4 * (nr + 1) {
            w[i] = key_xor(w[i - nk], key_schedule_step(w[i - 1], pos, group, nk));
            pos += 1;
            if pos == nk {
                pos = 0;
                group += 1;
            }
        }
        let mut enc = [[0u8; 16]; MAX_ROUND_KEYS];
        for (r, rk) in enc.iter_mut().enumerate().take(nr + 1) {
            for c in 0..4 {
                rk[4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c]);
            }
        }
        w.zeroize();
        let mut dec_equiv = [[0u8; 16]; MAX_ROUND_KEYS];
        for r in 0..=nr {
            let mut k = enc[nr - r];
            if r != 0 && r != nr {
                crate::steps::inv_mix_columns(&mut k);
            }
            dec_equiv[r] = k;
        }
        RoundKeys {
            enc,
            dec_equiv,
            size,
        }
    }

    /// Expand a key given as bytes.
    pub fn from_bytes(key: &[u8]) -> Result<Self, KeyError> {
        Ok(Self::new(&CipherKey::new(key)?))
    }

    /// The key size.
    pub fn size(&self) -> KeySize {
        self.size
    }

    /// Number of rounds Nr.
    #[inline]
    pub fn nr(&self) -> usize {
        self.size.nr()
    }

    /// The `Nr + 1` encryption round keys, round 0 first.
    #[inline]
    pub fn enc(&self) -> &[[u8; 16]] {
        &self.enc[..=self.nr()]
    }

    /// Round key `r` (0..=Nr).
    pub fn round_key(&self, r: usize) -> &[u8; 16] {
        &self.enc[r]
    }

    /// The `Nr + 1` round keys of the equivalent inverse cipher, in the order
    /// decryption uses them (the last encryption round key first).
    #[inline]
    pub fn dec_equiv(&self) -> &[[u8; 16]] {
        &self.dec_equiv[..=self.nr()]
    }
}

impl fmt::Debug for RoundKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RoundKeys({}, <secret>)", self.size)
    }
}

/// Online key expansion: derives round keys one at a time, holding only the
/// current window of `Nk` words (zeroized on drop).
///
/// Forward ([`OnlineKeyExpansion::new`]) yields round keys 0, 1, …, Nr;
/// reverse ([`OnlineKeyExpansion::reverse`]) yields Nr, Nr-1, …, 0.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct OnlineKeyExpansion {
    /// The `Nk` most recent words, `window[j] = w[base + j]`.
    window: [Word; 8],
    /// Index of `window[0]` in the full schedule.
    #[zeroize(skip)]
    base: usize,
    /// Next round key to yield.
    #[zeroize(skip)]
    next_round: usize,
    #[zeroize(skip)]
    size: KeySize,
    #[zeroize(skip)]
    reverse: bool,
}

impl OnlineKeyExpansion {
    /// Start forward expansion from the cipher key.
    pub fn new(key: &CipherKey) -> Self {
        let mut window = [[0u8; 4]; 8];
        for (i, wi) in window.iter_mut().enumerate().take(key.size().nk()) {
            *wi = key.word(i);
        }
        OnlineKeyExpansion {
            window,
            base: 0,
            next_round: 0,
            size: key.size(),
            reverse: false,
        }
    }

    /// Start reverse expansion: runs the schedule forward once to its last `Nk`
    /// words (keeping nothing else), then yields round keys from Nr down to 0.
    pub fn reverse(key: &CipherKey) -> Self {
        let mut fwd = Self::new(key);
        let size = key.size();
        let total = 4 * (size.nr() + 1);
        while fwd.base + size.nk() < total {
            fwd.step_forward();
        }
        fwd.reverse = true;
        fwd.next_round = size.nr();
        fwd
    }

    /// The key size.
    pub fn size(&self) -> KeySize {
        self.size
    }

    fn step_forward(&mut self) {
        let nk = self.size.nk();
        let i = self.base + nk;
        let new = key_xor(
            self.window[0],
            key_schedule_core(self.window[nk - 1], i, nk),
        );
        self.window.copy_within(1..nk, 0);
        self.window[nk - 1] = new;
        self.base += 1;
    }

    fn step_backward(&mut self) {
        // Recover w[base-1] from w[base-1+Nk] = w[base-1] ⊕ f(w[base-2+Nk]).
        let nk = self.size.nk();
        let i = self.base - 1 + nk;
        let old = key_xor(
            self.window[nk - 1],
            key_schedule_core(self.window[nk - 2], i, nk),
        );
        self.window.copy_within(0..nk - 1, 1);
        self.window[0] = old;
        self.base -= 1;
    }

    fn word(&mut self, idx: usize) -> Word {
        let nk = self.size.nk();
        while idx >= self.base + nk {
            self.step_forward();
        }
        while idx < self.base {
            self.step_backward();
        }
        self.window[idx - self.base]
    }

    /// Derive round key `r` from the current window, moving the window as
    /// needed. Sequential access (forward or backward) costs one KeyXOR etc.
    /// per word.
    pub fn round_key(&mut self, r: usize) -> [u8; 16] {
        let mut rk = [0u8; 16];
        if self.reverse {
            // Walking backwards: fetch the highest word first so the window
            // only ever moves down.
            for c in (0..4).rev() {
                let w = self.word(4 * r + c);
                rk[4 * c..4 * c + 4].copy_from_slice(&w);
            }
        } else {
            for c in 0..4 {
                let w = self.word(4 * r + c);
                rk[4 * c..4 * c + 4].copy_from_slice(&w);
            }
        }
        rk
    }

    /// The next round key in this expansion's direction, with its round number.
    pub fn next_key(&mut self) -> Option<(usize, [u8; 16])> {
        let nr = self.size.nr();
        if self.next_round > nr {
            return None;
        }
        let r = self.next_round;
        let rk = self.round_key(r);
        if self.reverse {
            self.next_round = if r == 0 { nr + 1 } else { r - 1 };
        } else {
            self.next_round += 1;
        }
        Some((r, rk))
    }
}

impl fmt::Debug for OnlineKeyExpansion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OnlineKeyExpansion({}, <secret>)", self.size)
    }
}

/// How a cipher instance gets its round keys: the paper's two styles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyExpansion {
    /// Round keys computed once and stored.
    Offline,
    /// Round keys derived during each encryption; nothing stored but the key.
    Online,
}

impl KeyExpansion {
    /// Both styles.
    pub const ALL: [KeyExpansion; 2] = [KeyExpansion::Offline, KeyExpansion::Online];

    /// `"offline"` or `"online"`.
    pub fn name(self) -> &'static str {
        match self {
            KeyExpansion::Offline => "offline",
            KeyExpansion::Online => "online",
        }
    }
}

impl fmt::Display for KeyExpansion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The key material a kernel runs with: stored round keys, or a key to
/// expand online.
// Kept inline (no allocation): the offline variant is the common one.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum KeySchedule {
    /// Offline: precomputed round keys.
    Offline(RoundKeys),
    /// Online: the cipher key; round keys are derived per call.
    Online(CipherKey),
}

impl KeySchedule {
    /// Build a schedule of the given style.
    pub fn new(key: &[u8], style: KeyExpansion) -> Result<Self, KeyError> {
        let key = CipherKey::new(key)?;
        Ok(match style {
            KeyExpansion::Offline => KeySchedule::Offline(RoundKeys::new(&key)),
            KeyExpansion::Online => KeySchedule::Online(key),
        })
    }

    /// The style.
    pub fn style(&self) -> KeyExpansion {
        match self {
            KeySchedule::Offline(_) => KeyExpansion::Offline,
            KeySchedule::Online(_) => KeyExpansion::Online,
        }
    }

    /// The key size.
    pub fn size(&self) -> KeySize {
        match self {
            KeySchedule::Offline(rk) => rk.size(),
            KeySchedule::Online(k) => k.size(),
        }
    }

    /// Round keys in encryption order (0..=Nr), derived online or read from
    /// storage, as one iterator.
    pub fn enc_keys(&self) -> RoundKeyIter<'_> {
        match self {
            KeySchedule::Offline(rk) => RoundKeyIter::Stored(rk.enc().iter()),
            KeySchedule::Online(k) => RoundKeyIter::Online(OnlineKeyExpansion::new(k)),
        }
    }

    /// Round keys in decryption order (Nr..=0) for the straightforward inverse
    /// cipher (not the equivalent one).
    pub fn dec_keys(&self) -> RoundKeyIter<'_> {
        match self {
            KeySchedule::Offline(rk) => RoundKeyIter::StoredRev(rk.enc().iter().rev()),
            KeySchedule::Online(k) => RoundKeyIter::Online(OnlineKeyExpansion::reverse(k)),
        }
    }
}

/// An iterator of round keys, stored or derived online.
pub enum RoundKeyIter<'a> {
    /// Reading stored keys forwards.
    Stored(core::slice::Iter<'a, [u8; 16]>),
    /// Reading stored keys backwards.
    StoredRev(core::iter::Rev<core::slice::Iter<'a, [u8; 16]>>),
    /// Deriving keys online.
    Online(OnlineKeyExpansion),
}

impl Iterator for RoundKeyIter<'_> {
    type Item = [u8; 16];
    #[inline]
    fn next(&mut self) -> Option<[u8; 16]> {
        match self {
            RoundKeyIter::Stored(it) => it.next().copied(),
            RoundKeyIter::StoredRev(it) => it.next().copied(),
            RoundKeyIter::Online(e) => e.next_key().map(|(_, k)| k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn online_matches_offline_both_directions() {
        for size in KeySize::ALL {
            let key: Vec<u8> = (0..size.bytes() as u8)
                .map(|i| i.wrapping_mul(37) ^ 0x5a)
                .collect();
            let k = CipherKey::new(&key).unwrap();
            let rk = RoundKeys::new(&k);
            let fwd: Vec<_> = KeySchedule::Online(k.clone()).enc_keys().collect();
            assert_eq!(fwd, rk.enc());
            let rev: Vec<_> = KeySchedule::Online(k.clone()).dec_keys().collect();
            let mut expect = rk.enc().to_vec();
            expect.reverse();
            assert_eq!(rev, expect);
        }
    }

    #[test]
    fn bad_key_length_is_an_error() {
        assert_eq!(
            CipherKey::new(&[0; 17]).unwrap_err(),
            KeyError::BadLength(17)
        );
        assert!(KeyError::BadLength(17).to_string().contains("17"));
    }
}
