//! # aesflow-multistream: many independent AES streams in one engine
//!
//! Pericàs, Chaves, Gaydadjiev, Vassiliadis & Valero, *Vectorized AES Core
//! for High-Throughput Secure Environments*, observe (§1 Introduction, §3
//! Multiple-Stream AES Core) that the serial modes — CBC encryption above
//! all — leave an AES engine mostly idle: block `i + 1` of a stream cannot
//! start before block `i` has left the last round, so a pipeline of depth
//! 10 produces one block every 10 stages. Their fix is not to make one
//! stream faster but to feed the core *several independent streams* (VPN
//! tunnels at a gateway, files of an `scp` session), interleaved block by
//! block (§5 Discussion: the multi-stream core behind a scatter/gather
//! interface): a list of (key, IV, input, output) descriptors in, the
//! interleaving done by the engine, every output identical to encrypting
//! that stream alone.
//!
//! ## Why CBC encryption is latency-bound on a CPU
//!
//! A CPU's AES instructions are pipelined exactly like the paper's core.
//! `AESENC` has a latency of about 4–5 cycles, and the core starts one
//! (Intel) or two (AMD Zen) 128- or 256-bit `AESENC`s every cycle; a
//! 512-bit `VAESENC` works on four blocks, and Zen 4 starts one per cycle,
//! Zen 5 two. One CBC stream needs `Nr` dependent `AESENC`s plus an XOR
//! per block — ~44 cycles for AES-128 — whatever the SIMD width, so a
//! single stream runs at a small fraction of the speed at which the same
//! core encrypts ECB/CTR. Filling the pipeline needs
//! independent work: *other streams* — latency × issue rate of them
//! (4 × 2 = 8 xmm registers with AES-NI on Zen; 4 zmm registers, 16
//! streams, with 512-bit VAES on Zen 4).
//!
//! ## The engine
//!
//! * **Lanes and groups.** Streams occupy lanes, four lanes to a *group*:
//!   with VAES a group is one zmm register (one stream per 128-bit lane)
//!   and the engine keeps up to 8 groups = 32 streams = 8 independent zmm
//!   chains in flight; with AES-NI a group is four xmm registers and the
//!   engine keeps 2 groups = 8 streams = 8 xmm chains.
//! * **Batches, gathers and scatters.** All lanes advance by a common
//!   offset. With 512-bit VAES the kernel reads several blocks of each
//!   stream at a time and transposes them in registers, so that a register
//!   holds block `i` of a group's four streams: with four groups
//!   (16 streams) four blocks (one 64-byte load per stream, 4×4
//!   transposes of 128-bit lanes, as in ipsec-mb's 16-lane CBC loop; the
//!   next batch is loaded before the stores of this one), otherwise two
//!   (32-byte loads); it runs the steps and transposes the outputs back
//!   for wide stores; a call's last blocks short of a batch go one block
//!   at a time. The 256-bit and AES-NI kernels step
//!   one block at a time: block `i` of a group's four streams is gathered
//!   into the four 128-bit lanes (512-bit: masked 16-byte broadcast loads,
//!   `VBROADCASTI32X4`, merged into one register, issued during the
//!   previous block's rounds; 256-bit: `VINSERTI128` from memory) and each
//!   lane's output block is written with `VEXTRACTI32X4`/`VEXTRACTI128`
//!   to memory. The rounds of all groups run interleaved.
//! * **Round keys.** When every stream of a class has the same key, its
//!   round keys are broadcast to the four lanes once per call and stay in
//!   registers. Otherwise each lane has its own keys: round key `r` of a
//!   group is a 64-byte row built from its four streams' keys when a lane
//!   is (re)filled. Up to two groups (8 streams) the rows are loaded into
//!   registers once per call; with more `AESENC` reads them in place as
//!   its memory operand (512-bit VAES: `asm!`, so that no row is loaded
//!   into a register).
//! * **Refill policy.** Streams are started longest first (LPT). The kernel
//!   runs `min(remaining blocks)` blocks at once; then every lane whose
//!   stream ended writes back its chaining value and is **refilled** with
//!   the next pending stream (pointers, chaining value and round keys copied
//!   in), so unequal lengths keep the lanes busy. When nothing is pending,
//!   the last active lane moves into the hole, keeping the active lanes
//!   dense (fewer groups per step); idle lanes of a group compute on
//!   another lane's input and their outputs are discarded.
//! * **Classes.** A step runs one round count and one mode, so a call's jobs
//!   are grouped by key size and [`Mode`]; each group runs through the lanes
//!   on its own (one call can still mix AES-128/192/256 and modes).
//! * **Keys.** A [`Key::Bytes`] key is expanded once per distinct slice (and
//!   consecutive jobs with equal key bytes share one expansion); a
//!   [`Key::Expanded`] key is used as is — the gateway case, where tunnel
//!   keys are expanded once ([`MultiStreamQueue`] does this). Lane copies of
//!   round keys are zeroized.
//! * **Working storage.** A call's tables — the key schedules, found by
//!   address in an open-addressing table, the continuation values, the
//!   streams ordered by class and length class (one counting pass) and the
//!   partial final blocks — live in a [`Scratch`]. A caller that makes many calls
//!   keeps one and passes it to [`MultiStream::process_with`] /
//!   [`MultiStream::process_in_place_with`], so that a packet-sized call
//!   neither allocates nor hashes its tables again ([`MultiStreamQueue`]
//!   keeps its own); [`MultiStream::process`] sets one up per call.
//! * **Backends** ([`Backend`]) follow the `aesflow-cipher` kernel a caller
//!   selects ([`MultiStream::with_kernel`]; `MultiStream::new(Backend::Auto)`
//!   for the fastest constant-time one): the `vaes` kernel's family
//!   gives the 512-bit engine, `aesni` the 128-bit one, a portable kernel
//!   runs each stream alone on that kernel (correct, slower). The CPU's
//!   features come from `aesflow-cipher`'s one detection token; forcing a
//!   backend the CPU lacks is an [`Error::BackendUnavailable`]. All `unsafe`
//!   code (the kernels and the lane pointers) lives in the private
//!   `kernels` module.
//!
//! ## What bounds it
//!
//! `cargo bench -p aesflow-multistream --bench lanes` measures the kernels
//! (CBC encryption, on-CPU time, ECB of the same width in the same run as
//! the ceiling) and `aesflow bench --modes --streams 8,16,32,64` measures
//! them against Intel ipsec-mb; `scripts/vaes-ceiling` runs hand-written
//! loops of the same shapes outside aesflow. Three costs bound the 512-bit
//! kernel:
//!
//! * the chains: `VAESENC` has a latency of about 4 cycles, so a core that
//!   starts one zmm `VAESENC` per cycle needs 4 independent chains
//!   (16 streams) and one that starts two needs 8 (32 streams);
//! * the keys: with a key per stream each zmm `VAESENC` reads its own
//!   64-byte key row as a memory operand, and these loads compete with the
//!   data's;
//! * the layout: streams in separate buffers are read two or four blocks
//!   at a time and transposed in registers (64-byte loads, 4×4 lane
//!   transposes), which costs shuffles beside the rounds, and loads that
//!   follow stores to addresses equal in their low 12 bits wait for them. The same rounds over data
//!   already interleaved run faster; ipsec-mb's 16-lane loop has the same
//!   structure and the same bound.
//!
//! The 512-bit kernel's logic is also tested through an emulation that runs
//! the same kernel code with each zmm register replaced by four xmm
//! registers, so CPUs without AVX-512 test it too.

//! ## Modes
//!
//! CBC encryption (inputs a multiple of 16 bytes, no padding), CFB128
//! encryption and decryption, OFB (either direction); CFB/OFB take any
//! length. Each job's [`Job::iv`] is updated to the value that continues the
//! stream (see there for partial final blocks).
//!
//! ```
//! use aesflow_multistream::{Job, Mode, process};
//! let key = [7u8; 16];
//! let (a, b) = (vec![1u8; 64], vec![2u8; 4096]);
//! let (mut ca, mut cb) = (vec![0u8; 64], vec![0u8; 4096]);
//! let mut jobs = [
//!     Job::new(Mode::CbcEncrypt, &key, [0; 16], &a, &mut ca),
//!     Job::new(Mode::CbcEncrypt, &key, [1; 16], &b, &mut cb),
//! ];
//! process(&mut jobs).unwrap();
//! // jobs[0].iv is now the last ciphertext block of stream a.
//! assert_eq!(&jobs[0].iv[..], &ca[48..]);
//! ```

#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod backend;
mod engine;
mod error;
mod job;
mod kernels;
mod portable;
mod queue;
mod scratch;

pub use aesflow_cipher::RoundKeys;
pub use backend::Backend;
pub use engine::MultiStream;
pub use error::Error;
pub use job::{InPlaceJob, Job, Key, Mode, validate};
pub use queue::{Completed, MultiStreamQueue, Ticket, TunnelHandle, TunnelId};
pub use scratch::Scratch;

use job::check_job;

/// [`MultiStream::process`] on the best backend of this CPU.
pub fn process(jobs: &mut [Job<'_>]) -> Result<(), Error> {
    default_engine().process(jobs)
}

/// [`MultiStream::process_in_place`] on the best backend of this CPU.
pub fn process_in_place(jobs: &mut [InPlaceJob<'_>]) -> Result<(), Error> {
    default_engine().process_in_place(jobs)
}

fn default_engine() -> &'static MultiStream {
    static ENGINE: std::sync::OnceLock<MultiStream> = std::sync::OnceLock::new();
    ENGINE.get_or_init(MultiStream::auto)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;
    use crate::kernels::{self, Batch, Sched, Simd};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// (mode, key, iv, data)
    type Case = (Mode, Vec<u8>, [u8; 16], Vec<u8>);

    /// The VAES path's logic — the same kernel code with each zmm replaced
    /// by four xmm registers: one block per lane at a time in pieces,
    /// idle lanes writing to a sink,
    /// 1/2/4/8 groups, keys in registers for a shared key, the 32-lane
    /// scheduler (refill, compaction), and both batched paths (two blocks
    /// per stream at every group count; four with four groups, the next
    /// batch loaded before the stores) — against the 8-lane AES-NI engine
    /// (itself checked against RustCrypto in `tests/`) and each stream
    /// alone. Runs on any CPU with AES-NI, VAES or not.
    #[test]
    fn scheduler_with_32_lanes() {
        if !kernels::has_aesni() {
            return;
        }
        let wide = |batch| MultiStream {
            backend: Backend::Vaes,
            engine: Engine::Simd(Simd::AesniAsVaes),
            own_key_lanes: Simd::AesniAsVaes.lanes(),
            batch,
            shared_pointers: false,
        };
        let narrow = MultiStream::new(Backend::Aesni).unwrap();
        check_against_alone(
            &[wide(Batch::Pairs), wide(Batch::SinglesAtFour), narrow],
            32,
            80,
        );
    }

    /// The 512-bit VAES engine itself with both batched paths and 16 or 32
    /// lanes for streams with their own keys, against each stream alone:
    /// whichever the engine picks, every path runs here (on a CPU without
    /// VAES the emulation above covers the same code).
    #[test]
    fn vaes_batches_against_each_stream_alone() {
        if !kernels::has_vaes() {
            aesflow_vectors::skip!("no VAES/AVX-512 on this CPU");
            return;
        }
        let base = MultiStream::new(Backend::Vaes).unwrap();
        let engines: Vec<MultiStream> = [Batch::Pairs, Batch::SinglesAtFour]
            .into_iter()
            .flat_map(|batch| {
                [16, 32].map(|lanes| MultiStream { batch, ..base }.with_own_key_lanes(lanes))
            })
            .collect();
        check_against_alone(&engines, 64, 60);
    }

    /// `trials` random calls (1..=`max_streams` streams, mixed or one mode,
    /// AES-128/192/256, own keys or one shared key, unequal lengths so that
    /// streams join and leave the lanes) through every engine of `engines`
    /// and through the portable backend (each stream alone on the cipher
    /// kernel: no multi-stream kernel code); outputs and IVs must agree.
    fn check_against_alone(engines: &[MultiStream], max_streams: usize, trials: u64) {
        let alone = MultiStream::new(Backend::Portable).unwrap();
        let mut rng = StdRng::seed_from_u64(32 + max_streams as u64);
        for trial in 0..trials {
            let n = match trial % 4 {
                0 => rng.random_range(1..=8),
                1 => rng.random_range(12..=16),
                2 => rng.random_range(25..=40),
                _ => rng.random_range(1..=max_streams + 36),
            };
            let mode0 = Mode::ALL[rng.random_range(0..4)];
            // Every fourth trial: one key for all streams (the VAES
            // kernel's keys-in-registers path).
            let klen0 = [16, 24, 32][rng.random_range(0..3)];
            let key0: Vec<u8> = (0..klen0).map(|_| rng.random()).collect();
            let one_key = trial % 4 == 3;
            // Every third trial: all streams of one length (packets).
            let same_len = trial % 3 == 1;
            let len0 = 16 * rng.random_range(1..=100);
            let cases: Vec<Case> = (0..n)
                .map(|_| {
                    let mode = if trial % 2 == 0 {
                        mode0
                    } else {
                        Mode::ALL[rng.random_range(0..4)]
                    };
                    let klen = [16, 24, 32][rng.random_range(0..3)];
                    // Up to 160 blocks: kernel calls longer than one
                    // 64-block piece of the one-block-at-a-time path.
                    let len = if same_len {
                        len0
                    } else if mode.needs_whole_blocks() {
                        16 * rng.random_range(0..=160)
                    } else {
                        rng.random_range(0..=2560)
                    };
                    let key = if one_key {
                        key0.clone()
                    } else {
                        (0..klen).map(|_| rng.random()).collect()
                    };
                    (
                        mode,
                        key,
                        rng.random(),
                        (0..len).map(|_| rng.random()).collect(),
                    )
                })
                .collect();
            let run = |engine: &MultiStream| {
                let mut outs: Vec<Vec<u8>> = cases.iter().map(|c| vec![0; c.3.len()]).collect();
                let mut jobs: Vec<Job<'_>> = cases
                    .iter()
                    .zip(outs.iter_mut())
                    .map(|(c, o)| Job::new(c.0, &c.1, c.2, &c.3, o))
                    .collect();
                engine.process(&mut jobs).unwrap();
                let ivs: Vec<[u8; 16]> = jobs.iter().map(|j| j.iv).collect();
                (outs, ivs)
            };
            let want = run(&alone);
            for e in engines {
                assert!(run(e) == want, "trial {trial}: {n} streams, {e:?}");
            }
        }
    }

    /// Streams cut from one input and one output buffer at the same
    /// offsets (every output at the same distance from its input) and the
    /// same streams in place, with shared lane pointers (the 512-bit
    /// kernel's loop that reads one pointer per lane) and without. Equal
    /// and unequal lengths (lanes refilled with streams at the same
    /// distance), 32 to 40 streams, each key size, against each stream
    /// alone.
    #[test]
    fn vaes_outputs_at_one_distance_and_in_place() {
        if !kernels::has_vaes() {
            aesflow_vectors::skip!("no VAES/AVX-512 on this CPU");
            return;
        }
        let base = MultiStream::new(Backend::Vaes)
            .unwrap()
            .with_own_key_lanes(32);
        let alone = MultiStream::new(Backend::Portable).unwrap();
        for vaes in [base.with_shared_lane_pointers(true), base] {
            let mut rng = StdRng::seed_from_u64(77);
            for klen in [16, 24, 32] {
                for (n, same) in [(32, true), (32, false), (40, true), (40, false)] {
                    let lens: Vec<usize> = (0..n)
                        .map(|_| 16 * if same { 96 } else { rng.random_range(1..=130) })
                        .collect();
                    let keys: Vec<Vec<u8>> = (0..n)
                        .map(|_| (0..klen).map(|_| rng.random()).collect())
                        .collect();
                    let ivs: Vec<[u8; 16]> = (0..n).map(|_| rng.random()).collect();
                    let total: usize = lens.iter().sum();
                    let input: Vec<u8> = (0..total).map(|_| rng.random()).collect();
                    let split = |buf: &[u8]| -> Vec<Vec<u8>> {
                        let mut at = 0;
                        lens.iter()
                            .map(|&l| {
                                at += l;
                                buf[at - l..at].to_vec()
                            })
                            .collect()
                    };
                    // Each stream alone.
                    let want = {
                        let ins = split(&input);
                        let mut outs: Vec<Vec<u8>> = ins.iter().map(|i| vec![0; i.len()]).collect();
                        let mut jobs: Vec<Job<'_>> = (keys.iter().zip(&ivs).zip(&ins))
                            .zip(outs.iter_mut())
                            .map(|(((k, iv), i), o)| Job::new(Mode::CbcEncrypt, k, *iv, i, o))
                            .collect();
                        alone.process(&mut jobs).unwrap();
                        let ivs: Vec<[u8; 16]> = jobs.iter().map(|j| j.iv).collect();
                        (outs, ivs)
                    };
                    // Split: one output buffer, cut as the input.
                    let mut output = vec![0u8; total];
                    let mut jobs: Vec<Job<'_>> = Vec::new();
                    let (mut rest_in, mut rest_out) = (&input[..], &mut output[..]);
                    for j in 0..n {
                        let (i, ri) = rest_in.split_at(lens[j]);
                        let (o, ro) = rest_out.split_at_mut(lens[j]);
                        jobs.push(Job::new(Mode::CbcEncrypt, &keys[j], ivs[j], i, o));
                        (rest_in, rest_out) = (ri, ro);
                    }
                    vaes.process(&mut jobs).unwrap();
                    let got_ivs: Vec<[u8; 16]> = jobs.iter().map(|j| j.iv).collect();
                    drop(jobs);
                    let what =
                        format!("{vaes:?}, {klen}-byte keys, {n} streams, equal lengths {same}");
                    assert!(split(&output) == want.0, "{what}: split outputs");
                    assert_eq!(got_ivs, want.1, "{what}: split chaining values");
                    // In place.
                    let mut data = input.clone();
                    let mut jobs: Vec<InPlaceJob<'_>> = Vec::new();
                    let mut rest = &mut data[..];
                    for j in 0..n {
                        let (d, r) = rest.split_at_mut(lens[j]);
                        jobs.push(InPlaceJob::new(Mode::CbcEncrypt, &keys[j], ivs[j], d));
                        rest = r;
                    }
                    vaes.process_in_place(&mut jobs).unwrap();
                    let got_ivs: Vec<[u8; 16]> = jobs.iter().map(|j| j.iv).collect();
                    drop(jobs);
                    assert!(split(&data) == want.0, "{what}: in-place outputs");
                    assert_eq!(got_ivs, want.1, "{what}: in-place chaining values");
                }
            }
        }
    }

    #[test]
    fn aesni_key_expansion_matches_fips197() {
        if !kernels::has_aesni() {
            return;
        }
        let mut rng = StdRng::seed_from_u64(1);
        for len in [16, 24, 32] {
            for _ in 0..20 {
                let key: Vec<u8> = (0..len).map(|_| rng.random()).collect();
                let a = Sched::expand(&key).unwrap();
                let b = RoundKeys::from_bytes(&key).unwrap();
                assert_eq!(a.enc(), b.enc());
            }
        }
        assert!(Sched::expand(&[0; 17]).is_err());
    }
}
