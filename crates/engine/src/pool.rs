//! The thread pool: persistent workers, created once and reused, and the
//! AES kernel they run.
//!
//! A [`Pool`] owns `n` worker threads for its whole life; parallel operations
//! split their input into pieces and run them on those workers — no thread
//! is spawned per call. A one-thread pool runs everything inline on the
//! calling thread (no hand-off at all), which is what the "one thread"
//! benchmarks measure.
//!
//! The pool also carries the AES kernel that keys set up for its work run
//! on ([`Pool::kernel`]): the fastest constant-time kernel of this CPU
//! unless the application chose another at its edge ([`Pool::with_kernel`];
//! the `aesflow` command passes [`aesflow_cipher::default_kernel`], which
//! honours `AESFLOW_KERNEL`). The choice is a value handed down, never
//! process-wide state: two pools in one process may run different kernels.
//! It carries the plan the same way ([`Pool::with_plan`], [`Pool::plan`]):
//! the variant of each operation (e.g. the fused GCM kernel's blocks per
//! group) that work on the pool runs, by default the table of measured CPUs
//! ([`Plan::for_this_cpu`]); the `aesflow` command and the Python package
//! pass the plan they resolved (`AESFLOW_PLAN`, a tuned plan file).
//!
//! The workers are a `rayon` thread pool: running work that *borrows* the
//! caller's buffer on threads that outlive the call needs lifetime erasure,
//! i.e. `unsafe`, which this crate forbids; rayon-core is the audited
//! implementation of exactly that, with work stealing for nested jobs (files
//! processed concurrently, each one split into chunks).

use crate::{Error, Result};
use aesflow_cipher::{Kernel, detect_best};
use aesflow_plan::Plan;
use std::sync::{Arc, OnceLock};

/// Bytes per piece for single-pass streaming operations (CTR, ECB, CBC
/// decryption): big enough to amortize the hand-off, small enough that a
/// piece stays in a core's L2 cache.
pub const PIECE: usize = 256 * 1024;

/// A reusable pool of worker threads and the AES kernel they run. Cloning
/// is cheap and shares the workers (e.g. to run them on another kernel).
#[derive(Clone)]
pub struct Pool {
    /// The workers; `None` for a one-thread pool (everything runs inline).
    workers: Option<Arc<Workers>>,
    threads: usize,
    /// The chosen kernel; `None`: [`detect_best`].
    kernel: Option<&'static dyn Kernel>,
    /// The chosen plan; `None`: [`Plan::for_this_cpu`].
    plan: Option<Plan>,
}

/// The worker threads of a pool of more than one thread.
struct Workers {
    compute: rayon::ThreadPool,
    /// The I/O loops' workers (one more than the compute threads), created
    /// on first use; `None` inside if they could not be started.
    io: OnceLock<Option<rayon::ThreadPool>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Pool({} threads, {}, {})",
            self.threads,
            self.kernel().name(),
            self.plan().describe()
        )
    }
}

/// The number of CPUs available to this process.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Pool {
    /// A pool with `threads` workers (`0`: one per available CPU).
    pub fn new(threads: usize) -> Result<Pool> {
        let threads = if threads == 0 {
            available_threads()
        } else {
            threads
        };
        if threads > 4096 {
            return Err(Error::InvalidInput(format!(
                "--threads {threads}: at most 4096"
            )));
        }
        let workers = if threads == 1 {
            None
        } else {
            let compute = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("aesflow-{i}"))
                .build()
                .map_err(|e| Error::InvalidInput(format!("cannot start worker threads: {e}")))?;
            Some(Arc::new(Workers {
                compute,
                io: OnceLock::new(),
            }))
        };
        Ok(Pool {
            workers,
            threads,
            kernel: None,
            plan: None,
        })
    }

    /// This pool (its workers shared) running `kernel`: keys set up for
    /// work on it ([`Pool::kernel`]) run on that kernel.
    pub fn with_kernel(mut self, kernel: &'static dyn Kernel) -> Pool {
        self.kernel = Some(kernel);
        self
    }

    /// The AES kernel of this pool: the one given to [`Pool::with_kernel`],
    /// else the fastest constant-time kernel of this CPU ([`detect_best`]).
    pub fn kernel(&self) -> &'static dyn Kernel {
        self.kernel.unwrap_or_else(detect_best)
    }

    /// This pool (its workers shared) following `plan`: the variants work
    /// on it runs ([`Pool::plan`]).
    pub fn with_plan(mut self, plan: Plan) -> Pool {
        self.plan = Some(plan);
        self
    }

    /// The plan of this pool: the one given to [`Pool::with_plan`], else
    /// the table of measured CPUs ([`Plan::for_this_cpu`]).
    pub fn plan(&self) -> Plan {
        self.plan.unwrap_or_else(Plan::for_this_cpu)
    }

    /// The one-thread pool: everything runs on the calling thread, on the
    /// fastest constant-time kernel.
    pub fn inline() -> &'static Pool {
        static INLINE: Pool = Pool {
            workers: None,
            threads: 1,
            kernel: None,
            plan: None,
        };
        &INLINE
    }

    /// The shared pool with one worker per available CPU, created on first
    /// use, on the fastest constant-time kernel (`Pool::global().clone()
    /// .with_kernel(k)` shares its workers on another).
    pub fn global() -> &'static Pool {
        static GLOBAL: OnceLock<Pool> = OnceLock::new();
        GLOBAL.get_or_init(|| Pool::new(0).expect("cannot start the worker threads"))
    }

    /// The number of threads work is spread over.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Run `f` on the pool (inline for a one-thread pool): inside it,
    /// `rayon` parallel iterators use this pool's workers.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match self.compute() {
            Some(p) => p.install(f),
            None => f(),
        }
    }

    /// Call `f(index, piece)` for every `piece`-byte piece of `data` (the last
    /// may be shorter), spread over the workers.
    pub fn for_each_piece<F>(&self, data: &mut [u8], piece: usize, f: F)
    where
        F: Fn(usize, &mut [u8]) + Sync + Send,
    {
        assert!(piece > 0);
        match self.compute() {
            Some(p) if data.len() > piece => p.install(|| {
                use rayon::prelude::*;
                data.par_chunks_mut(piece)
                    .enumerate()
                    .for_each(|(i, c)| f(i, c));
            }),
            _ => data
                .chunks_mut(piece)
                .enumerate()
                .for_each(|(i, c)| f(i, c)),
        }
    }

    /// Like [`Pool::for_each_piece`], stopping at the first error (which one
    /// is returned when several pieces fail is unspecified).
    pub fn try_for_each_piece<F, E>(
        &self,
        data: &mut [u8],
        piece: usize,
        f: F,
    ) -> std::result::Result<(), E>
    where
        F: Fn(usize, &mut [u8]) -> std::result::Result<(), E> + Sync + Send,
        E: Send,
    {
        assert!(piece > 0);
        match self.compute() {
            Some(p) if data.len() > piece => p.install(|| {
                use rayon::prelude::*;
                data.par_chunks_mut(piece)
                    .enumerate()
                    .try_for_each(|(i, c)| f(i, c))
            }),
            _ => data
                .chunks_mut(piece)
                .enumerate()
                .try_for_each(|(i, c)| f(i, c)),
        }
    }

    /// Run `f(i)` for `i in 0..n` across the workers, stopping at the first
    /// error.
    pub fn try_for_each_index<F, E>(&self, n: usize, f: F) -> std::result::Result<(), E>
    where
        F: Fn(usize) -> std::result::Result<(), E> + Sync + Send,
        E: Send,
    {
        match self.compute() {
            Some(p) if n > 1 => p.install(|| {
                use rayon::prelude::*;
                (0..n).into_par_iter().with_max_len(1).try_for_each(&f)
            }),
            _ => (0..n).try_for_each(f),
        }
    }

    /// The number of loops [`Pool::try_for_each_io_loop`] runs at once: one
    /// more than [`Pool::threads`] (1 for a one-thread pool).
    pub fn io_loops(&self) -> usize {
        match self.io_pool() {
            Some(p) => p.current_num_threads(),
            None => 1,
        }
    }

    /// The compute workers (`None` for a one-thread pool).
    fn compute(&self) -> Option<&rayon::ThreadPool> {
        self.workers.as_ref().map(|w| &w.compute)
    }

    fn io_pool(&self) -> Option<&rayon::ThreadPool> {
        let w = self.workers.as_ref()?;
        w.io.get_or_init(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(self.threads + 1)
                .thread_name(|i| format!("aesflow-io-{i}"))
                .build()
                .ok()
        })
        .as_ref()
        .or(Some(&w.compute))
    }

    /// Run `f(i)` for `i in 0..n` (`n` at most [`Pool::io_loops`]), each on
    /// its own thread, stopping at the first error: for loops that do
    /// blocking I/O between computations. They run on a second set of
    /// workers, one more than the pool's threads and created on first use,
    /// so that while one loop waits in the kernel (a write queued behind
    /// another on the same file, a disk) the cores keep computing. A
    /// one-thread pool runs the loops one after the other on the caller.
    pub fn try_for_each_io_loop<F, E>(&self, n: usize, f: F) -> std::result::Result<(), E>
    where
        F: Fn(usize) -> std::result::Result<(), E> + Sync + Send,
        E: Send,
    {
        match self.io_pool() {
            Some(p) if n > 1 => p.install(|| {
                use rayon::prelude::*;
                (0..n).into_par_iter().with_max_len(1).try_for_each(&f)
            }),
            _ => (0..n).try_for_each(f),
        }
    }

    /// Map `f` over `items` across the workers (results in order).
    pub fn map<T: Sync, R: Send>(&self, items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
        match self.compute() {
            Some(p) if items.len() > 1 => p.install(|| {
                use rayon::prelude::*;
                items.par_iter().with_max_len(1).map(&f).collect()
            }),
            _ => items.iter().map(f).collect(),
        }
    }

    /// Call `f` on every item across the workers.
    pub fn for_each_mut<T: Send>(&self, items: &mut [T], f: impl Fn(&mut T) + Sync + Send) {
        match self.compute() {
            Some(p) if items.len() > 1 => p.install(|| {
                use rayon::prelude::*;
                items.par_iter_mut().with_max_len(1).for_each(&f)
            }),
            _ => items.iter_mut().for_each(f),
        }
    }
}
