//! The platform parameters: one global set for every engine.

use crate::dispatch::DispatchShape;

/// The parameters of the simulated array (paper §3; AsAP2, Truong et al. 2009).
///
/// There is exactly one set of these for all engines: the simulator applies no
/// per-engine correction.
#[derive(Clone, Debug, PartialEq)]
pub struct Platform {
    /// Columns of the mesh (AsAP2: 164 processors on a mesh about 12 wide).
    pub width: u32,
    /// Rows of the mesh; a mapping that needs more tiles grows the mesh so
    /// that it can still be simulated, and says so
    /// ([`crate::Mapping::exceeds_chip`]).
    pub height: u32,
    /// Cores the chip has (AsAP2: 164; the mesh's last tiles hold other
    /// blocks). A mapping with more is flagged ([`crate::Mapping::exceeds_chip`]).
    pub chip_cores: u32,
    /// Statically configured input ports per core (AsAP2: two).
    pub max_inputs: usize,
    /// Distinct destinations one core's output can reach without help (the
    /// four mesh directions; more needs DispatchCores).
    pub max_outputs: usize,
    /// How the mapper arranges DispatchCores when a producer needs more
    /// than one ([`DispatchShape`]; the paper's designs: a chain).
    pub dispatch: DispatchShape,
    /// Depth of each input FIFO in 16-bit words.
    pub fifo_depth: usize,
    /// Cycles from a write to the word being readable on a nearest-neighbour
    /// link (dual-clock FIFO synchronisation).
    pub link_latency: u64,
    /// Extra cycles per additional tile a long-distance link crosses.
    pub long_link_per_tile: u64,
    /// Cycles per word a link needs (its bandwidth is one word per cycle).
    pub link_cycles_per_word: u64,
    /// Cycles a communication core (MergeCore / DispatchCore) spends per
    /// word it forwards (one `mov out, in` instruction).
    pub comm_cycles_per_word: u32,
    /// Fixed cycles per firing of a communication core (loop overhead).
    pub comm_cycles_per_firing: u32,
    /// Cycles per word of the off-array input/output ports.
    pub io_cycles_per_word: u32,
    /// Cycles a stalled core keeps its clock running before it halts
    /// (paper §6.2: "stall with active clock" is the transition state).
    pub halt_after: u64,
    /// Clock frequency for throughput in bits per second (1.2 GHz at 1.3 V).
    pub clock_hz: f64,
    /// Step limit of a simulation: at most this many times the steps of
    /// every core running one period per source period (plus one). A run
    /// that needs more is stopped with an error instead of running on.
    pub step_slack: u64,
}

impl Platform {
    /// AsAP2 as the paper uses it.
    pub fn asap2() -> Self {
        Platform {
            width: 12,
            height: 14,
            chip_cores: 164,
            max_inputs: 2,
            max_outputs: 4,
            dispatch: DispatchShape::Chain,
            fifo_depth: 32,
            link_latency: 3,
            long_link_per_tile: 1,
            link_cycles_per_word: 1,
            comm_cycles_per_word: 1,
            comm_cycles_per_firing: 2,
            io_cycles_per_word: 1,
            halt_after: 8,
            clock_hz: 1.2e9,
            step_slack: 16,
        }
    }

    /// Latency of a link spanning `tiles` tiles (Manhattan distance).
    pub fn latency(&self, tiles: u32) -> u64 {
        self.link_latency + self.long_link_per_tile * u64::from(tiles.saturating_sub(1))
    }
}

impl Default for Platform {
    fn default() -> Self {
        Self::asap2()
    }
}
