//! The engine: a chosen backend, and the driver that expands keys, groups
//! the jobs into classes (key size × mode), runs each class through the
//! lanes and finishes partial final blocks.

use crate::kernels::{self, Batch, Sched, Simd, Stream, StreamData, wipe};
use crate::portable;
use crate::{Backend, Error, InPlaceJob, Job, Key, Mode, RoundKeys, check_job};
use aesflow_cipher::{Kernel, KernelError, KeyError};
use core::fmt;
use core::hash::{BuildHasherDefault, Hasher};
use std::collections::HashMap;

/// A resolved backend.
#[derive(Clone, Copy)]
pub(crate) enum Engine {
    Simd(Simd),
    Portable(&'static dyn Kernel),
}

/// The multi-stream engine with a chosen backend.
#[derive(Clone, Copy)]
pub struct MultiStream {
    pub(crate) backend: Backend,
    pub(crate) engine: Engine,
    /// Lanes in flight for streams with keys of their own (see
    /// [`MultiStream::with_own_key_lanes`]).
    pub(crate) own_key_lanes: usize,
    /// The 512-bit engine's batched path.
    pub(crate) batch: Batch,
}

impl fmt::Debug for MultiStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("MultiStream");
        d.field("backend", &self.backend);
        match self.engine {
            Engine::Portable(k) => d.field("kernel", &k.name()),
            Engine::Simd(_) => d.field("batch", &self.batch),
        };
        d.field("lanes", &self.lanes())
            .field("own_key_lanes", &self.own_key_lanes)
            .finish()
    }
}

impl Default for MultiStream {
    fn default() -> Self {
        Self::auto()
    }
}

impl MultiStream {
    /// An engine on `backend`; an error if the CPU lacks it. `Auto` is
    /// [`auto`](Self::auto), the engine of the fastest constant-time kernel
    /// of this CPU; `Portable` runs each stream alone on that kernel. The
    /// library never reads the environment: an application that honours
    /// `AESFLOW_KERNEL` resolves it at its edge
    /// ([`default_kernel`](aesflow_cipher::default_kernel)) and passes the
    /// kernel to [`with_kernel`](Self::with_kernel).
    pub fn new(backend: Backend) -> Result<Self, Error> {
        let best = aesflow_cipher::detect_best();
        match backend {
            Backend::Auto => Self::with_kernel(best),
            Backend::Portable => Self::portable_with_kernel(best),
            b => Self::hardware(b).ok_or_else(|| Error::BackendUnavailable {
                backend,
                available: Backend::available(),
            }),
        }
    }

    /// The SIMD engine of a hardware backend, if this CPU runs it.
    fn hardware(backend: Backend) -> Option<Self> {
        let simd = backend.simd().filter(|_| backend.is_available())?;
        Some(MultiStream {
            backend,
            engine: Engine::Simd(simd),
            own_key_lanes: simd.own_key_lanes(&aesflow_plan::Plan::for_this_cpu()),
            batch: Batch::Quads,
        })
    }

    /// The engine that follows `kernel` ([`Backend::for_kernel`]): the
    /// `vaes` kernel gives the 512-bit VAES engine, `vaes256` the 256-bit
    /// one, `aesni` the 128-bit AES-NI engine, a portable kernel runs each
    /// stream alone on that kernel. An error if the CPU lacks the kernel.
    pub fn with_kernel(kernel: &'static dyn Kernel) -> Result<Self, Error> {
        let unavailable = || kernel_unavailable(kernel);
        if !kernel.is_available() {
            return Err(unavailable());
        }
        match Backend::for_kernel(kernel) {
            Backend::Portable => Self::portable_with_kernel(kernel),
            b => Self::hardware(b).ok_or_else(unavailable),
        }
    }

    /// The portable backend on a chosen `aesflow-cipher` kernel.
    pub fn portable_with_kernel(kernel: &'static dyn Kernel) -> Result<Self, Error> {
        if !kernel.is_available() {
            return Err(kernel_unavailable(kernel));
        }
        Ok(MultiStream {
            backend: Backend::Portable,
            engine: Engine::Portable(kernel),
            own_key_lanes: 1,
            batch: Batch::Pairs,
        })
    }

    /// The engine of the best kernel this CPU runs
    /// ([`detect_best`](aesflow_cipher::detect_best)).
    pub fn auto() -> Self {
        Self::with_kernel(aesflow_cipher::detect_best())
            .expect("the best kernel of this CPU is available")
    }

    /// The concrete backend.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Streams kept in flight (at most; streams with keys of their own may
    /// run on fewer, [`own_key_lanes`](Self::own_key_lanes)).
    pub fn lanes(&self) -> usize {
        self.backend.lanes()
    }

    /// Streams kept in flight when they have keys of their own. With VAES
    /// on a CPU that starts one 512-bit AES instruction per cycle (Zen 4)
    /// this is 16 of the 32 lanes: each lane's key is then a memory operand
    /// per round, the loads bound the rounds, and four register chains
    /// already keep the AES unit as busy as eight. Otherwise
    /// [`lanes`](Self::lanes).
    pub fn own_key_lanes(&self) -> usize {
        self.own_key_lanes
    }

    /// This engine with the lanes `plan` chooses for streams with keys of
    /// their own (the 512-bit engine's; the others use all their lanes).
    /// Without a plan an engine follows [`Plan::for_this_cpu`], the table
    /// of measured CPUs.
    ///
    /// [`Plan::for_this_cpu`]: aesflow_plan::Plan::for_this_cpu
    pub fn with_plan(mut self, plan: &aesflow_plan::Plan) -> Self {
        if let Engine::Simd(simd) = self.engine {
            self.own_key_lanes = simd.own_key_lanes(plan);
        }
        self
    }

    /// This engine with at most `lanes` streams in flight when they have
    /// keys of their own (rounded down to a multiple of 4, between 4 and
    /// [`lanes`](Self::lanes); a backend with fewer lanes keeps its own).
    /// A tuning knob for CPUs whose best lane count differs.
    pub fn with_own_key_lanes(mut self, lanes: usize) -> Self {
        let max = self.lanes();
        self.own_key_lanes = (lanes / 4 * 4).clamp(4.min(max), max);
        self
    }

    /// Run every job (scatter/gather). Outputs are identical to running each
    /// stream alone; each job's `iv` is updated to its continuation value.
    /// All jobs are validated first: on error nothing has been written.
    pub fn process(&self, jobs: &mut [Job<'_>]) -> Result<(), Error> {
        self.process_jobs(jobs)
    }

    /// [`process`](Self::process) with each job's data replaced by its result.
    pub fn process_in_place(&self, jobs: &mut [InPlaceJob<'_>]) -> Result<(), Error> {
        self.process_jobs(jobs)
    }

    /// Run jobs of either kind and write back their continuation values.
    fn process_jobs<J: AsJobRef>(&self, jobs: &mut [J]) -> Result<(), Error> {
        let (ivs, refs): (Vec<_>, Vec<_>) = jobs.iter_mut().map(J::split).unzip();
        for (iv, next) in ivs.into_iter().zip(self.process_refs(refs)?) {
            *iv = next;
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
                |code, nr, streams| {
                    kernels::run(simd, self.own_key_lanes, self.batch, code, nr, streams)
                },
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

/// The error for a kernel this CPU cannot run.
fn kernel_unavailable(kernel: &dyn Kernel) -> Error {
    Error::Kernel(KernelError::Unavailable {
        name: kernel.name(),
        available: aesflow_cipher::available_kernels()
            .iter()
            .map(|k| k.name())
            .collect(),
    })
}

/// Key material a backend runs with (`'k`: the caller's expanded keys,
/// which it may borrow).
trait KeyMaterial<'k>: Sized {
    fn expand(key: &[u8]) -> Result<Self, KeyError>;
    fn copy_of(keys: &'k RoundKeys) -> Self;
    fn rounds(&self) -> usize;
}

impl<'k> KeyMaterial<'k> for Sched<'k> {
    fn expand(key: &[u8]) -> Result<Self, KeyError> {
        Sched::expand(key)
    }
    fn copy_of(keys: &'k RoundKeys) -> Self {
        Sched::of(keys)
    }
    fn rounds(&self) -> usize {
        self.nr()
    }
}

impl KeyMaterial<'_> for RoundKeys {
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
fn run_all<'k, K: KeyMaterial<'k>>(
    refs: Vec<JobRef<'k>>,
    mut run_class: impl FnMut(u8, usize, &mut [Stream<'_, K>]),
    encrypt_block: impl Fn(&K, &mut [u8; 16]),
) -> Result<Vec<[u8; 16]>, Error> {
    let keyset = KeySet::<K>::build(&refs)?;
    let mut ivs: Vec<[u8; 16]> = refs.iter().map(|r| r.iv).collect();
    let mut classes: Vec<Vec<Stream<'_, K>>> = (0..12).map(|_| Vec::new()).collect();
    let mut tails: Vec<(usize, Mode, StreamData<'_>)> = Vec::new();
    let n_jobs = refs.len();
    for (job, r) in refs.into_iter().enumerate() {
        let whole = r.data.len() / 16 * 16;
        let (head, tail) = r.data.split_at(whole);
        if tail.len() > 0 {
            tails.push((job, r.mode, tail));
        }
        if whole > 0 {
            let keys = keyset.get(job);
            let class = (keys.rounds() - 10) / 2 * 4 + r.mode.code() as usize;
            if classes[class].capacity() == 0 {
                classes[class].reserve(n_jobs - job);
            }
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
            wipe(&mut s.state, [0; 16]);
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
        wipe(&mut ks, [0; 16]);
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

impl<'a> JobRef<'a> {
    fn new(key: Key<'a>, iv: [u8; 16], data: StreamData<'a>, mode: Mode) -> Self {
        JobRef {
            key,
            iv,
            data,
            mode,
        }
    }
}

/// A job of either kind: its IV (to update) and the engine's view of it.
trait AsJobRef {
    fn split(&mut self) -> (&mut [u8; 16], JobRef<'_>);
}

impl AsJobRef for Job<'_> {
    fn split(&mut self) -> (&mut [u8; 16], JobRef<'_>) {
        let data = StreamData::Split {
            input: self.input,
            output: &mut *self.output,
        };
        let r = JobRef::new(self.key, self.iv, data, self.mode);
        (&mut self.iv, r)
    }
}

impl AsJobRef for InPlaceJob<'_> {
    fn split(&mut self) -> (&mut [u8; 16], JobRef<'_>) {
        let data = StreamData::InPlace(&mut *self.data);
        let r = JobRef::new(self.key, self.iv, data, self.mode);
        (&mut self.iv, r)
    }
}

/// The expanded keys of one call: each distinct key once.
struct KeySet<K> {
    keys: Vec<K>,
    slot: Vec<usize>,
}

/// Hashes a key's address and length (see [`KeySet::build`]) by one
/// multiplication: the keys of the table are addresses the caller's
/// slices already occupy, not attacker-chosen values, so SipHash's
/// flooding resistance buys nothing and costs a packet call's budget.
#[derive(Default)]
struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(29) ^ i).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl<'k, K: KeyMaterial<'k>> KeySet<K> {
    fn build(refs: &[JobRef<'k>]) -> Result<Self, Error> {
        let mut keys: Vec<K> = Vec::with_capacity(refs.len());
        let mut slot = Vec::with_capacity(refs.len());
        // Keyed by the key's address (and length): the same slice or the
        // same `RoundKeys` is expanded/copied once.
        let mut seen: HashMap<(usize, usize), usize, BuildHasherDefault<AddrHasher>> =
            HashMap::with_capacity_and_hasher(refs.len(), Default::default());
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
