//! Randomised cross-checks with a seeded RNG (no extra dependencies):
//! Howard's MCR against brute-force enumeration of simple cycles, and the
//! HSDF/MCR throughput against state-space exploration on random SDF
//! graphs.

use aesflow_dataflow::analysis::mcr::{McrError, RatioEdge, max_cycle_ratio};
use aesflow_dataflow::{AnalysisOptions, Rational, SdfError, SdfGraph};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Enumerates every simple cycle (as edge lists; parallel edges give
/// distinct cycles) and returns the maximum ratio, or `Err(())` if a cycle
/// has no tokens.
fn brute_force(n: usize, edges: &[RatioEdge]) -> Result<Option<Rational>, ()> {
    struct Search<'a> {
        edges: &'a [RatioEdge],
        on: Vec<bool>,
        best: Option<Rational>,
        zero: bool,
    }
    impl Search<'_> {
        /// Extends the path ending in `u` (started at `s`, the smallest
        /// node of the cycles enumerated) with weight `w` and tokens `t`.
        fn dfs(&mut self, s: usize, u: usize, w: u128, t: u128) {
            let edges = self.edges;
            for e in edges.iter().filter(|e| e.src == u && e.dst >= s) {
                let (w2, t2) = (w + e.weight as u128, t + e.tokens as u128);
                if e.dst == s {
                    if t2 == 0 {
                        self.zero = true;
                    } else {
                        let r = Rational::new(w2, t2);
                        if self.best.is_none_or(|b| r > b) {
                            self.best = Some(r);
                        }
                    }
                } else if !self.on[e.dst] {
                    self.on[e.dst] = true;
                    self.dfs(s, e.dst, w2, t2);
                    self.on[e.dst] = false;
                }
            }
        }
    }
    let mut st = Search {
        edges,
        on: vec![false; n],
        best: None,
        zero: false,
    };
    for s in 0..n {
        st.on[s] = true;
        st.dfs(s, s, 0, 0);
        st.on[s] = false;
    }
    if st.zero { Err(()) } else { Ok(st.best) }
}

#[test]
fn howard_matches_brute_force_on_random_graphs() {
    let mut rng = Rng(42);
    let mut with_cycles = 0;
    for case in 0..3000 {
        let n = 1 + rng.below(7) as usize;
        let m = rng.below(3 * n as u64 + 2) as usize;
        let edges: Vec<RatioEdge> = (0..m)
            .map(|_| RatioEdge {
                src: rng.below(n as u64) as usize,
                dst: rng.below(n as u64) as usize,
                weight: rng.below(20),
                tokens: if rng.below(6) == 0 {
                    0
                } else {
                    1 + rng.below(3)
                },
            })
            .collect();
        let expected = brute_force(n, &edges);
        let got = max_cycle_ratio(n, &edges);
        match (expected, got) {
            (Err(()), Err(McrError::ZeroTokenCycle(z))) => {
                // the witness is a real zero-token cycle
                assert!(!z.edges.is_empty());
                for w in z.edges.windows(2) {
                    assert_eq!(edges[w[0]].dst, edges[w[1]].src, "case {case}");
                }
                let first = edges[z.edges[0]].src;
                assert_eq!(edges[*z.edges.last().unwrap()].dst, first);
                assert!(z.edges.iter().all(|&i| edges[i].tokens == 0));
            }
            (Ok(None), Ok(None)) => {}
            (Ok(Some(r)), Ok(Some(c))) => {
                with_cycles += 1;
                assert_eq!(c.ratio, r, "case {case}: {edges:?}");
                // the reported cycle is a closed walk with that ratio
                for w in c.edges.windows(2) {
                    assert_eq!(edges[w[0]].dst, edges[w[1]].src, "case {case}");
                }
                let first = edges[c.edges[0]].src;
                assert_eq!(edges[*c.edges.last().unwrap()].dst, first);
                let w: u128 = c.edges.iter().map(|&i| edges[i].weight as u128).sum();
                let t: u128 = c.edges.iter().map(|&i| edges[i].tokens as u128).sum();
                assert_eq!(Rational::new(w, t), r, "case {case}");
            }
            (e, g) => panic!("case {case}: brute force {e:?}, Howard {g:?}, {edges:?}"),
        }
    }
    assert!(with_cycles > 1000, "only {with_cycles} graphs with cycles");
}

/// A random connected, consistent SDF graph: random rates derived from a
/// random repetition vector, a spanning chain plus extra channels, and
/// enough tokens on back edges to be (mostly) live.
fn random_sdf(rng: &mut Rng) -> SdfGraph {
    let n = 2 + rng.below(4) as usize;
    let mut g = SdfGraph::new("random");
    let q: Vec<u64> = (0..n).map(|_| 1 + rng.below(3)).collect();
    let ids: Vec<_> = (0..n)
        .map(|i| g.add_actor(format!("a{i}"), "k", 1 + rng.below(9)))
        .collect();
    let add = |g: &mut SdfGraph, rng: &mut Rng, s: usize, d: usize| {
        // q[s] * p = q[d] * c
        let l = q[s] * q[d] / gcd(q[s], q[d]);
        let k = 1 + rng.below(2);
        let (p, c) = (k * l / q[s], k * l / q[d]);
        let tokens = if d <= s {
            // back edge: enough to let the loop run, sometimes more
            p * q[s] * rng.below(3) + rng.below(3) * c
        } else {
            rng.below(2) * c
        };
        g.connect(ids[s], p, ids[d], c, tokens);
    };
    for i in 1..n {
        add(&mut g, rng, i - 1, i);
    }
    for _ in 0..rng.below(4) {
        let s = rng.below(n as u64) as usize;
        let d = rng.below(n as u64) as usize;
        add(&mut g, rng, s, d);
    }
    g
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[test]
fn mcr_throughput_matches_state_space_on_random_sdf_graphs() {
    let mut rng = Rng(7);
    let mut compared = 0;
    let mut deadlocked = 0;
    for case in 0..400 {
        let g = random_sdf(&mut rng);
        for opts in [AnalysisOptions::default(), AnalysisOptions::sdf3()] {
            let q = g.repetition_vector().unwrap();
            let mcr = g.analyze_throughput_with(&opts);
            let ss = g.self_timed_period(&opts, 200_000);
            match (mcr, ss) {
                (Ok(t), Ok(p)) => {
                    compared += 1;
                    assert_eq!(
                        t.period,
                        p,
                        "case {case} {opts:?} q {:?}\n{}",
                        q.as_slice(),
                        g.to_dot()
                    );
                }
                (Err(SdfError::Deadlock { .. }), Err(SdfError::Deadlock { .. })) => {
                    deadlocked += 1;
                }
                (a, b) => panic!("case {case}: MCR {a:?} vs state space {b:?}"),
            }
        }
    }
    assert!(
        compared > 300,
        "compared {compared}, deadlocked {deadlocked}"
    );
}

#[test]
fn hsdf_deadlock_agrees_with_symbolic_execution() {
    // a zero-token cycle in the HSDF graph exists iff one iteration cannot
    // complete
    let mut rng = Rng(99);
    for case in 0..500 {
        let g = random_sdf(&mut rng);
        let opts = AnalysisOptions::sdf3();
        let h = g.to_hsdf_with(&opts).unwrap();
        let edges: Vec<RatioEdge> = h
            .edges
            .iter()
            .map(|e| RatioEdge {
                src: e.src,
                dst: e.dst,
                weight: 1,
                tokens: e.tokens,
            })
            .collect();
        let hsdf_dead = max_cycle_ratio(h.nodes.len(), &edges).is_err();
        let sim_dead = g.check_deadlock_with(&opts).is_err();
        assert_eq!(hsdf_dead, sim_dead, "case {case}\n{}", g.to_dot());
    }
}
