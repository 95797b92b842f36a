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
//!   AES rounds need them (recomputing them from the 128-bit counter each
//!   step puts the counter chain's latency behind a scheduler full of
//!   `VAESENC`s). At a carry, the branch-free 128-bit path
//!   (`x86::v512::Ctr`).
//! * Decryption uses the equivalent inverse cipher like [`aesni`]; online key
//!   expansion derives the round keys once per [`super::aesni::ONLINE_BATCH`] blocks,
//!   converting decryption keys with `AESIMC`.
//!
//! * XTS keeps every tweak in vector registers and carries only the
//!   first half of a step's from step to step: the second half is those
//!   times α^16, the next step's first half the second half times α^16
//!   again (a byte shift and a reduction of the two bytes shifted out:
//!   no chain of doublings through the loop), made one register after
//!   each of the first rounds. The first XOR is a three-way `VPTERNLOGQ`
//!   (data, tweak, round key 0) and the last round's key is `k_last ⊕
//!   tweak`, off the data's chain; a scheduling barrier after every round
//!   keeps the rounds interleaved across the eight registers. How the
//!   reduction is done is a plan's choice
//!   ([`XtsTweakMul`](crate::kernel::XtsTweakMul)): a carry-less multiply
//!   (one instruction, on the AES units of Zen 4 and Zen 5, beside the AES
//!   port on Intel cores), or shifts alone (seven, beside the AES units on
//!   Zen 4 and Zen 5, on the AES port on Intel cores). Units of one or two
//!   whole steps in a call over many take `xts_steps` (below).
//! * XTS start-up, a per-unit cost: the first step's tweak registers are
//!   each computed from T_0 by per-lane shifts (`v512::xts_tweaks_at`, no
//!   α^4 chain through a 64-byte load of four 16-byte stores, which does
//!   not forward), the
//!   round keys load from a slice of constant length (unrolled into
//!   registers, no zeroed array on the stack), and the tweak itself,
//!   E_K2(i), one block, goes through AES-NI (this kernel's ECB of fewer
//!   than four blocks). What is left per unit is mostly the tweak's
//!   encryption, the AES latency of one block before any tweak exists.
//! * XTS over many data units (`Kernel::xts_units`, what
//!   `aesflow_modes::Xts::encrypt_units` calls with up to 16 units of
//!   whole blocks): the round keys load once per call and the units run
//!   in one function, so one unit's loads and start-up overlap the
//!   previous unit's rounds. A short unit is bound by the vector work
//!   beside its rounds, not by the rounds, so: the first step's carried
//!   tweak registers are two `xts_tweaks_at` and two α^8 multiplies; and
//!   units of one or two steps (512 B, 1 KiB) take
//!   `xts_steps`, where registers 0-3 of every step come from a
//!   general-purpose chain two steps ahead (a new chain per unit, from its
//!   tweak: nothing is carried from unit to unit) and 4-7 are those times
//!   α^16. `aesflow bench --modes --xts-unit N` measures units of N bytes.
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

/// The VAES kernel.
#[derive(Debug, Clone, Copy, Default)]
pub struct Vaes;

/// 512-bit registers (4 blocks each) in flight in the main loop: 8 (32
/// blocks). A core that starts one zmm `VAESENC` per cycle with a 4-cycle
/// latency needs 4 chains; 8 leave room for the other work of a step
/// (counters, tweaks) there and keep a core that starts two per cycle busy
/// (`scripts/vaes-ceiling` measures both).
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
        crate::x86::v512::xts_mul_alpha_bytes::<1, 15>,
        crate::x86::v512::xts_mul_alpha_bytes::<2, 14>,
        crate::x86::v512::xts_mul_alpha_bytes_clmul::<1, 15>,
        crate::x86::v512::xts_mul_alpha_bytes_clmul::<2, 14>
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
