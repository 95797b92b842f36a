//! The `aesni` kernel: the x86-64 AES instructions (AES-NI) on 128-bit
//! registers.
//!
//! * One `AESENC` per round per block; eight blocks are interleaved so the
//!   instruction's latency is hidden behind independent work, and a short
//!   tail (fewer than eight blocks) is handled in 4/2/1-block steps.
//! * Decryption uses the equivalent inverse cipher (FIPS-197 §5.3.5), the
//!   key order `AESDEC` expects: [`RoundKeys::dec_equiv`] when the keys are
//!   stored, or the reversed online schedule with `AESIMC` applied to the
//!   middle round keys.
//! * Counter mode is fused: counters are generated in registers, encrypted
//!   and XORed with the data in one pass; each block's counter is a
//!   branch-free 128-bit increment and byte swap (`x86::v128::Ctr`), so no
//!   branch depends on the counter (an IV may be secret in a protocol).
//! * XTS: the tweaks a serial chain of doublings on general-purpose
//!   registers, two groups of eight ahead, one doubling after each of the
//!   first eight rounds, stored to a stack ring and XORed with the blocks
//!   from memory (the second XOR folded into the last round's key) —
//!   integer work beside the AES rounds rather than vector work competing
//!   with them. The round keys load from a slice of constant length
//!   (unrolled into registers). The loop is bound by its integer side.
//! * ECB of one to three blocks for the wider kernels (`ecb_ni`).
//! * Online key expansion derives the round keys once per
//!   [`ONLINE_BATCH`] blocks.
//!
//! Constant-time: the AES instructions take data-independent time and no
//! memory access depends on the key or the data.
//!
//! [`RoundKeys::dec_equiv`]: crate::key_schedule::RoundKeys::dec_equiv

use crate::kernel::{Block, impl_kernel};
use crate::key_schedule::{KeySchedule, MAX_ROUND_KEYS};
use crate::x86::v128::{
    Ctr, Keys, crypt_n, dec_n, enc_n, last_n, load, load_keys, load_n, middle_n, store, store_n,
    xor_n,
};
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// The AES-NI kernel.
#[derive(Debug, Clone, Copy, Default)]
pub struct AesNi;

/// Blocks in flight in the main loop.
const WIDTH: usize = 8;

/// With online key expansion, the round keys are derived afresh for every
/// group of this many blocks (1 KiB).
pub const ONLINE_BATCH: usize = 64;

/// Run `f` over `data` with the round keys in the form the AES instructions
/// want — encryption order, or with `dec` the equivalent inverse cipher's
/// keys in decryption order (what `AESDEC` wants): with stored keys, once
/// over the whole slice; with online expansion,
/// once per `online_batch` elements with the keys derived afresh (and, for
/// decryption, converted to the equivalent inverse cipher's with `AESIMC`).
/// The temporary key buffer is zeroized.
///
/// Callers must have checked that the CPU has AES-NI (`aes`).
pub(super) fn for_each_keyed<T>(
    keys: &KeySchedule,
    dec: bool,
    data: &mut [T],
    online_batch: usize,
    mut f: impl FnMut(&[[u8; 16]], &mut [T]),
) {
    let nr = keys.size().nr();
    match keys {
        KeySchedule::Offline(rk) => f(if dec { rk.dec_equiv() } else { rk.enc() }, data),
        KeySchedule::Online(_) => {
            let mut buf = [[0u8; 16]; MAX_ROUND_KEYS];
            for chunk in data.chunks_mut(online_batch) {
                if dec {
                    for (d, k) in buf.iter_mut().zip(keys.dec_keys()) {
                        *d = k;
                    }
                    inv_mix_keys(&mut buf[1..nr]);
                } else {
                    for (d, k) in buf.iter_mut().zip(keys.enc_keys()) {
                        *d = k;
                    }
                }
                f(&buf[..=nr], chunk);
            }
            buf.zeroize();
        }
    }
}

/// Counter mode over `data` with the encryption keys: `f(rk, counter,
/// piece)` as [`for_each_keyed`] hands out the pieces, the counter a
/// 128-bit integer running on from `counter` (which gets the next unused
/// value).
pub(super) fn ctr_keyed(
    keys: &KeySchedule,
    counter: &mut Block,
    data: &mut [u8],
    mut f: impl FnMut(&[[u8; 16]], &mut u128, &mut [u8]),
) {
    let mut c = u128::from_be_bytes(*counter);
    for_each_keyed(keys, false, data, ONLINE_BATCH * 16, |rk, d| {
        f(rk, &mut c, d)
    });
    *counter = c.to_be_bytes();
}

/// InvMixColumns (`AESIMC`) on each key: turns the straightforward inverse
/// cipher's middle round keys into the equivalent inverse cipher's.
fn inv_mix_keys(keys: &mut [[u8; 16]]) {
    require_aes();
    // SAFETY: `aes` (and `sse2`, part of x86-64) was just detected.
    unsafe { inv_mix_keys_ni(keys) }
}

fn require_aes() {
    if !crate::cpu::features().aes {
        panic!("aesflow: AESIMC needs the CPU feature aes, which this CPU lacks");
    }
}

#[target_feature(enable = "aes,sse2")]
fn inv_mix_keys_ni(keys: &mut [[u8; 16]]) {
    for k in keys {
        store(k, _mm_aesimc_si128(load(k)));
    }
}

crate::x86::ecb_ctr_steps!("aes,sse2,ssse3", 16, _mm_setzero_si128);

#[target_feature(enable = "aes,sse2,ssse3")]
fn ecb<const NR: usize, const DEC: bool>(rk: &[[u8; 16]], blocks: &mut [Block]) {
    // A slice of constant length: the key loads unroll into registers (no
    // zeroed array on the stack and reload, a start-up cost that a single
    // block, the XTS tweak, pays in full).
    let k = load_keys(&rk[..=NR]);
    in_pieces!(
        blocks.as_flattened_mut(),
        16,
        WIDTH,
        ecb_step::<NR, _, DEC>(&k)
    );
}

#[target_feature(enable = "aes,sse2,ssse3")]
fn ctr<const NR: usize>(rk: &[[u8; 16]], ctr: &mut u128, data: &mut [u8]) {
    let k = load_keys(rk);
    let mut st = Ctr::new(*ctr);
    let rest = in_pieces!(data, 16, WIDTH, ctr_step::<NR, _>(&mut st, &k));
    if !rest.is_empty() {
        // Partial final block: its counter is consumed.
        let mut buf = [0u8; 16];
        buf[..rest.len()].copy_from_slice(rest);
        ctr_step::<NR, 1>(&mut buf, &mut st, &k);
        rest.copy_from_slice(&buf[..rest.len()]);
        buf.zeroize();
    }
    *ctr = st.c;
}

/// Serial CBC encryption with the round keys held in registers.
#[target_feature(enable = "aes,sse2")]
fn cbc_enc<const NR: usize>(rk: &[[u8; 16]], iv: &mut Block, blocks: &mut [Block]) {
    let keys = load_keys(rk);
    let mut chain = load(iv);
    for b in blocks.iter_mut() {
        let mut x = [_mm_xor_si128(load(b), chain)];
        enc_n::<NR, 1>(&mut x, &keys);
        chain = x[0];
        store(b, chain);
    }
    store(iv, chain);
}

/// CBC decryption of exactly `N` blocks, in place: the outputs are stored
/// from the last block back, so each block's predecessor ciphertext is still
/// in memory when it is needed (no second set of registers for them).
#[inline]
#[target_feature(enable = "aes,sse2")]
fn cbc_dec_step<const NR: usize, const N: usize>(
    blocks: &mut [Block],
    chain: &mut __m128i,
    k: &Keys,
) {
    assert_eq!(blocks.len(), N);
    let mut x = [_mm_setzero_si128(); N];
    for (v, b) in x.iter_mut().zip(blocks.iter()) {
        *v = load(b);
    }
    let last = x[N - 1];
    dec_n::<NR, N>(&mut x, k);
    for i in (1..N).rev() {
        let prev = load(&blocks[i - 1]);
        store(&mut blocks[i], _mm_xor_si128(x[i], prev));
    }
    store(&mut blocks[0], _mm_xor_si128(x[0], *chain));
    *chain = last;
}

#[target_feature(enable = "aes,sse2")]
fn cbc_dec<const NR: usize>(rk: &[[u8; 16]], iv: &mut Block, blocks: &mut [Block]) {
    let keys = load_keys(rk);
    let mut chain = load(iv);
    let mut chunks = blocks.chunks_exact_mut(WIDTH);
    for c in &mut chunks {
        cbc_dec_step::<NR, WIDTH>(c, &mut chain, &keys);
    }
    for b in chunks.into_remainder().chunks_exact_mut(1) {
        cbc_dec_step::<NR, 1>(b, &mut chain, &keys);
    }
    store(iv, chain);
}

/// CBC in the direction `DEC`.
#[target_feature(enable = "aes,sse2")]
fn cbc<const NR: usize, const DEC: bool>(rk: &[[u8; 16]], iv: &mut Block, blocks: &mut [Block]) {
    if DEC {
        cbc_dec::<NR>(rk, iv, blocks)
    } else {
        cbc_enc::<NR>(rk, iv, blocks)
    }
}

/// CBC encryption with AES-NI on any key schedule (for the `vaes` kernels
/// too: CBC encryption is serial, so wider registers do not help).
pub(super) fn cbc_encrypt_ni(keys: &KeySchedule, iv: &mut Block, blocks: &mut [Block]) {
    keyed::<CBC>(keys, iv, blocks, false);
}

/// ECB with AES-NI on any key schedule, for the wider kernels' calls of
/// fewer blocks than one of their registers holds (a single block: the
/// XTS tweak). Their path broadcasts every round key to a wide register
/// and moves the block with masked loads and stores (measured on Zen 4,
/// one independent block: 23 ns on `vaes`, 46 ns on `vaes256`, 6.5 ns
/// here).
pub(super) fn ecb_ni(keys: &KeySchedule, blocks: &mut [Block], dec: bool) {
    keyed::<ECB>(keys, &mut [0; 16], blocks, dec);
}

// The XTS rounds' scheduling tie (`x86::tie_fn`).
crate::x86::tie_fn!(__m128i, xmm_reg, "sse2");

/// Three groups' tweaks, aligned for `PXOR` with a memory operand.
#[repr(C, align(16))]
struct TweakBuf([[u128; WIDTH]; 3]);

/// XTS over whole blocks. The tweaks are one serial chain of doublings on
/// general-purpose registers, stored to a stack ring two groups ahead (one
/// doubling after each of the first eight rounds, kept there by `tie`) and
/// XORed with the blocks from memory: integer work and stores, which run
/// beside the AES rounds, where a vector multiplication of eight tweak
/// registers by α^8 per group (bit shifts, or byte shifts and PCLMULQDQ)
/// competes with the rounds for the vector ports and measured slower
/// (XTS / CTR 0.60 bit shifts, 0.70 PCLMULQDQ, 0.77 the chain hoisted
/// before the rounds, AES-128 on Zen 4). The second tweak XOR is folded
/// into the last round's key (`k_last ⊕ tweak`, off the data's chain). The
/// ring's slot is chosen by a variable index, so LLVM keeps it in memory
/// instead of forwarding the values through vector moves.
#[target_feature(enable = "aes,sse2")]
fn xts<const NR: usize, const DEC: bool>(rk: &[[u8; 16]], tweak: &mut Block, blocks: &mut [Block]) {
    // Constant length: the key loads unroll into registers.
    let keys = load_keys(&rk[..=NR]);
    let mut t = u128::from_le_bytes(*tweak);
    let mut buf = TweakBuf([[0; WIDTH]; 3]);
    let mut chunks = blocks.chunks_exact_mut(WIDTH);
    let groups = chunks.len();
    // The first two groups' tweaks (both whenever there is a group, so
    // that the slot after the last group is always filled).
    for slot in buf.0.iter_mut().take(if groups > 0 { 2 } else { 0 }) {
        for v in slot.iter_mut() {
            *v = t;
            t = crate::x86::xts_mul_alpha_u128::<1>(t);
        }
    }
    let mut cur = 0;
    for c in &mut chunks {
        let [s0, s1, s2] = &mut buf.0;
        let (tw, out) = match cur {
            0 => (&*s0, s2),
            1 => (&*s1, s0),
            _ => (&*s2, s1),
        };
        let tweak_reg = |i: usize| {
            // SAFETY: `tw[i]` is 16 readable bytes, 16-aligned.
            unsafe { _mm_load_si128((&tw[i] as *const u128).cast()) }
        };
        let mut x = [_mm_setzero_si128(); WIDTH];
        for (i, (v, b)) in x.iter_mut().zip(c.iter()).enumerate() {
            *v = _mm_xor_si128(_mm_xor_si128(load(b), tweak_reg(i)), keys[0]);
        }
        // The tweaks of the group two ahead (unused past the end), one
        // after each of the first eight rounds.
        middle_n::<NR, WIDTH, DEC>(&mut x, &keys, |r, x| {
            if r <= WIDTH {
                for v in x.iter_mut() {
                    tie(&mut t, v);
                }
                out[r - 1] = t;
                t = crate::x86::xts_mul_alpha_u128::<1>(t);
            }
        });
        let mut last = [keys[NR]; WIDTH];
        for (i, l) in last.iter_mut().enumerate() {
            *l = _mm_xor_si128(*l, tweak_reg(i));
        }
        last_n::<WIDTH, DEC>(&mut x, &last);
        for (v, b) in x.iter().zip(c.iter_mut()) {
            store(b, *v);
        }
        cur = if cur == 2 { 0 } else { cur + 1 };
    }
    // The next group's first tweak: in the ring after a whole group, still
    // `t` before any.
    let mut t = if groups > 0 { buf.0[cur][0] } else { t };
    for b in chunks.into_remainder() {
        let tv = load(&t.to_le_bytes());
        let mut x = [_mm_xor_si128(load(b), tv)];
        crypt_n::<NR, 1, DEC>(&mut x, &keys);
        store(b, _mm_xor_si128(x[0], tv));
        t = crate::x86::xts_mul_alpha_u128::<1>(t);
    }
    buf.0.as_flattened_mut().zeroize();
    *tweak = t.to_le_bytes();
}

/// KeySubWord with the AES instruction: with the word in all four columns,
/// ShiftRows moves nothing, so `AESENCLAST` with a zero round key is SubBytes
/// on each byte. Constant-time, and much faster than the bitsliced circuit;
/// `None` when the CPU lacks AES-NI.
pub fn sub_word(w: [u8; 4]) -> Option<[u8; 4]> {
    if !crate::cpu::features().aes {
        return None;
    }
    // SAFETY: AES-NI was just detected; SSE2 is part of x86-64.
    Some(unsafe { sub_word_ni(u32::from_le_bytes(w)) }.to_le_bytes())
}

#[target_feature(enable = "aes,sse2")]
fn sub_word_ni(w: u32) -> u32 {
    let v = _mm_set1_epi32(w as i32);
    _mm_cvtsi128_si32(_mm_aesenclast_si128(v, _mm_setzero_si128())) as u32
}

/// What [`keyed`] runs: ECB, CBC (the state is the chaining value) or XTS
/// (the tweak).
const ECB: u8 = 0;
const CBC: u8 = 1;
const XTS: u8 = 2;

/// `OP` in the direction `DEC` with AES-`NR`.
#[target_feature(enable = "aes,sse2,ssse3")]
fn run<const NR: usize, const OP: u8, const DEC: bool>(
    rk: &[[u8; 16]],
    state: &mut Block,
    blocks: &mut [Block],
) {
    match OP {
        ECB => ecb::<NR, DEC>(rk, blocks),
        CBC => cbc::<NR, DEC>(rk, state, blocks),
        _ => xts::<NR, DEC>(rk, state, blocks),
    }
}

/// `OP` over whole blocks with AES-NI, on any key schedule.
fn keyed<const OP: u8>(keys: &KeySchedule, state: &mut Block, blocks: &mut [Block], dec: bool) {
    AesNi::require();
    for_each_keyed(keys, dec, blocks, ONLINE_BATCH, |rk, b| {
        // SAFETY: `require` checked aes, sse2 and ssse3.
        unsafe { by_rounds!(rk, dec => run::<_, OP, ?>(rk, state, b)) }
    });
}

/// Counter mode with AES-NI, the counters generated in registers.
fn ctr_xor(keys: &KeySchedule, counter: &mut Block, data: &mut [u8]) {
    AesNi::require();
    ctr_keyed(keys, counter, data, |rk, c, d| {
        // SAFETY: `require` checked aes, sse2 and ssse3.
        unsafe { by_rounds!(rk => ctr::<_>(rk, c, d)) }
    });
}

impl_kernel! {
    impl for AesNi {
        name: "aesni",
        description: "x86-64 AES-NI, 8 blocks interleaved, fused CTR (constant-time)",
        available: crate::cpu::features().aesni(),
        needs: "aes, sse2 and ssse3",
        constant_time: true,
        rank: 20,
        isa: Aesni,
        ecb: |keys, blocks, dec| keyed::<ECB>(keys, &mut [0; 16], blocks, dec),
        ctr_xor: ctr_xor,
        cbc_encrypt: cbc_encrypt_ni,
        cbc_decrypt: |keys, iv, blocks| keyed::<CBC>(keys, iv, blocks, true),
        xts_blocks: |k, t, b, d, _| keyed::<XTS>(k, t, b, d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Kernel;
    use crate::kernels::testutil::{matches_reference, runnable};

    matches_reference!(AesNi => 1);

    /// The branch-free counter setup is exact at the carry out of the
    /// counter's last byte, for every width and every position of the
    /// carry out of the low 64 bits.
    #[test]
    fn counters_carry_at_every_position() {
        if !runnable(&AesNi) {
            return;
        }
        #[target_feature(enable = "sse2,ssse3")]
        fn check<const N: usize>() {
            for d in 0..=N as u128 + 1 {
                for hi in [0u128, 7 << 64, u128::MAX << 64] {
                    let ctr = hi | (u64::MAX as u128 + 1 - d) & u64::MAX as u128;
                    let mut x = [_mm_setzero_si128(); N];
                    crate::x86::v128::counters::<N>(ctr, &mut x);
                    for (i, v) in x.iter().enumerate() {
                        let mut b = [0u8; 16];
                        store(&mut b, *v);
                        assert_eq!(b, ctr.wrapping_add(i as u128).to_be_bytes(), "N={N} d={d}");
                    }
                }
            }
        }
        // SAFETY: `runnable` checked aes, sse2 and ssse3.
        unsafe {
            check::<1>();
            check::<2>();
            check::<4>();
            check::<8>();
        }
    }

    #[test]
    fn metadata() {
        assert_eq!(AesNi.name(), "aesni");
        assert_eq!(AesNi.rank(), 20);
        assert!(AesNi.is_constant_time());
    }
}
