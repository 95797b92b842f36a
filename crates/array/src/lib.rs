//! # aesflow-array: the many-core platform model
//!
//! The platform of Liu & Baas (*Parallel AES Encryption Engines for Many-Core
//! Processor Arrays*, IEEE Transactions on Computers 2013) is AsAP2 (§3): 164 simple cores
//! on a 2D mesh, each with a 128 × 32-bit instruction memory, a 128 × 16-bit
//! data memory and **two statically configured input ports**; cores talk
//! through FIFOs over nearest-neighbour and long-distance links, each core
//! clocked by its own oscillator (GALS), and a core's clock halts while it
//! waits on an empty input or full output FIFO.
//!
//! This crate is that platform, with nothing AES-specific in it:
//!
//! * [`app`] — an application: actors with static word-level programs over
//!   logical edges, and a [`Behavior`] per actor (what it computes);
//! * [`mapper`] — binds each actor to a core; where an actor needs more
//!   inputs than [`Platform::max_inputs`] it inserts **MergeCores**, where it
//!   needs more destinations than [`Platform::max_outputs`] it inserts
//!   **DispatchCores** (paper §4.4–4.5: both count as communication cores)
//!   in a chain or a balanced tree ([`dispatch`]);
//!   places the cores on the mesh (breadth-first along a serpentine, so
//!   neighbours in the dataflow are mostly neighbours on the mesh) and tells
//!   nearest-neighbour from long-distance links;
//! * [`sim`] — the timed functional simulator: every core runs self-timed,
//!   real 16-bit words flow through bounded FIFOs, and per core it counts
//!   cycles executing, in NOPs, stalled with the clock running, and halted,
//!   and per link the words carried (paper §6.2, eqs. 3–5);
//! * [`svg`] — a drawing of a placement.
//!
//! One [`Platform`] parameter set serves every engine.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod app;
pub mod dispatch;
pub mod error;
pub mod mapper;
mod place;
pub mod platform;
mod route;
pub mod sim;
pub mod svg;

pub use app::{ActorClass, AppActor, AppEdge, AppGraph, Behavior, Exec, NoBehavior, Step, gather};
pub use dispatch::DispatchShape;
pub use mapper::{Core, CoreClass, Link, MapError, Mapping, Op, map};
pub use platform::Platform;
pub use sim::{Clocks, CoreStats, LinkStats, SimError, SimResult, simulate, simulate_clocked};
