//! The engine: a chosen backend, and the driver that expands keys, groups
//! the jobs into classes (key size × mode), runs each class through the
//! lanes and finishes partial final blocks.

use crate::kernels::{self, Batch, Sched, Simd, Stream, StreamData, wipe};
use crate::portable;
use crate::scratch::{CLASS_SHIFT, KeyTable, Tail, counting_sort, recycle, run_key};
use crate::{Backend, Error, InPlaceJob, Job, Key, Mode, RoundKeys, Scratch, check_job};
use aesflow_cipher::{Kernel, KernelError, KeyError};
use core::fmt;

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
    /// See [`MultiStream::with_shared_lane_pointers`].
    pub(crate) shared_pointers: bool,
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
            .field("shared_pointers", &self.shared_pointers)
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
            batch: Batch::SinglesAtFour,
            shared_pointers: false,
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
            shared_pointers: false,
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

    /// This engine with one lane pointer serving a stream's input and
    /// output where it can (`on`), or not (the default). When every stream
    /// of a call's eight groups of lanes has its output at the same
    /// distance from its input (in place, or buffers allocated in step),
    /// the 512-bit engine's CBC loop for streams with keys of their own can
    /// read one pointer per lane instead of two and load each stream's next
    /// blocks right after storing its last ones. That pays when the data
    /// is in cache and costs when it streams from memory: on an AMD EPYC
    /// Zen 5, the 32-stream row of `aesflow bench --modes --mode-ops
    /// cbc-enc --streams 32` (32 buffers of 16 KiB encrypted again and
    /// again; the bench's engine built with this setting on) ran at
    /// 0.102-0.106 cycles per byte with it against 0.110-0.116 without,
    /// while 64 streams of 1 MiB in rounds of 16 KiB per stream (as the
    /// Python package's driver runs them) ran at 9.0-9.8 GB/s with it
    /// against 9.6-11.1 without (12.2-13.8 against 14.7-16.4 in place).
    /// Outputs are the same either way.
    pub fn with_shared_lane_pointers(mut self, on: bool) -> Self {
        self.shared_pointers = on;
        self
    }

    /// Run every job (scatter/gather). Outputs are identical to running each
    /// stream alone; each job's `iv` is updated to its continuation value.
    /// All jobs are validated first: on error nothing has been written.
    ///
    /// Each call sets up its working storage afresh; a caller that makes
    /// many calls keeps a [`Scratch`] and calls
    /// [`process_with`](Self::process_with) instead.
    pub fn process(&self, jobs: &mut [Job<'_>]) -> Result<(), Error> {
        self.process_with(&mut Scratch::new(), jobs)
    }

    /// [`process`](Self::process) on the caller's working storage: once
    /// `scratch` has grown to the size of the calls, a call allocates
    /// none of the driver's tables again.
    pub fn process_with(&self, scratch: &mut Scratch, jobs: &mut [Job<'_>]) -> Result<(), Error> {
        self.process_jobs(scratch, jobs)
    }

    /// [`process`](Self::process) with each job's data replaced by its result.
    pub fn process_in_place(&self, jobs: &mut [InPlaceJob<'_>]) -> Result<(), Error> {
        self.process_in_place_with(&mut Scratch::new(), jobs)
    }

    /// [`process_in_place`](Self::process_in_place) on the caller's working
    /// storage (as [`process_with`](Self::process_with)).
    pub fn process_in_place_with(
        &self,
        scratch: &mut Scratch,
        jobs: &mut [InPlaceJob<'_>],
    ) -> Result<(), Error> {
        self.process_jobs(scratch, jobs)
    }

    /// Run jobs of either kind and write back their continuation values.
    fn process_jobs<'k, J: JobView<'k>>(
        &self,
        scratch: &mut Scratch,
        jobs: &mut [J],
    ) -> Result<(), Error> {
        // Validate everything before writing anything.
        for (job, j) in jobs.iter().enumerate() {
            let (input, output) = j.lens();
            check_job(job, j.key(), j.mode(), input, output)?;
        }
        match self.engine {
            Engine::Simd(simd) => run_all::<Sched<'k>, J>(
                jobs,
                scratch,
                |code, nr, streams| {
                    let lanes = kernels::Lanes {
                        simd,
                        own_key_lanes: self.own_key_lanes,
                        batch: self.batch,
                        shared_pointers: self.shared_pointers,
                    };
                    kernels::run(lanes, code, nr, streams)
                },
                kernels::encrypt_block,
            )?,
            Engine::Portable(k) => run_all::<RoundKeys, J>(
                jobs,
                scratch,
                |code, _, streams| {
                    for s in streams.iter_mut() {
                        portable::run_stream(k, code, s);
                    }
                },
                |keys, block| portable::encrypt_block(k, keys, block),
            )?,
        }
        for (j, iv) in jobs.iter_mut().zip(&scratch.ivs) {
            j.set_iv(*iv);
        }
        scratch.wipe_ivs();
        Ok(())
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
/// and mode, longest first) and partial tails, run the classes, finish the
/// tails; the continuation values are left in `scratch.ivs`.
fn run_all<'k, K: KeyMaterial<'k>, J: JobView<'k>>(
    jobs: &mut [J],
    scratch: &mut Scratch,
    mut run_class: impl FnMut(u8, usize, &mut [Stream<'_, K>]),
    encrypt_block: impl Fn(&K, &mut [u8; 16]),
) -> Result<(), Error> {
    let mut keys: Vec<K> = recycle(core::mem::take(&mut scratch.keys));
    if let Err(e) = key_slots(jobs, &mut keys, &mut scratch.slot, &mut scratch.seen) {
        // Dropping the schedules wipes them.
        scratch.keys = recycle(keys);
        return Err(e);
    }
    let slot = &scratch.slot;
    let ivs = &mut scratch.ivs;
    ivs.clear();
    ivs.extend(jobs.iter().map(J::iv));
    // The order to run the whole-block streams in: classes side by side,
    // each longest first by length class (the lanes start streams longest
    // first and find them in order or nearly).
    let order = &mut scratch.order;
    order.clear();
    for (job, j) in jobs.iter().enumerate() {
        let blocks = j.lens().0 / 16;
        if blocks > 0 {
            order.push((run_key(slot[job].1, blocks), job));
        }
    }
    counting_sort(order, &mut scratch.sorted);
    let mut heads: Vec<Option<StreamData<'_>>> = recycle(core::mem::take(&mut scratch.heads));
    let mut tails: Vec<Tail<'_>> = recycle(core::mem::take(&mut scratch.tails));
    for (job, j) in jobs.iter_mut().enumerate() {
        let mode = j.mode();
        let data = j.data();
        let whole = data.len() / 16 * 16;
        let (head, tail) = data.split_at(whole);
        if tail.len() > 0 {
            tails.push(Tail {
                job,
                mode,
                data: tail,
            });
        }
        heads.push((whole > 0).then_some(head));
    }
    let mut streams: Vec<Stream<'_, K>> = recycle(core::mem::take(&mut scratch.streams));
    streams.extend(order.iter().map(|&(_, job)| Stream {
        data: heads[job].take().expect("a stream with whole blocks"),
        keys: &keys[slot[job].0],
        state: ivs[job],
        job,
    }));
    let mut from = 0;
    while from < streams.len() {
        let class = order[from].0 >> CLASS_SHIFT;
        let to = from + order[from..].partition_point(|o| o.0 >> CLASS_SHIFT == class);
        let this = &mut streams[from..to];
        let class = class as usize;
        run_class((class % 4) as u8, 10 + 2 * (class / 4), this);
        for s in this.iter_mut() {
            ivs[s.job] = s.state;
            wipe(&mut s.state, [0; 16]);
        }
        from = to;
    }
    // Partial final blocks (CFB/OFB): one keystream block each.
    for t in tails.drain(..) {
        let mut ks = ivs[t.job];
        encrypt_block(&keys[slot[t.job].0], &mut ks);
        match t.data {
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
        if t.mode == Mode::Ofb {
            ivs[t.job] = ks;
        }
        wipe(&mut ks, [0; 16]);
    }
    scratch.streams = recycle(streams);
    scratch.heads = recycle(heads);
    scratch.tails = recycle(tails);
    // Dropping the schedules wipes the expanded ones.
    scratch.keys = recycle(keys);
    Ok(())
}

/// Each job's key schedule and class: `slot[job] = (index in keys, class)`,
/// a class being key size × mode (`(Nr - 10) / 2 * 4 + mode code`). A
/// key is expanded (or borrowed) once per distinct address, found through
/// `seen`; consecutive jobs with equal key bytes share one expansion too.
fn key_slots<'k, K: KeyMaterial<'k>, J: JobView<'k>>(
    jobs: &[J],
    keys: &mut Vec<K>,
    slot: &mut Vec<(usize, usize)>,
    seen: &mut KeyTable,
) -> Result<(), Error> {
    slot.clear();
    seen.start(jobs.len());
    let mut last: Option<(&[u8], usize)> = None;
    for (job, j) in jobs.iter().enumerate() {
        let idx = match j.key() {
            Key::Expanded(rk) => match seen.find(rk as *const RoundKeys as usize, usize::MAX) {
                Ok(i) => i,
                Err(pos) => {
                    keys.push(K::copy_of(rk));
                    let i = keys.len() - 1;
                    seen.insert(pos, rk as *const RoundKeys as usize, usize::MAX, i);
                    i
                }
            },
            Key::Bytes(b) => {
                let i = match seen.find(b.as_ptr() as usize, b.len()) {
                    Ok(i) => i,
                    Err(pos) => {
                        let i = if let Some((_, i)) = last.filter(|(lb, _)| ct_eq(lb, b)) {
                            i
                        } else {
                            keys.push(K::expand(b).map_err(|error| Error::Key { job, error })?);
                            keys.len() - 1
                        };
                        seen.insert(pos, b.as_ptr() as usize, b.len(), i);
                        i
                    }
                };
                last = Some((b, i));
                i
            }
        };
        let class = (keys[idx].rounds() - 10) / 2 * 4 + j.mode().code() as usize;
        slot.push((idx, class));
    }
    Ok(())
}

/// A job of either kind as the driver reads it (`'k`: the borrow of its
/// key).
pub(crate) trait JobView<'k> {
    fn key(&self) -> Key<'k>;
    fn mode(&self) -> Mode;
    fn iv(&self) -> [u8; 16];
    fn set_iv(&mut self, iv: [u8; 16]);
    /// Input and output lengths.
    fn lens(&self) -> (usize, usize);
    fn data(&mut self) -> StreamData<'_>;
}

/// The accessors of the fields both job kinds share.
macro_rules! job_fields {
    ($k:lifetime) => {
        fn key(&self) -> Key<$k> {
            self.key
        }
        fn mode(&self) -> Mode {
            self.mode
        }
        fn iv(&self) -> [u8; 16] {
            self.iv
        }
        fn set_iv(&mut self, iv: [u8; 16]) {
            self.iv = iv;
        }
    };
}

impl<'k> JobView<'k> for Job<'k> {
    job_fields!('k);
    fn lens(&self) -> (usize, usize) {
        (self.input.len(), self.output.len())
    }
    fn data(&mut self) -> StreamData<'_> {
        StreamData::Split {
            input: self.input,
            output: &mut *self.output,
        }
    }
}

impl<'k> JobView<'k> for InPlaceJob<'k> {
    job_fields!('k);
    fn lens(&self) -> (usize, usize) {
        (self.data.len(), self.data.len())
    }
    fn data(&mut self) -> StreamData<'_> {
        StreamData::InPlace(&mut *self.data)
    }
}

/// Equality without an early exit on the first differing byte.
fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
