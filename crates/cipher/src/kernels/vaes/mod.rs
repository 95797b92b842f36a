//! The `vaes` kernel: AVX-512 with the vector AES instructions (VAES).
//!
//! * `VAESENC` on a 512-bit register runs one round on four blocks; the main
//!   loop keeps [`IN_FLIGHT`] registers (32 blocks) in flight so the
//!   instruction's latency is hidden even on cores that issue two per cycle.
//! * The round keys are broadcast to all four lanes once per call
//!   (`VBROADCASTI32X4`) and stay in registers (AES-256 needs 15 of the 32).
//! * Tails: whole 512-bit registers in 4/2/1-register steps, then the last
//!   one to three blocks (ECB) or up to 63 bytes (CTR) with masked loads and
//!   stores, so no scalar fallback is needed.
//! * Counter mode is fused: counters are generated in registers. While no
//!   counter of a 32-block step carries out of its last byte (7 steps in
//!   8), each register is one dword add to a register of counters in byte
//!   order carried from step to step, so the counters are ready before the
//!   AES rounds need them (measured on Zen 4: recomputing them from the
//!   128-bit counter each step — a 64-bit add, the carry through a mask
//!   register, a byte swap — left CTR at 0.7 of ECB, the counter chain's
//!   latency exposed behind a scheduler full of `VAESENC`s). At a carry,
//!   the branch-free 128-bit path (`x86::v512::Ctr`).
//! * Decryption uses the equivalent inverse cipher like [`aesni`]; online key
//!   expansion derives the round keys once per [`super::aesni::ONLINE_BATCH`] blocks,
//!   converting decryption keys with `AESIMC`.
//!
//! * XTS splits each step's 32 tweaks: the first four registers' are
//!   vector registers, each advanced by α^32 per step on its own (a byte
//!   shift and a `VPCLMULQDQ` by 0x87: four instructions), so no chain of
//!   doublings runs through the loop; the other sixteen come from a chain
//!   of doublings on general-purpose registers two steps ahead, spread
//!   over the rounds (an empty `asm!` ties each round's share to the
//!   rounds, or LLVM hoists it all before them) and stored to a stack ring
//!   that the first XOR (a three-way `VPTERNLOGQ` with round key 0) and the
//!   last round's key (`k_last ⊕ tweak`, off the data's chain) read as
//!   memory operands. The vector work competes with the rounds for the
//!   vector ports; the integer units, store and load ports are idle in
//!   this loop. The first two steps' integer slots are filled from the
//!   vector registers' start (whole-register stores forward to the loads).
//!   Measured on Zen 4, 16 KiB data units, XTS / CTR on this kernel,
//!   best of 3 alternating runs: AES-128 0.76-0.80 -> 0.83-0.86 (16.7 ->
//!   18.3-18.8 GB/s), AES-256 0.84-0.86 -> 0.89-0.92 (12.9 -> 14.1-14.5
//!   GB/s); all tweaks as vector registers before. Four vector registers
//!   is the best split: three or five measured 0.75 and 0.81 (AES-128);
//!   a stand-alone asm loop agreed, and all 32 tweaks from the integer
//!   chain is slower than all vector (32 doublings at ~3.5 cycles each
//!   exceed a step's 80 cycles of rounds); the update without
//!   `VPCLMULQDQ` (bytes form) was slower too. The integer work is
//!   branch-free and the ring's addresses depend only on the step.
//! * XTS start-up, a per-unit cost that a 16 KiB unit (32 steps) feels:
//!   the first step's tweak registers are each computed from T_0 by
//!   per-lane shifts (`v512::xts_tweaks_at`, no α^4 chain through a
//!   64-byte load of four 16-byte stores, which does not forward), the
//!   integer chain's start T_80 is two α^40 steps, the round keys load
//!   from a slice of constant length (unrolled into registers, no zeroed
//!   array on the stack), and the tweak itself, E_K2(i), one block, goes
//!   through AES-NI (this kernel's ECB of fewer than four blocks: one
//!   block took 23 ns through the broadcast keys and masked moves, 9 ns
//!   now). Measured on Zen 4, AES-128: `xts_blocks` on a 512-byte unit
//!   86 -> 57 ns (CTR 57); 16 KiB units, `aesflow bench` alternating
//!   with the binary before, XTS / CTR 0.83-0.85 -> 0.87-0.90 (18.2-18.8
//!   -> 19.2-19.8 GB/s), AES-256 0.89-0.90 -> 0.89-0.92; a quiet
//!   stand-alone timing loop gives 0.92-0.97 (the bench's runs vary with
//!   the other core's load, XTS more than CTR). What is left per unit is
//!   mostly the tweak's encryption (~20 ns, the AES latency of one block
//!   before any tweak exists); whole-unit cost at 64 KiB equals CTR's.
//! * XTS over many data units (`Kernel::xts_units`, what
//!   `aesflow_modes::Xts::encrypt_units` calls with up to 16 units of
//!   whole blocks): the round keys load once per call and the units run
//!   in one function, so one unit's loads and start-up overlap the
//!   previous unit's rounds. A short unit is bound by the vector work
//!   beside its rounds, not by the rounds, so: the first step's tweak
//!   registers are two `xts_tweaks_at` and the rest α^8 / α^16 multiplies
//!   (42 instructions, not 72); a unit's last step advances only the
//!   register that gives the next unused tweak; and units of one or two
//!   steps (512 B, 1 KiB) take `xts_steps`, where registers 0-3 of every
//!   step come from a general-purpose chain two steps ahead (a new chain
//!   per unit, from its tweak: nothing is carried from unit to unit) and
//!   4-7 are those times α^16. Measured on Zen 4, AES-128, `aesflow bench
//!   --modes --xts-unit N`, alternating with the binary before, XTS /
//!   CTR: 512 B 0.41-0.42 -> 0.66-0.67, 1 KiB 0.55-0.56 -> 0.73-0.76,
//!   4 KiB 0.69-0.74 -> 0.74-0.77, 16 KiB unchanged (0.86-0.92 both).
//!   All 32 tweaks of a step from two integer chains measured 0.45 at
//!   512 B (more integer work than a step's rounds hide); `xts_steps` for
//!   units of 3 to 8 steps measured the same as the per-unit path at 4 KiB,
//!   so it stays at two steps; 64 tweaks per batch instead of 16 was
//!   slower (0.66-0.69 at 1 KiB).
//!
//! Needs `avx512f`, `avx512bw` (byte masks and `VPSHUFB` on 512 bits),
//! `vaes`, `vpclmulqdq` (XTS tweaks) and `aes` (`AESIMC` for online
//! decryption keys).
//!
//! Constant-time: the AES instructions take data-independent time and no
//! memory access depends on the key or the data.
//!
//! The kernel body is written once as a macro and instantiated twice: with
//! the real VAES instructions, and (in tests) with each 512-bit AES round
//! emulated by four 128-bit AES-NI instructions, so that everything but the
//! VAES instructions themselves — counters, carries, masks, tails, online
//! keys — is tested on AVX-512 machines without VAES too.
//!
//! [`aesni`]: super::aesni

// The AVX-512 intrinsics and target features need Rust 1.89; the workspace's
// declared MSRV predates that.
#![allow(clippy::incompatible_msrv)]

/// The VAES kernel.
#[derive(Debug, Clone, Copy, Default)]
pub struct Vaes;

/// 512-bit registers (4 blocks each) in flight in the main loop. 8 (32
/// blocks): Zen 4 and Ice Lake start one zmm `VAESENC` per cycle with a
/// 4-cycle latency (measured on Zen 4 with `scripts/vaes-ceiling`: 4
/// chains reach 0.96 of 8), so 4 would nearly do there, but 8 leaves room
/// for the other work of a step (counters, tweaks, GHASH) and covers the
/// two per cycle of Zen 5.
pub const IN_FLIGHT: usize = 8;

#[macro_use]
mod body;
#[macro_use]
mod modes;

/// A `Kernel` impl that runs the module `$m` made by `vaes_body!` and
/// `vaes_modes!` with `$w` registers in flight; the descriptive fields as
/// for `impl_kernel!`.
macro_rules! vaes_kernel {
    (impl $([$($gen:tt)*])? for $ty:ty => $m:ident, $w:tt { $($meta:tt)* }) => {
        crate::kernel::impl_kernel! {
            impl $([$($gen)*])? for $ty {
                $($meta)*
                ecb: $m::ecb_blocks::<$w>,
                ctr_xor: $m::ctr_xor::<$w>,
                cbc_encrypt: $m::cbc_encrypt,
                cbc_decrypt: $m::chain_decrypt::<$w, true>,
                cfb_decrypt: $m::chain_decrypt::<$w, false>,
                xts_blocks: $m::xts_blocks::<$w>,
                xts_units: $m::xts_units::<$w>,
            }
        }
    };
}

/// The real thing: VAES instructions.
mod hw {
    vaes_body!(
        "avx512f,avx512bw,vaes",
        super::Vaes::require,
        _mm512_aesenc_epi128,
        _mm512_aesenclast_epi128,
        _mm512_aesdec_epi128,
        _mm512_aesdeclast_epi128
    );
    vaes_modes!(
        "avx512f,avx512bw,vaes,vpclmulqdq",
        super::Vaes::require,
        crate::x86::v512::xts_mul_alpha_bytes_clmul::<1, 15>,
        crate::x86::v512::xts_mul_alpha_bytes_clmul::<2, 14>,
        crate::x86::v512::xts_mul_alpha_bytes_clmul::<4, 12>
    );
}

vaes_kernel! {
    impl for Vaes => hw, IN_FLIGHT {
        name: "vaes",
        description: "AVX-512 + VAES, 32 blocks in flight, fused CTR (constant-time)",
        available: crate::cpu::features().vaes(),
        needs: "avx512f, avx512bw, vaes, vpclmulqdq and aes",
        constant_time: true,
        rank: 30,
        isa: Vaes,
    }
}

#[cfg(test)]
mod tests;
