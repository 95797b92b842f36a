//! The application side of a mapping: actors with static programs over
//! logical edges (before merge and dispatch cores are inserted).

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
    /// Execute for `cycles` cycles (of which `nop` are NOPs from hazards),
    /// calling the behaviour with `action` at the start.
    Exec {
        /// Cycles, NOPs included.
        cycles: u32,
        /// NOP cycles among them.
        nop: u32,
        /// Action passed to [`Behavior::exec`].
        action: u32,
    },
}

/// An actor of the application graph.
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

impl std::fmt::Debug for AppActor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppActor")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("class", &self.class)
            .field("steps", &self.program.len())
            .finish()
    }
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

    /// Checks that every edge is written as often as it is read per period.
    pub fn check_rates(&self) -> Result<(), String> {
        for (i, e) in self.edges.iter().enumerate() {
            let w = self.actors[e.src]
                .program
                .iter()
                .filter(|s| matches!(s, Step::Write { edge, .. } if *edge == i))
                .count();
            let r = self.edge_words(i);
            if w != r {
                return Err(format!(
                    "edge {i} {} -> {}: {w} words written but {r} read per period",
                    self.actors[e.src].name, self.actors[e.dst].name
                ));
            }
        }
        Ok(())
    }
}
