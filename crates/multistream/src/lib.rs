//! # aesflow-multistream: many independent AES streams in one engine
//!
//! Pericàs, Chaves, Gaydadjiev, Vassiliadis & Valero, *Vectorized AES core
//! for high-throughput secure environments* (seed 003), observe that the
//! serial modes — CBC encryption above all — leave an AES engine mostly
//! idle: block `i + 1` of a stream cannot start before block `i` has left
//! the last round, so a pipeline of depth 10 produces one block every 10
//! stages. Their fix is not to make one stream faster but to feed the core
//! *several independent streams* (VPN tunnels at a gateway, files of an
//! `scp` session), interleaved block by block, through a scatter/gather
//! interface: a list of (key, IV, input, output) descriptors in, the
//! interleaving done by the engine, every output identical to encrypting
//! that stream alone.
//!
//! ## Why CBC encryption is latency-bound on a CPU
//!
//! A CPU's AES instructions are pipelined exactly like the paper's core.
//! `AESENC` has a latency of about 4–5 cycles but the core can start one
//! (Intel) or two (AMD Zen) every cycle; with 512-bit VAES each instruction
//! works on four blocks. One CBC stream needs `Nr` dependent `AESENC`s plus
//! an XOR per block — ~44 cycles for AES-128 — whatever the SIMD width, so a
//! single stream runs at ~1.1–1.5 GB/s (OpenSSL's `aes-128-cbc` on the
//! machines we measured) while the same core encrypts ECB/CTR several times
//! faster. Filling the pipeline needs independent work: *other streams*.
//!
//! ## The engine
//!
//! * **Lanes.** The engine keeps `L` streams in flight: 8 with AES-NI (one
//!   stream per xmm register, 8 registers interleaved), 32 with VAES
//!   (8 zmm registers × 4 streams, one per 128-bit lane). Every lane has its
//!   **own round keys**: for VAES, round key `r` of a zmm register is built
//!   from the four streams' 128-bit round keys and read as a memory operand,
//!   so streams with different keys share an instruction.
//! * **Gather/scatter.** Each step loads the next block of every lane
//!   straight from that stream's buffer (VAES: one load + three 128-bit
//!   inserts per register), runs the rounds of all lanes interleaved, and
//!   stores each result to its stream's output. The chaining values stay in
//!   registers between blocks.
//! * **Refill policy.** Streams are started longest first (LPT). The kernel
//!   runs `min(remaining blocks)` steps at once; then every lane whose
//!   stream ended writes back its chaining value and is **refilled** with the
//!   next pending stream (pointers, chaining value and round keys copied in),
//!   so unequal lengths keep the lanes busy. When nothing is pending, the
//!   last active lane moves into the hole, keeping the active lanes dense
//!   (fewer registers per step).
//! * **Classes.** A step runs one round count and one mode, so a call's jobs
//!   are grouped by key size and [`Mode`]; each group runs through the lanes
//!   on its own (one call can still mix AES-128/192/256 and modes).
//! * **Keys.** A [`Key::Bytes`] key is expanded once per distinct slice (and
//!   consecutive jobs with equal key bytes share one expansion); a
//!   [`Key::Expanded`] key is used as is — the gateway case, where tunnel
//!   keys are expanded once ([`MultiStreamQueue`] does this). Lane copies of
//!   round keys are zeroized.
//! * **Backends** ([`Backend`]): `Vaes` (AVX-512F + VAES), `Aesni`, and a
//!   `Portable` fallback that runs each stream alone with the default
//!   `aesflow-cipher` [`Kernel`] (correct, slower).
//!   `Auto` picks the best the CPU has; forcing a backend the CPU lacks is an
//!   [`Error::BackendUnavailable`]. All `unsafe` code (the kernels and the
//!   lane pointers) lives in the private `kernels` module.
//!
//! ## Measured (ad hoc; the real benchmark belongs to the bench crate)
//!
//! `cargo run -p aesflow-multistream --release --example speed -- aesni cbc`:
//! CBC encryption, AES-128, distinct keys, 16 KiB per stream, one core,
//! on-CPU time (the shared 2-vCPU Intel Xeon @ 2.5 GHz this was developed
//! on has AES-NI and AVX-512 but **no VAES**):
//!
//! | streams | 1 | 2 | 4 | 8 | 16 | 32 | 64 |
//! |---|---|---|---|---|---|---|---|
//! | GB/s (AES-NI backend) | 1.02 | 1.93 | 3.63 | 3.61 | 3.72 | 3.74 | 3.69 |
//!
//! For comparison, `openssl speed -evp aes-128-cbc -bytes 16384` gives
//! 1.15 GB/s (one stream, latency-bound) and `-evp aes-128-ecb` 4.85 GB/s
//! (the core's AES throughput ceiling): four interleaved streams already
//! fill this core's single AES unit (latency 4, one `AESENC` per cycle).
//! The VAES backend (4 blocks per instruction, 32 lanes) needs a CPU with
//! VAES to run and to measure.
//!
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

mod kernels;
mod portable;
mod queue;

pub use aesflow_cipher::RoundKeys;
pub use queue::{Completed, MultiStreamQueue, Ticket, TunnelId};

use aesflow_cipher::{Kernel, KernelError, KeyError, KeySize};
use core::fmt;
use kernels::{Sched, Simd, Stream, StreamData};
use std::collections::HashMap;
use std::str::FromStr;
use zeroize::Zeroize;

/// A mode of operation the engine runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// CBC encryption: `C_i = E(P_i ^ C_{i-1})`, `C_0 = IV`. Whole blocks.
    CbcEncrypt,
    /// CFB128 encryption: `C_i = P_i ^ E(C_{i-1})`. Any length.
    CfbEncrypt,
    /// CFB128 decryption: `P_i = C_i ^ E(C_{i-1})`. Any length.
    CfbDecrypt,
    /// OFB: `O_i = E(O_{i-1})`, `out = in ^ O_i`; encryption and decryption
    /// are the same. Any length.
    Ofb,
}

impl Mode {
    /// All modes.
    pub const ALL: [Mode; 4] = [
        Mode::CbcEncrypt,
        Mode::CfbEncrypt,
        Mode::CfbDecrypt,
        Mode::Ofb,
    ];

    /// Whether inputs must be a multiple of 16 bytes.
    pub fn needs_whole_blocks(self) -> bool {
        self == Mode::CbcEncrypt
    }

    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::CbcEncrypt => "cbc-encrypt",
            Mode::CfbEncrypt => "cfb128-encrypt",
            Mode::CfbDecrypt => "cfb128-decrypt",
            Mode::Ofb => "ofb",
        }
    }

    fn code(self) -> u8 {
        match self {
            Mode::CbcEncrypt => kernels::CBC_ENC,
            Mode::CfbEncrypt => kernels::CFB_ENC,
            Mode::CfbDecrypt => kernels::CFB_DEC,
            Mode::Ofb => kernels::OFB,
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A job's key: raw bytes (expanded by the engine, once per distinct key
/// slice) or already-expanded round keys.
#[derive(Clone, Copy)]
pub enum Key<'a> {
    /// A 16-, 24- or 32-byte AES key.
    Bytes(&'a [u8]),
    /// Expanded round keys (shared by any number of jobs, never re-expanded).
    Expanded(&'a RoundKeys),
}

impl fmt::Debug for Key<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Bytes(b) => write!(f, "Key::Bytes({} bytes, redacted)", b.len()),
            Key::Expanded(rk) => write!(f, "Key::Expanded({:?})", rk.size()),
        }
    }
}

impl<'a> From<&'a [u8]> for Key<'a> {
    fn from(k: &'a [u8]) -> Self {
        Key::Bytes(k)
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for Key<'a> {
    fn from(k: &'a [u8; N]) -> Self {
        Key::Bytes(k)
    }
}

impl<'a> From<&'a Vec<u8>> for Key<'a> {
    fn from(k: &'a Vec<u8>) -> Self {
        Key::Bytes(k)
    }
}

impl<'a> From<&'a RoundKeys> for Key<'a> {
    fn from(k: &'a RoundKeys) -> Self {
        Key::Expanded(k)
    }
}

/// One stream of a scatter/gather call: key, IV, input and output.
#[derive(Debug)]
pub struct Job<'a> {
    /// The stream's key.
    pub key: Key<'a>,
    /// On entry the IV (CBC/CFB: `C_0`; OFB: `O_0`); on return the value
    /// that continues the stream: the last ciphertext block (CBC, CFB), the
    /// last keystream block (OFB). After a partial final block, OFB returns
    /// that block's keystream (a continuation starts at the next block
    /// boundary) and CFB returns the chaining value of the last whole block
    /// (a CFB stream cannot continue after a partial block). Unchanged for
    /// an empty input.
    pub iv: [u8; 16],
    /// Input bytes.
    pub input: &'a [u8],
    /// Output bytes, as long as `input`.
    pub output: &'a mut [u8],
    /// The mode.
    pub mode: Mode,
}

impl<'a> Job<'a> {
    /// A job.
    pub fn new(
        mode: Mode,
        key: impl Into<Key<'a>>,
        iv: [u8; 16],
        input: &'a [u8],
        output: &'a mut [u8],
    ) -> Self {
        Job {
            key: key.into(),
            iv,
            input,
            output,
            mode,
        }
    }
}

/// Check one job's shape: output as long as input, whole blocks for CBC,
/// and a 16-, 24- or 32-byte key.
fn check_job(
    job: usize,
    key: Key<'_>,
    mode: Mode,
    input: usize,
    output: usize,
) -> Result<(), Error> {
    if input != output {
        return Err(Error::LengthMismatch { job, input, output });
    }
    if mode.needs_whole_blocks() && !input.is_multiple_of(16) {
        return Err(Error::NotBlockAligned { job, len: input });
    }
    if let Key::Bytes(b) = key {
        KeySize::from_len(b.len()).map_err(|error| Error::Key { job, error })?;
    }
    Ok(())
}

/// Check every job without processing any: the errors [`process`] would
/// return before writing, so a caller that splits a call (e.g. across
/// cores) can keep the all-or-nothing guarantee.
pub fn validate(jobs: &[Job<'_>]) -> Result<(), Error> {
    for (i, j) in jobs.iter().enumerate() {
        check_job(i, j.key, j.mode, j.input.len(), j.output.len())?;
    }
    Ok(())
}

/// One stream processed in place.
#[derive(Debug)]
pub struct InPlaceJob<'a> {
    /// The stream's key.
    pub key: Key<'a>,
    /// IV on entry, continuation value on return (as [`Job::iv`]).
    pub iv: [u8; 16],
    /// The data, replaced by the result.
    pub data: &'a mut [u8],
    /// The mode.
    pub mode: Mode,
}

impl<'a> InPlaceJob<'a> {
    /// An in-place job.
    pub fn new(mode: Mode, key: impl Into<Key<'a>>, iv: [u8; 16], data: &'a mut [u8]) -> Self {
        InPlaceJob {
            key: key.into(),
            iv,
            data,
            mode,
        }
    }
}

/// Which implementation runs the streams.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The best this CPU supports: `Vaes`, else `Aesni`, else `Portable`.
    #[default]
    Auto,
    /// 512-bit VAES (needs AVX-512F + VAES + AES-NI): 32 lanes.
    Vaes,
    /// AES-NI: 8 lanes.
    Aesni,
    /// Each stream alone on the default `aesflow-cipher` kernel.
    Portable,
}

impl Backend {
    /// The concrete backends, best first.
    pub const CONCRETE: [Backend; 3] = [Backend::Vaes, Backend::Aesni, Backend::Portable];

    /// Short name (`auto`, `vaes`, `aesni`, `portable`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Vaes => "vaes",
            Backend::Aesni => "aesni",
            Backend::Portable => "portable",
        }
    }

    /// Whether this CPU runs the backend (`Auto` and `Portable`: always).
    pub fn is_available(self) -> bool {
        match self {
            Backend::Auto | Backend::Portable => true,
            Backend::Vaes => kernels::has_vaes(),
            Backend::Aesni => kernels::has_aesni(),
        }
    }

    /// The concrete backends this CPU runs, best first.
    pub fn available() -> Vec<Backend> {
        Self::CONCRETE
            .into_iter()
            .filter(|b| b.is_available())
            .collect()
    }

    /// The best concrete backend of this CPU.
    pub fn detect() -> Backend {
        Self::available()[0]
    }

    /// `Auto` resolved to a concrete backend.
    pub fn resolve(self) -> Backend {
        match self {
            Backend::Auto => Self::detect(),
            b => b,
        }
    }

    /// Streams the backend keeps in flight (1 for `Portable`).
    pub fn lanes(self) -> usize {
        match self.resolve() {
            Backend::Vaes => Simd::Vaes.lanes(),
            Backend::Aesni => Simd::Aesni.lanes(),
            _ => 1,
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Backend::Auto),
            "vaes" => Ok(Backend::Vaes),
            "aesni" | "aes-ni" => Ok(Backend::Aesni),
            "portable" => Ok(Backend::Portable),
            _ => Err(Error::UnknownBackend(s.to_string())),
        }
    }
}

/// An error of this crate. Calls validate every job before touching any
/// output, so on error no output has been written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Job `job` has a key of a bad length.
    Key {
        /// Index of the job.
        job: usize,
        /// The key error.
        error: KeyError,
    },
    /// Job `job`'s output is not as long as its input.
    LengthMismatch {
        /// Index of the job.
        job: usize,
        /// Input length.
        input: usize,
        /// Output length.
        output: usize,
    },
    /// Job `job` is CBC and its length is not a multiple of 16.
    NotBlockAligned {
        /// Index of the job.
        job: usize,
        /// Its length.
        len: usize,
    },
    /// The forced backend needs CPU features this machine lacks.
    BackendUnavailable {
        /// The backend asked for.
        backend: Backend,
        /// The backends this CPU runs.
        available: Vec<Backend>,
    },
    /// No backend has this name.
    UnknownBackend(String),
    /// The portable backend's kernel could not be chosen (`AESFLOW_KERNEL`).
    Kernel(KernelError),
    /// [`MultiStreamQueue`]: no tunnel with this id.
    UnknownTunnel(TunnelId),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Key { job, error } => write!(f, "job {job}: {error}"),
            Error::LengthMismatch { job, input, output } => write!(
                f,
                "job {job}: output is {output} bytes but input is {input} bytes"
            ),
            Error::NotBlockAligned { job, len } => write!(
                f,
                "job {job}: CBC input of {len} bytes is not a multiple of 16 (no padding here)"
            ),
            Error::BackendUnavailable { backend, available } => write!(
                f,
                "multi-stream backend '{backend}' needs CPU features this machine lacks \
                 (available here: {})",
                available
                    .iter()
                    .map(|b| b.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Error::UnknownBackend(s) => write!(
                f,
                "unknown multi-stream backend '{s}' (known: auto, vaes, aesni, portable)"
            ),
            Error::Kernel(e) => e.fmt(f),
            Error::UnknownTunnel(id) => write!(f, "no tunnel with id {id}"),
        }
    }
}

impl std::error::Error for Error {}

/// A resolved backend.
#[derive(Clone, Copy)]
enum Engine {
    Simd(Simd),
    Portable(&'static dyn Kernel),
}

/// The multi-stream engine with a chosen backend.
#[derive(Clone, Copy)]
pub struct MultiStream {
    backend: Backend,
    engine: Engine,
}

impl fmt::Debug for MultiStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("MultiStream");
        d.field("backend", &self.backend);
        if let Engine::Portable(k) = self.engine {
            d.field("kernel", &k.name());
        }
        d.field("lanes", &self.lanes()).finish()
    }
}

impl Default for MultiStream {
    fn default() -> Self {
        Self::auto()
    }
}

impl MultiStream {
    /// An engine on `backend`; an error if the CPU lacks it (or, for
    /// `Portable`, if `AESFLOW_KERNEL` names an unusable kernel).
    pub fn new(backend: Backend) -> Result<Self, Error> {
        let concrete = backend.resolve();
        if !concrete.is_available() {
            return Err(Error::BackendUnavailable {
                backend,
                available: Backend::available(),
            });
        }
        let engine = match concrete {
            Backend::Vaes => Engine::Simd(Simd::Vaes),
            Backend::Aesni => Engine::Simd(Simd::Aesni),
            _ => Engine::Portable(aesflow_cipher::default_kernel().map_err(Error::Kernel)?),
        };
        Ok(MultiStream {
            backend: concrete,
            engine,
        })
    }

    /// The portable backend on a chosen `aesflow-cipher` kernel.
    pub fn portable_with_kernel(kernel: &'static dyn Kernel) -> Result<Self, Error> {
        if !kernel.is_available() {
            return Err(Error::Kernel(KernelError::Unavailable {
                name: kernel.name(),
                available: aesflow_cipher::available_kernels()
                    .iter()
                    .map(|k| k.name())
                    .collect(),
            }));
        }
        Ok(MultiStream {
            backend: Backend::Portable,
            engine: Engine::Portable(kernel),
        })
    }

    /// The best engine of this CPU.
    pub fn auto() -> Self {
        let b = Backend::detect();
        match b {
            Backend::Vaes => MultiStream {
                backend: b,
                engine: Engine::Simd(Simd::Vaes),
            },
            Backend::Aesni => MultiStream {
                backend: b,
                engine: Engine::Simd(Simd::Aesni),
            },
            _ => MultiStream {
                backend: Backend::Portable,
                engine: Engine::Portable(aesflow_cipher::detect_best()),
            },
        }
    }

    /// The concrete backend.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Streams kept in flight.
    pub fn lanes(&self) -> usize {
        self.backend.lanes()
    }

    /// Run every job (scatter/gather). Outputs are identical to running each
    /// stream alone; each job's `iv` is updated to its continuation value.
    /// All jobs are validated first: on error nothing has been written.
    pub fn process(&self, jobs: &mut [Job<'_>]) -> Result<(), Error> {
        let refs = jobs
            .iter_mut()
            .map(|j| JobRef {
                key: j.key,
                iv: j.iv,
                data: StreamData::Split {
                    input: j.input,
                    output: &mut *j.output,
                },
                mode: j.mode,
            })
            .collect();
        let ivs = self.process_refs(refs)?;
        for (j, iv) in jobs.iter_mut().zip(ivs) {
            j.iv = iv;
        }
        Ok(())
    }

    /// [`process`](Self::process) with each job's data replaced by its result.
    pub fn process_in_place(&self, jobs: &mut [InPlaceJob<'_>]) -> Result<(), Error> {
        let refs = jobs
            .iter_mut()
            .map(|j| JobRef {
                key: j.key,
                iv: j.iv,
                data: StreamData::InPlace(&mut *j.data),
                mode: j.mode,
            })
            .collect();
        let ivs = self.process_refs(refs)?;
        for (j, iv) in jobs.iter_mut().zip(ivs) {
            j.iv = iv;
        }
        Ok(())
    }

    fn process_refs(&self, refs: Vec<JobRef<'_>>) -> Result<Vec<[u8; 16]>, Error> {
        // Validate everything before writing anything.
        for (job, r) in refs.iter().enumerate() {
            let (input, output) = match &r.data {
                StreamData::Split { input, output } => (input.len(), output.len()),
                other => (other.len(), other.len()),
            };
            check_job(job, r.key, r.mode, input, output)?;
        }
        match self.engine {
            Engine::Simd(simd) => run_all::<Sched>(
                refs,
                |code, nr, streams| kernels::run(simd, code, nr, streams),
                kernels::encrypt_block,
            ),
            Engine::Portable(k) => run_all::<RoundKeys>(
                refs,
                |code, _, streams| {
                    for s in streams.iter_mut() {
                        portable::run_stream(k, code, s);
                    }
                },
                |keys, block| portable::encrypt_block(k, keys, block),
            ),
        }
    }
}

/// Key material a backend runs with.
trait KeyMaterial: Sized {
    fn expand(key: &[u8]) -> Result<Self, KeyError>;
    fn copy_of(keys: &RoundKeys) -> Self;
    fn rounds(&self) -> usize;
}

impl KeyMaterial for Sched {
    fn expand(key: &[u8]) -> Result<Self, KeyError> {
        Sched::expand(key)
    }
    fn copy_of(keys: &RoundKeys) -> Self {
        Sched::from_round_keys(keys)
    }
    fn rounds(&self) -> usize {
        self.nr()
    }
}

impl KeyMaterial for RoundKeys {
    fn expand(key: &[u8]) -> Result<Self, KeyError> {
        RoundKeys::from_bytes(key)
    }
    fn copy_of(keys: &RoundKeys) -> Self {
        keys.clone()
    }
    fn rounds(&self) -> usize {
        self.nr()
    }
}

/// Expand keys, split the jobs into whole-block streams (grouped by key size
/// and mode) and partial tails, run the classes, finish the tails.
fn run_all<K: KeyMaterial>(
    refs: Vec<JobRef<'_>>,
    mut run_class: impl FnMut(u8, usize, &mut [Stream<'_, K>]),
    encrypt_block: impl Fn(&K, &mut [u8; 16]),
) -> Result<Vec<[u8; 16]>, Error> {
    let keyset = KeySet::<K>::build(&refs)?;
    let mut ivs: Vec<[u8; 16]> = refs.iter().map(|r| r.iv).collect();
    let mut classes: Vec<Vec<Stream<'_, K>>> = (0..12).map(|_| Vec::new()).collect();
    let mut tails: Vec<(usize, Mode, StreamData<'_>)> = Vec::new();
    for (job, r) in refs.into_iter().enumerate() {
        let whole = r.data.len() / 16 * 16;
        let (head, tail) = r.data.split_at(whole);
        if tail.len() > 0 {
            tails.push((job, r.mode, tail));
        }
        if whole > 0 {
            let keys = keyset.get(job);
            let class = (keys.rounds() - 10) / 2 * 4 + r.mode.code() as usize;
            classes[class].push(Stream {
                data: head,
                keys,
                state: r.iv,
                job,
            });
        }
    }
    for (class, streams) in classes.iter_mut().enumerate() {
        if streams.is_empty() {
            continue;
        }
        run_class((class % 4) as u8, 10 + 2 * (class / 4), streams);
        for s in streams.iter_mut() {
            ivs[s.job] = s.state;
            s.state.zeroize();
        }
    }
    // Partial final blocks (CFB/OFB): one keystream block each.
    for (job, mode, tail) in tails {
        let mut ks = ivs[job];
        encrypt_block(keyset.get(job), &mut ks);
        match tail {
            StreamData::Split { input, output } => {
                for ((o, i), k) in output.iter_mut().zip(input).zip(&ks) {
                    *o = i ^ k;
                }
            }
            StreamData::InPlace(d) => {
                for (b, k) in d.iter_mut().zip(&ks) {
                    *b ^= k;
                }
            }
        }
        if mode == Mode::Ofb {
            ivs[job] = ks;
        }
        ks.zeroize();
    }
    Ok(ivs)
}

/// A job with its data in either form.
struct JobRef<'a> {
    key: Key<'a>,
    iv: [u8; 16],
    data: StreamData<'a>,
    mode: Mode,
}

/// The expanded keys of one call: each distinct key once.
struct KeySet<K> {
    keys: Vec<K>,
    slot: Vec<usize>,
}

impl<K: KeyMaterial> KeySet<K> {
    fn build(refs: &[JobRef<'_>]) -> Result<Self, Error> {
        let mut keys: Vec<K> = Vec::new();
        let mut slot = Vec::with_capacity(refs.len());
        // Keyed by the key's address (and length): the same slice or the
        // same `RoundKeys` is expanded/copied once.
        let mut seen: HashMap<(usize, usize), usize> = HashMap::new();
        let mut last: Option<(&[u8], usize)> = None;
        for (job, r) in refs.iter().enumerate() {
            let idx = match r.key {
                Key::Expanded(rk) => {
                    let id = (rk as *const RoundKeys as usize, usize::MAX);
                    *seen.entry(id).or_insert_with(|| {
                        keys.push(K::copy_of(rk));
                        keys.len() - 1
                    })
                }
                Key::Bytes(b) => {
                    let id = (b.as_ptr() as usize, b.len());
                    let idx = if let Some(&i) = seen.get(&id) {
                        i
                    } else if let Some((_, i)) = last.filter(|(lb, _)| ct_eq(lb, b)) {
                        i
                    } else {
                        keys.push(K::expand(b).map_err(|error| Error::Key { job, error })?);
                        keys.len() - 1
                    };
                    seen.insert(id, idx);
                    last = Some((b, idx));
                    idx
                }
            };
            slot.push(idx);
        }
        Ok(KeySet { keys, slot })
    }

    fn get(&self, job: usize) -> &K {
        &self.keys[self.slot[job]]
    }
}

/// Equality without an early exit on the first differing byte.
fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

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
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// (mode, key, iv, data)
    type Case = (Mode, Vec<u8>, [u8; 16], Vec<u8>);

    /// The VAES path's logic — the same kernel code with each zmm replaced
    /// by four xmm registers: 4×4 transposes, partial chunks, idle lanes,
    /// 1/2/4/8 groups, keys in registers for a shared key, and the 32-lane
    /// scheduler (refill, compaction) — against the 8-lane AES-NI engine
    /// (itself checked against RustCrypto in `tests/`). Runs on any CPU
    /// with AES-NI, VAES or not.
    #[test]
    fn scheduler_with_32_lanes() {
        if !kernels::has_aesni() {
            return;
        }
        let wide = MultiStream {
            backend: Backend::Vaes,
            engine: Engine::Simd(Simd::AesniAsVaes),
        };
        let narrow = MultiStream::new(Backend::Aesni).unwrap();
        let mut rng = StdRng::seed_from_u64(32);
        for trial in 0..80 {
            let n = match trial % 3 {
                0 => rng.random_range(1..=8),
                1 => rng.random_range(25..=40),
                _ => rng.random_range(1..=100),
            };
            let mode0 = Mode::ALL[rng.random_range(0..4)];
            // Every fourth trial: one key for all streams (the VAES
            // kernel's keys-in-registers path).
            let klen0 = [16, 24, 32][rng.random_range(0..3)];
            let key0: Vec<u8> = (0..klen0).map(|_| rng.random()).collect();
            let one_key = trial % 4 == 3;
            let cases: Vec<Case> = (0..n)
                .map(|_| {
                    let mode = if trial % 2 == 0 {
                        mode0
                    } else {
                        Mode::ALL[rng.random_range(0..4)]
                    };
                    let klen = [16, 24, 32][rng.random_range(0..3)];
                    let len = if mode.needs_whole_blocks() {
                        16 * rng.random_range(0..=64)
                    } else {
                        rng.random_range(0..=1024)
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
            let mut results = Vec::new();
            for engine in [&wide, &narrow] {
                let mut outs: Vec<Vec<u8>> = cases.iter().map(|c| vec![0; c.3.len()]).collect();
                let mut jobs: Vec<Job<'_>> = cases
                    .iter()
                    .zip(outs.iter_mut())
                    .map(|(c, o)| Job::new(c.0, &c.1, c.2, &c.3, o))
                    .collect();
                engine.process(&mut jobs).unwrap();
                let ivs: Vec<[u8; 16]> = jobs.iter().map(|j| j.iv).collect();
                results.push((outs, ivs));
            }
            assert!(results[0] == results[1], "trial {trial}: {n} streams");
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
