//! The thread pool: persistent workers, created once and reused.
//!
//! A [`Pool`] owns `n` worker threads for its whole life; parallel operations
//! split their input into pieces and run them on those workers — no thread
//! is spawned per call. A one-thread pool runs everything inline on the
//! calling thread (no hand-off at all), which is what the "one thread"
//! benchmarks measure.
//!
//! The workers are a `rayon` thread pool: running work that *borrows* the
//! caller's buffer on threads that outlive the call needs lifetime erasure,
//! i.e. `unsafe`, which this crate forbids; rayon-core is the audited
//! implementation of exactly that, with work stealing for nested jobs (files
//! processed concurrently, each one split into chunks).

use crate::{Error, Result};
use std::sync::OnceLock;

/// Bytes per piece for single-pass streaming operations (CTR, ECB, CBC
/// decryption): big enough to amortize the hand-off, small enough that a
/// piece stays in a core's L2 cache.
pub const PIECE: usize = 256 * 1024;

/// A reusable pool of worker threads.
pub struct Pool {
    inner: Option<rayon::ThreadPool>,
    threads: usize,
    /// The I/O loops' workers (one more than `threads`), created on first
    /// use; `None` inside for a one-thread pool.
    io: OnceLock<Option<rayon::ThreadPool>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pool({} threads)", self.threads)
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
        let inner = if threads == 1 {
            None
        } else {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(|i| format!("aesflow-{i}"))
                    .build()
                    .map_err(|e| {
                        Error::InvalidInput(format!("cannot start worker threads: {e}"))
                    })?,
            )
        };
        Ok(Pool {
            inner,
            threads,
            io: OnceLock::new(),
        })
    }

    /// The one-thread pool: everything runs on the calling thread.
    pub fn inline() -> &'static Pool {
        static INLINE: Pool = Pool {
            inner: None,
            threads: 1,
            io: OnceLock::new(),
        };
        &INLINE
    }

    /// The shared pool with one worker per available CPU, created on first use.
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
        match &self.inner {
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
        match &self.inner {
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
        match &self.inner {
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
        match &self.inner {
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

    fn io_pool(&self) -> Option<&rayon::ThreadPool> {
        self.io
            .get_or_init(|| {
                if self.threads == 1 {
                    return None;
                }
                rayon::ThreadPoolBuilder::new()
                    .num_threads(self.threads + 1)
                    .thread_name(|i| format!("aesflow-io-{i}"))
                    .build()
                    .ok()
            })
            .as_ref()
            .or(self.inner.as_ref())
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
        match &self.inner {
            Some(p) if items.len() > 1 => p.install(|| {
                use rayon::prelude::*;
                items.par_iter().with_max_len(1).map(&f).collect()
            }),
            _ => items.iter().map(f).collect(),
        }
    }

    /// Call `f` on every item across the workers.
    pub fn for_each_mut<T: Send>(&self, items: &mut [T], f: impl Fn(&mut T) + Sync + Send) {
        match &self.inner {
            Some(p) if items.len() > 1 => p.install(|| {
                use rayon::prelude::*;
                items.par_iter_mut().with_max_len(1).for_each(&f)
            }),
            _ => items.iter_mut().for_each(f),
        }
    }
}
