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
//! * Counter mode is fused: counters are generated in registers as
//!   little-endian 128-bit lanes (a 64-bit add, the carry into the high
//!   half propagated through a mask register: branch-free) and byte-swapped
//!   to big-endian (`VPSHUFB`).
//! * Decryption uses the equivalent inverse cipher like [`aesni`]; online key
//!   expansion derives the round keys once per [`super::aesni::ONLINE_BATCH`] blocks,
//!   converting decryption keys with `AESIMC`.
//!
//! Needs `avx512f`, `avx512bw` (byte masks and `VPSHUFB` on 512 bits),
//! `vaes`, and `aes` (`AESIMC` for online decryption keys).
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

use crate::kernel::{Block, Kernel};
use crate::key_schedule::KeySchedule;

/// The VAES kernel.
#[derive(Debug, Clone, Copy, Default)]
pub struct Vaes;

/// 512-bit registers (4 blocks each) in flight in the main loop. 8 (32
/// blocks) covers a 4-cycle latency at two `VAESENC` per cycle (Zen 4,
/// Ice Lake and later); 4 (16 blocks) is the alternative.
pub const IN_FLIGHT: usize = 8;

fn detected() -> bool {
    crate::cpu::features().vaes()
}

fn require() {
    if !detected() {
        panic!(
            "aesflow: the 'vaes' kernel needs the CPU features avx512f, avx512bw, vaes and aes, \
             which this CPU lacks; choose a kernel with kernel_by_name/available_kernels"
        );
    }
}

#[macro_use]
mod body;
#[macro_use]
mod modes;

/// The real thing: VAES instructions.
mod hw {
    vaes_body!(
        "avx512f,avx512bw,vaes",
        _mm512_aesenc_epi128,
        _mm512_aesenclast_epi128,
        _mm512_aesdec_epi128,
        _mm512_aesdeclast_epi128
    );
    vaes_modes!("avx512f,avx512bw,vaes");
}

impl Kernel for Vaes {
    fn name(&self) -> &'static str {
        "vaes"
    }
    fn description(&self) -> &'static str {
        "AVX-512 + VAES, 32 blocks in flight, fused CTR (constant-time)"
    }
    fn is_available(&self) -> bool {
        detected()
    }
    fn is_constant_time(&self) -> bool {
        true
    }
    fn rank(&self) -> u32 {
        30
    }
    fn isa(&self) -> crate::cpu::Isa {
        crate::cpu::Isa::Vaes
    }
    fn encrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]) {
        require();
        // SAFETY: `require` checked avx512f, avx512bw, vaes and aes.
        unsafe { hw::ecb_blocks::<IN_FLIGHT, false>(keys, blocks) }
    }
    fn decrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]) {
        require();
        // SAFETY: `require` checked avx512f, avx512bw, vaes and aes.
        unsafe { hw::ecb_blocks::<IN_FLIGHT, true>(keys, blocks) }
    }
    fn ctr_xor(&self, keys: &KeySchedule, counter: &mut Block, data: &mut [u8]) {
        require();
        // SAFETY: `require` checked avx512f, avx512bw, vaes and aes.
        unsafe { hw::ctr_xor::<IN_FLIGHT>(keys, counter, data) }
    }
    /// CBC encryption is serial: the 128-bit AES-NI loop is as fast as it
    /// gets (a CPU with VAES has AES-NI).
    fn cbc_encrypt(&self, keys: &KeySchedule, iv: &mut Block, blocks: &mut [Block]) {
        require();
        super::aesni::cbc_encrypt_ni(keys, iv, blocks);
    }
    /// CBC decryption with 32 blocks in flight.
    fn cbc_decrypt(&self, keys: &KeySchedule, iv: &mut Block, blocks: &mut [Block]) {
        require();
        // SAFETY: `require` checked avx512f, avx512bw, vaes and aes.
        unsafe { hw::chain_decrypt::<IN_FLIGHT, true>(keys, iv, blocks) }
    }
    /// CFB128 decryption with 32 blocks in flight.
    fn cfb_decrypt(&self, keys: &KeySchedule, iv: &mut Block, blocks: &mut [Block]) {
        require();
        // SAFETY: `require` checked avx512f, avx512bw, vaes and aes.
        unsafe { hw::chain_decrypt::<IN_FLIGHT, false>(keys, iv, blocks) }
    }
    /// XTS with 32 blocks in flight, the tweaks advanced four lanes at a
    /// time in registers.
    fn xts_blocks(
        &self,
        keys: &KeySchedule,
        tweak: &mut Block,
        blocks: &mut [Block],
        decrypt: bool,
    ) {
        require();
        // SAFETY: `require` checked avx512f, avx512bw, vaes and aes.
        unsafe { hw::xts_blocks::<IN_FLIGHT>(keys, tweak, blocks, decrypt) }
    }
}

#[cfg(test)]
mod tests;
