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

/// Round keys as stored: at most 15 (AES-256), `0..=Nr` meaningful.
pub const MAX_ROUND_KEYS: usize = crate::key_schedule::MAX_ROUND_KEYS;

/// `$load(p)` and `$store(p, v)`: the first `$bytes` bytes of a slice (at
/// least that long) as a register of type `$v` and back, unaligned; and
/// `load_n`, `store_n` and `xor_n` on `N` such registers.
macro_rules! load_store {
    ($features:literal, $v:ty, $bytes:literal, $load:ident, $store:ident,
     $loadu:ident, $storeu:ident, $zero:ident, $xor:ident) => {
        #[doc = concat!("The first ", $bytes, " bytes of `p` (at least ", $bytes, " long).")]
        #[inline]
        #[target_feature(enable = $features)]
        pub fn $load(p: &[u8]) -> $v {
            assert!(p.len() >= $bytes);
            // SAFETY: just checked that the bytes are readable; unaligned
            // load.
            unsafe { $loadu(p.as_ptr().cast()) }
        }

        #[doc = concat!("Store to the first ", $bytes, " bytes of `p` (at least ", $bytes, " long).")]
        #[inline]
        #[target_feature(enable = $features)]
        pub fn $store(p: &mut [u8], v: $v) {
            assert!(p.len() >= $bytes);
            // SAFETY: just checked that the bytes are writable; unaligned
            // store.
            unsafe { $storeu(p.as_mut_ptr().cast(), v) }
        }

        #[doc = concat!("`N` registers from the first `", $bytes, " · N` bytes of `p`.")]
        #[inline]
        #[target_feature(enable = $features)]
        pub fn load_n<const N: usize>(p: &[u8]) -> [$v; N] {
            let mut x = [$zero(); N];
            for (v, c) in x.iter_mut().zip(p[..$bytes * N].chunks_exact($bytes)) {
                *v = $load(c);
            }
            x
        }

        #[doc = concat!("`N` registers to the first `", $bytes, " · N` bytes of `p`.")]
        #[inline]
        #[target_feature(enable = $features)]
        pub fn store_n<const N: usize>(p: &mut [u8], x: &[$v; N]) {
            for (v, c) in x.iter().zip(p[..$bytes * N].chunks_exact_mut($bytes)) {
                $store(c, *v);
            }
        }

        /// `x[i] ^= y[i]` for every register.
        #[inline]
        #[target_feature(enable = $features)]
        pub fn xor_n<const N: usize>(x: &mut [$v; N], y: &[$v; N]) {
            for (a, b) in x.iter_mut().zip(y) {
                *a = $xor(*a, *b);
            }
        }
    };
}

/// `ecb_step` and `ctr_step`, ECB and CTR over exactly `N` registers of
/// `$bytes` bytes, written with the width's `crypt_n`, `enc_n`, `Ctr`,
/// `load_n`, `store_n`, `xor_n` and `Keys` where it is expanded.
macro_rules! ecb_ctr_steps {
    ($features:literal, $bytes:literal, $zero:path) => {
        #[doc = concat!("ECB over exactly `", $bytes, " · N` bytes.")]
        #[inline]
        #[target_feature(enable = $features)]
        fn ecb_step<const NR: usize, const N: usize, const DEC: bool>(d: &mut [u8], k: &Keys) {
            assert_eq!(d.len(), $bytes * N);
            let mut x = load_n::<N>(d);
            crypt_n::<NR, N, DEC>(&mut x, k);
            store_n(d, &x);
        }

        #[doc = concat!("CTR over exactly `", $bytes, " · N` bytes.")]
        #[inline]
        #[target_feature(enable = $features)]
        fn ctr_step<const NR: usize, const N: usize>(d: &mut [u8], ctr: &mut Ctr, k: &Keys) {
            assert_eq!(d.len(), $bytes * N);
            let mut x = [$zero(); N];
            ctr.next::<N>(&mut x);
            let input = load_n::<N>(d);
            enc_n::<NR, N>(&mut x, k);
            xor_n(&mut x, &input);
            store_n(d, &x);
        }
    };
}
pub(crate) use ecb_ctr_steps;

/// `Ctr`: a CTR counter for registers of type `$v` holding `$lanes` blocks,
/// written with the width's `counters` (the branch-free 128-bit path),
/// `in_byte_order(c)` (`c` in every lane, big-endian) and
/// `add_last_byte(v, m, by_lane)` (`m` — and the lane's index if `by_lane`
/// — added to the last byte of each lane in byte order, without carry).
///
/// The fast path: while no counter of a call carries out of its last byte
/// (7 calls in 8 with 32 blocks, 31 in 32 with 8), each register is one
/// dword add to a register of counters in byte order that is carried from
/// call to call — no 128-bit add, no byte swap, and a dependency chain of
/// one add, so the next counters are ready before the AES rounds need
/// them. The calls at a carry take the branch-free 128-bit path. Which path
/// runs depends on the counter (the public IV or nonce), never on the key
/// or the data. With `branch_free` (128-bit registers, one block each),
/// every call takes the 128-bit path: no branch on the counter at all.
macro_rules! ctr_state {
    ($features:literal, $v:ty, $lanes:literal, branch_free) => {
        /// A CTR counter: the next counter block's value. Every register
        /// of counters comes from the branch-free 128-bit path
        /// (`counters`): no branch depends on the counter, whatever its
        /// value (a block's AES rounds hide the few instructions that
        /// path costs more than the fast one of the wide kernels).
        #[derive(Clone, Copy)]
        pub struct Ctr {
            /// The next counter (`u128::from_be_bytes` of the block).
            pub c: u128,
        }

        impl Ctr {
            /// A counter starting at `c`.
            #[inline]
            #[target_feature(enable = $features)]
            pub fn new(c: u128) -> Self {
                Self { c }
            }

            /// `N` registers of the next `$lanes · N` counter blocks
            /// (lane `j` of register `i` holds `c + $lanes·i + j`, 128-bit
            /// wrapping), big-endian; the counter advances past them.
            #[inline]
            #[target_feature(enable = $features)]
            pub fn next<const N: usize>(&mut self, x: &mut [$v; N]) {
                counters::<N>(self.c, x);
                self.c = self.c.wrapping_add(($lanes * N) as u128);
            }
        }
    };
    ($features:literal, $v:ty, $lanes:literal) => {
        /// A CTR counter: the next counter block's value, and the next
        /// register's counters in byte order where the fast path may use
        /// them (see `ctr_state!`).
        #[derive(Clone, Copy)]
        pub struct Ctr {
            /// The next counter (`u128::from_be_bytes` of the block).
            pub c: u128,
            /// `c + j` in lane `j`, byte order; valid when no lane carries
            /// out of its last byte.
            v: $v,
        }

        impl Ctr {
            /// A counter starting at `c`.
            #[inline]
            #[target_feature(enable = $features)]
            pub fn new(c: u128) -> Self {
                Self {
                    c,
                    v: Self::lanes_from(c),
                }
            }

            /// `c + j` in lane `j`, byte order (valid while no lane
            /// carries out of its last byte).
            #[inline]
            #[target_feature(enable = $features)]
            fn lanes_from(c: u128) -> $v {
                add_last_byte(in_byte_order(c), 0, true)
            }

            /// `N` registers of the next `$lanes · N` counter blocks
            /// (lane `j` of register `i` holds `c + $lanes·i + j`, 128-bit
            /// wrapping), big-endian; the counter advances past them.
            #[inline]
            #[target_feature(enable = $features)]
            pub fn next<const N: usize>(&mut self, x: &mut [$v; N]) {
                let n = $lanes * N;
                let low = usize::from(self.c as u8);
                if low + n <= 256 {
                    for (i, v) in x.iter_mut().enumerate() {
                        *v = add_last_byte(self.v, ($lanes * i) as u32, false);
                    }
                } else {
                    counters::<N>(self.c, x);
                }
                self.c = self.c.wrapping_add(n as u128);
                self.v = if low + n < 256 {
                    add_last_byte(self.v, n as u32, false)
                } else {
                    Self::lanes_from(self.c)
                };
            }
        }
    };
}

/// `Keys` and `$name(rk)`: the round keys `rk` (at most 15) in registers
/// of type `$v`, each made from its key block by `$from` (a load, or a
/// broadcast to every 128-bit lane).
macro_rules! round_keys {
    ($features:literal, $v:ty, $name:ident, $zero:ident, $from:ident) => {
        /// The round keys in registers, each in every 128-bit lane (only
        /// `0..=Nr` are meaningful).
        pub type Keys = [$v; MAX_ROUND_KEYS];

        /// The round keys `rk` (at most 15) into registers.
        #[inline]
        #[target_feature(enable = $features)]
        pub fn $name(rk: &[[u8; 16]]) -> Keys {
            let mut keys = [$zero(); MAX_ROUND_KEYS];
            for (d, k) in keys.iter_mut().zip(rk) {
                *d = $from(k);
            }
            keys
        }
    };
}

/// `$name(t)`: each 128-bit lane of `t` (an XTS tweak, little-endian) times
/// α^`$bits` (IEEE 1619 §5.2): shifted left by `$bits`, the bits shifted out
/// of the top reduced with x^7 + x^2 + x + 1 (their carry-less product with
/// 0x87 fits in the low qword: four shifted XORs, no carry-less multiply).
/// Branch-free; advancing every register of a group by the group's power of
/// α keeps their updates independent (no serial chain through the group).
macro_rules! xts_mul_alpha_pow {
    ($features:literal, $v:ty, $name:ident, $bits:literal,
     $slli:ident, $srli:ident, $bslli:ident, $bsrli:ident, $xor:ident) => {
        #[doc = concat!("Each 128-bit lane (an XTS tweak) times α^", $bits, ", branch-free.")]
        #[inline]
        #[target_feature(enable = $features)]
        pub fn $name(t: $v) -> $v {
            let shifted = $slli::<$bits>(t);
            let out = $srli::<{ 64 - $bits }>(t);
            // Bits leaving qword 0 enter qword 1.
            let into_hi = $bslli::<8>(out);
            // Bits leaving qword 1, moved to qword 0, times 0x87.
            let hi = $bsrli::<8>(out);
            let red = $xor(
                $xor(hi, $slli::<1>(hi)),
                $xor($slli::<2>(hi), $slli::<7>(hi)),
            );
            $xor($xor(shifted, into_hi), red)
        }
    };
}

/// `round_barrier(x)` for `N` registers of type `$v` (register class
/// `$class`), with `$features` enabled (none: `#[inline(always)]`): a
/// scheduling barrier, an empty `asm!` per register that LLVM must keep in
/// program order with the other barriers, so round `r` of every block in
/// flight is issued before round `r + 1` of any. Without it LLVM runs each
/// register's whole round chain in turn (one dependent `AESENC` after
/// another), which leaves the AES units idle for most of their latency.
macro_rules! round_barrier_fn {
    ($v:ty, $class:ident) => {
        round_barrier_fn!(@fn $v, $class, #[inline(always)]);
    };
    ($v:ty, $class:ident, $features:literal) => {
        round_barrier_fn!(@fn $v, $class, #[inline] #[target_feature(enable = $features)]);
    };
    (@fn $v:ty, $class:ident, $(#[$attr:meta])*) => {
        /// A scheduling barrier after a round (see `x86::round_barrier_fn`).
        $(#[$attr])*
        pub fn round_barrier<const N: usize>(x: &mut [$v; N]) {
            for v in x.iter_mut() {
                // SAFETY: an empty instruction sequence that reads and
                // writes one vector register in place; it touches no
                // memory, stack or flags.
                unsafe {
                    core::arch::asm!(
                        "/* {0} */",
                        inout($class) * v,
                        options(nomem, nostack, preserves_flags)
                    );
                }
            }
        }
    };
}

/// `enc_n`, `dec_n` and `crypt_n`: AES-`NR` on `N` registers of type `$v`
/// held in registers, rounds interleaved across them, with the round
/// operations given — after each middle round `$barrier(x)` where one is
/// given (see `round_barrier_fn`); and `middle_n` / `last_n`, the middle
/// rounds and the last round on their own (the XTS kernels put their
/// tweak work between them).
macro_rules! aes_rounds {
    ($vis:vis, $features:literal, $v:ty, $xor:path,
     enc: $enc:path, $enclast:path, dec: $dec:path, $declast:path $(, barrier: $barrier:path)?) => {
        $crate::x86::aes_rounds!(@one $vis, $features, $v, $xor, $enc, $enclast $(, $barrier)?;
            enc_n, "Encrypt `N` registers (AES-`NR`), rounds interleaved across them.");
        $crate::x86::aes_rounds!(@one $vis, $features, $v, $xor, $dec, $declast $(, $barrier)?;
            dec_n, "Decrypt `N` registers with the equivalent inverse cipher's keys \
                    (FIPS-197 §5.3.5), in decryption order.");

        /// The middle rounds `1..NR` of encryption or decryption (`DEC`)
        /// of `N` registers, no first key XOR and no last round (for
        /// callers that fold those with other XORs); `between(r, x)` after
        /// round `r`, for work to interleave with the rounds.
        #[allow(dead_code)]
        #[inline]
        #[target_feature(enable = $features)]
        $vis fn middle_n<const NR: usize, const N: usize, const DEC: bool>(
            x: &mut [$v; N],
            k: &[$v; $crate::x86::MAX_ROUND_KEYS],
            mut between: impl FnMut(usize, &mut [$v; N]),
        ) {
            // Written out round by round (a loop LLVM may leave rolled,
            // and `between` would then see a variable round).
            $crate::x86::aes_rounds!(@unroll r in 1 2 3 4 5 6 7 8 9 10 11 12 13 => if r < NR {
                for v in x.iter_mut() {
                    *v = if DEC { $dec(*v, k[r]) } else { $enc(*v, k[r]) };
                }
                $($barrier(x);)?
                between(r, x);
            });
        }

        /// The last round of encryption or decryption (`DEC`) of `N`
        /// registers, register `i` with the round key `last[i]`.
        #[allow(dead_code)]
        #[inline]
        #[target_feature(enable = $features)]
        $vis fn last_n<const N: usize, const DEC: bool>(x: &mut [$v; N], last: &[$v; N]) {
            for (v, k) in x.iter_mut().zip(last) {
                *v = if DEC { $declast(*v, *k) } else { $enclast(*v, *k) };
            }
        }

        /// Encrypt or decrypt (`DEC`) `N` registers.
        #[inline]
        #[target_feature(enable = $features)]
        $vis fn crypt_n<const NR: usize, const N: usize, const DEC: bool>(
            x: &mut [$v; N],
            k: &[$v; $crate::x86::MAX_ROUND_KEYS],
        ) {
            if DEC {
                dec_n::<NR, N>(x, k)
            } else {
                enc_n::<NR, N>(x, k)
            }
        }
    };
    (@unroll $r:ident in $($n:literal)* => $body:expr) => {
        $({
            let $r: usize = $n;
            $body
        })*
    };
    (@one $vis:vis, $features:literal, $v:ty, $xor:path, $round:path, $last:path
     $(, $barrier:path)?; $name:ident, $doc:expr) => {
        #[doc = $doc]
        #[inline]
        #[target_feature(enable = $features)]
        $vis fn $name<const NR: usize, const N: usize>(
            x: &mut [$v; N],
            k: &[$v; $crate::x86::MAX_ROUND_KEYS],
        ) {
            for v in x.iter_mut() {
                *v = $xor(*v, k[0]);
            }
            for kr in &k[1..NR] {
                for v in x.iter_mut() {
                    *v = $round(*v, *kr);
                }
                $($barrier(x);)?
            }
            for v in x.iter_mut() {
                *v = $last(*v, k[NR]);
            }
        }
    };
}
pub(crate) use aes_rounds;

/// `fn tie(t: &mut u128, v: &mut $vec)` with `$features` enabled: a
/// scheduling tie, an empty instruction sequence taken to read and write
/// the general-purpose tweak `t` and the vector `v` (register class
/// `$class`) in place. Placed between the rounds of the XTS kernels, it
/// keeps each round's share of the general-purpose tweak chain beside that
/// round: LLVM otherwise hoisted the whole chain to the top of the step, a
/// block of integer work ahead of every round that the out-of-order window
/// does not reach past.
macro_rules! tie_fn {
    ($vec:ty, $class:ident, $features:literal) => {
        #[inline]
        #[target_feature(enable = $features)]
        fn tie(t: &mut u128, v: &mut $vec) {
            let (mut lo, mut hi) = (*t as u64, (*t >> 64) as u64);
            // SAFETY: an empty instruction sequence that reads and writes a
            // vector register and two general-purpose ones in place; it
            // touches no memory, stack or flags.
            unsafe {
                core::arch::asm!(
                    "/* {0} {1} {2} */",
                    inout($class) *v,
                    inout(reg) lo,
                    inout(reg) hi,
                    options(pure, nomem, nostack, preserves_flags)
                );
            }
            *t = (u128::from(hi) << 64) | u128::from(lo);
        }
    };
}
pub(crate) use tie_fn;

/// (The XTS tweak times α^`K` on general-purpose registers, for the
/// kernels here: plain Rust, beside [`crate::kernel::xts_mul_alpha`].)
pub use crate::kernel::xts_mul_alpha_u128;

/// CPUID leaf 0's vendor words (EBX, EDX, ECX) and leaf 1's signature
/// (EAX), for `cpu::identity`.
pub(crate) fn cpuid_vendor_signature() -> ([u32; 3], u32) {
    use core::arch::x86_64::__cpuid;
    // SAFETY: CPUID leaves 0 and 1 exist on every x86-64 CPU (`__cpuid` is
    // a safe function from Rust 1.90 on; `unsafe` for 1.89).
    #[allow(unused_unsafe)]
    let (v, sig) = unsafe { (__cpuid(0), __cpuid(1).eax) };
    ([v.ebx, v.edx, v.ecx], sig)
}

pub mod v128;
pub mod v256;
pub mod v512;

#[cfg(test)]
mod tests {
    /// [`super::xts_mul_alpha_u128`] is `K` doublings for every `K`.
    #[test]
    fn xts_mul_alpha_is_repeated_doubling() {
        fn double(t: u128) -> u128 {
            (t << 1) ^ if t >> 127 == 1 { 0x87 } else { 0 }
        }
        fn check<const K: u32>(t: u128) {
            let want = (0..K).fold(t, |x, _| double(x));
            assert_eq!(super::xts_mul_alpha_u128::<K>(t), want, "K={K} t={t:032x}");
        }
        for t in [
            1u128,
            u128::MAX,
            0x8000_0000_0000_0000_0000_0000_0000_0000,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
        ] {
            check::<1>(t);
            check::<2>(t);
            check::<4>(t);
            check::<7>(t);
            check::<8>(t);
            check::<16>(t);
            check::<32>(t);
            check::<40>(t);
            check::<55>(t);
            check::<56>(t);
        }
    }
}
