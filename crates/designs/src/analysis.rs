//! SDF analysis of a design with `aesflow-dataflow`.
//!
//! A design is cyclo-static (a loop core reads the new block in one firing
//! and the fed-back block in the others), so it is expanded into a
//! homogeneous SDF graph with one actor per firing of a block (per block
//! slot when the loop interleaves blocks): firing `p` of an actor is chained
//! to firing `p + 1`, the last firing to the first with one token (a core
//! runs one firing at a time and starts the next block after the current
//! one), and every edge token connects the producing firing to the
//! consuming one. Execution times are Table 1's delays. The period of this
//! graph (Howard's max cycle ratio) is the block-level self-timed bound:
//! it ignores word-level overlap, links and communication cores, which the
//! simulator models. Where the bound is a single actor (Loop-unrolled Nine
//! Times: MixColumns-16, 266; Full-parallelism: MixColumns-4, 70) the two
//! agree exactly.

use aesflow_dataflow::{ActorId, SdfGraph};

use crate::error::Error;
use crate::graph::{Design, Role};

/// The expanded HSDF graph and, per design actor, its firing actors.
pub fn to_sdf(d: &Design) -> (SdfGraph, Vec<Vec<ActorId>>) {
    let mut g = SdfGraph::new(d.name.clone());
    let nb = d.interleave.max(1);
    let mut ids: Vec<Vec<ActorId>> = Vec::new();
    for (a, actor) in d.actors.iter().enumerate() {
        let exec = u64::from(d.delay(a));
        let mut v = Vec::new();
        for p in 0..actor.n {
            for b in 0..nb {
                let name = if actor.n == 1 && nb == 1 {
                    actor.name.clone()
                } else {
                    format!("{}#{p}.{b}", actor.name)
                };
                v.push(g.add_actor(name, actor.role.kind(), exec));
            }
        }
        for w in v.windows(2) {
            g.connect(w[0], 1, w[1], 1, 0);
        }
        if v.len() > 1 && !matches!(actor.role, Role::PlainSource | Role::KeySource | Role::Sink) {
            g.connect(*v.last().unwrap(), 1, v[0], 1, 1);
        }
        ids.push(v);
    }
    for e in &d.edges {
        for k in 0..(e.src_ph.1 - e.src_ph.0) {
            for b in 0..nb {
                let s = ids[e.src][((e.src_ph.0 + k) * nb + b) as usize];
                let t = ids[e.dst][((e.dst_ph.0 + k) * nb + b) as usize];
                g.connect(s, 1, t, 1, 0);
            }
        }
    }
    (g, ids)
}

/// SDF bound: cycles per block, and the names of the design actors on the
/// critical cycle.
pub fn sdf_bound(d: &Design) -> Result<(f64, Vec<String>), Error> {
    let (g, ids) = to_sdf(d);
    let t = g.analyze_throughput().map_err(|e| Error::Dataflow {
        design: d.name.clone(),
        message: e.to_string(),
    })?;
    let per_block = t.period.to_f64() / f64::from(d.interleave.max(1));
    let mut names = Vec::new();
    for id in t.critical_actors() {
        if let Some(a) = ids.iter().position(|v| v.contains(&id)) {
            let n = d.actors[a].name.clone();
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    Ok((per_block, names))
}

/// SDF3 XML of the expanded graph.
pub fn to_sdf3(d: &Design) -> Result<String, Error> {
    aesflow_dataflow::sdf3::to_xml(&to_sdf(d).0).map_err(|e| Error::Dataflow {
        design: d.name.clone(),
        message: e.to_string(),
    })
}
