//! The energy model's errors, with the design (and copy count) they came
//! from.

/// Why a study or one of its runs failed.
#[derive(Debug, thiserror::Error)]
pub enum EnergyError {
    /// Compiling, gathering or mapping a design failed.
    #[error("{design} ({copies} cop{}): {stage}: {message}", if *copies == 1 { "y" } else { "ies" })]
    Build {
        /// Design name.
        design: String,
        /// Copies gathered at the output.
        copies: usize,
        /// compile / gather / map.
        stage: &'static str,
        /// What the lower layer said.
        message: String,
    },
    /// The block count is not a multiple of the design's interleave.
    #[error("{design}: {blocks} blocks is not a multiple of the interleave {interleave}")]
    Blocks {
        /// Design name.
        design: String,
        /// Blocks asked for.
        blocks: usize,
        /// Blocks in flight per period.
        interleave: usize,
    },
    /// The simulation stopped with cores waiting on each other.
    #[error("{design}: the simulation deadlocked ({cores} cores waiting)")]
    Deadlock {
        /// Design name.
        design: String,
        /// Cores left waiting.
        cores: usize,
    },
    /// The reference cipher could not be set up for the check.
    #[error("reference cipher: {0}")]
    Reference(String),
}
