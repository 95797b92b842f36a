//! The papers' figures the sweep is compared with.

/// A percentage claim of Hodjat & Verbauwhede (negative: an area saving).
#[derive(Clone, Copy, Debug)]
pub struct PaperClaim {
    /// Short identifier.
    pub id: &'static str,
    /// What is compared with what.
    pub what: &'static str,
    /// The paper's figure in percent.
    pub percent: f64,
    /// Where the paper says it.
    pub source: &'static str,
}

/// The area claims of Hodjat & Verbauwhede.
pub const CLAIMS: [PaperClaim; 8] = [
    PaperClaim {
        id: "sbox-2",
        what: "S-box: composite in 2 stages vs LUT",
        percent: -23.0,
        source: "§4, Fig. 5",
    },
    PaperClaim {
        id: "sbox-3",
        what: "S-box: composite in 3 stages vs LUT",
        percent: -32.0,
        source: "§4, Fig. 5",
    },
    PaperClaim {
        id: "online-3",
        what: "online keys: 3 stages/round (composite-2) vs 2 stages/round LUT",
        percent: -35.0,
        source: "§5, Fig. 7",
    },
    PaperClaim {
        id: "online-4",
        what: "online keys: 4 stages/round (composite-3) vs 2 stages/round LUT",
        percent: -30.0,
        source: "§5, Fig. 7",
    },
    PaperClaim {
        id: "offline",
        what: "offline vs online keys, same datapath (largest saving)",
        percent: -28.0,
        source: "§6",
    },
    PaperClaim {
        id: "offline-3",
        what: "offline keys: 3 stages/round (composite-2) vs 2 stages/round LUT",
        percent: -37.0,
        source: "§6, Fig. 9",
    },
    PaperClaim {
        id: "offline-4",
        what: "offline keys: 4 stages/round (composite-3) vs 2 stages/round LUT",
        percent: -33.0,
        source: "§6, Fig. 9",
    },
    PaperClaim {
        id: "overall",
        what: "best offline composite design vs 2 stages/round LUT online",
        percent: -48.0,
        source: "abstract, §6",
    },
];

/// Hodjat & Verbauwhede's throughput range (Gbit/s, 0.18 µm).
pub const HV_GBPS: (f64, f64) = (30.0, 70.0);

/// Pericàs et al., Table 1: (streams, Virtex-II Pro slices, BRAMs, MHz,
/// latency cycles, Mbit/s).
pub const MS_TABLE1: [(usize, u32, u32, u32, u32, u32); 2] =
    [(1, 1083, 12, 100, 10, 1280), (2, 2162, 24, 100, 10, 2560)];

/// Pericàs et al., §4: one stream's throughput for a one-block packet and
/// for a 16 KB packet (Mbit/s at 100 MHz).
pub const MS_PACKET: [(usize, f64); 2] = [(16, 60.0), (16384, 1280.0)];

/// The bus clock of Pericàs et al.'s prototype (MHz).
pub const MS_CLOCK_MHZ: f64 = 100.0;
