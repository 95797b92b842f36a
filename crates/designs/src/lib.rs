//! # aesflow-designs (docs in progress)
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod analysis;
pub mod compile;
pub mod describe;
pub mod engines;
pub mod graph;
pub mod kinds;
pub mod optimize;
pub mod report;
pub mod run;

pub use engines::Engine;
pub use graph::Design;
pub use optimize::Optimisations;
pub use run::{Expansion, Run, build, run_design};
