//! The mapper: binds actors to cores, inserts MergeCores and DispatchCores
//! where an actor needs more inputs or outputs than a core offers, places the
//! cores on the mesh and compiles each core's word-level program.
//!
//! [`map`] runs the phases in order: *binding* (`route::bind`: one
//! core per actor, then the merge and dispatch trees), *routing*
//! (`route::links`: one link per hop of every edge, and the
//! programs of the actor and communication cores), *placement*
//! (`place::place`: breadth-first along a serpentine; link lengths
//! and latencies).

use crate::app::{AppGraph, Behavior, Exec};
pub use crate::error::MapError;
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
    /// Execute (see [`crate::Step::Exec`]); `action == u32::MAX` means no
    /// behaviour call.
    Exec(Exec),
}

/// A core of the mapping (or an off-array port).
#[derive(Debug)]
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

/// Map an application on the array.
pub fn map(mut app: AppGraph, platform: &Platform) -> Result<Mapping, MapError> {
    app.validate()?;
    let mut b = crate::route::bind(&mut app, platform);
    let r = crate::route::links(&app, &mut b)?;
    crate::route::actor_programs(&app, &mut b.cores, &r);
    crate::route::comm_programs(&app, platform, &mut b, &r);
    let crate::route::Bound {
        mut cores,
        behaviors,
        ..
    } = b;
    for (c, beh) in cores.iter_mut().zip(behaviors) {
        c.behavior = beh;
    }
    let mut links = r.links;
    let (width, height, exceeds_chip) = crate::place::place(&mut cores, &mut links, platform);
    for c in &cores {
        if c.class == CoreClass::Compute && c.inputs.len() > platform.max_inputs {
            return Err(MapError::TooManyInputs {
                core: c.name.clone(),
                inputs: c.inputs.len(),
                max: platform.max_inputs,
            });
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
