//! The host's measured figures for the platform comparison of the energy
//! model (the paper's Table 5 "this host" row): AES-128 CTR on 16 KiB with
//! the best kernel, in nanoseconds and nominal cycles per byte. The energy
//! crate takes these figures as an input; the CLI measures them here.

use crate::BenchError;
use crate::measure::measure;
use aesflow_cipher::{Aes, KeyExpansion, detect_best};
use serde::Serialize;
use std::time::Duration;

/// A live measurement of the host's fastest kernel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostFigures {
    /// Kernel name.
    pub kernel: String,
    /// Nanoseconds per byte (best of the runs).
    pub ns_per_byte: f64,
    /// Clock used to turn time into cycles (MHz).
    pub mhz: f64,
    /// Where the clock came from.
    pub mhz_source: String,
    /// Cycles per byte at that clock.
    pub cycles_per_byte: f64,
}

/// Measure AES-128 CTR on 16 KiB with the best kernel of this CPU: the
/// best of `runs` repetitions of about `reps` buffers each.
pub fn measure_host(runs: usize, reps: usize) -> Result<HostFigures, BenchError> {
    let kernel = detect_best();
    let aes = Aes::with_kernel(&[7u8; 16], kernel, KeyExpansion::Offline)
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    let mut buf = vec![0u8; 16384];
    let mut ctr = [0u8; 16];
    // About 1 µs per 16 KiB buffer at 16 GB/s: `reps` buffers per repetition.
    let per_run = Duration::from_nanos(1000 * reps.max(1) as u64);
    let bps = measure(buf.len(), per_run * runs.max(1) as u32, runs, || {
        aes.ctr_xor(&mut ctr, std::hint::black_box(&mut buf))
    });
    let (ghz, src) = crate::machine::cpuinfo().clock_ghz();
    let ns_per_byte = 1e9 / bps;
    Ok(HostFigures {
        kernel: kernel.name().to_string(),
        ns_per_byte,
        mhz: ghz * 1000.0,
        mhz_source: src,
        cycles_per_byte: ns_per_byte * ghz,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_figures_are_consistent() {
        let m = measure_host(2, 8).unwrap();
        assert!(m.ns_per_byte > 0.0 && m.ns_per_byte < 100.0, "{m:?}");
        assert!((m.cycles_per_byte - m.ns_per_byte * m.mhz / 1000.0).abs() < 1e-9);
        assert!(!m.kernel.is_empty() && !m.mhz_source.is_empty());
    }
}
