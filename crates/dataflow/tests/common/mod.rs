//! Helpers shared by the integration tests (`mod common;` in each file
//! that uses them).

#![allow(dead_code)] // each test file uses a part

pub mod sdf3_gen;

use aesflow_dataflow::{ActorId, AnalysisOptions, Rational, SdfGraph};

/// One channel of [`graph`]: source actor (position in the actor list),
/// production, destination actor, consumption, initial tokens.
pub type Edge = (usize, u64, usize, u64, u64);

/// A graph from tables: actors `(name, execution time)` of kind `k`, and
/// channels made with [`SdfGraph::connect`] in order. Returns the actor
/// ids in order.
pub fn graph<const N: usize>(
    name: &str,
    actors: [(&str, u64); N],
    channels: &[Edge],
) -> (SdfGraph, [ActorId; N]) {
    let mut g = SdfGraph::new(name);
    let ids = actors.map(|(n, t)| g.add_actor(n, "k", t));
    for &(s, p, d, c, tok) in channels {
        g.connect(ids[s], p, ids[d], c, tok);
    }
    (g, ids)
}

/// An integer period.
pub fn int(n: u128) -> Rational {
    Rational::from_integer(n)
}

/// SDF3's semantics with capacities respected: auto-concurrency only.
pub fn auto() -> AnalysisOptions {
    AnalysisOptions {
        auto_concurrency: true,
        ..AnalysisOptions::default()
    }
}
