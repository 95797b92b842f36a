//! # aesflow-dataflow: synchronous dataflow (SDF) graphs and their analysis
//!
//! A small, generic SDF library: build graphs, check consistency and
//! deadlock freedom, compute the throughput of self-timed execution, and
//! exchange graphs with Graphviz and SDF3. Nothing here is specific to AES;
//! later crates of the workspace model AsAP processors and AES engines on
//! top of it, following Liu & Baas, *Parallel AES Encryption Engines for
//! Many-Core Processor Arrays* (IEEE TC 2013), §4 ("AES implementations on
//! AsAP", which analyses each design as an SDF graph) and the SDF
//! background it builds on.
//!
//! ## API summary
//!
//! | what | how |
//! | --- | --- |
//! | build | [`SdfGraph::new`], [`SdfGraph::add_actor`]`(name, kind, exec_time) -> ActorId`, [`SdfGraph::connect`]`(src, prod, dst, cons, initial_tokens) -> ChannelId`, [`SdfGraph::channel_mut`]`(c).set_capacity(Some(n))` for a bounded FIFO, or explicit ports with [`SdfGraph::add_port`] + [`SdfGraph::connect_ports`] |
//! | inspect | [`SdfGraph::actors`], [`SdfGraph::channels`], [`SdfGraph::actor`], [`SdfGraph::channel`], [`SdfGraph::production_rate`], [`SdfGraph::consumption_rate`], [`SdfGraph::find_actor`] |
//! | consistency | [`SdfGraph::repetition_vector`] → [`RepetitionVector`] (index with an [`ActorId`]) |
//! | deadlock | [`SdfGraph::check_deadlock`] (→ [`SdfError::Deadlock`] `{ stuck }`), [`SdfGraph::sequential_schedule`] |
//! | throughput | [`SdfGraph::period`] (exact [`Rational`] cycles/iteration), [`SdfGraph::throughput`] (iterations/cycle), [`SdfGraph::critical_cycle`], or everything at once with [`SdfGraph::analyze_throughput`] / [`SdfGraph::analyze_throughput_with`]`(&`[`AnalysisOptions`]`)` |
//! | HSDF | [`SdfGraph::to_hsdf`] → [`Hsdf`] (size checked first: [`SdfGraph::check_hsdf_size`]); generic max cycle ratio: [`analysis::mcr::max_cycle_ratio`] |
//! | cross-check | [`SdfGraph::self_timed_period`] (state-space exploration, bounded) |
//! | buffers | [`SdfGraph::buffer_tradeoff`] → storage/throughput Pareto points, [`analysis::buffer::BufferAnalysis::min_deadlock_free`]; [`SdfGraph::buffer_tradeoff_with_progress`] reports each distribution evaluated; a search stopped by a limit says which ([`analysis::buffer::Stop`]) |
//! | latency | [`SdfGraph::latency`]`(src, dst, &opts, max_steps)` |
//! | export | [`SdfGraph::to_dot`], [`sdf3::to_xml`], [`sdf3::to_xml_with`] (self-edges for sequential actors, [`SdfGraph::make_all_sequential`]); import: [`sdf3::from_xml`], [`sdf3::from_xml_with`] (limits, SDF3's corner cases, warnings) |
//!
//! ```
//! use aesflow_dataflow::{Rational, SdfGraph};
//!
//! // A -> B -> A ring: A (10 cycles) produces 2 tokens, B (7 cycles)
//! // consumes 1; B returns 1 token per firing, A needs 2; 2 tokens on the
//! // feedback channel.
//! let mut g = SdfGraph::new("ring");
//! let a = g.add_actor("A", "producer", 10);
//! let b = g.add_actor("B", "consumer", 7);
//! g.connect(a, 2, b, 1, 0);
//! g.connect(b, 1, a, 2, 2);
//! let q = g.repetition_vector()?;
//! assert_eq!((q[a], q[b]), (1, 2));
//! g.check_deadlock()?;
//! // one iteration = A, B, B strictly in sequence: 10 + 7 + 7 cycles
//! assert_eq!(g.period()?, Rational::from_integer(24));
//! # Ok::<(), aesflow_dataflow::SdfError>(())
//! ```
//!
//! ## SDF in a nutshell
//!
//! * An **actor** is a computation (here: a task mapped on a processor). It
//!   **fires** repeatedly; each firing takes [`Actor::exec_time`] time units
//!   (cycles).
//! * Actors communicate through **channels**: unbounded (or bounded, see
//!   [`Channel::capacity`]) FIFO queues of **tokens** (data items). A channel
//!   may hold **initial tokens** (delays) before execution starts.
//! * Each port has a fixed **rate**: a firing consumes exactly `rate` tokens
//!   from every input channel and produces exactly `rate` tokens on every
//!   output channel. An actor may fire when every input holds enough tokens.
//! * The **balance equations** `q[src] · production = q[dst] · consumption`
//!   (one per channel) have a smallest positive integer solution, the
//!   **repetition vector** `q`, iff the graph is **consistent**. Firing
//!   every actor `a` exactly `q[a]` times is one **iteration**: it returns
//!   every channel to its initial token count. A consistent graph is
//!   **deadlock-free** iff one iteration can actually be executed.
//! * A **homogeneous SDF (HSDF)** graph has all rates equal to 1. Every SDF
//!   graph has an equivalent HSDF graph with one node per firing in an
//!   iteration (`sum(q)` nodes); see [`analysis::hsdf`].
//! * In **self-timed execution** every actor fires as soon as it is enabled.
//!   Its long-run behaviour is periodic; the average time per iteration, the
//!   **period**, equals the **maximum cycle ratio (MCR)** of the HSDF graph:
//!   the maximum over all cycles of (sum of execution times on the cycle) /
//!   (sum of initial tokens on the cycle). A cycle attaining it is a
//!   **critical cycle**; its actors are the bottleneck. Throughput is
//!   `1 / period` iterations per time unit. The MCR is computed exactly with
//!   Howard's policy iteration ([`analysis::mcr`]).
//!
//! ## Semantic choices
//!
//! * **No auto-concurrency by default**: an actor is a sequential process,
//!   so its firings never overlap (an implicit self-loop with one token; in
//!   the HSDF graph the firings of an actor are chained). Set
//!   [`AnalysisOptions::auto_concurrency`] to allow overlapping firings
//!   ([`AnalysisOptions::sdf3`] gives SDF3's semantics).
//! * **Bounded channels** are modelled by a reverse channel carrying
//!   `capacity - initial_tokens` "space" tokens (the standard SDF trick).
//! * **Disconnected graphs**: each weakly connected component gets its own
//!   smallest repetition vector; an iteration of the graph is one iteration
//!   of every component, and the period is that of the slowest part.
//! * **SDF3's semantics** ([`AnalysisOptions::sdf3`]): auto-concurrency,
//!   unbounded channels; for a graph that is not strongly connected the
//!   throughput is that of the slowest component (the maximum cycle ratio
//!   over the whole HSDF graph is exactly that). The figures equal those
//!   of SDF3 itself on its testbench (`tests/data/sdf3-reference`).
//! * **Bounded work**: every analysis returns the exact answer or an
//!   error; sizes are checked before allocating and all arithmetic on
//!   clocks, tokens and cycle weights is checked ([`SdfError::Overflow`],
//!   [`SdfError::WorkLimit`], [`SdfError::HsdfTooLarge`]). Intermediates
//!   are wide enough that an answer which fits is found: Howard's node
//!   values are 256-bit, so a period up to 2^128 is exact. Where a lower
//!   bound shows that the budget cannot suffice (the deadlock check on
//!   huge coprime rates) the analysis is refused at once
//!   ([`SdfError::WorkBound`]); buffer sizing counts its work and the
//!   memory of its pending distributions against the same budget and
//!   returns a partial front.
//! * No `unsafe`; malformed XML never panics (its nesting depth is bounded
//!   before parsing).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod analysis;
pub mod dot;
pub mod error;
mod fxhash;
pub mod graph;
pub mod rational;
pub mod report;
pub mod sdf3;

pub use analysis::AnalysisOptions;
pub use analysis::consistency::RepetitionVector;
pub use analysis::hsdf::{Hsdf, HsdfEdge, HsdfNode};
pub use analysis::throughput::{CriticalFiring, ThroughputAnalysis};
pub use error::SdfError;
pub use graph::{
    Actor, ActorId, Channel, ChannelId, ChannelMut, EdgeOrigin, Port, PortDirection, PortId,
    PortMut, SdfGraph,
};
pub use rational::Rational;
