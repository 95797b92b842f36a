//! The design space measured: every processor variant and S-box kind through
//! Yosys ([`crate::synth`]), the multi-stream core through simulation and
//! Yosys, and the papers' percentages beside the measured ones.

use crate::fpga::FpgaSweep;
use crate::multistream::{MultiStream, Packet, run_packets};
use crate::paper::{CLAIMS, MS_CLOCK_MHZ};
use crate::synth::{Synthesis, stage_depth, synthesize, synthesize_with, yosys_version};
use crate::tools::Error;
use crate::verify::SplitMix;
use crate::{KeyMode, KeySize, SboxKind, Variant, processor};
use serde::{Deserialize, Serialize};

/// One S-box kind synthesised alone (with its internal registers).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SboxPoint {
    /// The kind.
    pub kind: SboxKind,
    /// Its figures.
    pub synthesis: Synthesis,
}

/// One processor variant synthesised whole (`aes_ctr`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProcessorPoint {
    /// The variant.
    pub variant: Variant,
    /// Its name.
    pub name: String,
    /// Latency in cycles.
    pub latency: usize,
    /// Cycles of the offline key schedule (0: online).
    pub key_schedule_cycles: usize,
    /// Its figures: the area of the whole `aes_ctr`; the depth of the
    /// slowest pipeline stage ([`stage_depth`]).
    pub synthesis: Synthesis,
    /// 128 bits per clock over the slowest stage's logic levels: the
    /// throughput in bits per gate delay, the flow's proxy for Gbit/s.
    pub bits_per_level: f64,
}

/// One percentage of the paper beside the measured one.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ClaimCheck {
    /// Identifier.
    pub id: String,
    /// What is compared.
    pub what: String,
    /// The paper's percentage.
    pub paper: f64,
    /// aesflow's (GE of the generic-cell flow).
    pub aesflow: f64,
    /// aesflow − paper, percentage points.
    pub error: f64,
    /// Whether the claim's direction (a saving) holds here.
    pub direction_holds: bool,
    /// Where in the paper.
    pub source: String,
    /// The same percentage in LUT4s from the FPGA flow ([`crate::fpga`]),
    /// where its points were placed and routed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fpga_luts: Option<f64>,
}

/// The multi-stream core at one configuration.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MsPoint {
    /// The configuration.
    pub config: MultiStream,
    /// Area (generic cells).
    pub synthesis: Option<Synthesis>,
    /// Steady-state throughput at the paper's 100 MHz (Mbit/s, 64-block
    /// packets on every stream).
    pub mbps: f64,
    /// Share of cycles the bus carried a word.
    pub bus_use: f64,
}

/// One point of the packet-size curve.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PacketPoint {
    /// Streams used.
    pub streams: usize,
    /// Packet size in bytes.
    pub bytes: usize,
    /// Throughput at 100 MHz (Mbit/s), key and IV set-up included.
    pub mbps: f64,
}

/// The whole measured space.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Sweep {
    /// The Yosys version used.
    pub yosys: String,
    /// S-box kinds alone.
    pub sboxes: Vec<SboxPoint>,
    /// All processor variants.
    pub processors: Vec<ProcessorPoint>,
    /// The paper's percentages beside the measured.
    pub claims: Vec<ClaimCheck>,
    /// The multi-stream core: streams × bus widths.
    pub multistream: Vec<MsPoint>,
    /// Throughput against packet size (1 and 2 streams, 64-bit bus).
    pub packets: Vec<PacketPoint>,
    /// The FPGA flow's figures (kept apart, in `crates/hw/data/fpga.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fpga: Option<FpgaSweep>,
}

/// What to run.
#[derive(Clone, Debug)]
pub struct SweepOptions {
    /// Synthesise the processors (the slow part: about half a minute each).
    pub processors: bool,
    /// Simulate and synthesise the multi-stream core.
    pub multistream: bool,
    /// Only the processors with this key schedule (`None`: both).
    pub keys: Option<KeyMode>,
    /// The processors' key sizes (each variant once per size; empty:
    /// AES-128, the papers' size).
    pub key_sizes: Vec<KeySize>,
    /// Synthesise the processors in reverse order.
    pub reverse: bool,
}

impl SweepOptions {
    /// The processor variants the sweep synthesises, in order: every
    /// variant of the selected key schedules, each with every key size.
    pub fn processor_variants(&self) -> Vec<Variant> {
        let sizes = if self.key_sizes.is_empty() {
            vec![KeySize::Aes128]
        } else {
            self.key_sizes.clone()
        };
        let mut all: Vec<Variant> = Variant::all()
            .into_iter()
            .filter(|v| self.keys.is_none_or(|k| v.keys == k))
            .flat_map(|v| sizes.iter().map(move |&size| v.with_key_size(size)))
            .collect();
        if self.reverse {
            all.reverse();
        }
        all
    }
}

fn pct(x: f64, base: f64) -> f64 {
    100.0 * (x - base) / base
}

fn find<'a>(ps: &'a [ProcessorPoint], name: &str) -> Option<&'a ProcessorPoint> {
    ps.iter().find(|p| p.name == name)
}

/// The percentage of claim `id` from an S-box area and a processor area
/// (by variant name); `None` where a point is missing.
fn claim_percent(
    id: &str,
    sbox: &dyn Fn(SboxKind) -> Option<f64>,
    area: &dyn Fn(&str) -> Option<f64>,
) -> Option<f64> {
    let ratio = |a: &str, b: &str| area(a).zip(area(b)).map(|(a, b)| pct(a, b));
    match id {
        "sbox-2" => sbox(SboxKind::Composite2)
            .zip(sbox(SboxKind::Lut))
            .map(|(a, b)| pct(a, b)),
        "sbox-3" => sbox(SboxKind::Composite3)
            .zip(sbox(SboxKind::Lut))
            .map(|(a, b)| pct(a, b)),
        "online-3" => ratio("composite-2-3-online", "lut-2-online"),
        "online-4" => ratio("composite-3-4-online", "lut-2-online"),
        "offline-3" => ratio("composite-2-3-offline", "lut-2-offline"),
        "offline-4" => ratio("composite-3-4-offline", "lut-2-offline"),
        "offline" => ["lut-2", "composite-2-3", "composite-3-4"]
            .iter()
            .filter_map(|d| ratio(&format!("{d}-offline"), &format!("{d}-online")))
            .reduce(f64::min),
        "overall" => ["composite-2-3-offline", "composite-3-4-offline"]
            .iter()
            .filter_map(|d| ratio(d, "lut-2-online"))
            .reduce(f64::min),
        _ => None,
    }
}

/// The paper's percentages from measured points (those whose points were
/// measured).
pub fn claims(sboxes: &[SboxPoint], ps: &[ProcessorPoint]) -> Vec<ClaimCheck> {
    let sbox = |k: SboxKind| sboxes.iter().find(|s| s.kind == k).map(|s| s.synthesis.ge);
    let ge = |n: &str| find(ps, n).map(|p| p.synthesis.ge);
    let mut out = Vec::new();
    for c in CLAIMS {
        if let Some(v) = claim_percent(c.id, &sbox, &ge) {
            out.push(ClaimCheck {
                id: c.id.into(),
                what: c.what.into(),
                paper: c.percent,
                aesflow: v,
                error: v - c.percent,
                direction_holds: v < 0.0,
                source: c.source.into(),
                fpga_luts: None,
            });
        }
    }
    out
}

/// The paper's percentages in FPGA LUT4s (by claim id), those whose points
/// were placed and routed.
pub fn fpga_claims(f: &FpgaSweep) -> Vec<(&'static str, f64)> {
    let sbox = |k: SboxKind| {
        f.sboxes
            .iter()
            .find(|s| s.kind == k)
            .map(|s| s.fpga.luts as f64)
    };
    let luts = |n: &str| f.processor(n).map(|p| p.fpga.luts as f64);
    CLAIMS
        .iter()
        .filter_map(|c| claim_percent(c.id, &sbox, &luts).map(|v| (c.id, v)))
        .collect()
}

/// `packets` packets of `blocks` random blocks on each of `streams` streams.
pub fn random_packets(
    seed: u64,
    streams: usize,
    packets: usize,
    blocks: usize,
    cbc: bool,
) -> Vec<Packet> {
    let mut r = SplitMix(seed);
    let mut out = Vec::new();
    for _ in 0..packets {
        for stream in 0..streams {
            out.push(Packet {
                stream,
                key: r.block(),
                iv: r.block(),
                cbc,
                blocks: (0..blocks).map(|_| r.block()).collect(),
            });
        }
    }
    out
}

/// Measure the space; `progress` gets one line per step.
pub fn sweep(opts: SweepOptions, progress: &mut dyn FnMut(&str)) -> Result<Sweep, Error> {
    let mut s = Sweep {
        yosys: String::new(),
        sboxes: Vec::new(),
        processors: Vec::new(),
        claims: Vec::new(),
        multistream: Vec::new(),
        packets: Vec::new(),
        fpga: None,
    };
    if opts.processors {
        s.yosys = yosys_version()?;
        for kind in SboxKind::ALL {
            progress(&format!("synthesising the {} S-box", kind.name()));
            let v = Variant::new(kind, kind.stages(), KeyMode::Online)
                .map_err(|e| Error::Check(e.to_string()))?;
            s.sboxes.push(SboxPoint {
                kind,
                synthesis: synthesize(&processor(&v), "sub_byte")?,
            });
        }
        let all = opts.processor_variants();
        for (i, v) in all.iter().enumerate() {
            progress(&format!(
                "synthesising {} ({}/{})",
                v.name(),
                i + 1,
                all.len()
            ));
            let mut syn = synthesize_with(&processor(v), "aes_ctr", false)?;
            syn.depth = stage_depth(v)?;
            s.processors.push(ProcessorPoint {
                variant: *v,
                name: v.name(),
                latency: v.latency(),
                key_schedule_cycles: v.key_schedule_cycles(),
                bits_per_level: 128.0 / syn.depth.max(1) as f64,
                synthesis: syn,
            });
        }
        s.claims = claims(&s.sboxes, &s.processors);
    }
    if opts.multistream {
        if s.yosys.is_empty() {
            s.yosys = yosys_version()?;
        }
        for bus in [64, 128] {
            for n in 1..=6 {
                let m = MultiStream::new(n, bus).map_err(|e| Error::Check(e.to_string()))?;
                progress(&format!("simulating {} (64-block packets)", m.name()));
                let run = run_packets(&m, &random_packets(n as u64, n, 1, 64, true))?;
                let synthesis = if bus == 64 && n <= 2 {
                    progress(&format!("synthesising {}", m.name()));
                    Some(synthesize(
                        &crate::multistream::multistream(&m),
                        "aes_multistream",
                    )?)
                } else {
                    None
                };
                s.multistream.push(MsPoint {
                    config: m,
                    synthesis,
                    mbps: run.bits_per_cycle * MS_CLOCK_MHZ,
                    bus_use: run.bus_use,
                });
            }
        }
        for streams in [1, 2] {
            let m = MultiStream::new(streams, 64).map_err(|e| Error::Check(e.to_string()))?;
            let mut blocks = 1;
            while blocks <= 1024 {
                progress(&format!(
                    "simulating {}: packets of {} bytes",
                    m.name(),
                    16 * blocks
                ));
                let packets = (64 / blocks).max(1);
                let run = run_packets(
                    &m,
                    &random_packets(blocks as u64, streams, packets, blocks, true),
                )?;
                s.packets.push(PacketPoint {
                    streams,
                    bytes: 16 * blocks,
                    mbps: run.bits_per_cycle * MS_CLOCK_MHZ,
                });
                blocks *= 4;
            }
        }
    }
    Ok(s)
}

impl Sweep {
    /// The sweep measured with the tools named in it and kept in the crate
    /// (`crates/hw/data/sweep.json`, written by `aesflow hw sweep --json`):
    /// what the report shows without running the tools.
    pub fn measured() -> Sweep {
        Self::from_json(include_str!("../data/sweep.json"))
            .expect("the kept sweep parses (tested)")
            .with_fpga(FpgaSweep::measured())
    }

    /// The sweep with the FPGA flow's figures beside its own: the claims
    /// get their percentage in LUT4s.
    pub fn with_fpga(mut self, f: FpgaSweep) -> Sweep {
        let pcts = fpga_claims(&f);
        for c in &mut self.claims {
            c.fpga_luts = pcts.iter().find(|(id, _)| *id == c.id).map(|(_, v)| *v);
        }
        self.fpga = Some(f);
        self
    }

    /// Bits per cycle of the multi-stream core `m` as simulated (the
    /// 100 MHz figure over 100), if it was.
    pub fn ms_bits_per_cycle(&self, m: &MultiStream) -> Option<f64> {
        self.multistream
            .iter()
            .find(|p| p.config == *m)
            .map(|p| p.mbps / MS_CLOCK_MHZ)
    }

    /// A sweep saved as JSON (`aesflow hw sweep --json`).
    pub fn from_json(text: &str) -> Result<Sweep, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The sweep as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod measured_tests {
    /// The sweep kept in the crate parses and carries every claim.
    #[test]
    fn the_measured_sweep_parses() {
        let s = super::Sweep::measured();
        assert!(!s.claims.is_empty());
        assert!(s.fpga.is_some());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processor_variants_cover_keys_and_key_sizes() {
        let opts = |keys, key_sizes: Vec<KeySize>| SweepOptions {
            processors: true,
            multistream: false,
            keys,
            key_sizes,
            reverse: false,
        };
        let all = opts(None, vec![]).processor_variants();
        assert_eq!(all.len(), Variant::all().len());
        assert!(all.iter().all(|v| v.key_size == KeySize::Aes128));
        let both = opts(
            Some(KeyMode::Online),
            vec![KeySize::Aes128, KeySize::Aes256],
        )
        .processor_variants();
        let online = Variant::all()
            .into_iter()
            .filter(|v| v.keys == KeyMode::Online)
            .count();
        assert_eq!(both.len(), 2 * online);
        assert!(both.iter().all(|v| v.keys == KeyMode::Online));
        for size in [KeySize::Aes128, KeySize::Aes256] {
            assert_eq!(both.iter().filter(|v| v.key_size == size).count(), online);
        }
        let names: std::collections::HashSet<String> = both.iter().map(|v| v.name()).collect();
        assert_eq!(names.len(), both.len(), "every variant once");
    }
}
