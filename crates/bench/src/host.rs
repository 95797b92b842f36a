//! The host's measured figures for the platform comparison of the energy
//! model (the paper's Table 5 "this host" row): AES-128 CTR on 16 KiB with
//! the best kernel, as a kernels-section [`Row`] (GB/s and nominal cycles
//! per byte). The energy crate's host figure is this row with the
//! [`crate::Machine`]; the CLI measures it here.

use crate::BenchError;
use crate::kernels::Op;
use crate::measure::measure;
use crate::row::{Row, Section};
use aesflow_cipher::{Aes, KeyExpansion, detect_best};
use std::time::Duration;

/// Measure AES-128 CTR on 16 KiB with the best kernel of this CPU: the
/// best of `runs` repetitions of about `reps` buffers each, as a
/// kernels-section row (one thread, cycles at this machine's clock).
pub fn measure_host(runs: usize, reps: usize) -> Result<Row, BenchError> {
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
    let (ghz, _) = crate::machine::cpuinfo().clock_ghz();
    let bytes = buf.len() as u64;
    Ok(Row::new(
        Section::Kernels,
        Op::Ctr.name(),
        kernel.name(),
        Some(128),
        1,
        1,
        bytes,
        bytes as f64 / bps,
        ghz,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_row_is_one_thread_of_ctr() {
        let r = measure_host(2, 8).unwrap();
        assert!(r.gbps > 0.01 && r.cycles_per_byte > 0.0, "{r:?}");
        assert_eq!((r.op.as_str(), r.bytes, r.threads), ("ctr", 16384, 1));
        assert_eq!(r.implementation, detect_best().name());
    }
}
