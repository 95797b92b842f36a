//! The `ctime` kernel: constant-time, bitsliced AES in portable Rust.
//!
//! # Layout
//!
//! Four blocks (64 bytes) form one *group*, held as eight 64-bit *bit-planes*:
//! plane `i` holds bit `i` (bit 0 = least significant) of all 64 bytes, and
//! the byte in row `r`, column `c` of block `b` (FIPS-197 state byte `r + 4c`)
//! sits at bit position
//!
//! ```text
//! pos = 16·r + 4·c + b        (r, c, b ∈ 0..4)
//! ```
//!
//! so each plane is four 16-bit *row segments*, each holding four columns of
//! four blocks. A batch is [`LANES`] = 2 groups (8 blocks) run in lockstep:
//! every plane is a [`Lanes`] of two `u64`s and every gate is applied to both
//! (more independent work per instruction stream; 2 measured faster than 1
//! or 4 on x86-64, where 4 groups spill too many registers). With this
//! layout:
//!
//! * **SubBytes** is a boolean circuit evaluated on the eight planes: 64
//!   S-boxes in parallel, one gate per machine instruction.
//! * **ShiftRows** rotates row segment `r` by `4·r` bits: one byte swap for
//!   rows 2–3 (a masked delta swap) and one masked nibble rotation for rows
//!   1 and 3 — 13 fixed operations per plane.
//! * **MixColumns** needs, for each byte, the bytes of the same column in the
//!   other rows: that is a plain rotation of the whole plane by 16 or 32 bits.
//!   Multiplication by `{02}` is a renaming of planes plus three XORs (the
//!   reduction by `0x1b`). InvMixColumns is MixColumns after the circulant
//!   `(05, 00, 04, 00)`, i.e. `a ⊕ {04}·(a ⊕ rot₂(a))` (Käsper–Schwabe).
//! * **AddRoundKey** XORs pre-bitsliced round keys (each round key replicated
//!   over the four blocks).
//!
//! Converting a group's 64 bytes to planes is a byte gather (at fixed,
//! public positions) into eight words followed by an 8×8 bit-matrix transpose
//! (three rounds of SWAPMOVE); the transpose is an involution, so the same
//! code converts back. A short final batch is padded with zero blocks whose
//! output is discarded.
//!
//! # The S-box circuit
//!
//! SubBytes uses the 128-gate, depth-16 circuit of Boyar and Peralta
//! (*A depth-16 circuit for the AES S-box*, IFIP SEC 2012; ePrint 2011/332):
//! a top linear layer (23 XORs), a 34-AND / 30-XOR nonlinear middle and a
//! bottom linear layer (30 XORs, 4 XNORs). It is the composite-field
//! construction of Hodjat & Verbauwhede (*Area-Throughput Trade-Offs for
//! Fully Pipelined 30 to 70 Gbits/s AES Processors*, Fig. 4b:
//! map GF(2^8) to GF((2^4)^2), invert there with GF(2^4) operations, map
//! back, apply the affine map) taken down to the tower
//! GF(((2^2)^2)^2), with the isomorphism and affine maps merged into the two
//! linear layers and the whole straight-line program minimised for gate count
//! and depth. Each gate is one `u64` operation on 64 S-boxes at once.
//!
//! The affine constant `0x63` (the circuit's XNORs) is not applied in the
//! circuit: ShiftRows, MixColumns and InvMixColumns map a state whose bytes
//! are all `c` to itself (`{02}⊕{03}⊕{01}⊕{01} = {01}`, likewise for the
//! inverse matrix), so the constant is folded into every round key except
//! round key 0, in both directions (see `bitslice_round_key`).
//!
//! InvSubBytes reuses the same inversion circuit: with `L` the linear part of
//! the inverse affine map (`L(x) = x⋘1 ⊕ x⋘3 ⊕ x⋘6`) and `S'` the S-box
//! without its constant, `S⁻¹(y) = L(S'(L(y ⊕ 0x63)))`; the `0x63` is again
//! folded into the round key added just before. That costs 32 XORs more than
//! a dedicated inverse circuit but keeps one audited nonlinear core.
//!
//! # Why it is constant-time
//!
//! Every operation on state and key material is a XOR, an AND, an AND/XOR
//! with a constant, a shift/rotation by a constant amount, or a load/store at an
//! index that depends only on the public block count and position. There are
//! no table lookups and no branches on data; the only branches are on the
//! number of blocks and the key size, which are public. Round keys come from
//! [`KeySchedule::enc_keys`]/[`KeySchedule::dec_keys`], whose online
//! expansion uses the arithmetic (table-free) S-box
//! [`sub_byte_ct`](crate::sbox::sub_byte_ct). Bitsliced keys and the byte
//! buffers are zeroized when a call returns.
//!
//! # Key-expansion styles
//!
//! With [`KeySchedule::Offline`] the stored round keys are bitsliced once per
//! call and reused for every batch. With [`KeySchedule::Online`] each batch of
//! eight blocks pulls its round keys from a fresh online expansion, one round
//! key at a time as the batch goes through the rounds, so no round-key array
//! is ever materialised (the paper's online style at batch granularity).
//!
//! # Speed
//!
//! AES-128 ECB on 1 MiB, x86-64 (Xeon @ 2.5 GHz, baseline target, one
//! thread; best of repeated passes on a shared machine): ≈ 130 MB/s
//! encrypt and decrypt with offline keys, ≈ 10 MB/s with online keys (there
//! the arithmetic S-box of the key schedule dominates). The previous
//! byte-at-a-time arithmetic version of this kernel ran at ≈ 0.8 MB/s.

use crate::kernel::{Block, impl_kernel};
use crate::key_schedule::{KeySchedule, MAX_ROUND_KEYS};
use core::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign};
use zeroize::Zeroize;

/// The constant-time kernel.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConstantTime;

/// Independent groups of four blocks processed in lockstep: each bit-plane is
/// `LANES` 64-bit words, which the compiler may keep in SIMD registers.
pub const LANES: usize = 2;

/// Blocks per bitsliced batch.
pub const BATCH_BLOCKS: usize = 4 * LANES;

const BATCH_BYTES: usize = 16 * BATCH_BLOCKS;

/// One bit-plane word per group of four blocks. Every operation acts on all
/// lanes alike (plain loops the compiler vectorises).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lanes([u64; LANES]);

impl Lanes {
    #[inline(always)]
    fn map(self, f: impl Fn(u64) -> u64) -> Self {
        Lanes(self.0.map(f))
    }
    #[inline(always)]
    fn shr(self, n: u32) -> Self {
        self.map(|x| x >> n)
    }
    #[inline(always)]
    fn shl(self, n: u32) -> Self {
        self.map(|x| x << n)
    }
    #[inline(always)]
    fn rotr(self, n: u32) -> Self {
        self.map(|x| x.rotate_right(n))
    }
}

macro_rules! lane_op {
    ($tr:ident, $f:ident, $op:tt, $atr:ident, $af:ident) => {
        impl $tr for Lanes {
            type Output = Lanes;
            #[inline(always)]
            fn $f(self, o: Lanes) -> Lanes {
                Lanes(core::array::from_fn(|i| self.0[i] $op o.0[i]))
            }
        }
        impl $tr<u64> for Lanes {
            type Output = Lanes;
            #[inline(always)]
            fn $f(self, o: u64) -> Lanes {
                self.map(|x| x $op o)
            }
        }
        impl $atr for Lanes {
            #[inline(always)]
            fn $af(&mut self, o: Lanes) {
                *self = *self $op o;
            }
        }
    };
}
lane_op!(BitXor, bitxor, ^, BitXorAssign, bitxor_assign);
lane_op!(BitAnd, bitand, &, BitAndAssign, bitand_assign);
lane_op!(BitOr, bitor, |, BitOrAssign, bitor_assign);

impl Zeroize for Lanes {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

/// Eight bit-planes: `planes[i]` holds bit `i` of every byte of the batch
/// (lane `l` holds blocks `4l..4l+4`; see the module docs for the bit
/// positions inside a lane).
pub type Planes = [Lanes; 8];

/// `GATHER[8k + j]` is the index (in the 64-byte batch) of the byte that goes
/// into byte `j` of word `k` before the transpose. After the transpose, that
/// byte's bit `i` lands in plane `i` at position `8j + k`; choosing
/// `k = b + 4·(c mod 2)` and `j = ⌊c/2⌋ + 2r` makes that `16r + 4c + b`.
const GATHER: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut k = 0;
    while k < 8 {
        let mut j = 0;
        while j < 8 {
            let b = k & 3;
            let c = (k >> 2) + 2 * (j & 1);
            let r = j >> 1;
            t[8 * k + j] = (16 * b + r + 4 * c) as u8;
            j += 1;
        }
        k += 1;
    }
    t
};

/// SWAPMOVE: exchange the bits of `b` selected by `mask` with the bits of `a`
/// selected by `mask << n`.
#[inline(always)]
fn swap_move(a: &mut Lanes, b: &mut Lanes, mask: u64, n: u32) {
    let t = (a.shr(n) ^ *b) & mask;
    *b ^= t;
    *a ^= t.shl(n);
}

/// Transpose the 8×8 bit matrix formed by each byte lane of eight words:
/// afterwards bit `k` of byte `j` of word `i` is what bit `i` of byte `j` of
/// word `k` was. An involution.
#[inline(always)]
fn transpose(w: &mut Planes) {
    // Three rounds of SWAPMOVE: words `n` apart exchange `n`-bit groups.
    for (n, mask) in [
        (1, 0x5555_5555_5555_5555),
        (2, 0x3333_3333_3333_3333),
        (4, 0x0f0f_0f0f_0f0f_0f0f),
    ] {
        for i in (0..8).filter(|i| i & n == 0) {
            let (mut a, mut b) = (w[i], w[i + n]);
            swap_move(&mut a, &mut b, mask, n as u32);
            (w[i], w[i + n]) = (a, b);
        }
    }
}

/// Bitslice a 64-byte batch (four blocks) into planes.
#[inline(always)]
fn pack(bytes: &[u8; BATCH_BYTES]) -> Planes {
    let mut w = [Lanes::default(); 8];
    for (k, wk) in w.iter_mut().enumerate() {
        for (lane, group) in wk.0.iter_mut().zip(bytes.chunks_exact(64)) {
            let mut le = [0u8; 8];
            for (j, byte) in le.iter_mut().enumerate() {
                *byte = group[GATHER[8 * k + j] as usize];
            }
            *lane = u64::from_le_bytes(le);
        }
    }
    transpose(&mut w);
    w
}

/// Inverse of [`pack`].
#[inline(always)]
fn unpack(planes: &Planes, bytes: &mut [u8; BATCH_BYTES]) {
    let mut w = *planes;
    transpose(&mut w);
    for (k, wk) in w.iter().enumerate() {
        for (lane, group) in wk.0.iter().zip(bytes.chunks_exact_mut(64)) {
            for (j, &byte) in lane.to_le_bytes().iter().enumerate() {
                group[GATHER[8 * k + j] as usize] = byte;
            }
        }
    }
}

/// Bitslice round key `rk` of round `round`, replicated over all blocks.
///
/// For every round but 0 the S-box constant `0x63` is folded in: encryption
/// adds round keys 1..=Nr right after a (constant-free) SubBytes, possibly
/// followed by ShiftRows/MixColumns which preserve an all-`0x63` state;
/// decryption adds round keys Nr..=1 right before an InvSubBytes (possibly
/// preceded by InvMixColumns/InvShiftRows, which preserve it too) whose input
/// needs `⊕ 0x63`. Round key 0 is the last one added in decryption and the
/// first in encryption, and gets no constant.
fn bitslice_round_key(rk: &[u8; 16], round: usize) -> Planes {
    let c = if round == 0 { 0 } else { 0x63 };
    let mut bytes = [0u8; BATCH_BYTES];
    for blk in bytes.chunks_exact_mut(16) {
        for (d, s) in blk.iter_mut().zip(rk) {
            *d = s ^ c;
        }
    }
    let planes = pack(&bytes);
    bytes.zeroize();
    planes
}

mod circuit;
pub use circuit::sub_word;
use circuit::{inv_sub_bytes_nc, sub_bytes_nc};

/// ShiftRows (`INV`: InvShiftRows) on every plane: row segment `r` rotated
/// right (left) by `4r` bits.
#[inline(always)]
fn shift_rows_by<const INV: bool>(p: &mut Planes) {
    for x in p {
        // Rows 2 and 3: rotate by 8 (swap the two bytes of the segment).
        let t = (*x ^ x.shr(8)) & 0x00ff_00ff_0000_0000;
        let y = *x ^ t ^ t.shl(8);
        // Rows 1 and 3: rotate by 4.
        *x = (y & 0x0000_ffff_0000_ffff)
            | if INV {
                (y.shl(4) & 0xfff0_0000_fff0_0000) | (y.shr(12) & 0x000f_0000_000f_0000)
            } else {
                (y.shr(4) & 0x0fff_0000_0fff_0000) | (y.shl(12) & 0xf000_0000_f000_0000)
            };
    }
}

/// Rows `r+1` (mod 4) moved to row `r`: for every byte, the byte one row down
/// in the same column.
#[inline(always)]
fn rot_rows_1(x: Lanes) -> Lanes {
    x.rotr(16)
}

/// Rows `r+2` (mod 4) moved to row `r`.
#[inline(always)]
fn rot_rows_2(x: Lanes) -> Lanes {
    x.rotr(32)
}

/// Multiplication by `{02}` in GF(2^8) on planes.
#[inline(always)]
fn xtime(t: &Planes) -> Planes {
    [
        t[7],
        t[0] ^ t[7],
        t[1],
        t[2] ^ t[7],
        t[3] ^ t[7],
        t[4],
        t[5],
        t[6],
    ]
}

/// MixColumns: `a'ᵣ = {02}aᵣ ⊕ {03}aᵣ₊₁ ⊕ aᵣ₊₂ ⊕ aᵣ₊₃`
/// `= {02}tᵣ ⊕ aᵣ₊₁ ⊕ tᵣ₊₂` with `tᵣ = aᵣ ⊕ aᵣ₊₁`.
#[inline(always)]
fn mix_columns(a: &mut Planes) {
    let b: Planes = core::array::from_fn(|i| rot_rows_1(a[i]));
    let t: Planes = core::array::from_fn(|i| a[i] ^ b[i]);
    let x = xtime(&t);
    for i in 0..8 {
        a[i] = x[i] ^ b[i] ^ rot_rows_2(t[i]);
    }
}

/// InvMixColumns = MixColumns ∘ circ(05, 00, 04, 00):
/// `uᵣ = aᵣ ⊕ {04}(aᵣ ⊕ aᵣ₊₂)`, then MixColumns.
#[inline(always)]
fn inv_mix_columns(a: &mut Planes) {
    let v: Planes = core::array::from_fn(|i| a[i] ^ rot_rows_2(a[i]));
    let v4 = xtime(&xtime(&v));
    for i in 0..8 {
        a[i] ^= v4[i];
    }
    mix_columns(a);
}

/// SubBytes without its constant and InvSubBytes with its input constant
/// removed: the constants are folded into the round keys.
impl super::Steps for Planes {
    type Key = Planes;
    #[inline(always)]
    fn sub_shift<const INV: bool>(&mut self) {
        if INV {
            shift_rows_by::<true>(self);
            inv_sub_bytes_nc(self);
        } else {
            sub_bytes_nc(self);
            shift_rows_by::<false>(self);
        }
    }
    #[inline(always)]
    fn mix_columns<const INV: bool>(&mut self) {
        if INV {
            inv_mix_columns(self);
        } else {
            mix_columns(self);
        }
    }
    #[inline(always)]
    fn add_round_key(&mut self, k: &Planes) {
        for (x, y) in self.iter_mut().zip(k) {
            *x ^= *y;
        }
    }
}

/// Run `f` on every batch of (up to) four blocks, zero-padding the last.
fn for_each_batch(blocks: &mut [Block], mut f: impl FnMut(&mut Planes)) {
    let mut buf = [0u8; BATCH_BYTES];
    let mut planes = [Lanes::default(); 8];
    for chunk in blocks.chunks_mut(BATCH_BLOCKS) {
        let n = 16 * chunk.len();
        buf[..n].copy_from_slice(chunk.as_flattened());
        buf[n..].fill(0);
        planes = pack(&buf);
        f(&mut planes);
        unpack(&planes, &mut buf);
        chunk.as_flattened_mut().copy_from_slice(&buf[..n]);
    }
    buf.zeroize();
    planes.zeroize();
}

/// The cipher (FIPS-197 Figure 5) on a batch of bitsliced blocks, or with
/// `dec` the inverse cipher (Figure 12); `keys` yields the `Nr + 1`
/// bitsliced round keys (with the folded constant) in the order they are
/// added.
#[inline(always)]
fn run_batch(p: &mut Planes, keys: impl Iterator<Item = Planes>, nr: usize, dec: bool) {
    if dec {
        super::crypt::<_, true>(p, keys, nr);
    } else {
        super::crypt::<_, false>(p, keys, nr);
    }
}

/// Both directions: `dec` selects the inverse cipher.
fn crypt(keys: &KeySchedule, blocks: &mut [Block], dec: bool) {
    if blocks.is_empty() {
        return;
    }
    let nr = keys.size().nr();
    // Round number of the i-th key the iterator yields.
    let round = move |i: usize| if dec { nr - i } else { i };
    let key_iter = || {
        let it = if dec {
            keys.dec_keys()
        } else {
            keys.enc_keys()
        };
        it.enumerate()
            .map(move |(i, k)| bitslice_round_key(&k, round(i)))
    };
    match keys {
        KeySchedule::Offline(_) => {
            // Bitslice the stored round keys once for the whole call.
            let mut rk = [[Lanes::default(); 8]; MAX_ROUND_KEYS];
            for (dst, k) in rk.iter_mut().zip(key_iter()) {
                *dst = k;
            }
            for_each_batch(blocks, |p| run_batch(p, rk[..=nr].iter().copied(), nr, dec));
            rk.zeroize();
        }
        KeySchedule::Online(_) => {
            // Derive each round key as the batch reaches its round.
            for_each_batch(blocks, |p| run_batch(p, key_iter(), nr, dec));
        }
    }
}

impl_kernel! {
    impl for ConstantTime {
        name: "ctime",
        description: "portable constant-time (bitsliced, 8 blocks at a time, Boyar-Peralta S-box circuit)",
        available: true,
        constant_time: true,
        rank: 10,
        ecb: crypt,
    }
}

#[cfg(test)]
mod tests;
