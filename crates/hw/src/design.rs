//! The design space of Hodjat & Verbauwhede's fully pipelined AES-128
//! processors: S-box kind × pipeline stages per round × key schedule.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How SubBytes is built (the paper's Fig. 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SboxKind {
    /// A 256-entry look-up table (Fig. 4a).
    Lut,
    /// The composite-field GF((2^4)^2) S-box, not pipelined (Fig. 4b).
    Composite,
    /// The composite S-box in two stages: one register set of three 4-bit
    /// values (`d⁻¹`, `a_h`, `a_h ⊕ a_l`) after the GF(2^4) inversion
    /// (Fig. 4c).
    Composite2,
    /// The composite S-box in three stages: registers after the addition
    /// that forms `d` and after the inversion (Fig. 4d).
    Composite3,
}

impl SboxKind {
    /// Every kind, in the paper's order.
    pub const ALL: [SboxKind; 4] = [
        SboxKind::Lut,
        SboxKind::Composite,
        SboxKind::Composite2,
        SboxKind::Composite3,
    ];

    /// Clock cycles through the S-box alone (1 + its internal registers).
    pub fn stages(self) -> usize {
        match self {
            SboxKind::Lut | SboxKind::Composite => 1,
            SboxKind::Composite2 => 2,
            SboxKind::Composite3 => 3,
        }
    }

    /// The short name used in variant names and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SboxKind::Lut => "lut",
            SboxKind::Composite => "composite",
            SboxKind::Composite2 => "composite-2",
            SboxKind::Composite3 => "composite-3",
        }
    }

    /// The kind named `s` (see [`SboxKind::name`]).
    pub fn parse(s: &str) -> Option<SboxKind> {
        SboxKind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Where the round keys come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyMode {
    /// Key expansion unrolled beside the rounds, each block carrying its own
    /// round key down the pipeline (the paper's Fig. 3 and Fig. 6).
    Online,
    /// One key-round unit fills eleven round-key registers after each key
    /// load; the encryption pipeline has no key datapath (Fig. 8).
    Offline,
}

impl KeyMode {
    /// Both modes.
    pub const ALL: [KeyMode; 2] = [KeyMode::Online, KeyMode::Offline];

    /// `online` or `offline`.
    pub fn name(self) -> &'static str {
        match self {
            KeyMode::Online => "online",
            KeyMode::Offline => "offline",
        }
    }

    /// The mode named `s`.
    pub fn parse(s: &str) -> Option<KeyMode> {
        KeyMode::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// One fully pipelined AES-128 counter-mode processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Variant {
    /// The S-box.
    pub sbox: SboxKind,
    /// Pipeline stages per round: the S-box's stages, plus one when a
    /// register separates SubBytes from ShiftRows/MixColumns/AddRoundKey.
    pub stages: usize,
    /// The key schedule.
    pub keys: KeyMode,
}

/// A variant that cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidVariant(pub String);

impl fmt::Display for InvalidVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InvalidVariant {}

impl Variant {
    /// A checked variant: `stages` must be the S-box's own stages or one
    /// more (a register between SubBytes and the rest of the round).
    pub fn new(sbox: SboxKind, stages: usize, keys: KeyMode) -> Result<Variant, InvalidVariant> {
        let s = sbox.stages();
        if stages != s && stages != s + 1 {
            return Err(InvalidVariant(format!(
                "the {} S-box takes {s} stage{}, so a round has {s} or {} stages, not {stages}",
                sbox.name(),
                if s == 1 { "" } else { "s" },
                s + 1
            )));
        }
        Ok(Variant { sbox, stages, keys })
    }

    /// The paper's four online designs of Fig. 7 (and with offline keys,
    /// Fig. 9): 1 stage LUT, 2 stages LUT, 3 stages composite (Fig. 4c),
    /// 4 stages composite (Fig. 4d).
    pub fn paper(keys: KeyMode) -> [Variant; 4] {
        [
            Variant {
                sbox: SboxKind::Lut,
                stages: 1,
                keys,
            },
            Variant {
                sbox: SboxKind::Lut,
                stages: 2,
                keys,
            },
            Variant {
                sbox: SboxKind::Composite2,
                stages: 3,
                keys,
            },
            Variant {
                sbox: SboxKind::Composite3,
                stages: 4,
                keys,
            },
        ]
    }

    /// Every buildable variant (16).
    pub fn all() -> Vec<Variant> {
        let mut v = Vec::new();
        for keys in KeyMode::ALL {
            for sbox in SboxKind::ALL {
                for stages in [sbox.stages(), sbox.stages() + 1] {
                    v.push(Variant { sbox, stages, keys });
                }
            }
        }
        v
    }

    /// Whether SubBytes is followed by its own pipeline register.
    pub fn separate_sub_bytes(&self) -> bool {
        self.stages > self.sbox.stages()
    }

    /// Cycles from a block's acceptance to its output: one for the input
    /// register (the initial AddRoundKey) plus `stages` per round — 11, 21,
    /// 31, 41 for the paper's 1-4 stages.
    pub fn latency(&self) -> usize {
        1 + 10 * self.stages
    }

    /// Cycles the offline key unit takes to fill the round-key registers:
    /// one round key per `sbox.stages() + 1` cycles (20 with a one-stage
    /// S-box, the paper's Fig. 8), zero for online keys.
    pub fn key_schedule_cycles(&self) -> usize {
        match self.keys {
            KeyMode::Online => 0,
            KeyMode::Offline => 10 * (self.sbox.stages() + 1),
        }
    }

    /// `lut-1-online`, `composite-3-4-offline`, ….
    pub fn name(&self) -> String {
        format!("{}-{}-{}", self.sbox.name(), self.stages, self.keys.name())
    }

    /// The variant named like [`Variant::name`].
    pub fn parse(s: &str) -> Result<Variant, InvalidVariant> {
        let bad = || {
            InvalidVariant(format!(
                "`{s}` is not a variant name (SBOX-STAGES-KEYS, e.g. lut-2-online, composite-3-4-offline)"
            ))
        };
        let (rest, keys) = s.rsplit_once('-').ok_or_else(bad)?;
        let (sbox, stages) = rest.rsplit_once('-').ok_or_else(bad)?;
        let sbox = SboxKind::parse(sbox).ok_or_else(bad)?;
        let keys = KeyMode::parse(keys).ok_or_else(bad)?;
        let stages = stages.parse().map_err(|_| bad())?;
        Variant::new(sbox, stages, keys)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixteen_variants_with_the_papers_latencies() {
        let all = Variant::all();
        assert_eq!(all.len(), 16);
        let lat: Vec<usize> = Variant::paper(KeyMode::Online)
            .iter()
            .map(|v| v.latency())
            .collect();
        assert_eq!(lat, [11, 21, 31, 41]);
        for v in all {
            assert_eq!(Variant::parse(&v.name()), Ok(v));
        }
    }

    #[test]
    fn impossible_stage_counts_are_refused() {
        let e = Variant::new(SboxKind::Composite3, 2, KeyMode::Online).unwrap_err();
        assert!(e.0.contains("3 or 4 stages"), "{e}");
        assert!(Variant::parse("lut-5-online").is_err());
        assert!(Variant::parse("lut-1-sometimes").is_err());
        assert!(Variant::parse("nonsense").is_err());
    }
}
