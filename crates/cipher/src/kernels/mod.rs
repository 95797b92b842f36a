//! The kernels: one module per implementation strategy.
//!
//! | kernel | how | constant-time |
//! |---|---|---|
//! | [`reference`](mod@reference) | FIPS-197's steps, literally | no (S-box table) |
//! | [`ttable`] | T-tables: SubBytes+ShiftRows+MixColumns as four lookups per column | **no** |
//! | [`ctime`] | bitsliced: Boyar–Peralta S-box circuit on bit-planes, 8 blocks at a time | yes |
//! | `aesni` (x86-64) | AES-NI on 128-bit registers, 8 blocks interleaved, fused CTR | yes |
//! | `vaes256` (x86-64) | AVX2 + VAES, 2 blocks per 256-bit register, 16 blocks in flight (CPUs with VAES but no AVX-512) | yes |
//! | `vaes` (x86-64) | AVX-512 + VAES, 4 blocks per 512-bit register, 32 blocks in flight, fused CTR | yes |
//!
//! The hardware kernels are compiled on x86-64 only and check the CPU's
//! features at run time ([`Kernel::is_available`]).

/// `$f::<NR, …>(args)` with `NR` the number of rounds of the round keys
/// `$rk` (`rk.len() - 1`: 10, 12 or 14), written `_` in the call: the
/// hardware kernels are monomorphised on it so their round loops unroll.
/// With a `$dec` flag, a `?` last generic argument is `$dec` as a constant.
#[cfg(target_arch = "x86_64")]
macro_rules! by_rounds {
    ($rk:expr => $f:ident::<_ $(, $g:ident)*>($($arg:expr),* $(,)?)) => {
        match $rk.len() - 1 {
            10 => $f::<10 $(, $g)*>($($arg),*),
            12 => $f::<12 $(, $g)*>($($arg),*),
            14 => $f::<14 $(, $g)*>($($arg),*),
            n => unreachable!("AES has 10, 12 or 14 rounds, not {n}"),
        }
    };
    ($rk:expr, $dec:expr => $f:ident::<_ $(, $g:ident)*, ?>($($arg:expr),* $(,)?)) => {
        match ($rk.len() - 1, $dec) {
            (10, false) => $f::<10 $(, $g)*, false>($($arg),*),
            (12, false) => $f::<12 $(, $g)*, false>($($arg),*),
            (14, false) => $f::<14 $(, $g)*, false>($($arg),*),
            (10, true) => $f::<10 $(, $g)*, true>($($arg),*),
            (12, true) => $f::<12 $(, $g)*, true>($($arg),*),
            (14, true) => $f::<14 $(, $g)*, true>($($arg),*),
            (n, _) => unreachable!("AES has 10, 12 or 14 rounds, not {n}"),
        }
    };
}

/// `$f::<…, N, …>(piece, args)` (with `N` written `_`) over `$data` in
/// pieces of `$unit · N` elements: `N = $w` while whole pieces last, then one
/// piece each of 4 (when `$w > 4`), 2 and 1 units where they fit. Evaluates
/// to the rest, shorter than `$unit`.
#[cfg(target_arch = "x86_64")]
macro_rules! in_pieces {
    ($data:expr, $unit:expr, $w:expr,
     $f:ident::<$($pre:ident,)* _ $(, $post:ident)*>($($arg:expr),* $(,)?)) => {{
        let mut chunks = $data.chunks_exact_mut($unit * $w);
        for c in &mut chunks {
            $f::<$($pre,)* { $w } $(, $post)*>(c $(, $arg)*);
        }
        let mut rest = chunks.into_remainder();
        if $w > 4 && rest.len() >= 4 * $unit {
            let (a, b) = rest.split_at_mut(4 * $unit);
            $f::<$($pre,)* 4 $(, $post)*>(a $(, $arg)*);
            rest = b;
        }
        if rest.len() >= 2 * $unit {
            let (a, b) = rest.split_at_mut(2 * $unit);
            $f::<$($pre,)* 2 $(, $post)*>(a $(, $arg)*);
            rest = b;
        }
        if rest.len() >= $unit {
            let (a, b) = rest.split_at_mut($unit);
            $f::<$($pre,)* 1 $(, $post)*>(a $(, $arg)*);
            rest = b;
        }
        rest
    }};
}

/// `$a[i] = $body` for each element of the array `$a` (at most 8) in
/// order, `$v` bound to its old value: unrolled, the statements written
/// out, so that LLVM keeps the elements in registers — a loop it left
/// rolled would keep the array in memory.
macro_rules! map_unrolled {
    ($a:expr, |$v:ident| $body:expr) => {{
        let a = &mut $a;
        assert!(a.len() <= 8);
        map_unrolled!(@ a, $v, $body; 0 1 2 3 4 5 6 7);
    }};
    (@ $a:ident, $v:ident, $body:expr; $($i:literal)*) => {{$(
        if let Some(p) = $a.get_mut($i) {
            let $v = *p;
            *p = $body;
        }
    )*}};
}

/// Panic (rather than run an illegal instruction) unless `ok`, the CPU
/// having the features `needs` of kernel `name`.
#[cfg(target_arch = "x86_64")]
fn require(ok: bool, name: &str, needs: &str) {
    if !ok {
        panic!(
            "aesflow: the '{name}' kernel needs the CPU features {needs}, which this CPU \
             lacks; choose a kernel with kernel_by_name/available_kernels"
        );
    }
}

#[cfg(target_arch = "x86_64")]
pub mod aesni;
pub mod ctime;
pub mod reference;
#[cfg(test)]
pub(crate) mod testutil;
pub mod ttable;
#[cfg(target_arch = "x86_64")]
pub mod vaes;
#[cfg(target_arch = "x86_64")]
pub mod vaes256;

use crate::kernel::Kernel;

/// The steps of FIPS-197 on one representation of the state (a block of
/// bytes in `reference`, bit-planes in `ctime`), for [`crypt`]; `INV`
/// selects the inverse step.
pub(crate) trait Steps {
    /// A round key in the same representation.
    type Key;
    /// SubBytes then ShiftRows (`INV`: InvShiftRows then InvSubBytes).
    fn sub_shift<const INV: bool>(&mut self);
    /// MixColumns (`INV`: InvMixColumns).
    fn mix_columns<const INV: bool>(&mut self);
    /// AddRoundKey.
    fn add_round_key(&mut self, key: &Self::Key);
}

/// The cipher (FIPS-197 Figure 5) with the `Nr + 1` round keys `keys` in
/// order, or with `INV` the inverse cipher (Figure 12) with them in reverse
/// order (round Nr first).
#[inline(always)]
pub(crate) fn crypt<S: Steps, const INV: bool>(
    s: &mut S,
    mut keys: impl Iterator<Item = S::Key>,
    nr: usize,
) {
    let mut add_next = |s: &mut S| {
        s.add_round_key(
            &keys
                .next()
                .expect("a key schedule yields Nr + 1 round keys"),
        );
    };
    add_next(s);
    for _ in 1..nr {
        s.sub_shift::<INV>();
        if !INV {
            s.mix_columns::<false>();
        }
        add_next(s);
        if INV {
            s.mix_columns::<true>();
        }
    }
    s.sub_shift::<INV>();
    add_next(s);
}

/// Every kernel compiled into this build, in registry order.
pub(crate) static ALL: &[&dyn Kernel] = &[
    &reference::Reference,
    &ttable::TTable,
    &ctime::ConstantTime,
    #[cfg(target_arch = "x86_64")]
    &aesni::AesNi,
    #[cfg(target_arch = "x86_64")]
    &vaes256::Vaes256,
    #[cfg(target_arch = "x86_64")]
    &vaes::Vaes,
];
