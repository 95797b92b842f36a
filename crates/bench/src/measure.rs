//! Timing: contenders of one comparison run round-robin, best of the
//! repetitions (the machine may be shared: the best repetition is the one
//! least disturbed, and round-robin gives every contender the same load).
//! Wall-clock time by default; [`measure_group_on_cpu`] counts only the
//! time the thread ran on a CPU (`CLOCK_THREAD_CPUTIME_ID`), which leaves
//! out the time other processes took the core from it.

use aesflow_cipher::KeySize;
use std::time::{Duration, Instant};

/// A thing to time: processes a known number of bytes per call.
pub type Contender<'a> = Box<dyn FnMut() + 'a>;

/// Best-of-`reps` throughputs in bytes/s of several contenders that each
/// process `bytes` bytes per call, spending about `total` on each.
pub fn measure_group(
    bytes: usize,
    total: Duration,
    reps: usize,
    contenders: &mut [Contender<'_>],
) -> Vec<f64> {
    let sizes = vec![bytes; contenders.len()];
    measure_group_sized(&sizes, total, reps, contenders)
}

/// [`measure_group`] for contenders that process different numbers of
/// bytes per call: `bytes[i]` for `contenders[i]`.
///
/// # Panics
///
/// If `bytes` and `contenders` differ in length.
pub fn measure_group_sized(
    bytes: &[usize],
    total: Duration,
    reps: usize,
    contenders: &mut [Contender<'_>],
) -> Vec<f64> {
    timed_group(bytes, total, reps, contenders, Instant::now)
}

/// [`measure_group_sized`] timed by the thread's on-CPU time
/// ([`on_cpu`]); wall-clock time where that clock is missing.
///
/// # Panics
///
/// If `bytes` and `contenders` differ in length.
pub fn measure_group_on_cpu(
    bytes: &[usize],
    total: Duration,
    reps: usize,
    contenders: &mut [Contender<'_>],
) -> Vec<f64> {
    match on_cpu() {
        Some(_) => timed_group(bytes, total, reps, contenders, OnCpu::now),
        None => measure_group_sized(bytes, total, reps, contenders),
    }
}

/// Time this thread has run on a CPU (`CLOCK_THREAD_CPUTIME_ID`), if the
/// system has that clock.
pub fn on_cpu() -> Option<Duration> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Some(Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    None
}

/// A reading of [`on_cpu`].
#[derive(Clone, Copy)]
struct OnCpu(Duration);

impl OnCpu {
    fn now() -> OnCpu {
        OnCpu(on_cpu().unwrap_or_default())
    }
}

/// A point in time of a clock: the time elapsed since.
trait Clock: Copy {
    fn elapsed(&self) -> Duration;
}

impl Clock for Instant {
    fn elapsed(&self) -> Duration {
        Instant::elapsed(self)
    }
}

impl Clock for OnCpu {
    fn elapsed(&self) -> Duration {
        OnCpu::now().0.saturating_sub(self.0)
    }
}

/// The round-robin loop of [`measure_group_sized`] on clock `now`.
fn timed_group<C: Clock>(
    bytes: &[usize],
    total: Duration,
    reps: usize,
    contenders: &mut [Contender<'_>],
    now: fn() -> C,
) -> Vec<f64> {
    assert_eq!(bytes.len(), contenders.len(), "one size per contender");
    let reps = reps.max(1);
    let per_rep = total / reps as u32;
    let iters: Vec<usize> = contenders
        .iter_mut()
        .map(|f| {
            f(); // warm up
            let t = now();
            f();
            let once = t.elapsed().max(Duration::from_nanos(20));
            ((per_rep.as_secs_f64() / once.as_secs_f64()) as usize).max(1)
        })
        .collect();
    let mut best = vec![f64::INFINITY; contenders.len()];
    for _ in 0..reps {
        for ((f, &n), b) in contenders.iter_mut().zip(&iters).zip(best.iter_mut()) {
            let t = now();
            for _ in 0..n {
                f();
            }
            *b = b.min(t.elapsed().as_secs_f64() / n as f64);
        }
    }
    best.iter().zip(bytes).map(|(t, &n)| n as f64 / t).collect()
}

/// Best-of-`reps` throughput in bytes/s of one function.
pub fn measure(bytes: usize, total: Duration, reps: usize, f: impl FnMut()) -> f64 {
    measure_group(bytes, total, reps, &mut [Box::new(f)])[0]
}

/// Best wall-clock seconds of `f` over `reps` runs after one warm-up.
pub fn best_seconds(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    (0..reps.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// A zeroed buffer of `n` bytes whose allocation is `slack` bytes longer
/// (`aesflow bench --buffer-slack`). Buffers allocated one after another
/// then start `n + slack` bytes (plus the allocator's header) apart, which
/// decides which L1 sets the streams' blocks at equal offsets share: with
/// no slack, glibc puts consecutive 16 KiB buffers 16 bytes past multiples
/// of 4 KiB apart, so four streams map to each set.
pub fn buffer(n: usize, slack: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n + slack);
    v.resize(n, 0);
    v
}

/// Deterministic pseudo-random bytes (xorshift).
pub fn fill(buf: &mut [u8]) {
    let mut x: u32 = 0x1234_5678;
    for b in buf {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
}

/// The benchmark key of a key size.
pub fn test_key(size: KeySize) -> Vec<u8> {
    (0..size.bytes() as u8)
        .map(|i| i.wrapping_mul(29).wrapping_add(7))
        .collect()
}

/// `64 B`, `16 KiB`, `256 MiB`.
pub fn human_size(n: u64) -> String {
    if n >= 1 << 30 && n.is_multiple_of(1 << 30) {
        format!("{} GiB", n >> 30)
    } else if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_has_its_length_and_slack() {
        let v = buffer(100, 64);
        assert_eq!(v.len(), 100);
        assert!(v.capacity() >= 164);
        assert!(v.iter().all(|&b| b == 0));
    }

    #[test]
    fn sizes_are_human() {
        assert_eq!(human_size(64), "64 B");
        assert_eq!(human_size(16384), "16 KiB");
        assert_eq!(human_size(256 << 20), "256 MiB");
        assert_eq!(human_size(1 << 30), "1 GiB");
        assert_eq!(human_size(1000), "1000 B");
    }

    #[test]
    fn on_cpu_time_advances_with_work() {
        let Some(a) = on_cpu() else {
            return;
        };
        let mut v = vec![0u8; 1 << 20];
        for _ in 0..20 {
            fill(std::hint::black_box(&mut v));
        }
        assert!(on_cpu().unwrap() > a);
        let mut w = vec![0u8; 1 << 12];
        let bps = measure_group_on_cpu(
            &[1 << 12],
            Duration::from_millis(5),
            2,
            &mut [Box::new(|| fill(std::hint::black_box(&mut w)))],
        );
        assert!(bps[0] > 0.0 && bps[0].is_finite());
    }

    #[test]
    fn faster_contender_measures_faster() {
        let mut v = vec![0u8; 1 << 16];
        let mut w = vec![0u8; 1 << 16];
        let bps = measure_group(
            1 << 16,
            Duration::from_millis(20),
            2,
            &mut [
                Box::new(|| fill(std::hint::black_box(&mut v[..1024]))),
                Box::new(|| fill(std::hint::black_box(&mut w[..]))),
            ],
        );
        // The first does 1/64 of the work for the same declared bytes.
        assert!(bps[0] > bps[1], "{bps:?}");
    }
}
