//! The `vaes256` kernel: VAES on 256-bit registers (AVX2), for CPUs — and
//! virtual machines — that have VAES but not AVX-512.
//!
//! * `VAESENC` on a ymm register runs one round on two blocks; the main
//!   loop keeps [`IN_FLIGHT`] registers (16 blocks) in flight, the round
//!   keys broadcast once per call, and the rounds ordered across the
//!   registers by a scheduling barrier (`x86::v256::ordered`).
//! * ECB, fused CTR (counters as in `x86::v256::Ctr`), CBC and CFB128
//!   decryption (the preceding ciphertext blocks formed in registers with
//!   `VPERM2I128`) and XTS (eight registers of tweaks, each advanced by
//!   α^16 per group as a two-byte shift plus a reduction of the top two
//!   bytes, by `VPCLMULQDQ` where the CPU has it, the second tweak XOR
//!   folded into the last round's key); tails through one register and a
//!   32-byte stack buffer. With two blocks per register the tweaks stay in
//!   vector registers (a general-purpose chain would double the integer
//!   work per block). Start-up: the first
//!   group's tweak registers each from T_0 by per-lane shifts
//!   (`v256::xts_tweaks_at`), round keys from a slice of constant length,
//!   and ECB of a single block (the tweak) through AES-NI.
//! * CBC encryption is serial: the AES-NI loop.
//! * Decryption uses the equivalent inverse cipher like `aesni`; online key
//!   expansion derives the round keys once per 64 blocks.
//!
//! Code that follows a kernel's family ([`Kernel::isa`](crate::Kernel::isa)) treats this one as
//! `aesni` (128-bit multi-stream paths); GCM asks [`Kernel::vector_bits`](crate::Kernel::vector_bits)
//! and runs its 256-bit fused kernel.
//!
//! Constant-time: the AES instructions take data-independent time and no
//! memory access depends on the key or the data.

use super::aesni::{ONLINE_BATCH, cbc_encrypt_ni, ctr_keyed, for_each_keyed};
use crate::kernel::{Block, impl_kernel};
use crate::key_schedule::KeySchedule;
use crate::x86::v256::{
    Ctr, Keys, broadcast_keys, crypt_n, load_n, load32, ordered, preceding, splat, store_n,
    store32, xor_n, xts_mul_alpha2, xts_mul_alpha16_bytes, xts_mul_alpha16_clmul, xts_tweaks_at,
};
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// The 256-bit VAES kernel.
#[derive(Debug, Clone, Copy, Default)]
pub struct Vaes256;

/// ymm registers (2 blocks each) in flight in the main loop.
pub const IN_FLIGHT: usize = 8;

/// What one register-group step does to the bytes of `data` (`32 * N`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    /// ECB in the key direction.
    Ecb,
    /// CTR keystream XOR (counter in the state).
    Ctr,
    /// CBC decryption (chain in the state).
    CbcDec,
    /// CFB128 decryption (chain in the state).
    CfbDec,
}

/// Run `OP` over exactly `32 * N` bytes; `st` is the op's running state:
/// the last ciphertext block in lane 1 (CBC/CFB); CTR's counter is `ctr`.
#[inline]
#[target_feature(enable = "avx2,vaes")]
fn step<const NR: usize, const N: usize, const DEC: bool>(
    op: Op,
    d: &mut [u8],
    st: &mut __m256i,
    ctr: &mut Ctr,
    k: &Keys,
) {
    assert_eq!(d.len(), 32 * N);
    let c = load_n::<N>(d);
    // `post`: XORed after the rounds.
    let mut post = [_mm256_setzero_si256(); N];
    let mut x = c;
    match op {
        Op::Ecb => {}
        Op::Ctr => {
            ctr.next::<N>(&mut x);
            post = c;
        }
        Op::CbcDec | Op::CfbDec => {
            let mut prev = [_mm256_setzero_si256(); N];
            prev[0] = preceding(c[0], *st);
            for r in 1..N {
                prev[r] = preceding(c[r], c[r - 1]);
            }
            *st = c[N - 1];
            if op == Op::CbcDec {
                post = prev;
            } else {
                x = prev;
                post = c;
            }
        }
    }
    ordered::crypt_n::<NR, N, DEC>(&mut x, k);
    xor_n(&mut x, &post);
    store_n(d, &x);
}

/// `op` over `data` (whole blocks, or any length for CTR) with the keys
/// `rk`. Returns the state register before the tail (a last single block,
/// or CTR's last 1..=31 bytes, run through a two-block stack buffer) and
/// whether there was one.
#[target_feature(enable = "avx2,vaes")]
fn run<const NR: usize, const DEC: bool>(
    op: Op,
    rk: &[[u8; 16]],
    data: &mut [u8],
    mut st: __m256i,
    ctr: &mut u128,
) -> (__m256i, bool) {
    let k = broadcast_keys(rk);
    let mut cs = Ctr::new(*ctr);
    let mut chunks = data.chunks_exact_mut(32 * IN_FLIGHT);
    for c in &mut chunks {
        step::<NR, IN_FLIGHT, DEC>(op, c, &mut st, &mut cs, &k);
    }
    let rest = chunks.into_remainder();
    let mut regs = rest.chunks_exact_mut(32);
    for c in &mut regs {
        step::<NR, 1, DEC>(op, c, &mut st, &mut cs, &k);
    }
    *ctr = cs.c;
    let tail = regs.into_remainder();
    if tail.is_empty() {
        return (st, false);
    }
    // The buffer's second lane is never copied back; a CTR counter of a
    // partial block is consumed.
    let mut buf = [0u8; 32];
    buf[..tail.len()].copy_from_slice(tail);
    let (before, c0) = (st, *ctr);
    step::<NR, 1, DEC>(op, &mut buf, &mut st, &mut cs, &k);
    *ctr = c0.wrapping_add(tail.len().div_ceil(16) as u128);
    tail.copy_from_slice(&buf[..tail.len()]);
    buf.zeroize();
    (before, true)
}

/// XTS over whole blocks (`$name`, compiled for `$features`):
/// [`IN_FLIGHT`] registers of tweaks, each advanced by α^16 per group with
/// `$mul16` independently of the others; after the main loop they hold the
/// next 16 tweaks in order, and the remainder advances the first of them.
macro_rules! xts_fn {
    ($name:ident, $features:literal, $mul16:path) => {
        #[target_feature(enable = $features)]
        fn $name<const NR: usize, const DEC: bool>(
            rk: &[[u8; 16]],
            tweak: &mut Block,
            data: &mut [u8],
        ) {
            // Constant length: the key loads unroll into registers.
            let k = broadcast_keys(&rk[..=NR]);
            // Register `i`: T_2i, T_2i+1, each from T_0 on its own (a
            // serial chain of doublings and 32-byte loads of two 16-byte
            // stores, which do not forward, delayed the first group).
            let bcast = splat(tweak);
            let mut tw = [bcast; IN_FLIGHT];
            let mut p = 0;
            #[allow(unused_assignments)]
            {
                map_unrolled!(tw, |b| {
                    let this = xts_tweaks_at(b, p);
                    p += 2;
                    this
                });
            }
            // The tweaks in a stack buffer of two halves alternating by a
            // variable index, so LLVM keeps them in memory (XORed as
            // memory operands) and the eight data registers in registers:
            // with eight tweak registers too, it spilled data registers
            // between the rounds.
            let mut buf = [tw, [_mm256_setzero_si256(); IN_FLIGHT]];
            let mut cur = 0;
            let mut chunks = data.chunks_exact_mut(32 * IN_FLIGHT);
            for c in &mut chunks {
                let next = 1 - cur;
                let mut x = load_n::<IN_FLIGHT>(c);
                xor_n(&mut x, &buf[cur]);
                for i in 0..IN_FLIGHT {
                    buf[next][i] = $mul16(buf[cur][i]);
                }
                xor_n(&mut x, &[k[0]; IN_FLIGHT]);
                ordered::middle_n::<NR, IN_FLIGHT, DEC>(&mut x, &k, |_, _| {});
                let mut last = [k[NR]; IN_FLIGHT];
                xor_n(&mut last, &buf[cur]);
                ordered::last_n::<IN_FLIGHT, DEC>(&mut x, &last);
                store_n(c, &x);
                cur = next;
            }
            // Fewer than 16 blocks: whole registers with the first tweak
            // register advanced by α^2 after each (once per call).
            let mut t = buf[cur][0];
            let rest = chunks.into_remainder();
            let mut regs = rest.chunks_exact_mut(32);
            for c in &mut regs {
                let mut x = [_mm256_xor_si256(load32(c), t)];
                crypt_n::<NR, 1, DEC>(&mut x, &k);
                store32(c, _mm256_xor_si256(x[0], t));
                t = xts_mul_alpha2(t);
            }
            let tail = regs.into_remainder();
            let mut next = 0;
            if !tail.is_empty() {
                let mut buf = [0u8; 32];
                buf[..16].copy_from_slice(tail);
                let mut x = [_mm256_xor_si256(load32(&buf), t)];
                crypt_n::<NR, 1, DEC>(&mut x, &k);
                store32(&mut buf, _mm256_xor_si256(x[0], t));
                tail.copy_from_slice(&buf[..16]);
                buf.zeroize();
                next = 1;
            }
            *tweak = lane(t, next);
        }
    };
}

xts_fn!(xts_run, "avx2,vaes", xts_mul_alpha16_bytes);
xts_fn!(xts_run_clmul, "avx2,vaes,vpclmulqdq", xts_mul_alpha16_clmul);

/// Lane `i` (0 or 1) of a register as a block.
#[inline]
#[target_feature(enable = "avx2")]
fn lane(v: __m256i, i: usize) -> Block {
    let mut b = [[0u8; 16]; 2];
    // SAFETY: `b` is 32 writable bytes; unaligned store.
    unsafe { _mm256_storeu_si256(b.as_mut_ptr().cast(), v) };
    let out = b[i];
    b.zeroize();
    out
}

/// Whole blocks through `f` with the keys in the direction `dec`.
fn blocks_op(
    keys: &KeySchedule,
    dec: bool,
    blocks: &mut [Block],
    mut f: impl FnMut(&[[u8; 16]], &mut [u8]),
) {
    Vaes256::require();
    for_each_keyed(keys, dec, blocks, ONLINE_BATCH, |rk, b| {
        f(rk, b.as_flattened_mut())
    });
}

/// ECB; fewer than two blocks (one register) with AES-NI (see
/// `aesni::ecb_ni`).
fn ecb(keys: &KeySchedule, blocks: &mut [Block], dec: bool) {
    if blocks.len() < 2 {
        Vaes256::require();
        return super::aesni::ecb_ni(keys, blocks, dec);
    }
    blocks_op(keys, dec, blocks, |rk, d| {
        // SAFETY: `blocks_op` checked avx2, vaes and aes.
        unsafe {
            let z = _mm256_setzero_si256();
            by_rounds!(rk, dec => run::<_, ?>(Op::Ecb, rk, d, z, &mut 0))
        };
    });
}

fn ctr_xor(keys: &KeySchedule, counter: &mut Block, data: &mut [u8]) {
    Vaes256::require();
    ctr_keyed(keys, counter, data, |rk, c, d| {
        // SAFETY: `require` checked avx2, vaes and aes.
        unsafe {
            let z = _mm256_setzero_si256();
            by_rounds!(rk, false => run::<_, ?>(Op::Ctr, rk, d, z, c))
        };
    });
}

/// CBC (`op` = [`Op::CbcDec`]) or CFB128 decryption; `iv` becomes the last
/// ciphertext block.
fn chain(keys: &KeySchedule, iv: &mut Block, blocks: &mut [Block], op: Op) {
    let Some(&last) = blocks.last() else {
        return;
    };
    let dec = op == Op::CbcDec;
    blocks_op(keys, dec, blocks, |rk, d| {
        let prev: Block = d[d.len() - 16..].try_into().expect("whole blocks");
        // SAFETY: `blocks_op` checked avx2, vaes and aes.
        unsafe { by_rounds!(rk, dec => run::<_, ?>(op, rk, d, splat(iv), &mut 0)) };
        *iv = prev;
    });
    debug_assert_eq!(*iv, last);
}

fn xts(keys: &KeySchedule, tweak: &mut Block, blocks: &mut [Block], dec: bool) {
    xts_with(keys, tweak, blocks, dec, crate::cpu::features().vpclmulqdq);
}

/// XTS with the tweak update by `VPCLMULQDQ` (`clmul`: the CPU must have
/// it) or by shifts.
fn xts_with(keys: &KeySchedule, tweak: &mut Block, blocks: &mut [Block], dec: bool, clmul: bool) {
    blocks_op(keys, dec, blocks, |rk, d| {
        // SAFETY: `blocks_op` checked avx2, vaes and aes; `clmul` only
        // where the CPU has vpclmulqdq.
        unsafe {
            if clmul {
                by_rounds!(rk, dec => xts_run_clmul::<_, ?>(rk, tweak, d))
            } else {
                by_rounds!(rk, dec => xts_run::<_, ?>(rk, tweak, d))
            }
        }
    });
}

impl_kernel! {
    impl for Vaes256 {
        name: "vaes256",
        description: "AVX2 + VAES (256-bit), 16 blocks in flight, fused CTR (constant-time)",
        available: crate::cpu::features().vaes256(),
        needs: "avx2, vaes and aes",
        constant_time: true,
        rank: 25,
        isa: Aesni,
        vector_bits: 256,
        ecb: ecb,
        ctr_xor: ctr_xor,
        cbc_encrypt: |keys, iv, blocks| {
            Vaes256::require();
            cbc_encrypt_ni(keys, iv, blocks)
        },
        cbc_decrypt: |keys, iv, blocks| chain(keys, iv, blocks, Op::CbcDec),
        cfb_decrypt: |keys, iv, blocks| chain(keys, iv, blocks, Op::CfbDec),
        xts_blocks: |k, t, b, d, _| xts(k, t, b, d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::testutil::matches_reference;

    matches_reference!(Vaes256 => 31);

    /// Both tweak updates (shifts, and VPCLMULQDQ where this CPU has it)
    /// against `reference` on 0..=80 blocks, whole groups and every tail.
    #[test]
    fn xts_updates_match_reference() {
        use crate::kernel::Kernel;
        use crate::kernels::reference::Reference;
        use crate::kernels::testutil::{random_blocks, runnable, schedules};
        use rand::{Rng, SeedableRng, rngs::StdRng};
        if !runnable(&Vaes256) {
            return;
        }
        let mut rng = StdRng::seed_from_u64(32);
        for ks in schedules(&mut rng) {
            for n in 0..=80 {
                for dec in [false, true] {
                    let data = random_blocks(&mut rng, n);
                    let t0: Block = rng.random();
                    let (mut want, mut wt) = (data.clone(), t0);
                    Reference.xts_blocks(&ks, &mut wt, &mut want, dec, Default::default());
                    for clmul in [false, crate::cpu::features().vpclmulqdq] {
                        let (mut got, mut gt) = (data.clone(), t0);
                        xts_with(&ks, &mut gt, &mut got, dec, clmul);
                        assert_eq!((&got, gt), (&want, wt), "clmul={clmul} dec={dec} n={n}");
                    }
                }
            }
        }
    }
}
