//! Hardware kernels: the only place in this crate with `unsafe` code.
//!
//! * GHASH with PCLMULQDQ (128-bit, 16 blocks per reduction) and
//!   VPCLMULQDQ (512-bit, 4 blocks per register, 32 per reduction).
//! * Fused AES-GCM: one pass over the data in which the AES-CTR rounds of a
//!   group of blocks run interleaved with the GHASH of ciphertext blocks —
//!   AES-NI + PCLMULQDQ (8 blocks per group, hand-scheduled inline assembly
//!   in `x86/aesni.rs`: Karatsuba, one reduction per group, no spills),
//!   VAES + VPCLMULQDQ on AVX-512 and on AVX2 ymm registers (for CPUs
//!   without AVX-512): 16 blocks per group, Karatsuba, one reduction per
//!   run of 4 groups (64 blocks), counters added in byte order between
//!   carries of their last byte (`x86/body.rs`); and on AVX-512 with 32
//!   blocks per group (`Fused::Vaes32`: eight AES chains, one reduction
//!   per run of 2 groups), for cores that start two 512-bit `VAESENC` per
//!   cycle, where four chains are bound by the instruction's latency.
//!
//! * A whole short or middle-sized message with the `vaes` kernels
//!   (`gcm_small`, `x86/small.rs`): up to 4 KiB of text and 64 bytes of AAD
//!   in one AVX-512 function, in registers — chunks of eight AES chains,
//!   masked loads and stores for the partial register, `E(J0)` woven into
//!   the first chunk's AES rounds, one reduction per 64 text blocks (the
//!   first with the AAD, the last with the length block).
//!
//! The fused kernels run in place or read an input buffer and write an
//! output one (`Gcm::seal_into` / `open_into`: no copy first); the encryption
//! kernels generated from the shared body hash each group during the AES of
//! the group just after it (32-block groups: the ciphertext kept in
//! registers) or two after it (reading the ciphertext back from L1); a
//! one-shot message whose text is whole groups ends in the kernel (`E(J0)`
//! beside the first group, the length block with the last groups' state).
//! The blocks
//! after the last whole group run AES-NI (`ctr32`) and the short GHASH;
//! for a one-shot message, `gcm_finish` instead: those blocks and `E(J0)`
//! in one AES-NI batch, their GHASH with the padded partial block and the
//! length block in one reduction (`ghash_seq`), the tag out.
//!
//! Both widths of GHASH and the VAES kernel are generated from one body
//! (`x86/body.rs`) over a small set of per-width primitives; its 128-bit
//! fused instantiation, which runs on every x86-64 with AES-NI, is kept as a
//! test reference for the assembly kernel and so also tests the logic of the
//! 512-bit one.
//!
//! Every `#[target_feature]` function is reached only through the safe
//! wrappers below, which check the CPU first with the features token of
//! `aesflow_cipher::cpu` (detected once).

use crate::gcm::GhashKey;
use aesflow_cipher::Isa;
use core::sync::atomic::{AtomicU8, Ordering};

#[cfg(target_arch = "x86_64")]
mod x86;

/// `detect()`, cached in `flag` (0 unknown, 1 no, 2 yes): a relaxed load
/// and an inlined compare on every later call. The safe wrappers below
/// check before every kernel call — several times per GCM message —
/// and the detection behind them (`aesflow_cipher::features`) is a call
/// through a `OnceLock`.
#[inline]
fn cached(flag: &AtomicU8, detect: fn() -> bool) -> bool {
    match flag.load(Ordering::Relaxed) {
        0 => {
            let v = detect();
            flag.store(1 + u8::from(v), Ordering::Relaxed);
            v
        }
        f => f == 2,
    }
}

/// Whether the PCLMULQDQ GHASH and the AES-NI fused GCM kernel can run.
#[inline]
pub(crate) fn has_pclmul() -> bool {
    static F: AtomicU8 = AtomicU8::new(0);
    cached(&F, || Isa::Aesni.has_clmul())
}

/// Whether the VPCLMULQDQ GHASH and the VAES fused GCM kernel can run.
#[inline]
pub(crate) fn has_vpclmul() -> bool {
    static F: AtomicU8 = AtomicU8::new(0);
    cached(&F, || Isa::Vaes.has_clmul())
}

/// Whether the 256-bit fused VAES + VPCLMULQDQ GCM kernel can run.
#[inline]
pub(crate) fn has_vpclmul256() -> bool {
    static F: AtomicU8 = AtomicU8::new(0);
    cached(&F, || aesflow_cipher::features().vaes256_clmul())
}

/// Zero a block with one volatile 16-byte store (the `zeroize` crate writes
/// an array byte by byte; this runs on every GCM message).
pub(crate) fn wipe_block(b: &mut [u8; 16]) {
    // SAFETY: `b` is a valid, aligned, exclusive reference to the array.
    unsafe { core::ptr::write_volatile(b, [0; 16]) };
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// GHASH whole blocks with PCLMULQDQ on 128-bit registers, or (`wide`)
/// VPCLMULQDQ on 512-bit ones; up to 16 blocks (an AAD, a length block)
/// straight through the short-input 128-bit path. Panics if unavailable
/// (callers check).
pub(crate) fn ghash_clmul(wide: bool, key: &GhashKey, x: &mut u128, data: &[u8]) {
    let available = if wide { has_vpclmul() } else { has_pclmul() };
    assert!(available, "carry-less GHASH (wide: {wide}) unavailable");
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the CPU features of the width were just checked (both widths
    // include PCLMULQDQ and SSE4.1, which `ghash_seq` needs, and AVX, which
    // `scrub_stack` needs).
    unsafe {
        if data.len() < 16 * 17 {
            *x = x86::ghash_seq(&key.powers, &key.hk, *x, data, None, None)
        } else if wide {
            x86::w512::ghash_blocks(&key.powers, &key.hk, x, data)
        } else {
            x86::w128::ghash_blocks(&key.powers, &key.hk, x, data);
            // Its spilled sums (products with powers of H) off the stack.
            x86::scrub_stack::<{ x86::SCRUB_GHASH / 32 }>()
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (key, x, data);
}

/// Fill `powers` (descending, its last element `k`, the key) with
/// `k^n .. k^1` by Montgomery products with PCLMULQDQ; `false` (nothing
/// done) if unavailable.
pub(crate) fn clmul_powers(powers: &mut [u128]) -> bool {
    if !has_pclmul() {
        return false;
    }
    let Some(&k) = powers.last() else {
        return true;
    };
    #[cfg(target_arch = "x86_64")]
    for i in (0..powers.len() - 1).rev() {
        // SAFETY: PCLMULQDQ (with SSE4.1) was just checked.
        powers[i] = unsafe { x86::mont_mul(powers[i + 1], k) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = k;
    true
}

/// Encrypt one block in place with AES-NI from the Nr + 1 round keys `rk`
/// (GCM's `E(J0)`: cheaper than a call into the AES kernel). Panics if AES-NI
/// and PCLMULQDQ are unavailable (callers check `has_pclmul`).
pub(crate) fn encrypt_block(rk: &[[u8; 16]], b: &mut [u8; 16]) {
    assert!(has_pclmul(), "AES-NI unavailable");
    assert!(matches!(rk.len(), 11 | 13 | 15), "{} round keys", rk.len());
    #[cfg(target_arch = "x86_64")]
    // SAFETY: AES-NI, PCLMULQDQ and AVX were just checked.
    unsafe {
        x86::aesni::encrypt_block(rk, b)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (rk, b);
}

/// GCM's counter mode (`inc32`, `ctr` advanced by a block per 16 bytes or
/// part) over `data`, in place or from `input` (as long as `data`), with
/// AES-NI from the Nr + 1 round keys `rk`: for the few blocks a fused kernel
/// leaves (fewer than a group, and a partial block), cheaper than a call
/// into the AES kernel. Panics if AES-NI and PCLMULQDQ are unavailable
/// (callers check `has_pclmul`).
pub(crate) fn ctr32(rk: &[[u8; 16]], ctr: &mut [u8; 16], input: Option<&[u8]>, data: &mut [u8]) {
    assert!(has_pclmul(), "AES-NI unavailable");
    assert!(matches!(rk.len(), 11 | 13 | 15), "{} round keys", rk.len());
    assert!(
        input.is_none_or(|i| i.len() == data.len()),
        "input and output lengths differ"
    );
    #[cfg(target_arch = "x86_64")]
    // SAFETY: AES-NI, PCLMULQDQ and AVX were just checked.
    unsafe {
        x86::aesni::ctr32(rk, ctr, input, data)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (rk, ctr, input, data);
}

/// A partial block (fewer than 16 bytes), zero-padded, as
/// `u128::from_be_bytes`: built from at most four loads in general-purpose
/// registers (two overlapping ones of 8, 4 or 1 bytes), never through a
/// stack buffer written bytewise and read back whole (a store-forwarding
/// stall on every message with an odd-length AAD or text).
pub(crate) fn be_partial(b: &[u8]) -> u128 {
    let n = b.len();
    assert!(n < 16);
    let be64 = |s: &[u8]| u64::from_be_bytes(s.try_into().expect("8 bytes"));
    let be32 = |s: &[u8]| u32::from_be_bytes(s.try_into().expect("4 bytes"));
    // Overlapping loads put the same byte at the same place: OR is exact.
    let hi = match n {
        0 => return 0,
        8.. => {
            let lo = (be64(&b[n - 8..]) as u128) << (8 * (16 - n));
            return ((be64(&b[..8]) as u128) << 64) | lo;
        }
        4..=7 => ((be32(&b[..4]) as u64) << 32) | ((be32(&b[n - 4..]) as u64) << (8 * (8 - n))),
        _ => {
            ((b[0] as u64) << 56)
                | ((b[n / 2] as u64) << (56 - 8 * (n / 2)))
                | ((b[n - 1] as u64) << (56 - 8 * (n - 1)))
        }
    };
    (hi as u128) << 64
}

/// GHASH from a zero state of `data` zero-padded to whole blocks (an
/// AAD) with PCLMULQDQ: up to 32 whole blocks and the padded partial one
/// with one reduction, longer inputs through `ghash_clmul` first; the
/// state returned in registers (see `x86::GcmCall`). Panics if PCLMULQDQ
/// is unavailable (callers check `has_pclmul`).
pub(crate) fn ghash_padded(key: &GhashKey, data: &[u8]) -> u128 {
    assert!(has_pclmul(), "PCLMULQDQ unavailable");
    let mut x = 0;
    let whole = data.len() / 16 * 16;
    let (mut head, tail) = data.split_at(whole);
    if whole > 16 * 32 {
        ghash_clmul(has_vpclmul(), key, &mut x, head);
        head = &[];
    }
    let pad = (!tail.is_empty()).then(|| be_partial(tail));
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PCLMULQDQ (with SSE4.1) was just checked.
    unsafe {
        x = x86::ghash_seq(&key.powers, &key.hk, x, head, pad, None)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (key, head, pad);
    x
}

/// The longest text a one-shot message with the `aesni` fused kernel
/// sends straight to [`gcm_finish`] (no fused groups; the assembly kernel's
/// per-call table of keys and powers, built and wiped, costs more than its
/// interleaving gains on a few groups; from about 768 bytes on, the
/// groups win).
pub(crate) const AESNI_SHORT: usize = 640;

/// The end of a one-shot GCM message after the fused kernel's groups
/// (`aesni::finish`): CTR over the `data.len()` bytes left (at most
/// POWERS − 2 = 70 whole blocks and a partial one; the fused kernels leave
/// at most 15, a short message with `aesni` is all here: [`AESNI_SHORT`])
/// from counter block `ctr`, in place or from `input`, with
/// `E(J0)` (`ctr` and `j0` as `u128::from_be_bytes`), and the
/// GHASH of their ciphertext and of the length block `lens` into `x`, one
/// reduction; returns the full tag (as `u128::from_be_bytes`: in
/// registers, never stored in pieces and loaded whole, which stalls on
/// store forwarding). Panics if AES-NI and PCLMULQDQ are
/// unavailable (callers check `has_pclmul`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn gcm_finish(
    rk: &[[u8; 16]],
    key: &GhashKey,
    x: u128,
    (ctr, j0): (u128, u128),
    (input, data): (Option<&[u8]>, &mut [u8]),
    lens: u128,
    encrypt: bool,
) -> u128 {
    assert!(has_pclmul(), "AES-NI unavailable");
    assert!(matches!(rk.len(), 11 | 13 | 15), "{} round keys", rk.len());
    #[cfg(target_arch = "x86_64")]
    // SAFETY: AES-NI, PCLMULQDQ and AVX were just checked.
    unsafe {
        let tag = x86::aesni::finish(
            rk,
            (&key.powers, &key.hk),
            x,
            (ctr, j0),
            input,
            data,
            lens,
            encrypt,
        );
        // Its spilled keystream and text blocks off the stack.
        x86::scrub_stack::<{ x86::SCRUB_FINISH / 32 }>();
        tag
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (rk, key, x, ctr, j0, input, data, lens, encrypt);
        unreachable!("no PCLMULQDQ")
    }
}

/// The longest text [`gcm_small`] takes (4 KiB: above it the fused
/// kernels' groups are faster).
#[cfg(target_arch = "x86_64")]
pub(crate) const SMALL_TEXT: usize = x86::small::MAX_TEXT;
#[cfg(not(target_arch = "x86_64"))]
pub(crate) const SMALL_TEXT: usize = 0;
/// The longest AAD [`gcm_small`] hashes itself (one register).
#[cfg(target_arch = "x86_64")]
pub(crate) const SMALL_AAD: usize = x86::small::MAX_AAD;
#[cfg(not(target_arch = "x86_64"))]
pub(crate) const SMALL_AAD: usize = 0;

/// A whole short or middle-sized GCM message with VAES + VPCLMULQDQ on
/// zmm registers, in one function (`x86/small.rs`): CTR from `inc32(j0)`
/// over `data` (at most [`SMALL_TEXT`] bytes) in place or from `input`,
/// `E(J0)` in the same rounds, and the GHASH of `x` (the state of an AAD
/// hashed before, if given), `aad` (at most [`SMALL_AAD`] bytes, empty if
/// `x` is given), the ciphertext and the length block `lens`, one
/// reduction per 64 text blocks; returns the full tag (as
/// `u128::from_be_bytes`). Panics if the kernel is unavailable or an
/// argument is out of range (callers check).
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn gcm_small(
    rk: &[[u8; 16]],
    key: &GhashKey,
    (x, aad): (Option<u128>, &[u8]),
    j0: u128,
    (input, data): (Option<&[u8]>, &mut [u8]),
    lens: u128,
    encrypt: bool,
) -> u128 {
    assert!(has_vpclmul(), "VAES + VPCLMULQDQ unavailable");
    assert!(data.len() <= SMALL_TEXT && aad.len() <= SMALL_AAD);
    #[cfg(target_arch = "x86_64")]
    {
        let k = (&key.powers, &key.hk);
        let io = (input, data);
        // SAFETY: the CPU features were just checked (`has_vpclmul`: AES-NI,
        // PCLMULQDQ, AVX-512F/BW, VAES, VPCLMULQDQ); the lengths are checked
        // by the kernel.
        unsafe {
            match (rk.len(), encrypt) {
                (11, true) => x86::small::one_shot::<10, true>(rk, k, (x, aad), j0, io, lens),
                (11, false) => x86::small::one_shot::<10, false>(rk, k, (x, aad), j0, io, lens),
                (13, true) => x86::small::one_shot::<12, true>(rk, k, (x, aad), j0, io, lens),
                (13, false) => x86::small::one_shot::<12, false>(rk, k, (x, aad), j0, io, lens),
                (15, true) => x86::small::one_shot::<14, true>(rk, k, (x, aad), j0, io, lens),
                (15, false) => x86::small::one_shot::<14, false>(rk, k, (x, aad), j0, io, lens),
                (n, _) => panic!("{n} round keys"),
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (rk, key, x, aad, j0, input, data, lens, encrypt);
        unreachable!("no VPCLMULQDQ")
    }
}

/// Which fused kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fused {
    /// AES-NI + PCLMULQDQ, 128-bit.
    Aesni,
    /// VAES + VPCLMULQDQ, 512-bit, 16 blocks per group.
    Vaes,
    /// VAES + VPCLMULQDQ, 512-bit, 32 blocks per group (8 chains); the
    /// whole 16-block group after them, if any, with `Vaes`.
    Vaes32,
    /// VAES + VPCLMULQDQ, 256-bit (AVX2).
    Vaes256,
}

impl Fused {
    #[inline]
    pub(crate) fn is_available(self) -> bool {
        match self {
            Fused::Aesni => has_pclmul(),
            Fused::Vaes | Fused::Vaes32 => has_vpclmul(),
            Fused::Vaes256 => has_vpclmul256(),
        }
    }

    /// Blocks per group: the kernel processes whole groups only (the
    /// 32-block kernel also a last group of 16).
    pub(crate) fn group_blocks(self) -> usize {
        match self {
            Fused::Aesni => 8,
            Fused::Vaes | Fused::Vaes256 | Fused::Vaes32 => 16,
        }
    }
}

/// Fused GCM over the longest prefix of `data` that is whole groups of
/// blocks, in place or (`input`, as long as `data`) from `input` into
/// `data`: CTR with 32-bit increments from `ctr` and GHASH of the
/// ciphertext into `x`. `rk`: the Nr + 1 encryption round keys (Nr 10, 12,
/// 14). Returns the number of bytes processed (the caller advances its
/// counter by a block per 16 of them) and, given `finish` (`J0` and the
/// length block of a one-shot message, as `u128::from_be_bytes`) when
/// `data` is whole groups and the kernel is not `aesni`, the full tag
/// (as `u128::from_be_bytes`, returned in registers; the kernel runs
/// `E(J0)` beside its first group and hashes the length block with its
/// last groups' state: no call to [`gcm_finish`]). `prefetch`: the
/// caller's [`Prefetch`](crate::gcm::Prefetch) policy. Panics if the
/// kernel is unavailable or `rk` has a wrong length (callers check).
#[allow(clippy::too_many_arguments)]
pub(crate) fn gcm_fused(
    kind: Fused,
    rk: &[[u8; 16]],
    key: &GhashKey,
    ctr: &[u8; 16],
    x: &mut u128,
    (input, data): (Option<&[u8]>, &mut [u8]),
    encrypt: bool,
    finish: Option<(u128, u128)>,
    prefetch: crate::gcm::Prefetch,
) -> (usize, Option<u128>) {
    assert!(kind.is_available(), "fused GCM kernel {kind:?} unavailable");
    assert!(
        input.is_none_or(|i| i.len() == data.len()),
        "input and output lengths differ"
    );
    let group = 16 * kind.group_blocks();
    let len = data.len() / group * group;
    if len == 0 {
        return (0, None);
    }
    let finish = finish.filter(|_| len == data.len() && kind != Fused::Aesni);
    let data = &mut data[..len];
    let input = input.map(|i| &i[..len]);
    // The last kernel call's result: the state, or with `finish` the tag.
    let mut out = 0;
    #[cfg(target_arch = "x86_64")]
    {
        let run = |kind: Fused,
                   ctr: [u8; 16],
                   x: u128,
                   input: Option<&[u8]>,
                   data: &mut [u8],
                   finish: Option<(u128, u128)>| {
            let call = x86::GcmCall {
                rk,
                powers: &key.powers,
                hk: &key.hk,
                ctr,
                x,
                data,
                input,
                encrypt,
                finish,
                prefetch_always: prefetch != crate::gcm::Prefetch::Long,
                stream: prefetch == crate::gcm::Prefetch::Stream,
            };
            macro_rules! dispatch {
                ($($w:ident)::+) => {
                    // SAFETY: the CPU features of this width were checked
                    // above (`kind.is_available()`; `Vaes` and `Vaes32`
                    // need the same), `rk` has Nr + 1 keys for the Nr
                    // chosen, and `data` is whole groups of the width.
                    unsafe {
                        match rk.len() {
                            11 => x86::$($w)::+::gcm_crypt::<10>(call),
                            13 => x86::$($w)::+::gcm_crypt::<12>(call),
                            15 => x86::$($w)::+::gcm_crypt::<14>(call),
                            n => panic!("{n} round keys"),
                        }
                    }
                };
            }
            match kind {
                Fused::Aesni => dispatch!(aesni),
                Fused::Vaes => dispatch!(w512),
                Fused::Vaes32 => dispatch!(w512x8),
                Fused::Vaes256 => dispatch!(w256),
            }
        };
        if kind == Fused::Vaes32 {
            // Groups of 32 blocks, then a last one of 16 (`len` is whole
            // groups of 16) from the counter after them (inc32).
            let wide = len / 512 * 512;
            let (head, tail) = data.split_at_mut(wide);
            let (ih, it) = input.map(|i| i.split_at(wide)).unzip();
            let last = tail.is_empty();
            if wide > 0 {
                out = run(Fused::Vaes32, *ctr, *x, ih, head, finish.filter(|_| last));
            }
            if !last {
                let mut c = *ctr;
                let lo = u32::from_be_bytes(c[12..].try_into().expect("4 bytes"));
                c[12..].copy_from_slice(&lo.wrapping_add((wide / 16) as u32).to_be_bytes());
                let x = if wide > 0 { out } else { *x };
                out = run(Fused::Vaes, c, x, it, tail, finish);
            }
        } else {
            out = run(kind, *ctr, *x, input, data, finish);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (rk, key, ctr, input, encrypt);
        out = *x;
    }
    // With `finish`, the last kernel call returned the tag (`x` is left
    // as it was); else the state.
    if finish.is_none() {
        *x = out;
    }
    (len, finish.map(|_| out))
}

#[cfg(all(test, target_arch = "x86_64"))]
mod residue_tests;

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::gcm::{GhashImpl, GhashKey};
    use aesflow_cipher::{Aes, KeySchedule};

    /// `be_partial` is `u128::from_be_bytes` of the zero-padded bytes, for
    /// every length and position of the overlapping loads.
    #[test]
    fn be_partial_pads_with_zeroes() {
        let src: Vec<u8> = (0..16u8).map(|b| b.wrapping_mul(37) ^ 0xa5).collect();
        for n in 0..16 {
            let mut b = [0u8; 16];
            b[..n].copy_from_slice(&src[..n]);
            assert_eq!(be_partial(&src[..n]), u128::from_be_bytes(b), "{n}");
        }
    }

    /// Which kernel `run` runs: the hand-scheduled AES-NI one, the shared
    /// body at 128 bits, or the body at 128 bits with the 32-block
    /// kernel's shape (`w128x2`).
    #[derive(Clone, Copy, Debug)]
    enum Impl {
        Asm,
        Body,
        BodyX2,
    }

    /// Runs one of the 128-bit kernels over `data`.
    fn run(
        generic: Impl,
        rk: &[[u8; 16]],
        gk: &GhashKey,
        ctr: [u8; 16],
        x: &mut u128,
        data: &mut [u8],
        enc: bool,
    ) {
        let call = x86::GcmCall {
            rk,
            powers: &gk.powers,
            hk: &gk.hk,
            ctr,
            x: *x,
            data,
            input: None,
            encrypt: enc,
            finish: None,
            prefetch_always: false,
            stream: false,
        };
        macro_rules! go {
            ($nr:literal) => {
                // SAFETY: the caller checked the CPU features; `rk` has
                // $nr + 1 keys; `data` is whole groups of 8 blocks.
                unsafe {
                    match generic {
                        Impl::Body => x86::w128::gcm_crypt::<$nr>(call),
                        Impl::BodyX2 => x86::w128x2::gcm_crypt::<$nr>(call),
                        Impl::Asm => x86::aesni::gcm_crypt::<$nr>(call),
                    }
                }
            };
        }
        *x = match rk.len() {
            11 => go!(10),
            13 => go!(12),
            15 => go!(14),
            n => panic!("{n} round keys"),
        };
    }

    /// The assembly kernel agrees with the generic body (which the VAES
    /// kernels share), in both its shapes (runs of four groups, and the
    /// 32-block kernel's runs of two with lazy loads), for every key size,
    /// both directions, 1..40 groups (runs, pairs and a last group alone),
    /// counters whose last byte carries within a pair, and counters about
    /// to wrap in 32 bits.
    #[test]
    fn aesni_kernel_matches_generic_body() {
        if !has_pclmul() {
            return;
        }
        for klen in [16usize, 24, 32] {
            let key: Vec<u8> = (0..klen)
                .map(|i| (i as u8).wrapping_mul(37) ^ 0x5a)
                .collect();
            let aes = Aes::new(&key).unwrap();
            let KeySchedule::Offline(rk) = aes.key_schedule() else {
                panic!("offline schedule expected");
            };
            let rk = rk.enc();
            let gk = GhashKey::new(&[0x3c; 16], GhashImpl::Pclmul);
            for groups in [1usize, 2, 3, 9, 40] {
                for lo in [1u32, 0xd7, 0xf1, 0xffff_fff3, 0xffff_ffff] {
                    let mut ctr = [0xa5u8; 16];
                    ctr[12..].copy_from_slice(&lo.to_be_bytes());
                    let data: Vec<u8> = (0..groups * 128).map(|i| (i * 7 + 3) as u8).collect();
                    for enc in [true, false] {
                        let x0 = 0x1234_5678_9abc_u128 << 60;
                        let (mut a, mut xa) = (data.clone(), x0);
                        run(Impl::Asm, rk, &gk, ctr, &mut xa, &mut a, enc);
                        for other in [Impl::Body, Impl::BodyX2] {
                            let (mut b, mut xb) = (data.clone(), x0);
                            run(other, rk, &gk, ctr, &mut xb, &mut b, enc);
                            let what = format!(
                                "{other:?} klen {klen} groups {groups} ctr {lo:#x} enc {enc}"
                            );
                            assert_eq!(a, b, "data {what}");
                            assert_eq!(xa, xb, "ghash {what}");
                        }
                    }
                }
            }
        }
    }

    /// The PCLMULQDQ Montgomery product (the powers of a new key) against
    /// the portable one.
    #[test]
    fn clmul_mont_mul_matches_soft() {
        if !has_pclmul() {
            return;
        }
        let mut v = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210_u128;
        for _ in 0..200 {
            let w = v.rotate_left(37) ^ 0x9e37_79b9_7f4a_7c15;
            // SAFETY: PCLMULQDQ (and AVX, so SSE4.1) were just checked.
            let got = unsafe { x86::mont_mul(v, w) };
            assert_eq!(got, crate::gcm::ghash::mont_mul(v, w), "{v:#x} {w:#x}");
            v = v.wrapping_mul(0x2545_f491_4f6c_dd1d).wrapping_add(w);
        }
    }

    /// The short-input GHASH (up to 16 blocks, used by both widths after
    /// their whole groups) against the portable backend.
    #[test]
    fn ghash_seq_matches_soft() {
        if !has_pclmul() {
            return;
        }
        let h = [0x6bu8; 16];
        let (gk, soft) = (
            GhashKey::new(&h, GhashImpl::Pclmul),
            GhashKey::new(&h, GhashImpl::Soft),
        );
        let data: Vec<u8> = (0..16 * 16 + 5).map(|i| (i * 13 + 1) as u8).collect();
        for n in 0..=16 {
            let d = &data[..16 * n + 5];
            let mut want = 0xfeed_u128 << 90;
            soft.update_blocks(&mut want, &d[..16 * n]);
            // SAFETY: PCLMULQDQ (and AVX, so SSE4.1) were just checked.
            let got =
                unsafe { x86::ghash_seq(&gk.powers, &gk.hk, 0xfeed_u128 << 90, d, None, None) };
            assert_eq!(got, want, "{n} blocks");
        }
    }
}
