//! The multi-stream engine on all cores.
//!
//! `aesflow-multistream` keeps one core's SIMD lanes busy with many
//! independent streams (after *Vectorized AES Core for High-Throughput Secure Environments*:
//! CBC encryption, CFB, OFB — modes that are
//! serial within a stream). This module spreads such a call over a [`Pool`]:
//! the jobs are split into contiguous groups of about equal size, one group
//! per worker, and each group is interleaved across its core's lanes. A
//! single stream is never split (it is serial), so one very long stream
//! bounds the time of the whole call.

use crate::pool::Pool;
use crate::{Error, Result};
use aesflow_multistream::{Job, MultiStream};
use std::sync::Mutex;

/// Run every job (scatter/gather) on all the pool's workers. Outputs and the
/// returned IVs are those of running each stream alone. All jobs are checked
/// first: on a bad job nothing is written.
pub fn process(pool: &Pool, engine: &MultiStream, jobs: &mut [Job<'_>]) -> Result<()> {
    let bad = |e: aesflow_multistream::Error| Error::InvalidInput(e.to_string());
    aesflow_multistream::validate(jobs).map_err(bad)?;
    let mut groups = split_balanced(jobs, pool.threads());
    let failure = Mutex::new(None);
    pool.for_each_mut(&mut groups, |group| {
        if let Err(e) = engine.process(group) {
            failure
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_or_insert(e);
        }
    });
    match failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(bad(e)),
        None => Ok(()),
    }
}

/// Cut `jobs` into at most `parts` contiguous groups whose byte totals are as
/// close to equal as contiguous cuts allow (empty groups are dropped).
fn split_balanced<'s, 'a>(jobs: &'s mut [Job<'a>], parts: usize) -> Vec<&'s mut [Job<'a>]> {
    let parts = parts.max(1);
    let total: usize = jobs.iter().map(|j| j.input.len().max(1)).sum();
    let mut groups = Vec::with_capacity(parts);
    let mut rest = jobs;
    for k in 1..parts {
        // Take jobs until this group's share (k/parts of the total) is reached.
        let goal = (total * k / parts).saturating_sub(total - rest_total(rest));
        let mut acc = 0;
        let mut cut = 0;
        while cut < rest.len() && acc < goal {
            acc += rest[cut].input.len().max(1);
            cut += 1;
        }
        let (head, tail) = rest.split_at_mut(cut);
        if !head.is_empty() {
            groups.push(head);
        }
        rest = tail;
    }
    if !rest.is_empty() {
        groups.push(rest);
    }
    groups
}

fn rest_total(jobs: &[Job<'_>]) -> usize {
    jobs.iter().map(|j| j.input.len().max(1)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use aesflow_multistream::{Backend, Mode};

    fn data(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31) ^ seed)
            .collect()
    }

    #[test]
    fn all_cores_equal_one_call_on_one_core() {
        let keys: Vec<Vec<u8>> = (0..5u8)
            .map(|k| data(16 + 8 * (k as usize % 3), k))
            .collect();
        let lens = [
            0usize,
            16,
            4096,
            160,
            16 * 1000,
            48,
            32,
            16 * 77,
            16,
            2048,
            16 * 300,
        ];
        let inputs: Vec<Vec<u8>> = lens
            .iter()
            .enumerate()
            .map(|(i, &l)| data(l, i as u8))
            .collect();
        let modes = [Mode::CbcEncrypt, Mode::Ofb, Mode::CfbEncrypt];
        let engine = MultiStream::new(Backend::Auto).unwrap();
        let run = |pool: &Pool| {
            let mut outs: Vec<Vec<u8>> = inputs.iter().map(|i| vec![0; i.len()]).collect();
            let mut jobs: Vec<Job> = inputs
                .iter()
                .zip(outs.iter_mut())
                .enumerate()
                .map(|(i, (inp, out))| {
                    Job::new(modes[i % 3], &keys[i % 5][..], [i as u8; 16], inp, out)
                })
                .collect();
            process(pool, &engine, &mut jobs).unwrap();
            let ivs: Vec<[u8; 16]> = jobs.iter().map(|j| j.iv).collect();
            (outs, ivs)
        };
        let one = run(Pool::inline());
        for threads in [2, 3, 8] {
            let pool = Pool::new(threads).unwrap();
            assert_eq!(run(&pool), one, "{threads} threads");
        }
    }

    #[test]
    fn a_bad_job_writes_nothing() {
        let engine = MultiStream::new(Backend::Auto).unwrap();
        let pool = Pool::new(2).unwrap();
        let key = [7u8; 16];
        let input = vec![1u8; 4096];
        let mut out_a = vec![0u8; 4096];
        let mut out_b = vec![0u8; 17];
        let bad_in = vec![1u8; 17];
        let mut jobs = vec![
            Job::new(Mode::CbcEncrypt, &key[..], [0; 16], &input, &mut out_a),
            Job::new(Mode::CbcEncrypt, &key[..], [0; 16], &bad_in, &mut out_b),
        ];
        let e = process(&pool, &engine, &mut jobs).unwrap_err();
        assert!(e.to_string().contains("not a multiple of 16"), "{e}");
        drop(jobs);
        assert!(out_a.iter().all(|&b| b == 0));
    }

    #[test]
    fn groups_are_balanced_and_cover_everything() {
        let bufs: Vec<Vec<u8>> = (0..10).map(|i| vec![0u8; 16 * (i + 1)]).collect();
        let mut outs: Vec<Vec<u8>> = bufs.iter().map(|b| vec![0; b.len()]).collect();
        let key = [0u8; 16];
        let mut jobs: Vec<Job> = bufs
            .iter()
            .zip(outs.iter_mut())
            .map(|(b, o)| Job::new(Mode::Ofb, &key[..], [0; 16], b, o))
            .collect();
        let groups = split_balanced(&mut jobs, 2);
        assert_eq!(groups.len(), 2);
        let sizes: Vec<usize> = groups
            .iter()
            .map(|g| g.iter().map(|j| j.input.len()).sum())
            .collect();
        assert_eq!(sizes.iter().sum::<usize>(), 16 * 55);
        assert!(sizes[0].abs_diff(sizes[1]) <= 16 * 10, "{sizes:?}");
    }
}
