//! Hostile or extreme inputs: every analysis returns the exact answer or a
//! clear error, in bounded memory and time, and never panics.

use std::time::{Duration, Instant};

mod common;

use aesflow_dataflow::report::{ReportOptions, analyse};
use aesflow_dataflow::sdf3::{self, ReadOptions};
use aesflow_dataflow::{AnalysisOptions, Rational, SdfError, SdfGraph};

fn sdf3_doc(actors: &str, channels: &str, props: &str) -> String {
    format!(
        "<sdf3 type='sdf'><applicationGraph name='g'><sdf name='g' type='G'>{actors}{channels}</sdf>\
         <sdfProperties>{props}</sdfProperties></applicationGraph></sdf3>"
    )
}

/// CPU time of the calling thread (from /proc, 10 ms resolution; zero
/// where unavailable). Tests bound CPU time, not wall time: the machine is
/// shared and wall time depends on the load.
fn cpu_time() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/thread-self/stat") else {
        return Duration::ZERO;
    };
    // fields after the parenthesised command name; utime and stime are the
    // 14th and 15th fields overall, in clock ticks of 1/100 s
    let rest = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    Duration::from_millis(f.iter().sum::<u64>() * 10)
}

/// Release builds must meet the 1 s bound of the brief; debug builds are
/// ~20x slower and only get a generous bound.
fn bound(release: Duration) -> Duration {
    if cfg!(debug_assertions) {
        release * 30
    } else {
        release
    }
}

#[test]
fn deeply_nested_xml_is_refused_before_parsing() {
    let depth = 30_000;
    let xml = "<a>".repeat(depth) + &"</a>".repeat(depth);
    match sdf3::from_xml(&xml) {
        Err(SdfError::XmlTooDeep { line: 1, limit: 64 }) => {}
        other => panic!("{other:?}"),
    }
    // the limit is an option
    let opts = ReadOptions {
        max_depth: 40_000,
        ..ReadOptions::default()
    };
    let shallow = "<sdf3>".to_string() + &"<x>".repeat(100) + &"</x>".repeat(100) + "</sdf3>";
    assert!(matches!(
        sdf3::from_xml_with(&shallow, &opts),
        Err(SdfError::Sdf3 { .. })
    ));
}

#[test]
fn port_without_rate_is_an_error() {
    let xml = sdf3_doc(
        "<actor name='a' type='A'><port name='p' type='out'/><port name='q' type='in' rate='1'/></actor>",
        "<channel name='c' srcActor='a' srcPort='p' dstActor='a' dstPort='q' initialTokens='1'/>",
        "",
    );
    match sdf3::from_xml(&xml) {
        Err(SdfError::Sdf3 {
            message,
            position: Some((1, _)),
        }) => assert!(message.contains("no `rate`"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn huge_rates_in_state_space_are_bounded() {
    for r in [1u64 << 31, 1 << 63] {
        // A -> B with production `r`, B -> A with consumption `r` and `r`
        // tokens
        let edges = [(0, r, 1, 1, 0), (1, 1, 0, r, r)];
        let (g, _) = common::graph("wide", [("A", 3), ("B", 3)], &edges);
        let auto = AnalysisOptions::sdf3();
        // A fires once, then all r firings of B at once: 3 + 3 per iteration
        let c0 = cpu_time();
        let p = g.self_timed_period(&auto, 1_000_000).unwrap();
        assert_eq!(p, Rational::from_integer(6));
        assert!(cpu_time() - c0 < bound(Duration::from_secs(1)));
        // the HSDF analyses refuse the 2^31-node expansion before allocating
        match g.analyze_throughput_with(&auto) {
            Err(SdfError::HsdfTooLarge { nodes, .. }) => assert_eq!(nodes, r as u128 + 1),
            other => panic!("{other:?}"),
        }
        // and so does the deadlock check's caller: one iteration is fine
        g.check_deadlock().unwrap();
        // latency either way: 6 (a start to an end one iteration on), or
        // the step limit for the r start or end times it would record;
        // never a wrapped index or an allocation of r entries
        let (a, b) = (g.find_actor("A").unwrap(), g.find_actor("B").unwrap());
        for (s, d) in [(a, b), (b, a)] {
            match g.latency(s, d, &auto, 1_000_000) {
                Ok(l) => assert_eq!(l, 6),
                Err(SdfError::StateSpaceLimit { .. }) => {}
                other => panic!("{other:?}"),
            }
        }
    }
}

/// Actors `a0 .. a{n-1}` (execution time `exec(i)`) in a chain of rate-1
/// channels, closed into a ring with one token if `ring`.
fn line(n: usize, exec: impl Fn(u64) -> u64, ring: bool) -> SdfGraph {
    let mut g = SdfGraph::new("line");
    let ids: Vec<_> = (0..n as u64)
        .map(|i| g.add_actor(format!("a{i}"), "", exec(i)))
        .collect();
    for i in 0..n - usize::from(!ring) {
        g.connect(ids[i], 1, ids[(i + 1) % n], 1, u64::from(ring && i == 0));
    }
    g
}

fn ring(n: usize, exec: u64) -> SdfGraph {
    line(n, |_| exec, true)
}

#[test]
fn state_space_of_a_huge_ring_is_refused_in_bounded_memory() {
    let g = ring(100_000, 1);
    let c0 = cpu_time();
    match g.self_timed_period(&AnalysisOptions::default(), 10_000_000) {
        Err(SdfError::StateSpaceTooLarge { .. }) => {}
        other => panic!("{other:?}"),
    }
    assert!(cpu_time() - c0 < bound(Duration::from_secs(3)));
    // the analytical answer is immediate: one token circulates
    assert_eq!(g.period().unwrap(), Rational::from_integer(100_000));
}

#[test]
fn state_space_of_a_huge_chain_is_fast() {
    let g = line(100_000, |i| 1 + i % 7, false);
    let c0 = cpu_time();
    let p = g
        .self_timed_period(&AnalysisOptions::default(), 1_000)
        .unwrap();
    assert_eq!(p, Rational::from_integer(7));
    assert!(cpu_time() - c0 < bound(Duration::from_secs(2)));
}

#[test]
fn execution_times_near_2_pow_64() {
    let m = u64::MAX - 1;
    let g = ring(2, m);
    // exact: one token, two firings of 2^64 - 2 each
    assert_eq!(g.period().unwrap(), Rational::from_integer(2 * m as u128));
    // the state space's 64-bit clock cannot hold it: an error, not a value
    match g.self_timed_period(&AnalysisOptions::default(), 100) {
        Err(SdfError::Overflow { .. }) => {}
        other => panic!("{other:?}"),
    }
    let (a0, a1) = (g.find_actor("a0").unwrap(), g.find_actor("a1").unwrap());
    match g.latency(a0, a1, &AnalysisOptions::default(), 100) {
        Err(SdfError::Overflow { .. }) => {}
        other => panic!("{other:?}"),
    }
    // Howard on weights and tokens near 2^64: exact or an overflow error
    let (g, _) = common::graph(
        "two cycles",
        [("a", u64::MAX), ("b", u64::MAX), ("c", u64::MAX - 2)],
        &[
            (0, 1, 1, 1, u64::MAX),
            (1, 1, 0, 1, u64::MAX - 1),
            (1, 1, 2, 1, u64::MAX),
            (2, 1, 1, 1, 1),
        ],
    );
    let c0 = cpu_time();
    match g.analyze_throughput_with(&AnalysisOptions::sdf3()) {
        Ok(t) => {
            let m = u64::MAX as u128;
            let r1 = Rational::new(2 * m, 2 * m - 1);
            let r2 = Rational::new(2 * m - 2, m + 1);
            assert_eq!(t.period, r1.max(r2));
        }
        Err(SdfError::Overflow { .. }) => {}
        Err(e) => panic!("{e}"),
    }
    assert!(cpu_time() - c0 < bound(Duration::from_secs(1)));
}

#[test]
fn size_guard_runs_before_the_deadlock_check() {
    // consistent, deadlocked, with a repetition vector summing to ~2^40
    let edges = [
        (0, 1 << 40, 1, 1, 0),
        (1, 1, 2, 1, 0),
        (2, 1, 1, 1, 0),
        (1, 1, 0, 1 << 40, 0),
    ];
    let (g, _) = common::graph("big deadlock", [("a", 1), ("b", 1), ("c", 1)], &edges);
    let c0 = cpu_time();
    match g.analyze_throughput() {
        Err(SdfError::HsdfTooLarge { .. }) => {}
        other => panic!("{other:?}"),
    }
    assert!(cpu_time() - c0 < bound(Duration::from_millis(200)));
    // the deadlock check alone is bounded by its work budget
    let small = AnalysisOptions {
        max_work: 1_000,
        ..AnalysisOptions::default()
    };
    assert!(g.check_deadlock_with(&small).is_err());
}

#[test]
fn hundred_thousand_actors_import_and_analyse_within_a_second() {
    // what `aesflow sdf FILE.xml` does (import, then the report: consistency,
    // deadlock, throughput under SDF3's semantics) on a ring and a chain of
    // 10^5 actors written as SDF3 writes its files (`examples/sdf3_gen.rs`
    // writes the same documents for timing the binary)
    let n = 100_000;
    for ring in [true, false] {
        let xml = common::sdf3_gen::document(n, ring);
        let c0 = cpu_time();
        let t0 = Instant::now();
        let imp = sdf3::from_xml_with(&xml, &ReadOptions::default()).unwrap();
        let r = analyse(
            &imp.graph,
            imp.warnings,
            &AnalysisOptions::sdf3(),
            &ReportOptions::default(),
        );
        let (wall, cpu) = (t0.elapsed(), cpu_time() - c0);
        assert!(
            r.consistent && r.deadlock_free == Some(true),
            "{:?}",
            r.errors
        );
        assert!(r.repetition_vector.iter().all(|row| row.firings == 1));
        let t = r.throughput.as_ref().unwrap();
        assert_eq!(t.hsdf_nodes, n);
        if ring {
            // 300,000 cycles of execution around the ring, 100 tokens;
            // every actor is on the critical cycle (listing them was
            // quadratic)
            assert_eq!(t.period, "3000");
            assert_eq!(t.critical_actors.len(), n);
            assert_eq!(imp.graph.period().unwrap(), Rational::from_integer(3000));
        } else {
            // nothing bounds an acyclic graph under auto-concurrency; one
            // sequential actor of time 5 does
            assert_eq!(t.period, "0");
            assert_eq!(imp.graph.period().unwrap(), Rational::from_integer(5));
        }
        // CPU time, not wall time: the machine is shared. Measured 0.4-0.7 s
        // of CPU (import and report) on a 2-core AMD EPYC
        // (Zen 3 class) VM at load average 6-8; `aesflow sdf` on the same
        // files takes 0.5-0.9 s wall there (2-4 s before the plain-XML scan).
        // The bound is generous but catches anything super-linear (the
        // former quadratic import alone took ~10 s).
        eprintln!("ring {ring}: import + analysis of {n} actors: {cpu:?} CPU, {wall:?} wall");
        assert!(
            cpu < bound(Duration::from_secs(2)),
            "import + analysis of {n} actors took {cpu:?} of CPU time"
        );
    }
}

#[test]
fn building_is_linear_in_channels() {
    // 200,000 channels through `connect` between two actors: quadratic
    // fresh-name search took ~10 s for half as many
    let mut g = SdfGraph::new("many");
    let a = g.add_actor("a", "", 1);
    let b = g.add_actor("b", "", 1);
    let c0 = cpu_time();
    for _ in 0..200_000 {
        g.connect(a, 1, b, 1, 0);
    }
    assert!(cpu_time() - c0 < bound(Duration::from_secs(2)));
    assert_eq!(g.num_channels(), 200_000);
    g.validate().unwrap();
    // fresh names never collide with names given by hand
    let mut h = SdfGraph::new("names");
    let x = h.add_actor("x", "", 1);
    let c = h.connect(x, 1, x, 1, 1);
    h.channel_mut(c).set_name("ch1");
    h.connect(x, 1, x, 1, 1);
    h.validate().unwrap();
}

#[test]
fn howard_terminates_where_a_moving_anchor_cycled() {
    // With the value of each policy cycle anchored at whichever node the
    // walk met first, Howard's policy iteration cycled forever on this
    // small random graph (found comparing with SDF3, whose throughput is
    // 0.0625); with a canonical anchor it converges in a few rounds.
    let g = sdf3::from_xml(include_str!("data/howard-anchor.xml")).unwrap();
    let opts = AnalysisOptions {
        max_work: 100,
        ..AnalysisOptions::sdf3()
    };
    let t = g.analyze_throughput_with(&opts).unwrap();
    assert_eq!(t.period, Rational::from_integer(16));
    let seq = AnalysisOptions {
        max_work: 100,
        ..AnalysisOptions::default()
    };
    assert_eq!(
        g.analyze_throughput_with(&seq).unwrap().period,
        g.self_timed_period(&seq, 100_000).unwrap()
    );
}
