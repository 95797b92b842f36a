//! x86-64 helpers shared by every hardware path in aesflow: the AES round
//! sequences over 128-bit ([`v128`]), 256-bit ([`v256`]) and 512-bit
//! ([`v512`]) registers, the round keys in registers (broadcast to every
//! lane of a ymm or zmm register),
//! big-endian counter blocks (branch-free 128-bit increments), and the
//! GF(2^128) doubling of XTS tweaks.
//!
//! Each helper is a `#[target_feature]` function marked `#[inline]`: called
//! from a function compiled with the same features (the kernels here, the
//! fused GCM of `aesflow-modes`, the multi-stream kernels) it is inlined and
//! safe to call; the caller must have checked the CPU with
//! [`features`](crate::cpu::features) first.

pub mod v128;
pub mod v256;
pub mod v512;

/// Round keys as stored: at most 15 (AES-256), `0..=Nr` meaningful.
pub const MAX_ROUND_KEYS: usize = crate::key_schedule::MAX_ROUND_KEYS;
