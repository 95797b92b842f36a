//! The mapper: binds actors to cores, inserts MergeCores and DispatchCores
//! where an actor needs more inputs or outputs than a core offers, places the
//! cores on the mesh and compiles each core's word-level program.

use std::collections::{HashMap, VecDeque};

use crate::app::{ActorClass, AppGraph, Behavior, Step};
use crate::platform::Platform;

/// What a core is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoreClass {
    /// Runs an application actor.
    Compute,
    /// Merges two input streams into one (communication core).
    Merge,
    /// Forwards one stream to several destinations (communication core).
    Dispatch,
    /// Off-array input (not a core).
    Source,
    /// Off-array output (not a core).
    Sink,
}

impl CoreClass {
    /// MergeCore or DispatchCore.
    pub fn is_comm(self) -> bool {
        matches!(self, CoreClass::Merge | CoreClass::Dispatch)
    }
    /// Occupies a tile of the mesh.
    pub fn is_core(self) -> bool {
        !matches!(self, CoreClass::Source | CoreClass::Sink)
    }
}

/// One instruction-level step of a core program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Pop a word from input port `port` into `mem[addr]`.
    In {
        /// Input port (index into [`Core::inputs`]).
        port: u8,
        /// Data-memory address.
        addr: u16,
    },
    /// Push `mem[addr]` onto link `link`.
    Out {
        /// Link index.
        link: u32,
        /// Data-memory address.
        addr: u16,
    },
    /// Execute (see [`Step::Exec`]); `action == u32::MAX` means no
    /// behaviour call.
    Exec {
        /// Cycles.
        cycles: u32,
        /// NOP cycles among them.
        nop: u32,
        /// Behaviour action.
        action: u32,
    },
}

/// A core of the mapping (or an off-array port).
pub struct Core {
    /// Name (the actor's, or `merge3` / `dispatch0`).
    pub name: String,
    /// Kind label.
    pub kind: String,
    /// Class.
    pub class: CoreClass,
    /// The application actor it runs, if any.
    pub actor: Option<usize>,
    /// Program for one period.
    pub program: Vec<Op>,
    /// Input links, by port.
    pub inputs: Vec<u32>,
    /// Output links.
    pub outputs: Vec<u32>,
    /// Tile `(x, y)`, for cores.
    pub pos: Option<(u32, u32)>,
    /// Data-memory words.
    pub mem_words: usize,
    /// Functional behaviour (compute, source and sink cores).
    pub behavior: Option<Box<dyn Behavior>>,
}

impl std::fmt::Debug for Core {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Core")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("class", &self.class)
            .field("pos", &self.pos)
            .finish()
    }
}

/// A link between two cores: a FIFO in the consumer's input port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// Producer core.
    pub src: usize,
    /// Consumer core.
    pub dst: usize,
    /// Consumer input port.
    pub port: u8,
    /// Manhattan distance in tiles (0 for off-array ports).
    pub tiles: u32,
    /// Latency in cycles.
    pub latency: u64,
}

impl Link {
    /// A long-distance link (more than one tile).
    pub fn is_long(&self) -> bool {
        self.tiles > 1
    }
}

/// The result of mapping an application on the array.
#[derive(Debug)]
pub struct Mapping {
    /// Cores (compute, merge, dispatch) and off-array ports.
    pub cores: Vec<Core>,
    /// Links.
    pub links: Vec<Link>,
    /// Mesh width used.
    pub width: u32,
    /// Mesh height used.
    pub height: u32,
    /// True if the mapping needs more cores than the chip has
    /// ([`Platform::chip_cores`]); the mesh was grown to simulate it anyway.
    pub exceeds_chip: bool,
}

impl Mapping {
    /// Number of cores on the mesh (compute + communication).
    pub fn total_cores(&self) -> usize {
        self.cores.iter().filter(|c| c.class.is_core()).count()
    }
    /// Number of communication cores (MergeCores + DispatchCores).
    pub fn comm_cores(&self) -> usize {
        self.cores.iter().filter(|c| c.class.is_comm()).count()
    }
    /// Number of MergeCores.
    pub fn merge_cores(&self) -> usize {
        self.cores
            .iter()
            .filter(|c| c.class == CoreClass::Merge)
            .count()
    }
    /// Number of DispatchCores.
    pub fn dispatch_cores(&self) -> usize {
        self.cores
            .iter()
            .filter(|c| c.class == CoreClass::Dispatch)
            .count()
    }
}

/// Mapping errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapError(pub String);

impl std::fmt::Display for MapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MapError {}

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

/// Map an application on the array.
pub fn map(mut app: AppGraph, platform: &Platform) -> Result<Mapping, MapError> {
    app.check_rates().map_err(MapError)?;
    let n_act = app.actors.len();
    let n_edges = app.edges.len();
    // Paths: for every edge, the cores after the producer (last = consumer).
    let mut paths: Vec<Vec<usize>> = (0..n_edges).map(|e| vec![app.edges[e].dst]).collect();
    let mut cores: Vec<Core> = Vec::with_capacity(n_act * 2);
    let mut behaviors: Vec<Option<Box<dyn Behavior>>> = Vec::new();
    for a in app.actors.iter_mut() {
        let class = match a.class {
            ActorClass::Compute => CoreClass::Compute,
            ActorClass::Source => CoreClass::Source,
            ActorClass::Sink => CoreClass::Sink,
        };
        behaviors.push(Some(std::mem::replace(
            &mut a.behavior,
            Box::new(crate::app::NoBehavior),
        )));
        cores.push(Core {
            name: a.name.clone(),
            kind: a.kind.clone(),
            class,
            actor: Some(cores.len()),
            program: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            pos: None,
            mem_words: a.mem_words,
            behavior: None,
        });
    }
    // Edge word counts.
    let words: Vec<usize> = (0..n_edges).map(|e| app.edge_words(e)).collect();

    // --- Merge trees, per consumer.
    let mut merge_count = 0;
    for c in 0..n_act {
        if app.actors[c].class != ActorClass::Compute {
            continue;
        }
        // Groups of in-edges by producer, in edge order (the application
        // lists related inputs, e.g. the columns of a state, together).
        let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
        for (edge, e) in app.edges.iter().enumerate() {
            if e.dst != c {
                continue;
            }
            let p = e.src;
            match groups.iter_mut().find(|g| g.0 == p) {
                Some(g) => g.1.push(edge),
                None => groups.push((p, vec![edge])),
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
        // Pair the adjacent nodes with the fewest words; keep the input
        // order so the merged stream follows the consumer's read order.
        while nodes.len() > platform.max_inputs {
            let mut best = 0;
            for i in 1..nodes.len() - 1 {
                if nodes[i].1 + nodes[i + 1].1 < nodes[best].1 + nodes[best + 1].1 {
                    best = i;
                }
            }
            let (b, wb) = nodes.remove(best + 1);
            let (a, wa) = nodes.remove(best);
            nodes.insert(best, (MNode::Merge(Box::new(a), Box::new(b)), wa + wb));
        }
        // Create merge cores top-down: each edge's path gets the merges from
        // its leaf upwards before the consumer.
        fn build(
            node: &MNode,
            cores: &mut Vec<Core>,
            behaviors: &mut Vec<Option<Box<dyn Behavior>>>,
            paths: &mut [Vec<usize>],
            merge_count: &mut usize,
            consumer: &str,
        ) {
            if let MNode::Merge(a, b) = node {
                let id = cores.len();
                cores.push(Core {
                    name: format!("merge{}", *merge_count),
                    kind: "MergeCore".into(),
                    class: CoreClass::Merge,
                    actor: None,
                    program: Vec::new(),
                    inputs: Vec::new(),
                    outputs: Vec::new(),
                    pos: None,
                    mem_words: 1,
                    behavior: None,
                });
                let _ = consumer;
                behaviors.push(None);
                *merge_count += 1;
                let mut es = Vec::new();
                node.edges(&mut es);
                for e in es {
                    paths[e].insert(0, id);
                }
                build(a, cores, behaviors, paths, merge_count, consumer);
                build(b, cores, behaviors, paths, merge_count, consumer);
            }
        }
        let cname = app.actors[c].name.clone();
        for (n, _) in &nodes {
            build(
                n,
                &mut cores,
                &mut behaviors,
                &mut paths,
                &mut merge_count,
                &cname,
            );
        }
    }

    // --- Dispatch trees, per producer.
    let mut dispatch_count = 0;
    for p in 0..n_act {
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
        let mut work: Vec<(Vec<usize>, usize)> = vec![(out_edges, 0)];
        while let Some((es, depth)) = work.pop() {
            // distinct next hops
            let mut hops: Vec<usize> = Vec::new();
            for &e in &es {
                let h = paths[e][depth];
                if !hops.contains(&h) {
                    hops.push(h);
                }
            }
            if hops.len() <= platform.max_outputs {
                continue;
            }
            // Keep max_outputs-1 hops direct, send the rest through a new
            // dispatch core (which may itself need another).
            let rest: Vec<usize> = hops[platform.max_outputs - 1..].to_vec();
            let id = cores.len();
            cores.push(Core {
                name: format!("dispatch{dispatch_count}"),
                kind: "DispatchCore".into(),
                class: CoreClass::Dispatch,
                actor: None,
                program: Vec::new(),
                inputs: Vec::new(),
                outputs: Vec::new(),
                pos: None,
                mem_words: 1,
                behavior: None,
            });
            behaviors.push(None);
            dispatch_count += 1;
            let moved: Vec<usize> = es
                .iter()
                .copied()
                .filter(|&e| rest.contains(&paths[e][depth]))
                .collect();
            for &e in &moved {
                paths[e].insert(depth, id);
            }
            work.push((moved, depth + 1));
        }
    }

    // --- Links.
    let mut link_of: HashMap<(usize, usize), u32> = HashMap::new();
    let mut links: Vec<Link> = Vec::new();
    let mut get_link = |cores: &mut Vec<Core>, links: &mut Vec<Link>, s: usize, d: usize| -> u32 {
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
    // hop links for each edge, in order of the consumer's reads so merge
    // children get ports in order.
    let mut edge_links: Vec<Vec<u32>> = vec![Vec::new(); n_edges];
    for c in 0..n_act {
        for s in &app.actors[c].program {
            if let Step::Read { edge, .. } = *s
                && edge_links[edge].is_empty()
            {
                let mut prev = app.edges[edge].src;
                let mut ls = Vec::new();
                for &h in &paths[edge] {
                    ls.push(get_link(&mut cores, &mut links, prev, h));
                    prev = h;
                }
                edge_links[edge] = ls;
            }
        }
    }
    for (e, ls) in edge_links.iter().enumerate() {
        if ls.is_empty() {
            return Err(MapError(format!("edge {e} is never read")));
        }
    }

    // --- Programs of actor cores.
    for (a, actor) in app.actors.iter().enumerate() {
        let mut prog = Vec::with_capacity(actor.program.len());
        for s in &actor.program {
            prog.push(match *s {
                Step::Read { edge, addr } => {
                    let l = *edge_links[edge].last().unwrap();
                    Op::In {
                        port: links[l as usize].port,
                        addr,
                    }
                }
                Step::Write { edge, addr } => Op::Out {
                    link: edge_links[edge][0],
                    addr,
                },
                Step::Exec {
                    cycles,
                    nop,
                    action,
                } => Op::Exec {
                    cycles,
                    nop,
                    action,
                },
            });
        }
        cores[a].program = prog;
    }
    // --- Programs of communication cores.
    #[allow(clippy::needless_range_loop)]
    for id in n_act..cores.len() {
        let is_merge = cores[id].class == CoreClass::Merge;
        // The actor whose program orders this core's words.
        let mut prog = Vec::new();
        let mut order_actor = None;
        for (e, p) in paths.iter().enumerate() {
            if p.contains(&id) {
                order_actor = Some(if is_merge {
                    app.edges[e].dst
                } else {
                    app.edges[e].src
                });
                break;
            }
        }
        let Some(oa) = order_actor else { continue };
        let mut new_firing = true;
        for s in &app.actors[oa].program {
            let edge = match (*s, is_merge) {
                (Step::Read { edge, .. }, true) | (Step::Write { edge, .. }, false) => edge,
                (Step::Exec { .. }, _) => {
                    new_firing = true;
                    continue;
                }
                _ => continue,
            };
            let Some(i) = paths[edge].iter().position(|&c| c == id) else {
                continue;
            };
            let in_link = edge_links[edge][i];
            let out_link = edge_links[edge][i + 1];
            if new_firing {
                prog.push(Op::Exec {
                    cycles: platform.comm_cycles_per_firing,
                    nop: 0,
                    action: u32::MAX,
                });
                new_firing = false;
            }
            prog.push(Op::In {
                port: links[in_link as usize].port,
                addr: 0,
            });
            prog.push(Op::Exec {
                cycles: platform.comm_cycles_per_word,
                nop: 0,
                action: u32::MAX,
            });
            prog.push(Op::Out {
                link: out_link,
                addr: 0,
            });
        }
        cores[id].program = prog;
    }
    for (c, b) in cores.iter_mut().zip(behaviors) {
        c.behavior = b;
    }

    // --- Placement: breadth-first from the sources along a serpentine.
    let n_tiles = cores.iter().filter(|c| c.class.is_core()).count() as u32;
    let width = platform.width.max(1);
    let height = platform.height.max(n_tiles.div_ceil(width));
    let exceeds_chip = n_tiles > platform.chip_cores.min(platform.width * platform.height);
    let mut order = Vec::new();
    let mut seen = vec![false; cores.len()];
    let mut q: VecDeque<usize> = VecDeque::new();
    for (i, c) in cores.iter().enumerate() {
        if c.class == CoreClass::Source {
            q.push_back(i);
            seen[i] = true;
        }
    }
    loop {
        while let Some(i) = q.pop_front() {
            if cores[i].class.is_core() {
                order.push(i);
            }
            for &l in &cores[i].outputs {
                let d = links[l as usize].dst;
                if !seen[d] {
                    seen[d] = true;
                    q.push_back(d);
                }
            }
        }
        match (0..cores.len()).find(|&i| !seen[i]) {
            Some(i) => {
                seen[i] = true;
                q.push_back(i);
            }
            None => break,
        }
    }
    for (k, &i) in order.iter().enumerate() {
        let k = k as u32;
        let y = k / width;
        let x = if y.is_multiple_of(2) {
            k % width
        } else {
            width - 1 - k % width
        };
        cores[i].pos = Some((x, y));
    }
    for l in links.iter_mut() {
        l.tiles = match (cores[l.src].pos, cores[l.dst].pos) {
            (Some((a, b)), Some((c, d))) => a.abs_diff(c) + b.abs_diff(d),
            _ => 0,
        };
        l.latency = platform.latency(l.tiles.max(1));
    }
    for c in &cores {
        if c.class == CoreClass::Compute && c.inputs.len() > platform.max_inputs {
            return Err(MapError(format!(
                "{} has {} inputs",
                c.name,
                c.inputs.len()
            )));
        }
    }
    Ok(Mapping {
        cores,
        links,
        width,
        height,
        exceeds_chip,
    })
}
