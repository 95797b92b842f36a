//! The kernel abstraction and registry.
//!
//! A *kernel* is one implementation of the AES rounds: the spec's steps
//! literally (`reference`), lookup tables (`ttable`), constant-time bitsliced
//! arithmetic (`ctime`), or the CPU's AES instructions (`aesni`, `vaes`). All
//! take their round keys from a [`KeySchedule`], so every kernel runs with both
//! of the paper's key-expansion styles.
//!
//! Callers enumerate kernels with [`kernels`], pick one by name with
//! [`kernel_by_name`], take [`detect_best`] (the fastest constant-time one
//! this CPU supports; what library constructors such as `Aes::new` use), or,
//! at an application's edge, [`default_kernel`]: `detect_best` unless the
//! `AESFLOW_KERNEL` environment variable names another. `default_kernel` is
//! the only function in aesflow that reads that variable.

use crate::cpu::Isa;
use crate::key_schedule::KeySchedule;
use core::fmt;
use zeroize::Zeroize;

/// One 16-byte AES block.
pub type Block = [u8; 16];

/// An implementation of the AES block transformation.
///
/// Every method works on any number of blocks; kernels that process several
/// blocks at once (bitsliced, SIMD) handle the tail themselves.
///
/// Implementations whose instructions the CPU may lack check
/// [`Kernel::is_available`] before running them and panic (never execute an
/// illegal instruction) if called anyway; the registry functions refuse to
/// hand out such a kernel, so safe callers never see that panic.
pub trait Kernel: Send + Sync + 'static {
    /// Short name used on the command line and in `AESFLOW_KERNEL`.
    fn name(&self) -> &'static str;

    /// One-line description.
    fn description(&self) -> &'static str;

    /// Whether this CPU can run the kernel.
    fn is_available(&self) -> bool;

    /// Whether the kernel's timing and memory accesses are independent of
    /// secret data (key and plaintext).
    fn is_constant_time(&self) -> bool;

    /// Rank for automatic selection: the available kernel with the highest
    /// rank among constant-time kernels is the default.
    fn rank(&self) -> u32;

    /// The family of code paths the kernel belongs to. Code with its own
    /// fused hardware paths (GCM, XTS, multi-stream) follows it: `aesni`
    /// means the 128-bit AES-NI + PCLMULQDQ paths everywhere, `vaes` the
    /// 512-bit VAES + VPCLMULQDQ ones, and a portable kernel keeps
    /// everything portable.
    fn isa(&self) -> Isa {
        Isa::Portable
    }

    /// The width in bits of the registers the kernel's AES instructions
    /// work on: 0 (portable), 128 (`aesni`), 256 (`vaes256`), 512 (`vaes`).
    /// Code with fused paths of several widths (GCM) picks the one of this
    /// width; code with only 128- and 512-bit paths follows [`Kernel::isa`].
    fn vector_bits(&self) -> u32 {
        match self.isa() {
            Isa::Portable => 0,
            Isa::Aesni => 128,
            Isa::Vaes => 512,
        }
    }

    /// Whether the kernel runs the CPU's AES instructions
    /// (`isa() != Isa::Portable`).
    fn uses_aes_instructions(&self) -> bool {
        self.isa() != Isa::Portable
    }

    /// Encrypt blocks in place (ECB, the forward cipher).
    fn encrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]);

    /// Decrypt blocks in place (ECB, the inverse cipher).
    fn decrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]);

    /// Counter mode (SP 800-38A): XOR `data` with the keystream
    /// `E(ctr), E(ctr+1), …`, where the counter is the whole block as a
    /// 128-bit big-endian integer (wrapping). On return `counter` holds the
    /// next unused counter value. A final partial block uses the first bytes
    /// of its keystream block, whose counter is consumed.
    fn ctr_xor(&self, keys: &KeySchedule, counter: &mut Block, data: &mut [u8]) {
        let mut ctr = u128::from_be_bytes(*counter);
        in_batches(data, 16, |chunk, ks| {
            let n = chunk.len().div_ceil(16);
            for k in ks.iter_mut().take(n) {
                *k = ctr.to_be_bytes();
                ctr = ctr.wrapping_add(1);
            }
            self.encrypt_blocks(keys, &mut ks[..n]);
            xor_into(chunk, ks.as_flattened());
        });
        *counter = ctr.to_be_bytes();
    }

    /// CBC encryption (SP 800-38A §6.2) of whole blocks in place:
    /// `C_i = E(P_i ⊕ C_{i-1})` with `C_{-1} = iv`. Serial by nature; on
    /// return `iv` holds the last ciphertext block (the chaining value).
    fn cbc_encrypt(&self, keys: &KeySchedule, iv: &mut Block, blocks: &mut [Block]) {
        for b in blocks {
            xor_into(b, iv);
            self.encrypt_blocks(keys, core::slice::from_mut(b));
            *iv = *b;
        }
    }

    /// CBC decryption of whole blocks in place: `P_i = D(C_i) ⊕ C_{i-1}`.
    /// Parallel across blocks; on return `iv` holds the last ciphertext block.
    fn cbc_decrypt(&self, keys: &KeySchedule, iv: &mut Block, blocks: &mut [Block]) {
        in_batches(blocks, 1, |chunk, saved| {
            let n = chunk.len();
            saved[..n].copy_from_slice(chunk);
            self.decrypt_blocks(keys, chunk);
            xor_into(&mut chunk[0], iv);
            xor_blocks(&mut chunk[1..], &saved[..n - 1]);
            *iv = saved[n - 1];
        });
    }

    /// CFB128 decryption (SP 800-38A §6.3) of whole blocks in place:
    /// `P_i = E(C_{i-1}) ⊕ C_i` with `C_{-1} = iv`. Parallel across blocks;
    /// on return `iv` holds the last ciphertext block.
    fn cfb_decrypt(&self, keys: &KeySchedule, iv: &mut Block, blocks: &mut [Block]) {
        in_batches(blocks, 1, |chunk, ks| {
            let n = chunk.len();
            ks[0] = *iv;
            ks[1..n].copy_from_slice(&chunk[..n - 1]);
            *iv = chunk[n - 1];
            self.encrypt_blocks(keys, &mut ks[..n]);
            xor_blocks(chunk, ks);
        });
    }

    /// XTS (IEEE 1619 §5.3.1, §5.4.1) of whole blocks in place with the
    /// data-unit key `keys`: `C_j = E(P_j ⊕ T_j) ⊕ T_j` (with `decrypt`,
    /// `P_j = D(C_j ⊕ T_j) ⊕ T_j`), where `T_0 = tweak` is the already
    /// encrypted tweak and `T_{j+1} = T_j · α` in GF(2^128) (little-endian).
    /// On return `tweak` holds the next unused `T`. Ciphertext stealing is
    /// the caller's (`aesflow-modes`). `mul` chooses how a kernel with
    /// vector tweaks multiplies them (a plan's choice; the others ignore
    /// it).
    fn xts_blocks(
        &self,
        keys: &KeySchedule,
        tweak: &mut Block,
        blocks: &mut [Block],
        decrypt: bool,
        mul: XtsTweakMul,
    ) {
        let _ = mul;
        in_batches(blocks, 1, |chunk, ts| {
            for (t, b) in ts.iter_mut().zip(chunk.iter_mut()) {
                *t = *tweak;
                *tweak = xts_mul_alpha(tweak);
                xor_into(b, t);
            }
            if decrypt {
                self.decrypt_blocks(keys, chunk);
            } else {
                self.encrypt_blocks(keys, chunk);
            }
            xor_blocks(chunk, ts);
        });
    }

    /// XTS of many data units of `unit_blocks` whole blocks each, in
    /// place: `blocks` is `tweaks.len()` units one after another, unit `u`
    /// enciphered (or with `decrypt` deciphered) as by
    /// [`Kernel::xts_blocks`] under the already encrypted tweak
    /// `tweaks[u]`, which on return holds that unit's next unused `T`.
    /// One call for a run of disk sectors, so a kernel can load its keys
    /// once and overlap the units; this default calls `xts_blocks` per
    /// unit. Panics unless `blocks.len() == tweaks.len() * unit_blocks`.
    fn xts_units(
        &self,
        keys: &KeySchedule,
        tweaks: &mut [Block],
        unit_blocks: usize,
        blocks: &mut [Block],
        decrypt: bool,
        mul: XtsTweakMul,
    ) {
        if !xts_units_shape(tweaks.len(), unit_blocks, blocks.len()) {
            return;
        }
        for (t, unit) in tweaks.iter_mut().zip(blocks.chunks_exact_mut(unit_blocks)) {
            self.xts_blocks(keys, t, unit, decrypt, mul);
        }
    }
}

/// How the `vaes` kernel's XTS multiplies a register of four tweaks by a
/// power of α (a shift left by whole bytes, and the bytes shifted out of
/// each lane reduced with x^7 + x^2 + x + 1). The AES rounds leave
/// different units free on different cores, so which is faster is a
/// plan's choice (`aesflow-plan`, operation `xts`), passed as a value;
/// the other kernels ignore it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum XtsTweakMul {
    /// The reduction a carry-less multiply by 0x87 (`VPCLMULQDQ`): four
    /// instructions, one of them on the units that run `VAESENC` on
    /// Zen 4 and Zen 5, on another port on Ice Lake and later Intel cores
    /// (where shifts share the AES port). The default, and the faster on
    /// Zen 5 as measured.
    #[default]
    Clmul,
    /// The reduction four shifted copies (seven instructions, none a
    /// multiply): on Zen 4 and Zen 5 they run beside the AES rounds, the
    /// faster in LLVM's Zen 4 model.
    Shift,
}

/// The arguments' check of every [`Kernel::xts_units`]: panics unless
/// `blocks` blocks are `tweaks` units of `unit_blocks`; whether there is
/// anything to do (units of at least one block).
pub(crate) fn xts_units_shape(tweaks: usize, unit_blocks: usize, blocks: usize) -> bool {
    assert_eq!(blocks, tweaks * unit_blocks, "xts_units");
    unit_blocks != 0
}

/// `t · α` in XTS's GF(2^128) (IEEE 1619 §5.2): the tweak as a
/// little-endian integer shifted left by one, the bit shifted out reduced
/// with 0x87. Branch-free.
pub fn xts_mul_alpha(t: &Block) -> Block {
    xts_mul_alpha_u128::<1>(u128::from_le_bytes(*t)).to_le_bytes()
}

/// The XTS tweak `t` (little-endian) times α^`K` (1 ≤ `K` ≤ 56) on
/// general-purpose registers: shifted left by `K`, the `K` bits shifted
/// out of the top reduced with x^7 + x^2 + x + 1 (four shifted XORs:
/// their carry-less product with 0x87 fits in 64 bits; for `K` = 1 a mask
/// instead). Branch-free.
#[inline(always)]
pub fn xts_mul_alpha_u128<const K: u32>(t: u128) -> u128 {
    const { assert!(K >= 1 && K <= 56) };
    if K == 1 {
        return (t << 1) ^ (0u128.wrapping_sub(t >> 127) & 0x87);
    }
    let top = (t >> (128 - K)) as u64;
    let red = top ^ (top << 1) ^ (top << 2) ^ (top << 7);
    (t << K) ^ u128::from(red)
}

/// `a ^= b` byte by byte, over the shorter of the two.
#[inline]
pub(crate) fn xor_into(a: &mut [u8], b: &[u8]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x ^= y;
    }
}

/// `a ^= b` block by block, over the shorter of the two.
#[inline]
fn xor_blocks(a: &mut [Block], b: &[Block]) {
    xor_into(a.as_flattened_mut(), b.as_flattened());
}

/// Blocks per batch of the generic modes.
const BATCH: usize = 64;

/// `f(piece, scratch)` on each piece of `data` of up to [`BATCH`] blocks
/// (`per_block` elements each), with a scratch batch of blocks that is
/// zeroized afterwards.
fn in_batches<T>(
    data: &mut [T],
    per_block: usize,
    mut f: impl FnMut(&mut [T], &mut [Block; BATCH]),
) {
    let mut scratch = [[0u8; 16]; BATCH];
    for piece in data.chunks_mut(BATCH * per_block) {
        f(piece, &mut scratch);
    }
    scratch.zeroize();
}

/// A [`Kernel`] impl from one table: the kernel's descriptive methods (with
/// `needs`, the CPU features it needs, also an inherent `require()` that
/// panics unless they are there), and
/// the operations it implements itself as functions of the key schedule
/// (the rest keep the trait's generic versions). `ecb` takes a `decrypt`
/// flag and serves both directions; the others take the arguments of the
/// method they implement, without `&self`.
macro_rules! impl_kernel {
    (
        impl $([$($gen:tt)*])? for $ty:ty {
            name: $name:literal,
            description: $desc:literal,
            available: $avail:expr,
            $(needs: $needs:literal,)?
            constant_time: $ct:literal,
            rank: $rank:literal,
            $(isa: $isa:ident,)?
            $(vector_bits: $bits:literal,)?
            ecb: $ecb:expr,
            $(ctr_xor: $ctr:expr,)?
            $(cbc_encrypt: $cbc_enc:expr,)?
            $(cbc_decrypt: $cbc_dec:expr,)?
            $(cfb_decrypt: $cfb_dec:expr,)?
            $(xts_blocks: $xts:expr,)?
            $(xts_units: $xts_units:expr,)?
        }
    ) => {
        $(impl $ty {
            /// Panics (rather than run an illegal instruction) unless this
            /// CPU runs the kernel.
            fn require() {
                $crate::kernels::require($avail, $name, $needs);
            }
        })?

        impl<$($($gen)*)?> $crate::kernel::Kernel for $ty {
            fn name(&self) -> &'static str {
                $name
            }
            fn description(&self) -> &'static str {
                $desc
            }
            fn is_available(&self) -> bool {
                $avail
            }
            fn is_constant_time(&self) -> bool {
                $ct
            }
            fn rank(&self) -> u32 {
                $rank
            }
            $(fn isa(&self) -> $crate::cpu::Isa {
                $crate::cpu::Isa::$isa
            })?
            $(fn vector_bits(&self) -> u32 {
                $bits
            })?
            $crate::kernel::impl_kernel!(@ecb encrypt_blocks, $ecb, false);
            $crate::kernel::impl_kernel!(@ecb decrypt_blocks, $ecb, true);
            $(fn ctr_xor(
                &self,
                keys: &$crate::key_schedule::KeySchedule,
                counter: &mut $crate::kernel::Block,
                data: &mut [u8],
            ) {
                $ctr(keys, counter, data)
            })?
            $($crate::kernel::impl_kernel!(@chain cbc_encrypt, $cbc_enc);)?
            $($crate::kernel::impl_kernel!(@chain cbc_decrypt, $cbc_dec);)?
            $($crate::kernel::impl_kernel!(@chain cfb_decrypt, $cfb_dec);)?
            $(fn xts_blocks(
                &self,
                keys: &$crate::key_schedule::KeySchedule,
                tweak: &mut $crate::kernel::Block,
                blocks: &mut [$crate::kernel::Block],
                decrypt: bool,
                mul: $crate::kernel::XtsTweakMul,
            ) {
                $xts(keys, tweak, blocks, decrypt, mul)
            })?
            $(fn xts_units(
                &self,
                keys: &$crate::key_schedule::KeySchedule,
                tweaks: &mut [$crate::kernel::Block],
                unit_blocks: usize,
                blocks: &mut [$crate::kernel::Block],
                decrypt: bool,
                mul: $crate::kernel::XtsTweakMul,
            ) {
                $xts_units(keys, tweaks, unit_blocks, blocks, decrypt, mul)
            })?
        }
    };
    // ECB in one direction.
    (@ecb $method:ident, $ecb:expr, $decrypt:literal) => {
        fn $method(
            &self,
            keys: &$crate::key_schedule::KeySchedule,
            blocks: &mut [$crate::kernel::Block],
        ) {
            $ecb(keys, blocks, $decrypt)
        }
    };
    // A chained mode: CBC encryption, CBC or CFB128 decryption.
    (@chain $method:ident, $f:expr) => {
        fn $method(
            &self,
            keys: &$crate::key_schedule::KeySchedule,
            iv: &mut $crate::kernel::Block,
            blocks: &mut [$crate::kernel::Block],
        ) {
            $f(keys, iv, blocks)
        }
    };
}
pub(crate) use impl_kernel;

/// An error choosing a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelError {
    /// No kernel has this name.
    Unknown {
        /// The name asked for.
        name: String,
        /// The names that exist.
        known: Vec<&'static str>,
    },
    /// The kernel exists but this CPU cannot run it.
    Unavailable {
        /// The kernel's name.
        name: &'static str,
        /// The kernels this CPU can run.
        available: Vec<&'static str>,
    },
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelError::Unknown { name, known } => write!(
                f,
                "unknown AES kernel '{name}' (known kernels: {})",
                known.join(", ")
            ),
            KernelError::Unavailable { name, available } => write!(
                f,
                "AES kernel '{name}' needs CPU features this machine lacks \
                 (kernels available here: {})",
                available.join(", ")
            ),
        }
    }
}

impl std::error::Error for KernelError {}

impl fmt::Debug for dyn Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kernel({})", self.name())
    }
}

/// The environment variable that forces a kernel by name.
pub const KERNEL_ENV: &str = "AESFLOW_KERNEL";

/// Every kernel compiled in, whether or not this CPU can run it.
pub fn kernels() -> &'static [&'static dyn Kernel] {
    crate::kernels::ALL
}

/// The kernels this CPU can run.
pub fn available_kernels() -> Vec<&'static dyn Kernel> {
    kernels()
        .iter()
        .copied()
        .filter(|k| k.is_available())
        .collect()
}

/// A kernel by name; an error if unknown or unsupported by this CPU.
pub fn kernel_by_name(name: &str) -> Result<&'static dyn Kernel, KernelError> {
    let k = kernels()
        .iter()
        .copied()
        .find(|k| k.name().eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| KernelError::Unknown {
            name: name.to_string(),
            known: kernels().iter().map(|k| k.name()).collect(),
        })?;
    if k.is_available() {
        Ok(k)
    } else {
        Err(KernelError::Unavailable {
            name: k.name(),
            available: available_kernels().iter().map(|k| k.name()).collect(),
        })
    }
}

/// The fastest constant-time kernel this CPU runs (ignores `AESFLOW_KERNEL`).
/// `ctime` when no hardware kernel is available; never `ttable`.
pub fn detect_best() -> &'static dyn Kernel {
    kernels()
        .iter()
        .copied()
        .filter(|k| k.is_available() && k.is_constant_time())
        .max_by_key(|k| k.rank())
        .expect("the portable constant-time kernel is always available")
}

/// The kernel an application uses by default: the one named by
/// `AESFLOW_KERNEL` if set (an error if that name is unknown or unsupported),
/// else [`detect_best`]. The only reader of the environment variable in
/// aesflow: call it at the edge (command line, Python binding) and pass the
/// kernel down ([`Aes::with_kernel`](crate::Aes::with_kernel)); library
/// constructors never read the environment.
pub fn default_kernel() -> Result<&'static dyn Kernel, KernelError> {
    match std::env::var(KERNEL_ENV) {
        Ok(name) if !name.trim().is_empty() => kernel_by_name(&name),
        _ => Ok(detect_best()),
    }
}

/// [`Kernel::xts_units`] against [`Kernel::xts_blocks`] per unit.
#[cfg(test)]
pub(crate) mod xts_units_check {
    use super::{Kernel, XtsTweakMul};
    use crate::kernels::testutil::{random_blocks, schedules};
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    /// Units of 1, 2, 31..33, 64, 95..97 and 256 blocks (one register or
    /// less, around one and three 32-block steps), 1 to 19 of them,
    /// both directions, every key size and expansion style: the data and
    /// the returned tweaks must equal `xts_blocks` unit by unit.
    pub(crate) fn check(k: &dyn Kernel, seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        for ks in schedules(&mut rng) {
            for unit in [1usize, 2, 31, 32, 33, 64, 95, 96, 97, 256] {
                for count in 1..20 {
                    let data = random_blocks(&mut rng, unit * count);
                    let tweaks = random_blocks(&mut rng, count);
                    for (dec, mul) in [false, true]
                        .into_iter()
                        .flat_map(|d| [XtsTweakMul::Clmul, XtsTweakMul::Shift].map(|m| (d, m)))
                    {
                        let (mut want, mut wt) = (data.clone(), tweaks.clone());
                        for (t, u) in wt.iter_mut().zip(want.chunks_mut(unit)) {
                            k.xts_blocks(&ks, t, u, dec, mul);
                        }
                        let (mut got, mut gt) = (data.clone(), tweaks.clone());
                        k.xts_units(&ks, &mut gt, unit, &mut got, dec, mul);
                        let what = format!("{} {ks:?} unit={unit} count={count}", k.name());
                        assert!(got == want, "data, dec={dec} {what}");
                        assert!(gt == wt, "tweaks, dec={dec} {what}");
                    }
                }
            }
            // Nothing at all is fine.
            k.xts_units(&ks, &mut [], 32, &mut [], false, XtsTweakMul::Clmul);
        }
    }

    #[test]
    fn xts_units_match_xts_blocks_on_every_kernel() {
        for (i, k) in crate::kernel::kernels().iter().enumerate() {
            if crate::kernels::testutil::runnable(*k) {
                check(*k, 900 + i as u64);
            }
        }
    }
}
