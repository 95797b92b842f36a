//! Binding and routing: one core per actor, MergeCores in front of actors
//! with more producers than input ports, DispatchCores behind actors with
//! more destinations than output directions (paper §4.4–4.5), then one link
//! per hop of every edge and the word-level programs of every core.

use std::collections::HashMap;

use crate::app::{ActorClass, AppGraph, Behavior, Exec, NoBehavior, Step};
use crate::mapper::{Core, CoreClass, Link, MapError, Op};
use crate::platform::Platform;

/// Cores after binding, with each edge's path.
pub(crate) struct Bound {
    /// Actor cores (indexed like the actors), then communication cores.
    pub cores: Vec<Core>,
    /// Behaviours, taken from the actors (attached after routing).
    pub behaviors: Vec<Option<Box<dyn Behavior>>>,
    /// For every edge, the cores after its producer (last: the consumer).
    pub paths: Vec<Vec<usize>>,
}

/// Links after routing.
pub(crate) struct Routed {
    /// All links.
    pub links: Vec<Link>,
    /// For every edge, its links in path order.
    pub edge_links: Vec<Vec<u32>>,
}

/// A node of a merge tree: a group of edges (from one producer) or a merge.
#[derive(Clone, Debug)]
enum MNode {
    Group(Vec<usize>),
    Merge(Box<MNode>, Box<MNode>),
}

impl MNode {
    fn edges(&self, out: &mut Vec<usize>) {
        match self {
            MNode::Group(e) => out.extend_from_slice(e),
            MNode::Merge(a, b) => {
                a.edges(out);
                b.edges(out);
            }
        }
    }
}

fn comm_core(name: String, kind: &str, class: CoreClass) -> Core {
    Core {
        name,
        kind: kind.into(),
        class,
        actor: None,
        program: Vec::new(),
        inputs: Vec::new(),
        outputs: Vec::new(),
        pos: None,
        mem_words: 1,
        behavior: None,
    }
}

/// Binding: a core per actor, then the merge and dispatch trees.
pub(crate) fn bind(app: &mut AppGraph, platform: &Platform) -> Bound {
    let paths: Vec<Vec<usize>> = app.edges.iter().map(|e| vec![e.dst]).collect();
    let mut cores: Vec<Core> = Vec::with_capacity(app.actors.len() * 2);
    let mut behaviors: Vec<Option<Box<dyn Behavior>>> = Vec::new();
    for a in app.actors.iter_mut() {
        let class = match a.class {
            ActorClass::Compute => CoreClass::Compute,
            ActorClass::Source => CoreClass::Source,
            ActorClass::Sink => CoreClass::Sink,
        };
        behaviors.push(Some(std::mem::replace(
            &mut a.behavior,
            Box::new(NoBehavior),
        )));
        cores.push(Core {
            actor: Some(cores.len()),
            mem_words: a.mem_words,
            ..comm_core(a.name.clone(), &a.kind, class)
        });
    }
    let mut b = Bound {
        cores,
        behaviors,
        paths,
    };
    merge_trees(app, platform, &mut b);
    dispatch_trees(app, platform, &mut b);
    b
}

/// Pair the adjacent in-edge groups with the fewest words until the
/// consumer's ports suffice; keep the input order so the merged stream
/// follows the consumer's read order.
fn merge_trees(app: &AppGraph, platform: &Platform, b: &mut Bound) {
    let words: Vec<usize> = (0..app.edges.len()).map(|e| app.edge_words(e)).collect();
    let mut merge_count = 0;
    // In-edges of every actor, in edge order: one pass over the edges, so
    // that binding stays linear in the size of the application.
    let mut ins: Vec<Vec<usize>> = vec![Vec::new(); app.actors.len()];
    for (edge, e) in app.edges.iter().enumerate() {
        ins[e.dst].push(edge);
    }
    for (actor, in_edges) in app.actors.iter().zip(&ins) {
        if actor.class != ActorClass::Compute {
            continue;
        }
        // Groups of in-edges by producer, in edge order (the application
        // lists related inputs, e.g. the columns of a state, together).
        let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
        for &edge in in_edges {
            let e = &app.edges[edge];
            match groups.iter_mut().find(|g| g.0 == e.src) {
                Some(g) => g.1.push(edge),
                None => groups.push((e.src, vec![edge])),
            }
        }
        if groups.len() <= platform.max_inputs {
            continue;
        }
        let mut nodes: Vec<(MNode, usize)> = groups
            .into_iter()
            .map(|(_, es)| {
                let w = es.iter().map(|&e| words[e]).sum();
                (MNode::Group(es), w)
            })
            .collect();
        while nodes.len() > platform.max_inputs.max(1) {
            let mut best = 0;
            for i in 1..nodes.len() - 1 {
                if nodes[i].1 + nodes[i + 1].1 < nodes[best].1 + nodes[best + 1].1 {
                    best = i;
                }
            }
            let (y, wy) = nodes.remove(best + 1);
            let (x, wx) = nodes.remove(best);
            nodes.insert(best, (MNode::Merge(Box::new(x), Box::new(y)), wx + wy));
        }
        for (n, _) in &nodes {
            build_merges(n, b, &mut merge_count);
        }
    }
}

/// Create the merge cores of a tree top-down: each edge's path gets the
/// merges from its leaf upwards before the consumer.
fn build_merges(node: &MNode, b: &mut Bound, merge_count: &mut usize) {
    if let MNode::Merge(x, y) = node {
        let id = b.cores.len();
        b.cores.push(comm_core(
            format!("merge{}", *merge_count),
            "MergeCore",
            CoreClass::Merge,
        ));
        b.behaviors.push(None);
        *merge_count += 1;
        let mut es = Vec::new();
        node.edges(&mut es);
        for e in es {
            b.paths[e].insert(0, id);
        }
        build_merges(x, b, merge_count);
        build_merges(y, b, merge_count);
    }
}

/// DispatchCores behind every producer with more next hops than
/// `max_outputs`, arranged as [`Platform::dispatch`] says
/// ([`crate::DispatchShape::plan`]).
fn dispatch_trees(app: &AppGraph, platform: &Platform, b: &mut Bound) {
    let mut dispatch_count = 0;
    for p in 0..app.actors.len() {
        if app.actors[p].class != ActorClass::Compute {
            continue;
        }
        let mut out_edges: Vec<usize> = Vec::new();
        for s in &app.actors[p].program {
            if let Step::Write { edge, .. } = *s
                && !out_edges.contains(&edge)
            {
                out_edges.push(edge);
            }
        }
        let mut hops: Vec<usize> = Vec::new();
        for &e in &out_edges {
            if !hops.contains(&b.paths[e][0]) {
                hops.push(b.paths[e][0]);
            }
        }
        let plan = platform.dispatch.plan(hops.len(), platform.max_outputs);
        let base = b.cores.len();
        let count = plan.iter().flatten().map(|&c| c + 1).max().unwrap_or(0);
        for _ in 0..count {
            b.cores.push(comm_core(
                format!("dispatch{dispatch_count}"),
                "DispatchCore",
                CoreClass::Dispatch,
            ));
            b.behaviors.push(None);
            dispatch_count += 1;
        }
        for &e in &out_edges {
            let Some(h) = hops.iter().position(|&h| h == b.paths[e][0]) else {
                continue;
            };
            let path = &mut b.paths[e];
            path.splice(0..0, plan[h].iter().map(|&c| base + c));
        }
    }
}

/// Routing: one link per hop of every edge, created in the order of the
/// consumers' reads so merge children get ports in order.
pub(crate) fn links(app: &AppGraph, b: &mut Bound) -> Result<Routed, MapError> {
    let mut link_of: HashMap<(usize, usize), u32> = HashMap::new();
    let mut links: Vec<Link> = Vec::new();
    let cores = &mut b.cores;
    let mut get_link = |s: usize, d: usize| -> u32 {
        *link_of.entry((s, d)).or_insert_with(|| {
            let id = links.len() as u32;
            let port = cores[d].inputs.len() as u8;
            cores[d].inputs.push(id);
            cores[s].outputs.push(id);
            links.push(Link {
                src: s,
                dst: d,
                port,
                tiles: 0,
                latency: 0,
            });
            id
        })
    };
    let mut edge_links: Vec<Vec<u32>> = vec![Vec::new(); app.edges.len()];
    for actor in &app.actors {
        for s in &actor.program {
            if let Step::Read { edge, .. } = *s
                && edge_links[edge].is_empty()
            {
                let mut prev = app.edges[edge].src;
                let mut ls = Vec::new();
                for &h in &b.paths[edge] {
                    ls.push(get_link(prev, h));
                    prev = h;
                }
                edge_links[edge] = ls;
            }
        }
    }
    if let Some(edge) = edge_links.iter().position(|ls| ls.is_empty()) {
        return Err(MapError::NeverRead { edge });
    }
    Ok(Routed { links, edge_links })
}

/// Programs of the actor cores: reads from the last hop's port, writes on
/// the first hop's link.
pub(crate) fn actor_programs(app: &AppGraph, cores: &mut [Core], r: &Routed) {
    for (a, actor) in app.actors.iter().enumerate() {
        cores[a].program = actor
            .program
            .iter()
            .map(|s| match *s {
                Step::Read { edge, addr } => {
                    let l = r.edge_links[edge][r.edge_links[edge].len() - 1];
                    Op::In {
                        port: r.links[l as usize].port,
                        addr,
                    }
                }
                Step::Write { edge, addr } => Op::Out {
                    link: r.edge_links[edge][0],
                    addr,
                },
                Step::Exec(x) => Op::Exec(x),
            })
            .collect();
    }
}

/// Programs of the communication cores: forward each word in the order of
/// the consumer's reads (merge) or the producer's writes (dispatch), with
/// a fixed cost per firing and per word.
pub(crate) fn comm_programs(app: &AppGraph, platform: &Platform, b: &mut Bound, r: &Routed) {
    // The first edge whose path runs through each communication core.
    let first = app.actors.len();
    let mut first_edge: Vec<Option<usize>> = vec![None; b.cores.len().saturating_sub(first)];
    for (e, p) in b.paths.iter().enumerate() {
        for &id in p {
            if id >= first && first_edge[id - first].is_none() {
                first_edge[id - first] = Some(e);
            }
        }
    }
    for id in first..b.cores.len() {
        let is_merge = b.cores[id].class == CoreClass::Merge;
        // The actor whose program orders this core's words.
        let Some(e0) = first_edge[id - first] else {
            continue;
        };
        let oa = if is_merge {
            app.edges[e0].dst
        } else {
            app.edges[e0].src
        };
        let mut prog = Vec::new();
        let mut new_firing = true;
        for s in &app.actors[oa].program {
            let edge = match (*s, is_merge) {
                (Step::Read { edge, .. }, true) | (Step::Write { edge, .. }, false) => edge,
                (Step::Exec(_), _) => {
                    new_firing = true;
                    continue;
                }
                _ => continue,
            };
            let Some(i) = b.paths[edge].iter().position(|&c| c == id) else {
                continue;
            };
            let in_link = r.edge_links[edge][i];
            let out_link = r.edge_links[edge][i + 1];
            if new_firing {
                prog.push(Op::Exec(Exec {
                    cycles: platform.comm_cycles_per_firing,
                    nop: 0,
                    action: u32::MAX,
                }));
                new_firing = false;
            }
            prog.push(Op::In {
                port: r.links[in_link as usize].port,
                addr: 0,
            });
            prog.push(Op::Exec(Exec {
                cycles: platform.comm_cycles_per_word,
                nop: 0,
                action: u32::MAX,
            }));
            prog.push(Op::Out {
                link: out_link,
                addr: 0,
            });
        }
        b.cores[id].program = prog;
    }
}
