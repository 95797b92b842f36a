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

use crate::kernel::{Block, Kernel};
use crate::key_schedule::{KeySchedule, MAX_ROUND_KEYS};
use core::ops::{BitAnd, BitAndAssign, BitOr, BitXor, BitXorAssign};
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

impl BitOr for Lanes {
    type Output = Lanes;
    #[inline(always)]
    fn bitor(self, o: Lanes) -> Lanes {
        Lanes(core::array::from_fn(|i| self.0[i] | o.0[i]))
    }
}

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
    let [w0, w1, w2, w3, w4, w5, w6, w7] = w;
    const M1: u64 = 0x5555_5555_5555_5555;
    const M2: u64 = 0x3333_3333_3333_3333;
    const M4: u64 = 0x0f0f_0f0f_0f0f_0f0f;
    swap_move(w0, w1, M1, 1);
    swap_move(w2, w3, M1, 1);
    swap_move(w4, w5, M1, 1);
    swap_move(w6, w7, M1, 1);
    swap_move(w0, w2, M2, 2);
    swap_move(w1, w3, M2, 2);
    swap_move(w4, w6, M2, 2);
    swap_move(w5, w7, M2, 2);
    swap_move(w0, w4, M4, 4);
    swap_move(w1, w5, M4, 4);
    swap_move(w2, w6, M4, 4);
    swap_move(w3, w7, M4, 4);
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

/// KeySubWord in constant time: the S-box circuit below applied to the four
/// bytes of one key-schedule word (plane `i` holds bit `i` of byte `j` at
/// position `j`). Used by the key expansion shared by all kernels.
pub fn sub_word(w: [u8; 4]) -> [u8; 4] {
    let mut p: Planes = [Lanes::default(); 8];
    for (i, plane) in p.iter_mut().enumerate() {
        let mut v = 0u64;
        for (j, &b) in w.iter().enumerate() {
            v |= u64::from((b >> i) & 1) << j;
        }
        plane.0[0] = v;
    }
    sub_bytes_nc(&mut p);
    let mut out = [0x63u8; 4];
    for (i, plane) in p.iter().enumerate() {
        for (j, o) in out.iter_mut().enumerate() {
            *o ^= (((plane.0[0] >> j) & 1) as u8) << i;
        }
    }
    p.zeroize();
    out
}

/// SubBytes without the affine constant (`S(x) ⊕ 0x63`) on 64 bytes: the
/// Boyar–Peralta depth-16 circuit (ePrint 2011/332, Fig. 2–4), with the four
/// output XNORs replaced by XORs. `U0`/`S0` are the most significant bits.
#[inline(always)]
fn sub_bytes_nc(p: &mut Planes) {
    let u0 = p[7];
    let u1 = p[6];
    let u2 = p[5];
    let u3 = p[4];
    let u4 = p[3];
    let u5 = p[2];
    let u6 = p[1];
    let u7 = p[0];

    // Top linear transformation.
    let t1 = u0 ^ u3;
    let t2 = u0 ^ u5;
    let t3 = u0 ^ u6;
    let t4 = u3 ^ u5;
    let t5 = u4 ^ u6;
    let t6 = t1 ^ t5;
    let t7 = u1 ^ u2;
    let t8 = u7 ^ t6;
    let t9 = u7 ^ t7;
    let t10 = t6 ^ t7;
    let t11 = u1 ^ u5;
    let t12 = u2 ^ u5;
    let t13 = t3 ^ t4;
    let t14 = t6 ^ t11;
    let t15 = t5 ^ t11;
    let t16 = t5 ^ t12;
    let t17 = t9 ^ t16;
    let t18 = u3 ^ u7;
    let t19 = t7 ^ t18;
    let t20 = t1 ^ t19;
    let t21 = u6 ^ u7;
    let t22 = t7 ^ t21;
    let t23 = t2 ^ t22;
    let t24 = t2 ^ t10;
    let t25 = t20 ^ t17;
    let t26 = t3 ^ t16;
    let t27 = t1 ^ t12;

    // Nonlinear middle: inversion in the tower field.
    let m1 = t13 & t6;
    let m2 = t23 & t8;
    let m3 = t14 ^ m1;
    let m4 = t19 & u7;
    let m5 = m4 ^ m1;
    let m6 = t3 & t16;
    let m7 = t22 & t9;
    let m8 = t26 ^ m6;
    let m9 = t20 & t17;
    let m10 = m9 ^ m6;
    let m11 = t1 & t15;
    let m12 = t4 & t27;
    let m13 = m12 ^ m11;
    let m14 = t2 & t10;
    let m15 = m14 ^ m11;
    let m16 = m3 ^ m2;
    let m17 = m5 ^ t24;
    let m18 = m8 ^ m7;
    let m19 = m10 ^ m15;
    let m20 = m16 ^ m13;
    let m21 = m17 ^ m15;
    let m22 = m18 ^ m13;
    let m23 = m19 ^ t25;
    let m24 = m22 ^ m23;
    let m25 = m22 & m20;
    let m26 = m21 ^ m25;
    let m27 = m20 ^ m21;
    let m28 = m23 ^ m25;
    let m29 = m28 & m27;
    let m30 = m26 & m24;
    let m31 = m20 & m23;
    let m32 = m27 & m31;
    let m33 = m27 ^ m25;
    let m34 = m21 & m22;
    let m35 = m24 & m34;
    let m36 = m24 ^ m25;
    let m37 = m21 ^ m29;
    let m38 = m32 ^ m33;
    let m39 = m23 ^ m30;
    let m40 = m35 ^ m36;
    let m41 = m38 ^ m40;
    let m42 = m37 ^ m39;
    let m43 = m37 ^ m38;
    let m44 = m39 ^ m40;
    let m45 = m42 ^ m41;
    let m46 = m44 & t6;
    let m47 = m40 & t8;
    let m48 = m39 & u7;
    let m49 = m43 & t16;
    let m50 = m38 & t9;
    let m51 = m37 & t17;
    let m52 = m42 & t15;
    let m53 = m45 & t27;
    let m54 = m41 & t10;
    let m55 = m44 & t13;
    let m56 = m40 & t23;
    let m57 = m39 & t19;
    let m58 = m43 & t3;
    let m59 = m38 & t22;
    let m60 = m37 & t20;
    let m61 = m42 & t1;
    let m62 = m45 & t4;
    let m63 = m41 & t2;

    // Bottom linear transformation (map back + affine map, no constant).
    let l0 = m61 ^ m62;
    let l1 = m50 ^ m56;
    let l2 = m46 ^ m48;
    let l3 = m47 ^ m55;
    let l4 = m54 ^ m58;
    let l5 = m49 ^ m61;
    let l6 = m62 ^ l5;
    let l7 = m46 ^ l3;
    let l8 = m51 ^ m59;
    let l9 = m52 ^ m53;
    let l10 = m53 ^ l4;
    let l11 = m60 ^ l2;
    let l12 = m48 ^ m51;
    let l13 = m50 ^ l0;
    let l14 = m52 ^ m61;
    let l15 = m55 ^ l1;
    let l16 = m56 ^ l0;
    let l17 = m57 ^ l1;
    let l18 = m58 ^ l8;
    let l19 = m63 ^ l4;
    let l20 = l0 ^ l1;
    let l21 = l1 ^ l7;
    let l22 = l3 ^ l12;
    let l23 = l18 ^ l2;
    let l24 = l15 ^ l9;
    let l25 = l6 ^ l10;
    let l26 = l7 ^ l9;
    let l27 = l8 ^ l10;
    let l28 = l11 ^ l14;
    let l29 = l11 ^ l17;

    p[7] = l6 ^ l24;
    p[6] = l16 ^ l26; // XNOR in the original
    p[5] = l19 ^ l28; // XNOR in the original
    p[4] = l6 ^ l21;
    p[3] = l20 ^ l22;
    p[2] = l25 ^ l29;
    p[1] = l13 ^ l27; // XNOR in the original
    p[0] = l6 ^ l23; // XNOR in the original
}

/// The linear part `L` of the inverse affine map, `L(x) = x⋘1 ⊕ x⋘3 ⊕ x⋘6`,
/// on planes: output bit `i` is `x[i-1] ⊕ x[i-3] ⊕ x[i-6]` (indices mod 8).
#[inline(always)]
fn inv_affine_linear(p: &mut Planes) {
    let x = *p;
    for (i, o) in p.iter_mut().enumerate() {
        *o = x[(i + 7) % 8] ^ x[(i + 5) % 8] ^ x[(i + 2) % 8];
    }
}

/// InvSubBytes with its input constant removed: `S⁻¹(x ⊕ 0x63)`, computed as
/// `L(S'(L(x)))` (see the module docs).
#[inline(always)]
fn inv_sub_bytes_nc(p: &mut Planes) {
    inv_affine_linear(p);
    sub_bytes_nc(p);
    inv_affine_linear(p);
}

/// ShiftRows on one plane: row segment `r` rotated right by `4r` bits.
#[inline(always)]
fn shift_rows_1(x: Lanes) -> Lanes {
    // Rows 2 and 3: rotate by 8 (swap the two bytes of the segment).
    let t = (x ^ x.shr(8)) & 0x00ff_00ff_0000_0000;
    let x = x ^ t ^ t.shl(8);
    // Rows 1 and 3: rotate right by 4.
    (x & 0x0000_ffff_0000_ffff)
        | (x.shr(4) & 0x0fff_0000_0fff_0000)
        | (x.shl(12) & 0xf000_0000_f000_0000)
}

/// InvShiftRows on one plane: row segment `r` rotated left by `4r` bits.
#[inline(always)]
fn inv_shift_rows_1(x: Lanes) -> Lanes {
    let t = (x ^ x.shr(8)) & 0x00ff_00ff_0000_0000;
    let x = x ^ t ^ t.shl(8);
    (x & 0x0000_ffff_0000_ffff)
        | (x.shl(4) & 0xfff0_0000_fff0_0000)
        | (x.shr(12) & 0x000f_0000_000f_0000)
}

#[inline(always)]
fn shift_rows(p: &mut Planes) {
    for x in p {
        *x = shift_rows_1(*x);
    }
}

#[inline(always)]
fn inv_shift_rows(p: &mut Planes) {
    for x in p {
        *x = inv_shift_rows_1(*x);
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

#[inline(always)]
fn add_round_key(p: &mut Planes, k: &Planes) {
    for (x, y) in p.iter_mut().zip(k) {
        *x ^= *y;
    }
}

fn next_key(keys: &mut impl Iterator<Item = Planes>) -> Planes {
    keys.next()
        .expect("a key schedule yields Nr + 1 round keys")
}

/// The cipher (FIPS-197 Figure 5) on four bitsliced blocks; `keys` yields the
/// `Nr + 1` bitsliced round keys (with the folded constant) in order.
#[inline(always)]
fn encrypt_planes(p: &mut Planes, mut keys: impl Iterator<Item = Planes>, nr: usize) {
    add_round_key(p, &next_key(&mut keys));
    for _ in 1..nr {
        sub_bytes_nc(p);
        shift_rows(p);
        mix_columns(p);
        add_round_key(p, &next_key(&mut keys));
    }
    sub_bytes_nc(p);
    shift_rows(p);
    add_round_key(p, &next_key(&mut keys));
}

/// The inverse cipher (FIPS-197 Figure 12) on four bitsliced blocks; `keys`
/// yields the bitsliced round keys Nr down to 0.
#[inline(always)]
fn decrypt_planes(p: &mut Planes, mut keys: impl Iterator<Item = Planes>, nr: usize) {
    add_round_key(p, &next_key(&mut keys));
    for _ in 1..nr {
        inv_shift_rows(p);
        inv_sub_bytes_nc(p);
        add_round_key(p, &next_key(&mut keys));
        inv_mix_columns(p);
    }
    inv_shift_rows(p);
    inv_sub_bytes_nc(p);
    add_round_key(p, &next_key(&mut keys));
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

#[inline(always)]
fn run_batch(p: &mut Planes, keys: impl Iterator<Item = Planes>, nr: usize, dec: bool) {
    if dec {
        decrypt_planes(p, keys, nr);
    } else {
        encrypt_planes(p, keys, nr);
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

impl Kernel for ConstantTime {
    fn name(&self) -> &'static str {
        "ctime"
    }
    fn description(&self) -> &'static str {
        "portable constant-time (bitsliced, 8 blocks at a time, Boyar-Peralta S-box circuit)"
    }
    fn is_available(&self) -> bool {
        true
    }
    fn is_constant_time(&self) -> bool {
        true
    }
    fn rank(&self) -> u32 {
        10
    }
    fn encrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]) {
        crypt(keys, blocks, false);
    }
    fn decrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]) {
        crypt(keys, blocks, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::reference::Reference;
    use crate::key_schedule::{KeyExpansion, KeySize};
    use crate::sbox::{INV_SBOX, SBOX};
    use rand::{Rng, SeedableRng, rngs::StdRng};

    /// Apply a plane transformation to one batch of bytes.
    fn on_bytes(bytes: &mut [u8; BATCH_BYTES], f: impl Fn(&mut Planes)) {
        let mut p = pack(bytes);
        f(&mut p);
        unpack(&p, bytes);
    }

    #[test]
    fn sub_word_matches_sbox() {
        for x in 0..=255u8 {
            let w = [x, x.wrapping_add(1), x ^ 0x5a, !x];
            let expect = w.map(|b| crate::sbox::SBOX[b as usize]);
            assert_eq!(sub_word(w), expect);
        }
    }

    #[test]
    fn pack_layout_and_roundtrip() {
        let mut bytes = [0u8; BATCH_BYTES];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(151) ^ (i >> 6) as u8 ^ 0x3c;
        }
        let p = pack(&bytes);
        for blk in 0..BATCH_BLOCKS {
            let (lane, b) = (blk / 4, blk % 4);
            for r in 0..4 {
                for c in 0..4 {
                    let byte = bytes[16 * blk + r + 4 * c];
                    let pos = 16 * r + 4 * c + b;
                    for (i, plane) in p.iter().enumerate() {
                        let bit = (plane.0[lane] >> pos) & 1;
                        assert_eq!(bit, u64::from((byte >> i) & 1));
                    }
                }
            }
        }
        let mut back = [0u8; BATCH_BYTES];
        unpack(&p, &mut back);
        assert_eq!(back, bytes);
    }

    #[test]
    fn sbox_circuit_all_inputs() {
        for batch in 0..256usize.div_ceil(BATCH_BYTES) {
            let mut bytes: [u8; BATCH_BYTES] =
                core::array::from_fn(|i| (BATCH_BYTES * batch + i) as u8);
            let orig = bytes;
            on_bytes(&mut bytes, sub_bytes_nc);
            for (x, y) in orig.iter().zip(&bytes) {
                assert_eq!(*y ^ 0x63, SBOX[*x as usize], "S({x:#04x})");
            }
            let mut inv = orig;
            on_bytes(&mut inv, inv_sub_bytes_nc);
            for (x, y) in orig.iter().zip(&inv) {
                assert_eq!(*y, INV_SBOX[(*x ^ 0x63) as usize], "S⁻¹({x:#04x})");
            }
        }
    }

    #[test]
    fn linear_steps_match_spec() {
        let mut rng = StdRng::seed_from_u64(1);
        for _ in 0..20 {
            let mut bytes = [0u8; BATCH_BYTES];
            rng.fill(&mut bytes[..]);
            let spec = |f: fn(&mut [u8; 16]), mut b: [u8; BATCH_BYTES]| {
                for blk in b.chunks_exact_mut(16) {
                    f(blk.try_into().unwrap());
                }
                b
            };
            type Step = (fn(&mut [u8; 16]), fn(&mut Planes));
            let steps: [Step; 4] = [
                (crate::steps::shift_rows, shift_rows),
                (crate::steps::inv_shift_rows, inv_shift_rows),
                (crate::steps::mix_columns, mix_columns),
                (crate::steps::inv_mix_columns, inv_mix_columns),
            ];
            for (s, f) in steps {
                let mut got = bytes;
                on_bytes(&mut got, f);
                assert_eq!(got, spec(s, bytes));
            }
        }
    }

    #[test]
    fn matches_reference_kernel() {
        let mut rng = StdRng::seed_from_u64(0xc71e);
        for size in KeySize::ALL {
            for style in KeyExpansion::ALL {
                let mut key = vec![0u8; size.bytes()];
                rng.fill(&mut key[..]);
                let keys = KeySchedule::new(&key, style).unwrap();
                for n in 0..=70 {
                    let mut pt = vec![[0u8; 16]; n];
                    for b in &mut pt {
                        rng.fill(&mut b[..]);
                    }
                    let mut ours = pt.clone();
                    let mut theirs = pt.clone();
                    ConstantTime.encrypt_blocks(&keys, &mut ours);
                    Reference.encrypt_blocks(&keys, &mut theirs);
                    assert_eq!(ours, theirs, "encrypt {size} {style} n={n}");
                    ConstantTime.decrypt_blocks(&keys, &mut ours);
                    assert_eq!(ours, pt, "decrypt {size} {style} n={n}");
                    // Decrypt random data too (not just our own ciphertext).
                    let mut ours = pt.clone();
                    let mut theirs = pt.clone();
                    ConstantTime.decrypt_blocks(&keys, &mut ours);
                    Reference.decrypt_blocks(&keys, &mut theirs);
                    assert_eq!(ours, theirs, "decrypt {size} {style} n={n}");
                }
            }
        }
    }

    #[test]
    fn fips197_appendix_c1() {
        let key: Vec<u8> = (0..16).collect();
        let pt: Block = core::array::from_fn(|i| (i as u8) * 0x11);
        let ct = [
            0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4,
            0xc5, 0x5a,
        ];
        for style in KeyExpansion::ALL {
            let keys = KeySchedule::new(&key, style).unwrap();
            let mut b = [pt];
            ConstantTime.encrypt_blocks(&keys, &mut b);
            assert_eq!(b[0], ct);
            ConstantTime.decrypt_blocks(&keys, &mut b);
            assert_eq!(b[0], pt);
        }
    }

    #[test]
    fn ctr_matches_reference() {
        let mut rng = StdRng::seed_from_u64(7);
        let keys = KeySchedule::new(&[9u8; 32], KeyExpansion::Online).unwrap();
        let mut data = vec![0u8; 1000];
        rng.fill(&mut data[..]);
        let (mut a, mut b) = (data.clone(), data);
        let (mut ca, mut cb) = ([0xffu8; 16], [0xffu8; 16]);
        ConstantTime.ctr_xor(&keys, &mut ca, &mut a);
        Reference.ctr_xor(&keys, &mut cb, &mut b);
        assert_eq!((a, ca), (b, cb));
    }
}
