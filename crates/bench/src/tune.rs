//! `aesflow tune`: time every variant of each operation of the plan on
//! this CPU and keep the fastest.
//!
//! Each operation's variants run round-robin in one comparison (best of
//! several repetitions, as every benchmark here), on the workload the
//! choice matters for: GCM's blocks in flight on 16 KiB AES-128 messages
//! sealed and opened out of place (both directions: a variant that seals
//! faster but opens slower loses), the multi-stream engine's lanes on 32 CBC streams
//! of 16 KiB with keys of their own, XTS's tweak multiply on 16 KiB
//! AES-128 units enciphered and deciphered. An operation whose variants this CPU
//! cannot tell apart (no 512-bit VAES: neither choice applies) keeps the
//! base plan's variant and is not timed.

use crate::measure::{Contender, measure_group};
use crate::modes::aesflow::multistream;
use aesflow_cipher::KeySize;
use aesflow_multistream::{Backend, MultiStream};
use aesflow_plan::file::Measurement;
use aesflow_plan::{Operation, Plan, Variant};
use std::time::Duration;

/// What tuning found.
#[derive(Clone, Debug)]
pub struct Tuned {
    /// The plan: the fastest variant of every operation timed, the base
    /// plan's elsewhere.
    pub plan: Plan,
    /// Every variant timed.
    pub measurements: Vec<Measurement>,
    /// Operations not timed on this CPU, and why.
    pub skipped: Vec<(Operation, &'static str)>,
}

/// Time the variants of every operation (about `per_operation` each) and
/// return `base` with the fastest; `progress` hears each step.
pub fn tune(base: Plan, per_operation: Duration, progress: &mut dyn FnMut(&str)) -> Tuned {
    let mut tuned = Tuned {
        plan: base,
        measurements: Vec::new(),
        skipped: Vec::new(),
    };
    for op in Operation::ALL {
        progress(&format!(
            "timing {} ({} variants)",
            op.name(),
            op.variants().len()
        ));
        match time_operation(op, per_operation) {
            Ok(speeds) => {
                let best = speeds
                    .iter()
                    .copied()
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|(v, _)| v)
                    .expect("every operation has variants");
                tuned.plan = tuned.plan.with(best);
                tuned
                    .measurements
                    .extend(speeds.into_iter().map(|(v, bps)| Measurement {
                        operation: op.name().to_string(),
                        variant: v.name().to_string(),
                        gbps: bps / 1e9,
                    }));
            }
            Err(why) => tuned.skipped.push((op, why)),
        }
    }
    tuned
}

/// Bytes per second of each variant of `op`, or why this CPU cannot tell
/// them apart.
fn time_operation(op: Operation, total: Duration) -> Result<Vec<(Variant, f64)>, &'static str> {
    match op {
        Operation::Gcm => {
            use aesflow_modes::gcm::{FusedChoice, Gcm, GcmOptions};
            let n = 16 * 1024;
            let kernel = vaes_kernel()?;
            let gcms: Vec<Gcm> = op
                .variants()
                .iter()
                .map(|&v| {
                    let aes = aesflow_cipher::Aes::with_kernel(
                        &[7u8; 16],
                        kernel,
                        aesflow_cipher::KeyExpansion::Offline,
                    )
                    .expect("a 16-byte key");
                    let fused = FusedChoice::Plan(Plan::for_this_cpu().with(v));
                    Gcm::with_options(aes, GcmOptions { ghash: None, fused })
                        .expect("automatic choices always succeed")
                })
                .collect();
            let input = vec![0x5au8; n];
            let mut contenders: Vec<Contender<'_>> = gcms
                .iter()
                .map(|g| {
                    let (mut sealed, mut opened) = (vec![0u8; n], vec![0u8; n]);
                    let input = &input;
                    Box::new(move || {
                        let nonce = [1u8; 12];
                        let tag = g
                            .seal_into(&nonce, b"aad", std::hint::black_box(input), &mut sealed)
                            .expect("a valid message");
                        g.open_into(&nonce, b"aad", &sealed, &tag, &mut opened)
                            .expect("authentic");
                        std::hint::black_box(&opened);
                    }) as Contender<'_>
                })
                .collect();
            // Each call seals and opens: 2n bytes.
            let speeds = measure_group(2 * n, total, 5, &mut contenders);
            Ok(op.variants().iter().copied().zip(speeds).collect())
        }
        Operation::MultistreamOwnKeys => {
            let engine = MultiStream::new(Backend::Vaes)
                .map_err(|_| "no 512-bit multi-stream engine on this CPU")?;
            let (streams, n) = (32, 16 * 1024);
            let engines: Vec<MultiStream> = op
                .variants()
                .iter()
                .map(|&v| engine.with_plan(&Plan::for_this_cpu().with(v)))
                .collect();
            let mut contenders: Vec<Contender<'_>> = engines
                .iter()
                .map(|e| multistream(e, KeySize::Aes128, streams, n, 0))
                .collect();
            let speeds = measure_group(streams * n, total, 5, &mut contenders);
            Ok(op.variants().iter().copied().zip(speeds).collect())
        }
        Operation::Xts => {
            use aesflow_cipher::{Aes, KeyExpansion};
            let n = 16 * 1024;
            let kernel = vaes_kernel()?;
            let aes = |key: &[u8]| {
                Aes::with_kernel(key, kernel, KeyExpansion::Offline).expect("a 16-byte key")
            };
            let xtss: Vec<aesflow_modes::Xts> = op
                .variants()
                .iter()
                .map(|&v| {
                    let mul = Plan::for_this_cpu().with(v).xts_tweak_mul();
                    aesflow_modes::Xts::from_aes(
                        aes(&[7u8; 16]).with_xts_tweak_mul(mul),
                        aes(&[9u8; 16]),
                    )
                })
                .collect();
            let mut contenders: Vec<Contender<'_>> = xtss
                .iter()
                .map(|x| {
                    let mut buf = vec![0x5au8; n];
                    Box::new(move || {
                        let b = std::hint::black_box(&mut buf);
                        x.encrypt_sector(7, b).expect("a whole unit");
                        x.decrypt_sector(7, b).expect("a whole unit");
                    }) as Contender<'_>
                })
                .collect();
            // Each call enciphers and deciphers: 2n bytes.
            let speeds = measure_group(2 * n, total, 5, &mut contenders);
            Ok(op.variants().iter().copied().zip(speeds).collect())
        }
    }
}

/// The 512-bit VAES kernel, whose choices GCM's and XTS's variants are.
fn vaes_kernel() -> Result<&'static dyn aesflow_cipher::Kernel, &'static str> {
    aesflow_cipher::kernel_by_name("vaes")
        .ok()
        .filter(|k| k.is_available())
        .ok_or("no 512-bit VAES kernel on this CPU")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short tune times every operation this CPU can tell apart, picks a
    /// variant it timed, and reports progress.
    #[test]
    fn tune_picks_a_timed_variant() {
        let mut heard = Vec::new();
        let base = Plan::for_this_cpu();
        let t = tune(base, Duration::from_millis(30), &mut |s| {
            heard.push(s.to_string())
        });
        assert_eq!(heard.len(), Operation::ALL.len());
        for op in Operation::ALL {
            let timed: Vec<_> = t
                .measurements
                .iter()
                .filter(|m| m.operation == op.name())
                .collect();
            if timed.is_empty() {
                assert!(t.skipped.iter().any(|(o, _)| *o == op));
                assert_eq!(t.plan.variant(op), base.variant(op));
            } else {
                assert_eq!(timed.len(), op.variants().len());
                assert!(timed.iter().all(|m| m.gbps > 0.0));
                let chosen = t.plan.variant(op).name();
                let best = timed
                    .iter()
                    .max_by(|a, b| a.gbps.total_cmp(&b.gbps))
                    .unwrap();
                assert_eq!(best.variant, chosen);
            }
        }
    }
}
