//! The lane scheduler and the SIMD kernels — the only `unsafe` code of the
//! crate.
//!
//! * [`lanes`]: the lane context and the scheduler (LPT fill, refill,
//!   compaction) that drives a kernel call by call;
//! * `quad`: the kernel, written once over a group of four lanes
//!   (batches of consecutive blocks per lane, transposed in registers, or
//!   one block per lane at a time by 16-byte gathers and scatters; the
//!   rounds interleaved);
//! * `x86`: the group types (one zmm with VAES, two ymm with 256-bit
//!   VAES, four xmm with AES-NI) and
//!   the entry points the scheduler dispatches to.

mod lanes;
#[cfg(target_arch = "x86_64")]
mod quad;
mod stream;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(crate) use lanes::run;
pub(crate) use stream::{Sched, Stream, StreamData, wipe};

use lanes::LaneCtx;
use stream::MAX_RK;

/// Mode codes, used as const generic parameters of the kernels.
pub(crate) const CBC_ENC: u8 = 0;
/// CFB128 encryption.
pub(crate) const CFB_ENC: u8 = 1;
/// CFB128 decryption.
pub(crate) const CFB_DEC: u8 = 2;
/// OFB (both directions).
pub(crate) const OFB: u8 = 3;

/// Maximum number of lanes (VAES: 8 zmm registers × 4 streams).
pub(crate) const MAX_LANES: usize = 32;
/// Maximum number of 4-lane groups.
const MAX_GROUPS: usize = MAX_LANES / 4;
/// Lanes of the AES-NI kernel (8 xmm chains in flight).
pub(crate) const AESNI_LANES: usize = 8;
/// Lanes of the VAES kernel.
pub(crate) const VAES_LANES: usize = MAX_LANES;
/// Lanes of the 256-bit VAES kernel (8 ymm chains in flight).
pub(crate) const VAES256_LANES: usize = 16;

/// How the 512-bit engine reads a call's blocks (the module docs of
/// `quad`). The engine runs [`Batch::SinglesAtFour`]; [`Batch::Pairs`] is
/// the other path, which the tests run too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Batch {
    /// Two blocks per stream at once at every group count.
    Pairs,
    /// With four groups (16 streams) one block per stream at a time, with
    /// the last rounds' key rows held in registers (`quad::held`); two
    /// blocks per stream otherwise. On the review CPU (AMD Zen 5, `aesflow
    /// bench --modes --streams 16`, AES-128, in the same run as ipsec-mb)
    /// 16 streams run at 1.05-1.07 of ipsec-mb this way; holding the key
    /// rows is what keeps a single block per stream fed.
    SinglesAtFour,
}

impl Batch {
    /// Blocks per stream a batch reads with `groups` groups.
    pub(crate) fn blocks(self, groups: usize) -> usize {
        match self {
            Batch::SinglesAtFour if groups == 4 => 1,
            _ => 2,
        }
    }
}

/// How an engine runs a class's streams on its lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes {
    /// The SIMD engine.
    pub(crate) simd: Simd,
    /// Most streams in flight when they have keys of their own.
    pub(crate) own_key_lanes: usize,
    /// The 512-bit engine's batched path.
    pub(crate) batch: Batch,
    /// One lane pointer for a stream's input and output where it can
    /// (`MultiStream::with_shared_lane_pointers`).
    pub(crate) shared_pointers: bool,
}

/// The SIMD engine to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Simd {
    /// 128-bit AES-NI: two groups of four xmm chains.
    Aesni,
    /// 512-bit VAES: up to eight zmm chains of four streams.
    Vaes,
    /// 256-bit VAES (AVX2, no AVX-512): four groups of two ymm chains.
    Vaes256,
    /// Test double of `Vaes` on AES-NI: the same kernel code and the same
    /// group counts (32 lanes, shared-key path included) with each zmm
    /// replaced by four xmm registers. It tests the VAES path's logic
    /// (one block at a time in pieces, idle lanes, 1/2/4/8 groups,
    /// scheduler) on CPUs without VAES.
    #[cfg_attr(not(test), allow(dead_code))]
    AesniAsVaes,
}

impl Simd {
    /// Lanes the engine keeps in flight.
    pub(crate) fn lanes(self) -> usize {
        match self {
            Simd::Aesni => AESNI_LANES,
            Simd::Vaes | Simd::AesniAsVaes => VAES_LANES,
            Simd::Vaes256 => VAES256_LANES,
        }
    }

    /// Lanes in flight for streams with keys of their own (a class whose
    /// streams share one key uses [`Simd::lanes`]) that `plan` gives the
    /// 512-bit engine; the other engines use all their lanes.
    ///
    /// With a key per lane every zmm `VAESENC` reads a 64-byte key row. A
    /// core that loads one such row per cycle (Zen 4) is kept as busy as
    /// the loads allow by 4 chains (latency 4 cycles), and 8 chains only add
    /// L1 traffic and spills; a core that starts two `VAESENC` per cycle
    /// (Zen 5) needs the 8 chains (`cargo bench -p aesflow-multistream
    /// --bench lanes`). Which is which is the plan's choice, not this
    /// crate's.
    pub(crate) fn own_key_lanes(self, plan: &aesflow_plan::Plan) -> usize {
        match self {
            Simd::Vaes => plan.own_key_lanes().min(self.lanes()),
            s => s.lanes(),
        }
    }

    /// Panic unless this CPU runs the engine.
    fn assert_available(self) {
        match self {
            Simd::Aesni | Simd::AesniAsVaes => {
                assert!(has_aesni(), "AES-NI kernel on a CPU without AES-NI")
            }
            Simd::Vaes => assert!(has_vaes(), "VAES kernel on a CPU without VAES/AVX-512F"),
            Simd::Vaes256 => assert!(has_vaes256(), "VAES kernel on a CPU without VAES/AVX2"),
        }
    }
}

/// Whether this CPU runs the AES-NI engine (the `aesni` kernel's CPU set,
/// from `aesflow-cipher`'s one features token).
pub(crate) fn has_aesni() -> bool {
    aesflow_cipher::features().aesni()
}

/// Whether the AES-NI engine may use VEX encoding (AVX).
pub(crate) fn has_avx() -> bool {
    aesflow_cipher::features().avx
}

/// Whether this CPU runs the 512-bit VAES engine (the `vaes` kernel's CPU
/// set: AVX-512F/BW, VAES, AES-NI for the single-block tail path).
pub(crate) fn has_vaes() -> bool {
    aesflow_cipher::features().vaes()
}

/// Whether this CPU runs the 256-bit VAES engine (AVX2, VAES, AES-NI: the
/// `vaes256` kernel's CPU set).
pub(crate) fn has_vaes256() -> bool {
    aesflow_cipher::features().vaes256()
}

/// One kernel call: `n` blocks on lanes `0..active` (`shared`: every
/// active lane's key is `ctx.shared`).
#[allow(clippy::too_many_arguments)]
fn step(
    simd: Simd,
    batch: Batch,
    mode: u8,
    nr: usize,
    active: usize,
    shared: bool,
    ctx: &mut LaneCtx,
    n: usize,
) {
    #[cfg(target_arch = "x86_64")]
    {
        assert!((1..=simd.lanes()).contains(&active));
        let groups = active.div_ceil(4);
        let (kernel, g) = match simd {
            // VEX-encoded where the CPU has AVX (fewer register moves
            // than the SSE encoding); the emulation of the VAES kernel keeps the SSE encoding, so both
            // are tested on CPUs with AVX.
            Simd::Aesni => x86::xmm_kernel(groups, mode, nr, false, has_avx(), batch),
            Simd::AesniAsVaes => x86::xmm_kernel(groups, mode, nr, shared, false, batch),
            Simd::Vaes => x86::zmm_kernel(groups, mode, nr, shared, batch),
            Simd::Vaes256 => x86::ymm_kernel(groups, mode, nr),
        };
        assert!(active <= 4 * g && 4 * g <= MAX_LANES);
        // SAFETY: `run` checked the CPU features of `simd` (which choose
        // the kernel); 1 <= active <= 4g <= MAX_LANES; lanes 0..active hold
        // pointers into their streams' slices with at least `n` blocks left
        // (n = min remaining) and their keys (or the class's shared key,
        // when `shared`) for `nr` rounds.
        unsafe { kernel(ctx, active, n) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (simd, batch, mode, nr, active, shared, ctx, n);
        unreachable!("no SIMD kernels on this architecture");
    }
}

/// Encrypt one block with the CPU's AES instructions (tails of CFB/OFB
/// streams on the SIMD backends).
///
/// # Panics
/// If the CPU lacks AES-NI.
pub(crate) fn encrypt_block(keys: &Sched<'_>, block: &mut [u8; 16]) {
    assert!(
        has_aesni(),
        "AES-NI single-block path on a CPU without AES-NI"
    );
    #[cfg(target_arch = "x86_64")]
    // SAFETY: AES-NI support checked just above.
    unsafe {
        x86::encrypt_block(keys, block)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (keys, block);
        unreachable!("no SIMD kernels on this architecture");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cbc::cipher::block_padding::NoPadding;
    use cbc::cipher::{BlockEncryptMut, KeyIvInit};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// One stream's CBC encryption by RustCrypto.
    fn cbc_alone(key: &[u8], iv: &[u8; 16], data: &[u8]) -> Vec<u8> {
        let mut buf = data.to_vec();
        let n = buf.len();
        macro_rules! enc {
            ($c:ty) => {
                cbc::Encryptor::<$c>::new_from_slices(key, iv)
                    .unwrap()
                    .encrypt_padded_mut::<NoPadding>(&mut buf, n)
                    .unwrap()
            };
        }
        match key.len() {
            16 => enc!(aes::Aes128),
            24 => enc!(aes::Aes192),
            _ => enc!(aes::Aes256),
        };
        buf
    }

    /// CBC encryption on every group count of the 512-bit kernel with a
    /// key per stream, each key size, both batch kinds: 1..=32 streams of
    /// random and of equal lengths (eight groups: the hand-scheduled loop,
    /// its one-block rest and, with idle lanes, its pieces), against each
    /// stream alone; outputs and chaining values must agree.
    #[test]
    fn vaes_cbc_own_keys_every_group_count() {
        if !has_vaes() {
            aesflow_vectors::skip!("no VAES/AVX-512 on this CPU");
            return;
        }
        let mut rng = StdRng::seed_from_u64(8);
        for klen in [16, 24, 32] {
            for n in [1, 4, 5, 8, 13, 16, 17, 29, 32] {
                for same in [false, true] {
                    let blocks: Vec<usize> = (0..n)
                        .map(|_| if same { 101 } else { rng.random_range(1..=140) })
                        .collect();
                    let keys: Vec<Vec<u8>> = (0..n)
                        .map(|_| (0..klen).map(|_| rng.random()).collect())
                        .collect();
                    let ivs: Vec<[u8; 16]> = (0..n).map(|_| rng.random()).collect();
                    let inputs: Vec<Vec<u8>> = blocks
                        .iter()
                        .map(|&b| (0..16 * b).map(|_| rng.random()).collect())
                        .collect();
                    let scheds: Vec<Sched<'_>> =
                        keys.iter().map(|k| Sched::expand(k).unwrap()).collect();
                    let nr = scheds[0].nr();
                    for batch in [Batch::Pairs, Batch::SinglesAtFour] {
                        let mut outs: Vec<Vec<u8>> =
                            inputs.iter().map(|i| vec![0; i.len()]).collect();
                        let mut streams: Vec<Stream<'_, Sched<'_>>> = inputs
                            .iter()
                            .zip(outs.iter_mut())
                            .zip(&scheds)
                            .enumerate()
                            .map(|(j, ((input, output), keys))| Stream {
                                data: StreamData::Split { input, output },
                                keys,
                                state: ivs[j],
                                job: j,
                            })
                            .collect();
                        let lanes = Lanes {
                            simd: Simd::Vaes,
                            own_key_lanes: MAX_LANES,
                            batch,
                            shared_pointers: false,
                        };
                        run(lanes, CBC_ENC, nr, &mut streams);
                        let states: Vec<[u8; 16]> = streams.iter().map(|s| s.state).collect();
                        drop(streams);
                        for j in 0..n {
                            let want = cbc_alone(&keys[j], &ivs[j], &inputs[j]);
                            let what = format!("{klen}-byte keys, {n} streams, {batch:?}, #{j}");
                            assert!(outs[j] == want, "{what}: output");
                            let last: [u8; 16] = want[want.len() - 16..].try_into().unwrap();
                            assert_eq!(states[j], last, "{what}: chaining value");
                        }
                    }
                }
            }
        }
    }
}
