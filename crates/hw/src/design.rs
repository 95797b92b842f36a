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

/// The key length: AES-128 is the paper's design space, AES-192 and AES-256
/// extend it with 12 and 14 rounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum KeySize {
    /// 128-bit keys, 10 rounds (Nk = 4).
    #[default]
    #[serde(rename = "128")]
    Aes128,
    /// 192-bit keys, 12 rounds (Nk = 6).
    #[serde(rename = "192")]
    Aes192,
    /// 256-bit keys, 14 rounds (Nk = 8).
    #[serde(rename = "256")]
    Aes256,
}

impl KeySize {
    /// The three sizes.
    pub const ALL: [KeySize; 3] = [KeySize::Aes128, KeySize::Aes192, KeySize::Aes256];

    /// Key bits: 128, 192 or 256.
    pub fn bits(self) -> usize {
        32 * self.nk()
    }

    /// Key bytes: 16, 24 or 32.
    pub fn bytes(self) -> usize {
        4 * self.nk()
    }

    /// FIPS-197's Nk: 32-bit words in the key.
    pub fn nk(self) -> usize {
        match self {
            KeySize::Aes128 => 4,
            KeySize::Aes192 => 6,
            KeySize::Aes256 => 8,
        }
    }

    /// FIPS-197's Nr: rounds.
    pub fn rounds(self) -> usize {
        self.nk() + 6
    }

    /// The size of `bits` (128, 192 or 256).
    pub fn from_bits(bits: usize) -> Option<KeySize> {
        KeySize::ALL.into_iter().find(|k| k.bits() == bits)
    }
}

/// One fully pipelined AES counter-mode processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Variant {
    /// The S-box.
    pub sbox: SboxKind,
    /// Pipeline stages per round: the S-box's stages, plus one when a
    /// register separates SubBytes from ShiftRows/MixColumns/AddRoundKey.
    pub stages: usize,
    /// The key schedule.
    pub keys: KeyMode,
    /// The key length (AES-128 unless the name says otherwise).
    #[serde(default)]
    pub key_size: KeySize,
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
        Ok(Variant {
            sbox,
            stages,
            keys,
            key_size: KeySize::Aes128,
        })
    }

    /// The same design for keys of `key_size`.
    pub fn with_key_size(self, key_size: KeySize) -> Variant {
        Variant { key_size, ..self }
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
                key_size: KeySize::Aes128,
            },
            Variant {
                sbox: SboxKind::Lut,
                stages: 2,
                keys,
                key_size: KeySize::Aes128,
            },
            Variant {
                sbox: SboxKind::Composite2,
                stages: 3,
                keys,
                key_size: KeySize::Aes128,
            },
            Variant {
                sbox: SboxKind::Composite3,
                stages: 4,
                keys,
                key_size: KeySize::Aes128,
            },
        ]
    }

    /// Every buildable AES-128 variant (16), the paper's design space.
    pub fn all() -> Vec<Variant> {
        Variant::all_of(KeySize::Aes128)
    }

    /// Every buildable variant for keys of `key_size` (16).
    pub fn all_of(key_size: KeySize) -> Vec<Variant> {
        let mut v = Vec::new();
        for keys in KeyMode::ALL {
            for sbox in SboxKind::ALL {
                for stages in [sbox.stages(), sbox.stages() + 1] {
                    v.push(Variant {
                        sbox,
                        stages,
                        keys,
                        key_size,
                    });
                }
            }
        }
        v
    }

    /// Whether SubBytes is followed by its own pipeline register.
    pub fn separate_sub_bytes(&self) -> bool {
        self.stages > self.sbox.stages()
    }

    /// Rounds: 10, 12 or 14.
    pub fn rounds(&self) -> usize {
        self.key_size.rounds()
    }

    /// Cycles from a block's acceptance to its output: one for the input
    /// register (the initial AddRoundKey) plus `stages` per round — 11, 21,
    /// 31, 41 for the paper's 1-4 stages with AES-128, `1 + Nr × stages`
    /// in general.
    pub fn latency(&self) -> usize {
        1 + self.rounds() * self.stages
    }

    /// Key-expansion steps of the offline key unit: each step runs SubWord
    /// once and produces the next words of the schedule — 4 per step for
    /// AES-128 and AES-256 (whose steps alternate RotWord+SubWord+Rcon and
    /// SubWord alone), 6 for AES-192 — until the 4(Nr+1) words are there:
    /// 10, 8 or 13 steps.
    pub fn key_steps(&self) -> usize {
        let nk = self.key_size.nk();
        let per = self.key_step_words();
        (4 * (self.rounds() + 1) - nk).div_ceil(per)
    }

    /// Words one offline key step produces (6 for AES-192, else 4).
    pub fn key_step_words(&self) -> usize {
        if self.key_size == KeySize::Aes192 {
            6
        } else {
            4
        }
    }

    /// Cycles the offline key unit takes to fill the round-key registers:
    /// one key step per `sbox.stages() + 1` cycles (20 with a one-stage
    /// S-box and AES-128, the paper's Fig. 8), zero for online keys.
    pub fn key_schedule_cycles(&self) -> usize {
        match self.keys {
            KeyMode::Online => 0,
            KeyMode::Offline => self.key_steps() * (self.sbox.stages() + 1),
        }
    }

    /// `lut-1-online`, `composite-3-4-offline`, …; AES-192 and AES-256
    /// variants end in `-192` or `-256` (`lut-2-online-256`).
    pub fn name(&self) -> String {
        let base = format!("{}-{}-{}", self.sbox.name(), self.stages, self.keys.name());
        match self.key_size {
            KeySize::Aes128 => base,
            k => format!("{base}-{}", k.bits()),
        }
    }

    /// The variant named like [`Variant::name`].
    pub fn parse(s: &str) -> Result<Variant, InvalidVariant> {
        let bad = || {
            InvalidVariant(format!(
                "`{s}` is not a variant name (SBOX-STAGES-KEYS[-192|-256], e.g. lut-2-online, composite-3-4-offline-256)"
            ))
        };
        let (s_base, key_size) = match s.rsplit_once('-') {
            Some((b, "192")) => (b, KeySize::Aes192),
            Some((b, "256")) => (b, KeySize::Aes256),
            _ => (s, KeySize::Aes128),
        };
        let (rest, keys) = s_base.rsplit_once('-').ok_or_else(bad)?;
        let (sbox, stages) = rest.rsplit_once('-').ok_or_else(bad)?;
        let sbox = SboxKind::parse(sbox).ok_or_else(bad)?;
        let keys = KeyMode::parse(keys).ok_or_else(bad)?;
        let stages = stages.parse().map_err(|_| bad())?;
        Ok(Variant::new(sbox, stages, keys)?.with_key_size(key_size))
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
    fn key_sizes_name_latency_and_key_steps() {
        for k in KeySize::ALL {
            for v in Variant::all_of(k) {
                assert_eq!(Variant::parse(&v.name()), Ok(v));
                assert_eq!(v.latency(), 1 + k.rounds() * v.stages);
            }
        }
        let v = Variant::parse("lut-2-online-256").unwrap();
        assert_eq!((v.key_size, v.latency()), (KeySize::Aes256, 29));
        let v = Variant::parse("composite-3-4-offline-192").unwrap();
        assert_eq!((v.rounds(), v.latency()), (12, 49));
        assert_eq!(v.key_steps(), 8);
        assert_eq!(v.with_key_size(KeySize::Aes256).key_steps(), 13);
        assert_eq!(v.with_key_size(KeySize::Aes128).key_steps(), 10);
        assert_eq!(
            Variant::parse("lut-2-online").unwrap().key_size,
            KeySize::Aes128
        );
        assert!(Variant::parse("lut-2-online-512").is_err());
        assert!(Variant::parse("lut-2-192").is_err());
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
