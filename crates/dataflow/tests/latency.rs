//! Latency against SDF3's self-timed latency analysis
//! (`sdf3analysis-sdf --algo "latency(st,SRC,DST)"`, see
//! `data/sdf3-reference/README.md`).

mod common;

use aesflow_dataflow::{AnalysisOptions, SdfError, SdfGraph, sdf3};

fn lat(g: &SdfGraph, s: &str, d: &str) -> Result<u64, SdfError> {
    g.latency(
        g.find_actor(s).unwrap(),
        g.find_actor(d).unwrap(),
        &AnalysisOptions::sdf3(),
        1_000_000,
    )
}

#[test]
fn corner_graphs_equal_sdf3() {
    // SDF3: latency(corner) = 10, 10, 3, 10 on both graphs
    for xml in [
        include_str!("data/sdf3-reference/corner.xml"),
        include_str!("data/sdf3-reference/corner-ring.xml"),
    ] {
        let g = sdf3::from_xml(xml).unwrap();
        assert_eq!(lat(&g, "a", "c").unwrap(), 10);
        assert_eq!(lat(&g, "b", "a").unwrap(), 10);
        assert_eq!(lat(&g, "a", "a").unwrap(), 3);
        assert_eq!(lat(&g, "c", "b").unwrap(), 10);
    }
}

#[test]
fn needs_a_strongly_connected_graph() {
    let g = sdf3::from_xml(include_str!("data/modem.xml")).unwrap();
    assert_eq!(lat(&g, "in", "out"), Err(SdfError::NotStronglyConnected));
}

#[test]
fn every_iteration_counts_not_only_the_first() {
    // SDF3 answers 24 (the first iteration); the periodic regime takes 31
    let g = sdf3::from_xml(include_str!("data/sdf3-reference/latency-r21.xml")).unwrap();
    assert_eq!(lat(&g, "a1", "a0").unwrap(), 31);
    assert_eq!(lat(&g, "a0", "a1").unwrap(), 17); // SDF3: 17
}

#[test]
fn zero_time_graphs_have_zero_latency() {
    let edges = [(0, 1, 1, 1, 0), (1, 1, 0, 1, 1)];
    let (g, _) = common::graph("z", [("a", 0), ("b", 0)], &edges);
    assert_eq!(lat(&g, "a", "b").unwrap(), 0);
}
