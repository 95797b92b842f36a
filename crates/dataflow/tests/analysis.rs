//! Hand-computed examples for consistency, deadlock, HSDF and throughput.

mod common;

use aesflow_dataflow::{
    ActorId, AnalysisOptions, ChannelId, EdgeOrigin, PortDirection, Rational, SdfError, SdfGraph,
};
use common::{auto, graph, int};

/// A -(2:3)-> B -(1:2)-> C, execution times 1.
fn abc(name: &str) -> (SdfGraph, [ActorId; 3]) {
    let rates = [(0, 2, 1, 3, 0), (1, 1, 2, 2, 0)];
    graph(name, [("A", 1), ("B", 1), ("C", 1)], &rates)
}

#[test]
fn two_actor_pipeline() {
    let (g, [_, b]) = graph("pipe", [("A", 10), ("B", 20)], &[(0, 1, 1, 1, 0)]);
    let q = g.repetition_vector().unwrap();
    assert_eq!(q.as_slice(), &[1, 1]);
    g.check_deadlock().unwrap();
    // sequential actors: the slowest stage limits the pipeline
    let t = g.analyze_throughput().unwrap();
    assert_eq!(t.period, int(20));
    assert_eq!(t.critical_actors(), vec![b]);
    assert!((g.throughput().unwrap() - 0.05).abs() < 1e-12);
    assert_eq!(g.critical_cycle().unwrap(), vec![b]);
    // with auto-concurrency nothing bounds an acyclic graph
    let t = g.analyze_throughput_with(&auto()).unwrap();
    assert_eq!(t.period, Rational::ZERO);
    assert!(t.throughput().is_infinite());
    assert!(t.critical_firings.is_empty());
    // the state-space exploration agrees
    assert_eq!(
        g.self_timed_period(&AnalysisOptions::default(), 10_000)
            .unwrap(),
        int(20)
    );
    assert_eq!(
        g.self_timed_period(&auto(), 10_000).unwrap(),
        Rational::ZERO
    );
}

#[test]
fn cycle_with_tokens() {
    let (mut g, [a, b]) = graph("loop", [("A", 3), ("B", 5)], &[(0, 1, 1, 1, 0)]);
    let back = g.connect(b, 1, a, 1, 2);
    // (3 + 5) / 2 = 4 < 5 (B alone)
    assert_eq!(g.period().unwrap(), int(5));
    let t = g.analyze_throughput_with(&auto()).unwrap();
    assert_eq!(t.period, int(4));
    let mut actors = t.critical_actors();
    actors.sort();
    assert_eq!(actors, vec![a, b]);
    // one token: the loop is the bottleneck
    g.channel_mut(back).set_initial_tokens(1);
    assert_eq!(g.period().unwrap(), int(8));
    // three tokens and auto-concurrency: 8/3
    g.channel_mut(back).set_initial_tokens(3);
    assert_eq!(
        g.analyze_throughput_with(&auto()).unwrap().period,
        Rational::new(8, 3)
    );
    assert_eq!(
        g.self_timed_period(&auto(), 10_000).unwrap(),
        Rational::new(8, 3)
    );
}

#[test]
fn multirate_repetition_vector_and_hsdf() {
    let (mut g, [a, b, c]) = abc("multirate");
    let q = g.repetition_vector().unwrap();
    assert_eq!((q[a], q[b], q[c]), (3, 2, 1));
    assert_eq!(q.total_firings(), 6);
    // closing the loop consistently: C produces 3, A consumes 1
    g.connect(c, 3, a, 1, 3);
    assert_eq!(g.repetition_vector().unwrap(), q);
    g.check_deadlock().unwrap();
    let h = g.to_hsdf_with(&auto()).unwrap();
    assert_eq!(h.nodes.len(), 6);
    // A0 A1 A2 | B0 B1 | C0. B0 needs tokens 0..3 = A0 (0,1), A1 (2);
    // B1 needs tokens 3..6 = A1 (3), A2 (4,5).
    let has = |s: usize, d: usize, t: u64| {
        h.edges
            .iter()
            .any(|e| e.src == s && e.dst == d && e.tokens == t)
    };
    let (a0, b0, c0) = (h.first_node(a), h.first_node(b), h.first_node(c));
    assert!(has(a0, b0, 0) && has(a0 + 1, b0, 0) && has(a0 + 1, b0 + 1, 0));
    assert!(has(a0 + 2, b0 + 1, 0));
    assert!(has(b0, c0, 0) && has(b0 + 1, c0, 0));
    // the 3 initial tokens on C -> A feed A0, A1, A2 of the next iteration
    assert!(has(c0, a0, 1) && has(c0, a0 + 1, 1) && has(c0, a0 + 2, 1));
    assert_eq!(h.edges.len(), 4 + 2 + 3);
    // period: one token per A firing around the loop; every HSDF cycle
    // through C has exactly one token: A_i + B + C = 3 at most. Without
    // auto-concurrency A's chain A0->A1->A2 plus B1 and C0 is the longest:
    // 1+1+1+1+1 = 5 per iteration with one token.
    assert_eq!(g.analyze_throughput_with(&auto()).unwrap().period, int(3));
    assert_eq!(g.period().unwrap(), int(5));
    assert_eq!(
        g.self_timed_period(&AnalysisOptions::default(), 10_000)
            .unwrap(),
        int(5)
    );
}

#[test]
fn inconsistent_graphs_are_rejected() {
    let (mut g, [a, _, c]) = abc("bad");
    let bad = g.connect(c, 1, a, 1, 5);
    match g.repetition_vector() {
        // any channel of the inconsistent cycle may be reported
        Err(SdfError::Inconsistent { channel, .. }) => assert!(channel.index() <= bad.index()),
        other => panic!("expected inconsistency, got {other:?}"),
    }
    assert!(!g.is_consistent());
    assert!(matches!(
        g.check_deadlock(),
        Err(SdfError::Inconsistent { .. })
    ));
    assert!(matches!(g.period(), Err(SdfError::Inconsistent { .. })));

    let (s, _) = graph("selfloop", [("X", 1)], &[(0, 2, 0, 1, 4)]);
    assert!(matches!(
        s.repetition_vector(),
        Err(SdfError::Inconsistent { .. })
    ));
    let (z, _) = graph("zero", [("X", 1), ("Y", 1)], &[(0, 0, 1, 1, 0)]);
    assert!(matches!(
        z.repetition_vector(),
        Err(SdfError::ZeroRate { .. })
    ));
}

#[test]
fn disconnected_components_normalised_separately() {
    // A -> B: q = (2, 1); C -> D: q = (1, 3); E alone
    let (g, [a, ..]) = graph(
        "two parts",
        [("A", 4), ("B", 2), ("C", 3), ("D", 1), ("E", 7)],
        &[(0, 2, 1, 4, 0), (2, 3, 3, 1, 0)],
    );
    let q = g.repetition_vector().unwrap();
    assert_eq!(q.as_slice(), &[2, 1, 1, 3, 1]);
    assert_eq!(g.weakly_connected_components().len(), 3);
    // periods per component (sequential actors): A 2*4=8, B 2, C 3, D 3, E 7
    assert_eq!(g.period().unwrap(), int(8));
    assert_eq!(g.critical_cycle().unwrap(), vec![a]);
}

#[test]
fn deadlock_reports_stuck_actors() {
    let (g, [a, b]) = graph(
        "dl",
        [("A", 1), ("B", 1)],
        &[(0, 1, 1, 1, 0), (1, 1, 0, 1, 0)],
    );
    assert_eq!(
        g.check_deadlock(),
        Err(SdfError::Deadlock { stuck: vec![a, b] })
    );
    assert!(!g.is_live());
    assert!(matches!(g.period(), Err(SdfError::Deadlock { .. })));

    // a source feeding a deadlocked loop: only the loop is stuck
    let (mut g, [_, x, y]) = graph(
        "dl2",
        [("S", 1), ("X", 1), ("Y", 1)],
        &[(0, 1, 1, 1, 0), (1, 2, 2, 2, 0)],
    );
    let fb = g.connect(y, 1, x, 1, 0);
    assert_eq!(
        g.check_deadlock(),
        Err(SdfError::Deadlock { stuck: vec![x, y] })
    );
    // one token on the feedback channel suffices
    g.channel_mut(fb).set_initial_tokens(1);
    g.check_deadlock().unwrap();
    // q = S 1, X 1, Y 1 -> with two tokens X can fire
    let q = g.repetition_vector().unwrap();
    assert_eq!(q.as_slice(), &[1, 1, 1]);
}

#[test]
fn sequential_schedule_completes_an_iteration() {
    let (mut g, [a, b]) = graph("sched", [("A", 1), ("B", 1)], &[(0, 3, 1, 2, 0)]);
    let fb = g.connect(b, 2, a, 3, 3);
    // 3 tokens: A, B, then A lacks one token -> deadlock
    assert!(matches!(g.check_deadlock(), Err(SdfError::Deadlock { .. })));
    g.channel_mut(fb).set_initial_tokens(4);
    let sched = g.sequential_schedule().unwrap();
    let mut count = [0u64; 2];
    for (act, k) in sched {
        count[act.index()] += k;
    }
    assert_eq!(count, [2, 3]);
}

#[test]
fn bounded_channels() {
    let (mut g, [a, b]) = graph("fifo", [("A", 1), ("B", 10)], &[]);
    let c = g.connect(a, 1, b, 1, 0);
    g.channel_mut(c).set_capacity(Some(1));
    // capacity 1: A and B alternate: (1 + 10) / 1
    assert_eq!(g.period().unwrap(), int(11));
    let t = g.analyze_throughput().unwrap();
    assert!(
        t.critical_firings
            .iter()
            .any(|f| f.via == EdgeOrigin::Capacity(c))
    );
    // capacity 2: B is the bottleneck again
    g.channel_mut(c).set_capacity(Some(2));
    assert_eq!(g.period().unwrap(), int(10));
    // ignoring capacities
    g.channel_mut(c).set_capacity(Some(1));
    let opts = AnalysisOptions {
        respect_capacities: false,
        ..AnalysisOptions::default()
    };
    assert_eq!(g.analyze_throughput_with(&opts).unwrap().period, int(10));
    // capacity smaller than a production burst deadlocks; capacity below
    // the initial tokens is an error
    for (rate, tokens, capacity) in [(2, 0, 1), (1, 3, 2)] {
        let (mut g, [a, b]) = graph("tiny", [("A", 1), ("B", 1)], &[]);
        let c = g.connect(a, rate, b, 1, tokens);
        g.channel_mut(c).set_capacity(Some(capacity));
        match g.check_deadlock() {
            Err(SdfError::Deadlock { .. }) => assert_eq!(rate, 2),
            Err(SdfError::CapacityTooSmall { .. }) => assert!(g.validate().is_err()),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn explicit_ports_and_validation() {
    let (mut g, [a, b]) = graph("ports", [("A", 1), ("B", 1)], &[]);
    let o = g.add_port(a, "o", PortDirection::Out, 2);
    let i = g.add_port(b, "i", PortDirection::In, 1);
    let c = g.connect_ports("c", o, i, 0).unwrap();
    assert_eq!(g.production_rate(c), 2);
    assert_eq!(g.consumption_rate(c), 1);
    assert_eq!(g.port(o).channel(), Some(c));
    assert_eq!(g.output_channels(a).collect::<Vec<_>>(), vec![c]);
    assert_eq!(g.input_channels(b).collect::<Vec<_>>(), vec![c]);
    assert!(matches!(
        g.connect_ports("d", o, i, 0),
        Err(SdfError::PortAlreadyConnected { .. })
    ));
    let i2 = g.add_port(b, "i2", PortDirection::In, 1);
    assert!(matches!(
        g.connect_ports("d", i2, i2, 0),
        Err(SdfError::WrongPortDirection { .. })
    ));
    g.validate().unwrap();
    g.add_actor("A", "dup", 1);
    assert!(matches!(
        g.validate(),
        Err(SdfError::DuplicateName { what: "actor", .. })
    ));
    assert_eq!(g.find_actor("B"), Some(b));
    assert_eq!(g.find_channel("c"), Some(c));
    // ports may be renamed / re-rated through the restricted views
    g.actor_mut(a).port_mut(0).unwrap().set_rate(4);
    assert_eq!(g.production_rate(c), 4);
}

#[test]
fn dot_export_mentions_everything() {
    let (mut g, _) = graph("d\"ot", [("A\"x", 10), ("B", 20)], &[(0, 2, 1, 3, 4)]);
    g.channel_mut(ChannelId::from_index(0))
        .set_capacity(Some(8));
    let dot = g.to_dot();
    assert!(dot.starts_with("digraph \"d\\\"ot\" {"));
    assert!(dot.contains("A\\\"x"));
    assert!(dot.contains("2 → 3"));
    assert!(dot.contains("●4"));
    assert!(dot.contains("[cap 8]"));
    assert!(dot.trim_end().ends_with('}'));
}

#[test]
fn empty_and_trivial_graphs() {
    let g = SdfGraph::new("empty");
    assert_eq!(g.repetition_vector().unwrap().as_slice(), &[] as &[u64]);
    assert_eq!(g.period().unwrap(), Rational::ZERO);
    let mut g = SdfGraph::new("one");
    let a = g.add_actor("A", "k", 9);
    assert_eq!(g.period().unwrap(), int(9));
    assert_eq!(g.critical_cycle().unwrap(), vec![a]);
    assert_eq!(
        g.analyze_throughput_with(&auto()).unwrap().period,
        Rational::ZERO
    );
    let _ = ActorId::from_index(0);
}

#[test]
fn analysis_of_a_few_thousand_hsdf_nodes_is_fast() {
    // a chain of multirate stages with feedback: 4 x (1 -> 1000 -> 1)
    let mut g = SdfGraph::new("big");
    let mut prev = g.add_actor("S", "k", 5);
    let first = prev;
    for i in 0..4 {
        let up = g.add_actor(format!("U{i}"), "k", 1);
        let dn = g.add_actor(format!("D{i}"), "k", 3);
        g.connect(prev, 1000, up, 1, 0);
        g.connect(up, 1, dn, 1000, 0);
        prev = dn;
    }
    g.connect(prev, 1, first, 1, 2);
    let q = g.repetition_vector().unwrap();
    assert_eq!(q.total_firings(), 4005);
    let start = std::time::Instant::now();
    let t = g.analyze_throughput().unwrap();
    let elapsed = start.elapsed();
    // the loop S -> U0 (1000 sequential firings) -> D0 -> ... -> D3 -> S
    // carries 2 tokens: (5 + 4 * (1000 + 3)) / 2
    assert_eq!(t.period, Rational::new(4017, 2));
    assert_eq!(t.hsdf_size.0, 4005);
    assert!(
        elapsed.as_secs_f64() < 5.0,
        "analysis took {elapsed:?} (must be well under a second in release)"
    );
}
