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
//!
//! ## The SDF3 export and SDF3's semantics
//!
//! Each design actor is a core: a sequential process. SDF3's throughput
//! analysis allows auto-concurrency (an actor may overlap its own
//! firings), so the export makes the sequence explicit: an actor with
//! several firings per iteration already lies on its chain's cycle with one
//! token, and an actor with a single firing gets a **self-edge with one
//! token**. Under SDF3's semantics (auto-concurrency, unbounded channels)
//! the exported graph then has exactly the period of [`sdf_bound`] under
//! aesflow's (no auto-concurrency). One **iteration** of the graph encrypts
//! `interleave` blocks (Small's loop holds two): the export states this
//! factor in a comment at the top of the document and in the graph's name
//! (`…/interleave=2`), and cycles per block are the period divided by it.

use std::collections::{HashMap, HashSet};

use aesflow_dataflow::{ActorId, SdfGraph};

use crate::error::Error;
use crate::graph::Design;

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
        if actor.role.is_core() {
            // One token around the firings of a core: it is sequential
            // (for a single firing, a self-edge).
            g.connect(v[v.len() - 1], 1, v[0], 1, 1);
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
    // Design actor of every firing actor, and the actors already named:
    // a critical cycle may run through every actor of a large design.
    let owner: HashMap<ActorId, usize> = ids
        .iter()
        .enumerate()
        .flat_map(|(a, v)| v.iter().map(move |&id| (id, a)))
        .collect();
    let mut named = HashSet::new();
    let mut names = Vec::new();
    for id in t.critical_actors() {
        if let Some(&a) = owner.get(&id)
            && named.insert(a)
        {
            names.push(d.actors[a].name.clone());
        }
    }
    Ok((per_block, names))
}

/// SDF3 XML of the expanded graph, with self-edges on sequential actors and
/// the interleaving factor (see the module docs).
pub fn to_sdf3(d: &Design) -> Result<String, Error> {
    let (mut g, _) = to_sdf(d);
    let nb = d.interleave.max(1);
    if nb > 1 {
        g.set_name(format!("{}/interleave={nb}", d.name));
    }
    let xml = aesflow_dataflow::sdf3::to_xml(&g).map_err(|e| Error::Dataflow {
        design: d.name.clone(),
        message: e.to_string(),
    })?;
    let note = format!(
        "<!-- aesflow: {} (AES-{}). Every actor is a sequential core (self-edges / firing cycles with one token), so SDF3's throughput analysis gives aesflow's period. One iteration encrypts {nb} block(s): cycles per block = period / {nb}. -->\n",
        d.name.replace("--", "- -"),
        d.key.bits()
    );
    Ok(match xml.split_once('\n') {
        Some((decl, rest)) => format!("{decl}\n{note}{rest}"),
        None => xml,
    })
}

/// The per-block period SDF3 computes for an exported document: read with
/// the SDF3 reader, analysed with SDF3's semantics (auto-concurrency,
/// unbounded channels), divided by the interleaving factor the document
/// names.
pub fn sdf3_cycles_per_block(xml: &str) -> Result<f64, Error> {
    let fail = |e: aesflow_dataflow::SdfError| Error::Dataflow {
        design: "SDF3 document".into(),
        message: e.to_string(),
    };
    let g = aesflow_dataflow::sdf3::from_xml(xml).map_err(fail)?;
    let nb: f64 = g
        .name()
        .rsplit_once("/interleave=")
        .and_then(|(_, n)| n.parse().ok())
        .unwrap_or(1.0);
    let t = g
        .analyze_throughput_with(&aesflow_dataflow::AnalysisOptions::sdf3())
        .map_err(fail)?;
    Ok(t.period.to_f64() / nb)
}
