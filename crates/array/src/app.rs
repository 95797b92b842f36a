//! The application side of a mapping: actors with static programs over
//! logical edges (before merge and dispatch cores are inserted).

use crate::error::MapError;

/// What an actor computes: the functional half of a core.
///
/// The simulator calls [`Behavior::exec`] when the core executes an
/// [`Step::Exec`] step, with the core's data memory (16-bit words) holding
/// the words its reads delivered; the behaviour transforms the memory, and
/// later writes send memory words on.
pub trait Behavior: Send {
    /// Run action `action` on the data memory at cycle `now`.
    fn exec(&mut self, action: u32, mem: &mut [u16], now: u64);
}

/// Behaviours are opaque (they may hold key material): a boxed behaviour
/// prints as a placeholder, so actors and cores can derive `Debug`.
impl std::fmt::Debug for dyn Behavior {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<behavior>")
    }
}

/// A behaviour that does nothing (for pure routing or tests).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoBehavior;

impl Behavior for NoBehavior {
    fn exec(&mut self, _action: u32, _mem: &mut [u16], _now: u64) {}
}

/// Where an actor lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActorClass {
    /// A computation core on the mesh.
    Compute,
    /// An off-array input stream (not a core).
    Source,
    /// An off-array output stream (not a core); each [`Step::Exec`] of a
    /// sink marks one completed block.
    Sink,
}

/// One step of an actor's static program (one period of it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Read one word of logical edge `edge` into data memory `addr`.
    Read {
        /// Logical edge index.
        edge: usize,
        /// Data-memory address.
        addr: u16,
    },
    /// Write data memory `addr` as the next word of logical edge `edge`.
    Write {
        /// Logical edge index.
        edge: usize,
        /// Data-memory address.
        addr: u16,
    },
    /// Execute for a while, calling the behaviour at the start.
    Exec(Exec),
}

/// An execution step (of an actor's [`Step`] or a core's
/// [`Op`](crate::Op)): `cycles` cycles, of which `nop` are NOPs from
/// hazards, calling the behaviour with `action` at the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exec {
    /// Cycles, NOPs included.
    pub cycles: u32,
    /// NOP cycles among them.
    pub nop: u32,
    /// Action passed to [`Behavior::exec`].
    pub action: u32,
}

/// An actor of the application graph.
#[derive(Debug)]
pub struct AppActor {
    /// Unique name.
    pub name: String,
    /// Kind label (colours the map, groups the report).
    pub kind: String,
    /// Core, source or sink.
    pub class: ActorClass,
    /// One period of the actor's program (repeats forever; sources repeat
    /// it a given number of times).
    pub program: Vec<Step>,
    /// The functional half.
    pub behavior: Box<dyn Behavior>,
    /// Data-memory words the program uses.
    pub mem_words: usize,
}

/// A logical edge: a FIFO-ordered word stream from one actor to another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppEdge {
    /// Producer actor index.
    pub src: usize,
    /// Consumer actor index.
    pub dst: usize,
    /// Label (for DOT).
    pub label: String,
}

/// An application: actors and logical edges.
#[derive(Debug, Default)]
pub struct AppGraph {
    /// Actors.
    pub actors: Vec<AppActor>,
    /// Logical edges.
    pub edges: Vec<AppEdge>,
}

impl AppGraph {
    /// Words per period that `edge` carries, counted on the consumer side.
    pub fn edge_words(&self, edge: usize) -> usize {
        let a = &self.actors[self.edges[edge].dst];
        a.program
            .iter()
            .filter(|s| matches!(s, Step::Read { edge: e, .. } if *e == edge))
            .count()
    }

    /// Checks the application is well formed: edges join existing actors,
    /// every step uses an edge of its actor (reads on its in-edges, writes on
    /// its out-edges) and an address inside its data memory, every compute
    /// actor reads some input, and every edge is written as often as it is
    /// read per period.
    pub fn validate(&self) -> Result<(), MapError> {
        let n = self.actors.len();
        let bad = |actor: &str, message: String| MapError::Invalid {
            actor: actor.to_string(),
            message,
        };
        for (i, e) in self.edges.iter().enumerate() {
            if e.src >= n || e.dst >= n {
                return Err(bad("-", format!("edge {i} joins a missing actor")));
            }
        }
        for (a, actor) in self.actors.iter().enumerate() {
            for s in &actor.program {
                let (edge, addr, read) = match *s {
                    Step::Read { edge, addr } => (edge, addr, true),
                    Step::Write { edge, addr } => (edge, addr, false),
                    Step::Exec(Exec { nop, cycles, .. }) => {
                        if nop > cycles {
                            return Err(bad(&actor.name, format!("{nop} NOPs in {cycles} cycles")));
                        }
                        continue;
                    }
                };
                let Some(e) = self.edges.get(edge) else {
                    return Err(bad(&actor.name, format!("step on missing edge {edge}")));
                };
                if (read && e.dst != a) || (!read && e.src != a) {
                    return Err(bad(
                        &actor.name,
                        format!(
                            "{} edge {edge}, which is not its own",
                            if read { "reads" } else { "writes" }
                        ),
                    ));
                }
                if usize::from(addr) >= actor.mem_words.max(1) {
                    return Err(bad(
                        &actor.name,
                        format!("address {addr} outside its {} data words", actor.mem_words),
                    ));
                }
            }
            let reads = actor.program.iter().any(|s| matches!(s, Step::Read { .. }));
            if actor.class == ActorClass::Compute && !reads {
                return Err(MapError::NoInput {
                    actor: actor.name.clone(),
                });
            }
        }
        self.check_rates()
    }

    /// Checks that every edge is written as often as it is read per period.
    pub fn check_rates(&self) -> Result<(), MapError> {
        for (i, e) in self.edges.iter().enumerate() {
            let w = self.actors[e.src]
                .program
                .iter()
                .filter(|s| matches!(s, Step::Write { edge, .. } if *edge == i))
                .count();
            let r = self.edge_words(i);
            if w != r {
                return Err(MapError::Rates {
                    edge: i,
                    src: self.actors[e.src].name.clone(),
                    dst: self.actors[e.dst].name.clone(),
                    written: w,
                    read: r,
                });
            }
        }
        Ok(())
    }
}

/// Actions of the original sinks are tagged with their copy in the bits
/// above this shift by [`gather`].
pub const GATHER_COPY_SHIFT: u32 = 24;

/// The sink behaviour of a gathered application: dispatches each action to
/// the sink behaviour of the copy it came from.
struct GatherSink {
    parts: Vec<Box<dyn Behavior>>,
}

impl Behavior for GatherSink {
    fn exec(&mut self, action: u32, mem: &mut [u16], now: u64) {
        if action == u32::MAX {
            return;
        }
        let j = (action >> GATHER_COPY_SHIFT) as usize;
        let a = action & ((1 << GATHER_COPY_SHIFT) - 1);
        if let Some(b) = self.parts.get_mut(j) {
            b.exec(a, mem, now);
        }
    }
}

/// Duplicate an engine (paper §5.2, Fig. 12): the union of `copies`, each
/// with exactly one sink, whose outputs are gathered by one *consumer* core
/// (the "subsequent processor" the paper's outputs go to) before a single
/// off-array sink. The consumer has the platform's two input ports, so the
/// mapper inserts MergeCores in front of it when there are more than two
/// copies (two for four copies, as the paper says). Each copy keeps its own
/// off-array source. The consumer takes copy 0's block, then copy 1's, …,
/// round-robin, so feed copy `j` with blocks `j, j + k, j + 2k, …` to get
/// the output in input order.
///
/// The consumer core is named `consumer` with kind `Consumer`; it is not
/// part of the engine (subtract it when counting the engine's cores). Sink
/// actions must be below `1 << GATHER_COPY_SHIFT`.
pub fn gather(copies: Vec<AppGraph>) -> Result<AppGraph, MapError> {
    let gerr = |message: String| MapError::Gather { message };
    if copies.len() < 2 {
        return copies
            .into_iter()
            .next()
            .ok_or_else(|| gerr("no copies".into()));
    }
    let mut out = AppGraph::default();
    let mut sink_progs: Vec<(usize, Vec<Step>, usize)> = Vec::new();
    let mut sink_behaviors: Vec<Box<dyn Behavior>> = Vec::new();
    let mut sink_mem = 1;
    let mut removed: Vec<bool> = Vec::new();
    for (j, mut app) in copies.into_iter().enumerate() {
        let sinks: Vec<usize> = (0..app.actors.len())
            .filter(|&i| app.actors[i].class == ActorClass::Sink)
            .collect();
        let [sink] = sinks[..] else {
            return Err(gerr(format!("copy {j} has {} sinks", sinks.len())));
        };
        let a0 = out.actors.len();
        let e0 = out.edges.len();
        // Actors, with the sink's slot left as a placeholder to keep indices.
        for (i, mut a) in app.actors.drain(..).enumerate() {
            if i == sink {
                sink_mem = sink_mem.max(a.mem_words);
                sink_behaviors.push(std::mem::replace(&mut a.behavior, Box::new(NoBehavior)));
                sink_progs.push((j, std::mem::take(&mut a.program), e0));
            } else {
                a.name = format!("{}#{j}", a.name);
                for s in a.program.iter_mut() {
                    match s {
                        Step::Read { edge, .. } | Step::Write { edge, .. } => *edge += e0,
                        Step::Exec(_) => {}
                    }
                }
            }
            removed.push(i == sink);
            out.actors.push(a);
        }
        for mut e in app.edges.drain(..) {
            e.src += a0;
            e.dst += a0;
            out.edges.push(e);
        }
    }
    // Remove the placeholders: rebuild with index maps.
    let mut new_index = vec![usize::MAX; out.actors.len()];
    let mut actors = Vec::new();
    for (i, a) in out.actors.drain(..).enumerate() {
        if !removed[i] {
            new_index[i] = actors.len();
            actors.push(a);
        } else {
            new_index[i] = usize::MAX - 1;
        }
    }
    let consumer = actors.len();
    let sink = consumer + 1;
    for e in out.edges.iter_mut() {
        e.src = new_index[e.src];
        e.dst = if new_index[e.dst] == usize::MAX - 1 {
            consumer
        } else {
            new_index[e.dst]
        };
    }
    let out_edge = out.edges.len();
    let mut cprog = Vec::new();
    let mut sprog = Vec::new();
    for (j, prog, e0) in sink_progs {
        for s in prog {
            match s {
                Step::Read { edge, addr } => {
                    cprog.push(Step::Read {
                        edge: edge + e0,
                        addr,
                    });
                    cprog.push(Step::Write {
                        edge: out_edge,
                        addr,
                    });
                    sprog.push(Step::Read {
                        edge: out_edge,
                        addr,
                    });
                }
                Step::Write { .. } => {
                    return Err(gerr("a sink writes".into()));
                }
                Step::Exec(x) => sprog.push(Step::Exec(Exec {
                    action: if x.action == u32::MAX {
                        x.action
                    } else {
                        x.action | ((j as u32) << GATHER_COPY_SHIFT)
                    },
                    ..x
                })),
            }
        }
    }
    actors.push(AppActor {
        name: "consumer".into(),
        kind: "Consumer".into(),
        class: ActorClass::Compute,
        program: cprog,
        behavior: Box::new(NoBehavior),
        mem_words: sink_mem,
    });
    actors.push(AppActor {
        name: "sink".into(),
        kind: "Sink".into(),
        class: ActorClass::Sink,
        program: sprog,
        behavior: Box::new(GatherSink {
            parts: sink_behaviors,
        }),
        mem_words: sink_mem,
    });
    out.edges.push(AppEdge {
        src: consumer,
        dst: sink,
        label: "gathered".into(),
    });
    out.actors = actors;
    Ok(out)
}
