//! The one row type of every section and its peers: data (serde), which
//! the command line renders as tables and JSON.

use serde::Serialize;

/// A section of the suite run by `aesflow bench`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Section {
    /// AES kernels: ECB and CTR ([`crate::run`]).
    Kernels,
    /// Modes of operation, multi-stream CBC ([`crate::run_modes`]).
    Modes,
    /// The host engine: threads and files ([`crate::run_engine`]); slow.
    Engine,
}

impl Section {
    /// All sections, in report order.
    pub const ALL: [Section; 3] = [Section::Kernels, Section::Modes, Section::Engine];

    /// `"kernels"`, `"modes"` or `"engine"`.
    pub fn name(self) -> &'static str {
        match self {
            Section::Kernels => "kernels",
            Section::Modes => "modes",
            Section::Engine => "engine",
        }
    }
}

/// A peer implementation measured in the same run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Peer {
    /// RustCrypto, the `aes` 0.8 / `aes-gcm` 0.10 / `cbc` 0.1 / `ctr` 0.9
    /// generation (and `xts-mode` 0.5).
    #[serde(rename = "rustcrypto")]
    RustCrypto,
    /// RustCrypto, the current `aes` 0.9 / `aes-gcm` 0.11 / `cbc` 0.2 /
    /// `ctr` 0.10 generation.
    #[serde(rename = "rustcrypto-0.9")]
    RustCrypto09,
    /// OpenSSL (`openssl speed` / `openssl enc`, a subprocess).
    Openssl,
    /// Intel ipsec-mb (linked with the `ipsec-mb` feature).
    IpsecMb,
}

impl Peer {
    /// Every peer, in column order.
    pub const ALL: [Peer; 4] = [
        Peer::RustCrypto,
        Peer::RustCrypto09,
        Peer::Openssl,
        Peer::IpsecMb,
    ];

    /// The column abbreviation.
    pub fn abbrev(self) -> &'static str {
        match self {
            Peer::RustCrypto => "RC",
            Peer::RustCrypto09 => "RC9",
            Peer::Openssl => "OSSL",
            Peer::IpsecMb => "MB",
        }
    }

    /// What the abbreviation stands for.
    pub fn describe(self) -> &'static str {
        match self {
            Peer::RustCrypto => "RustCrypto aes 0.8 / aes-gcm 0.10 / cbc 0.1 / ctr 0.9 / xts-mode",
            Peer::RustCrypto09 => "RustCrypto aes 0.9 / aes-gcm 0.11 / cbc 0.2 / ctr 0.10",
            Peer::Openssl => "OpenSSL (openssl speed / enc, same sizes)",
            Peer::IpsecMb => "Intel ipsec-mb (job API, same sizes and lanes)",
        }
    }
}

/// A peer's figure for the same work as its row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PeerFigure {
    /// Which peer.
    pub peer: Peer,
    /// Its throughput, 10^9 bytes/s.
    pub gbps: f64,
    /// The row's `gbps` divided by the peer's (above 1: aesflow is faster).
    pub ratio: f64,
    /// The peer's command line, for subprocess peers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// The packet workload of a gateway row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Packets {
    /// Tunnels, each with its own key.
    pub tunnels: usize,
    /// Packets per pass (the row's `bytes` are their total).
    pub packets: usize,
    /// The packet-length mix (`7:4:1 of 64/576/1500 B`).
    pub mix: String,
    /// aesflow's packets per second, in millions.
    pub mpps: f64,
}

/// One measurement, in any section.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// The section it belongs to.
    pub section: Section,
    /// The operation (`ecb-enc`, `cbc-enc`, `gcm-open`, `memcpy`, …).
    pub op: String,
    /// What ran (`vaes`, `modes/aesni`, `multistream/vaes`, `engine`, …).
    pub implementation: String,
    /// Key size in bits, where one applies.
    pub key_bits: Option<usize>,
    /// Key expansion style (kernels section: `offline` or `online`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_expansion: Option<String>,
    /// Independent streams per call (1 except multi-stream).
    pub streams: usize,
    /// Threads.
    pub threads: usize,
    /// Bytes per stream (per message, per buffer).
    pub bytes: u64,
    /// Best wall-clock seconds per call (all streams).
    pub seconds: f64,
    /// Total throughput, 10^9 bytes/s.
    pub gbps: f64,
    /// Cycles per byte at the machine's nominal clock, one thread's worth
    /// (`threads` × seconds × clock / bytes).
    pub cycles_per_byte: f64,
    /// The row this one is compared with inside aesflow (all threads: the
    /// same operation on one thread).
    pub baseline: Option<String>,
    /// `gbps` / the baseline's.
    pub vs_baseline: Option<f64>,
    /// Peers measured in the same run.
    pub peers: Vec<PeerFigure>,
    /// The packet workload (gateway rows; `bytes` is then one pass over
    /// all packets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packets: Option<Packets>,
}

impl Row {
    /// A row of `streams × bytes` bytes per call done in `seconds` on
    /// `threads` threads, cycles at `clock_ghz`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        section: Section,
        op: impl Into<String>,
        implementation: impl Into<String>,
        key_bits: Option<usize>,
        streams: usize,
        threads: usize,
        bytes: u64,
        seconds: f64,
        clock_ghz: f64,
    ) -> Row {
        let total = (bytes * streams.max(1) as u64) as f64;
        let seconds = seconds.max(1e-12);
        Row {
            section,
            op: op.into(),
            implementation: implementation.into(),
            key_bits,
            key_expansion: None,
            streams,
            threads,
            bytes,
            seconds,
            gbps: total / seconds / 1e9,
            cycles_per_byte: threads.max(1) as f64 * seconds * clock_ghz * 1e9 / total,
            baseline: None,
            vs_baseline: None,
            peers: Vec::new(),
            packets: None,
        }
    }

    /// A label naming this row (for another row's `baseline`).
    pub fn label(&self) -> String {
        format!("{} {} ({} thr)", self.op, self.implementation, self.threads)
    }

    /// Compare with `base` (sets `baseline` and `vs_baseline`).
    pub fn compare(&mut self, base: &Row) {
        self.baseline = Some(base.label());
        self.vs_baseline = Some(self.gbps / base.gbps.max(1e-12));
    }

    /// Add a peer's throughput in GB/s (`None`: not measured, nothing
    /// added). A peer already present keeps its best figure.
    pub fn add_peer(&mut self, peer: Peer, gbps: Option<f64>, command: Option<String>) {
        let Some(g) = gbps.filter(|g| *g > 0.0) else {
            return;
        };
        let fig = PeerFigure {
            peer,
            gbps: g,
            ratio: self.gbps / g,
            command,
        };
        match self.peers.iter_mut().find(|p| p.peer == peer) {
            Some(p) if p.gbps >= g => {}
            Some(p) => *p = fig,
            None => {
                self.peers.push(fig);
                self.peers.sort_by_key(|p| p.peer);
            }
        }
    }

    /// This row's figure for `peer`.
    pub fn peer(&self, peer: Peer) -> Option<&PeerFigure> {
        self.peers.iter().find(|p| p.peer == peer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> Row {
        Row::new(
            Section::Modes,
            "gcm-seal",
            "modes/vaes",
            Some(128),
            1,
            1,
            16384,
            1e-6,
            2.0,
        )
    }

    #[test]
    fn throughput_cycles_and_peers() {
        let mut r = row();
        assert!((r.gbps - 16.384).abs() < 1e-9);
        assert!((r.cycles_per_byte - 2000.0 / 16384.0).abs() < 1e-9);
        r.add_peer(Peer::IpsecMb, Some(8.192), None);
        r.add_peer(Peer::RustCrypto, None, None);
        r.add_peer(Peer::IpsecMb, Some(4.0), None); // worse: kept the best
        assert_eq!(r.peers.len(), 1);
        assert!((r.peer(Peer::IpsecMb).unwrap().ratio - 2.0).abs() < 1e-9);
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["peers"][0]["peer"], "ipsec-mb");
        assert_eq!(j["section"], "modes");
        let names: Vec<_> = Peer::ALL
            .iter()
            .map(|p| serde_json::to_value(p).unwrap())
            .collect();
        assert_eq!(
            names,
            ["rustcrypto", "rustcrypto-0.9", "openssl", "ipsec-mb"]
        );
    }

    #[test]
    fn packet_workloads_serialize_only_where_present() {
        let mut r = row();
        assert!(serde_json::to_value(&r).unwrap().get("packets").is_none());
        r.packets = Some(Packets {
            tunnels: 1000,
            packets: 4096,
            mix: "7:4:1 of 64/576/1500 B".into(),
            mpps: 12.345,
        });
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["packets"]["tunnels"], 1000);
        assert_eq!(j["packets"]["mix"], "7:4:1 of 64/576/1500 B");
    }
}
