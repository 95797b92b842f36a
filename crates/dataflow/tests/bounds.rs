//! Exact answers where they fit, and work and memory bounded by the
//! budgets where they do not: huge ratios, coprime rates near 2^62, buffer
//! searches that grow combinatorially. The bounds are checked with the
//! analyses' own work counters, not with clocks.

mod common;

use aesflow_dataflow::analysis::buffer::{BufferOptions, Stop, UNBOUNDED};
use aesflow_dataflow::report::{ReportOptions, analyse};
use aesflow_dataflow::{AnalysisOptions, Rational, SdfError, SdfGraph};

/// `n` actors of execution time `exec` in a ring of rate-1 channels;
/// channel `i` (from actor `i` to `i + 1`) holds `tokens(i)`.
fn ring(n: usize, exec: u64, tokens: impl Fn(usize) -> u64) -> SdfGraph {
    let mut g = SdfGraph::new("ring");
    let ids: Vec<_> = (0..n)
        .map(|i| g.add_actor(format!("a{i}"), "", exec))
        .collect();
    for i in 0..n {
        g.connect(ids[i], 1, ids[(i + 1) % n], 1, tokens(i));
    }
    g
}

#[test]
fn throughput_one_over_2_pow_65_minus_2_is_exact() {
    // a <-> b (execution times 2^64 - 1, one token back): period
    // 2^65 - 2. The cycle a -> b -> c -> a carries 2^63 tokens, so a value
    // step of Howard's algorithm along it is (2^65 - 2) * 2^63 > 2^127.
    let m = u64::MAX;
    let (g, _) = common::graph(
        "wide",
        [("a", m), ("b", m), ("c", 0)],
        &[
            (0, 1, 1, 1, 0),
            (1, 1, 0, 1, 1),
            (1, 1, 2, 1, 0),
            (2, 1, 0, 1, 1 << 63),
        ],
    );
    let t = g.analyze_throughput_with(&AnalysisOptions::sdf3()).unwrap();
    let period = (1u128 << 65) - 2;
    assert_eq!(t.period, Rational::from_integer(period));
    assert_eq!(t.throughput_exact(), Some(Rational::new(1, period)));
}

/// a -> b -> c -> a with q = (P, Q, R) pairwise coprime: a produces Q and
/// b consumes P, b produces R and c consumes Q, c produces P and a
/// consumes R; `k * R` tokens on c -> a.
fn coprime_ring(p: u64, q: u64, r: u64, k: u64) -> SdfGraph {
    let (g, _) = common::graph(
        "coprime",
        [("a", 1), ("b", 1), ("c", 1)],
        &[(0, q, 1, p, 0), (1, r, 2, q, 0), (2, p, 0, r, k * r)],
    );
    g
}

#[test]
fn coprime_ring_near_2_pow_62_is_refused_at_once() {
    let (p, q, r) = ((1 << 62) - 1, (1 << 62) - 3, (1 << 62) - 5);
    let opts = AnalysisOptions::default();
    // three iterations' worth of tokens for R: each step moves at most 3/P
    // of an iteration, so completing needs ~2^62 steps; the budget 10^8
    // is refused before it is spent
    match coprime_ring(p, q, r, 3).check_deadlock_with(&opts) {
        Err(SdfError::WorkBound {
            at_least, limit, ..
        }) => {
            assert!(at_least > 1 << 60, "{at_least}");
            assert_eq!(limit, opts.max_work);
        }
        other => panic!("{other:?}"),
    }
    // one R's worth deadlocks after three steps: the probe finds it
    assert!(matches!(
        coprime_ring(p, q, r, 1).check_deadlock_with(&opts),
        Err(SdfError::Deadlock { .. })
    ));
}

#[test]
fn the_step_bound_never_refuses_a_check_that_fits_its_budget() {
    // small coprime rings: the fewest steps that complete the check is the
    // smallest budget that passes (binary search); with that budget the
    // bound must not refuse, and one step less is the plain step limit
    for (p, q, r, k) in [
        (7, 11, 13, 2),
        (97, 89, 83, 3),
        (1000, 999, 997, 5),
        (5, 3, 2, 1),
    ] {
        let g = coprime_ring(p, q, r, k);
        let with = |max_work| {
            g.check_deadlock_with(&AnalysisOptions {
                max_work,
                ..AnalysisOptions::default()
            })
        };
        if let Err(e) = with(u64::MAX) {
            assert!(matches!(e, SdfError::Deadlock { .. }), "{e:?}");
            continue;
        }
        let (mut lo, mut hi) = (0u64, 1u64 << 40);
        while lo + 1 < hi {
            let mid = lo + (hi - lo) / 2;
            if with(mid).is_ok() {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        assert!(with(hi).is_ok());
        match with(hi - 1) {
            Err(SdfError::WorkLimit { .. }) | Err(SdfError::WorkBound { .. }) => {}
            other => panic!("{p} {q} {r}: {other:?}"),
        }
    }
}

#[test]
fn zero_time_ring_buffer_sizing_ends_at_the_first_distribution() {
    // every cycle takes no time: the throughput is unbounded at the lower
    // bound already (it used to count as a deadlock and search on)
    let g = ring(10_000, 0, |i| u64::from(i == 0));
    let bopts = BufferOptions {
        max_distributions: 50,
        ..BufferOptions::default()
    };
    let r = g.buffer_tradeoff(&AnalysisOptions::sdf3(), &bopts).unwrap();
    assert!(r.complete, "{:?}", r.stopped);
    assert_eq!(r.evaluated, 1);
    assert_eq!(r.points.len(), 1);
    assert_eq!(r.points[0].throughput, UNBOUNDED);
    assert_eq!(r.max_throughput, None);
}

/// A ring of `n` unit-time actors with one token on every channel but the
/// first: with the smallest capacities one free place goes round the
/// ring, the critical cycle runs through every capacity, and every
/// distribution evaluated adds `n` larger ones.
fn crowded_ring(n: usize) -> SdfGraph {
    ring(n, 1, |i| u64::from(i > 0))
}

#[test]
fn max_work_bounds_the_work_of_a_buffer_search() {
    // all 300 tokens on one channel: each distribution evaluated lifts one
    // more capacity from 1 to 2 (300 evaluations of about 5 * 300 work)
    let g = ring(300, 1, |i| if i == 0 { 300 } else { 0 });
    let opts = AnalysisOptions {
        max_work: 100_000,
        ..AnalysisOptions::sdf3()
    };
    let r = g.buffer_tradeoff(&opts, &BufferOptions::default()).unwrap();
    assert!(!r.complete);
    assert_eq!(r.stopped, Some(Stop::MaxWork));
    // one evaluation over the budget at most
    assert!(
        r.work > opts.max_work && r.work < opts.max_work + 5_000,
        "{}",
        r.work
    );
    assert!(r.evaluated < 100, "{}", r.evaluated);
    assert!(!r.points.is_empty());
    // with the default budget it completes
    let full = g
        .buffer_tradeoff(&AnalysisOptions::sdf3(), &BufferOptions::default())
        .unwrap();
    assert!(
        full.complete && full.evaluated >= 300,
        "{:?} {}",
        full.stopped,
        full.evaluated
    );
}

#[test]
fn max_work_bounds_the_memory_of_a_combinatorial_buffer_search() {
    // 1,000 channels, 1,000 children per distribution: the pending
    // capacities reach max_work / 8 long before the work does
    let n = 1_000u64;
    let g = crowded_ring(n as usize);
    let opts = AnalysisOptions {
        max_work: 40_000_000,
        ..AnalysisOptions::sdf3()
    };
    let r = g.buffer_tradeoff(&opts, &BufferOptions::default()).unwrap();
    assert_eq!(r.stopped, Some(Stop::Memory));
    assert!(r.work <= opts.max_work);
    // one evaluation's children over the limit at most
    assert!(
        r.peak_pending_values <= opts.max_work / 8 + n * n,
        "{}",
        r.peak_pending_values
    );
}

#[test]
fn the_distribution_cap_gives_a_partial_front_and_progress_counts_it() {
    let g = crowded_ring(50);
    let bopts = BufferOptions {
        max_distributions: 300,
        ..BufferOptions::default()
    };
    let mut seen = Vec::new();
    let r = g
        .buffer_tradeoff_with_progress(&AnalysisOptions::sdf3(), &bopts, &mut |p| {
            seen.push((p.evaluated, p.max_distributions, p.best));
        })
        .unwrap();
    assert!(!r.complete);
    assert_eq!(r.stopped, Some(Stop::MaxDistributions));
    assert_eq!(r.evaluated, 300);
    // one call per distribution, in order, the best never falling
    assert_eq!(seen.len(), 300);
    for (i, w) in seen.windows(2).enumerate() {
        assert_eq!(w[0].0, i + 1);
        assert_eq!(w[0].1, 300);
        assert!(w[1].2 >= w[0].2);
    }
    let best = r.points.last().unwrap().throughput;
    assert!(best < r.max_throughput.unwrap());
    // a larger cap goes on from the same beginning
    let more = g
        .buffer_tradeoff(
            &AnalysisOptions::sdf3(),
            &BufferOptions {
                max_distributions: 2_000,
                ..BufferOptions::default()
            },
        )
        .unwrap();
    assert!(more.points.len() > r.points.len());
    for (a, b) in r.points.iter().zip(&more.points) {
        assert_eq!((a.size, a.throughput), (b.size, b.throughput));
    }
}

#[test]
fn report_names_each_failed_analysis() {
    // a chain is not strongly connected: latency fails, the rest stands
    let (g, _) = common::graph("chain", [("a", 1), ("b", 2)], &[(0, 1, 1, 1, 0)]);
    let ro = ReportOptions {
        latency: Some(("a".into(), "b".into())),
        max_steps: 1_000,
        ..ReportOptions::default()
    };
    let r = analyse(&g, Vec::new(), &AnalysisOptions::sdf3(), &ro);
    assert_eq!(r.failed, vec!["latency"]);
    assert_eq!(r.errors.len(), 1);
    assert!(r.throughput.is_some());
    // a deadlock is an answer; the latency asked of it is not
    let (g, _) = common::graph(
        "dead",
        [("a", 1), ("b", 2)],
        &[(0, 1, 1, 1, 0), (1, 1, 0, 1, 0)],
    );
    let r = analyse(&g, Vec::new(), &AnalysisOptions::sdf3(), &ro);
    assert_eq!(r.deadlock_free, Some(false));
    assert_eq!(r.failed, vec!["latency"]);
    let r = analyse(
        &g,
        Vec::new(),
        &AnalysisOptions::sdf3(),
        &ReportOptions::default(),
    );
    assert!(r.failed.is_empty() && r.errors.is_empty());
}
