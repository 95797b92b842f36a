//! The plan: which variant of each operation this CPU runs.
//!
//! Some choices in aesflow's kernels have no answer that serves every CPU.
//! How many blocks the 512-bit GCM kernel keeps in flight, and how many
//! streams with keys of their own the 512-bit multi-stream engine runs at
//! once, are two: a core that starts one 512-bit `VAESENC` per cycle
//! (Zen 4) is kept busy by four independent chains and loses to the extra
//! registers and loads of eight, while a core that starts two (Zen 5) needs
//! eight to fill its two AES pipes wherever the rest of the loop lets it.
//! A third is how XTS multiplies its tweaks beside the rounds: a
//! carry-less multiply takes a turn of the AES units on AMD cores but not
//! on Intel's, where the shifts of the other way share the AES port.
//! Which wins is measured per CPU, never assumed from the feature flags. A [`Plan`] holds one [`Variant`] per [`Operation`]; the libraries
//! take it as a value, as they take a kernel, and never look at the CPU
//! family themselves.
//!
//! Where a plan comes from ([`Origin`]):
//! * **the table of measured CPUs** ([`table`], the file `cpus.txt`): one
//!   row per CPU (vendor, family, models) with the variant that was fastest
//!   there and where that measurement is written down;
//! * **the rule** for a CPU the table does not know: the variant that
//!   fits its features and is never far from the best on the CPUs measured;
//! * **a plan file** that `aesflow tune` wrote after timing every candidate
//!   on this CPU ([`mod@file`]): JSON in the user's cache directory, or the file
//!   `AESFLOW_PLAN` names. A plan written on another CPU, or one that
//!   cannot be read, is ignored with one warning.
//!
//! [`Plan::for_this_cpu`] is the table or the rule, without the
//! environment: what a library uses when its caller passes no plan.
//! [`resolve`] adds the plan file and the environment; only applications
//! (the `aesflow` command, the Python package) call it, at their edge.

#![warn(missing_docs)]

pub mod file;
pub mod table;

use aesflow_cipher::{Features, Identity};
use core::fmt;

pub use file::{PLAN_ENV, Resolved, resolve};

/// An operation whose best variant depends on the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operation {
    /// The 512-bit fused GCM kernel's blocks in flight.
    Gcm,
    /// The 512-bit multi-stream engine's lanes for streams with keys of
    /// their own.
    MultistreamOwnKeys,
    /// How the `vaes` kernel's XTS multiplies its vector tweaks.
    Xts,
}

impl Operation {
    /// Every operation, in the order plans list them.
    pub const ALL: [Operation; 3] = [
        Operation::Gcm,
        Operation::MultistreamOwnKeys,
        Operation::Xts,
    ];

    /// The name in plan files, the table and `--variant`.
    pub fn name(self) -> &'static str {
        match self {
            Operation::Gcm => "gcm",
            Operation::MultistreamOwnKeys => "multistream-own-keys",
            Operation::Xts => "xts",
        }
    }

    /// The operation of this name.
    pub fn from_name(name: &str) -> Option<Operation> {
        Self::ALL.into_iter().find(|o| o.name() == name)
    }

    /// Every variant of this operation.
    pub fn variants(self) -> &'static [Variant] {
        match self {
            Operation::Gcm => &[Variant::Groups16, Variant::Groups32],
            Operation::MultistreamOwnKeys => &[Variant::Lanes16, Variant::Lanes32],
            Operation::Xts => &[Variant::TweakClmul, Variant::TweakShift],
        }
    }
}

/// One way of running an [`Operation`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// GCM: groups of 16 blocks (4 zmm chains) per GHASH reduction.
    Groups16,
    /// GCM: groups of 32 blocks (8 zmm chains).
    Groups32,
    /// Multi-stream: 16 of the 32 lanes (4 zmm chains) for streams with
    /// keys of their own.
    Lanes16,
    /// Multi-stream: all 32 lanes (8 zmm chains).
    Lanes32,
    /// XTS: the tweaks' reduction a carry-less multiply (`VPCLMULQDQ`).
    TweakClmul,
    /// XTS: the tweaks' reduction by shifts alone.
    TweakShift,
}

impl Variant {
    /// The name in plan files, the table and `--variant`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Groups16 => "groups16",
            Variant::Groups32 => "groups32",
            Variant::Lanes16 => "lanes16",
            Variant::Lanes32 => "lanes32",
            Variant::TweakClmul => "tweak-clmul",
            Variant::TweakShift => "tweak-shift",
        }
    }

    /// The operation this variant belongs to.
    pub fn operation(self) -> Operation {
        match self {
            Variant::Groups16 | Variant::Groups32 => Operation::Gcm,
            Variant::Lanes16 | Variant::Lanes32 => Operation::MultistreamOwnKeys,
            Variant::TweakClmul | Variant::TweakShift => Operation::Xts,
        }
    }

    /// The variant of `operation` with this name.
    pub fn parse(operation: Operation, name: &str) -> Option<Variant> {
        operation
            .variants()
            .iter()
            .copied()
            .find(|v| v.name() == name)
    }

    /// The variant of any operation with this name (names are unique).
    pub fn from_name(name: &str) -> Option<Variant> {
        Operation::ALL
            .into_iter()
            .find_map(|o| Variant::parse(o, name))
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a plan came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The row of the table of measured CPUs for this CPU; the text names
    /// where its measurement is written down.
    Table {
        /// The row's CPU, as the table names it.
        cpu: String,
        /// Where the measurement behind the row is.
        source: String,
    },
    /// The rule for CPUs the table does not know.
    Rule,
    /// A plan file written by `aesflow tune`.
    File(std::path::PathBuf),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Table { cpu, source } => {
                write!(f, "the table of measured CPUs ({cpu}; {source})")
            }
            Origin::Rule => f.write_str("the rule for CPUs not in the table"),
            Origin::File(path) => write!(f, "the plan file {}", path.display()),
        }
    }
}

/// The variant of every [`Operation`] a CPU runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Plan {
    gcm: Variant,
    multistream_own_keys: Variant,
    xts: Variant,
}

impl Plan {
    /// The plan for this CPU from the table, or the rule if the table does
    /// not know it. Reads no environment and no file.
    pub fn for_this_cpu() -> Plan {
        Self::for_cpu(aesflow_cipher::identity(), aesflow_cipher::features()).0
    }

    /// The plan for a CPU from the table, or the rule, and which.
    pub fn for_cpu(cpu: Identity, features: Features) -> (Plan, Origin) {
        match table::lookup(cpu) {
            Some(row) => (
                row.plan,
                Origin::Table {
                    cpu: row.cpu.clone(),
                    source: row.source.clone(),
                },
            ),
            None => (Self::rule(features), Origin::Rule),
        }
    }

    /// The rule for a CPU the table does not know: 16-block GCM groups
    /// (the variant every CPU with 512-bit VAES has run since it existed),
    /// and all lanes for the multi-stream engine (a core with one AES pipe
    /// loses a little with them, a core with two loses much without them);
    /// XTS tweaks reduced by carry-less multiplies (the faster on Zen 5
    /// and, in LLVM's models, on Intel cores with 512-bit VAES, where
    /// shifts share the AES port; shifts win only in the Zen 4 model, by
    /// a tenth).
    pub fn rule(_features: Features) -> Plan {
        Plan {
            gcm: Variant::Groups16,
            multistream_own_keys: Variant::Lanes32,
            xts: Variant::TweakClmul,
        }
    }

    /// The variant this plan runs for `operation`.
    pub fn variant(&self, operation: Operation) -> Variant {
        match operation {
            Operation::Gcm => self.gcm,
            Operation::MultistreamOwnKeys => self.multistream_own_keys,
            Operation::Xts => self.xts,
        }
    }

    /// This plan with `variant` for its operation.
    pub fn with(mut self, variant: Variant) -> Plan {
        match variant.operation() {
            Operation::Gcm => self.gcm = variant,
            Operation::MultistreamOwnKeys => self.multistream_own_keys = variant,
            Operation::Xts => self.xts = variant,
        }
        self
    }

    /// The multi-stream engine's lanes for streams with keys of their own
    /// (`MultiStream::with_own_key_lanes`).
    pub fn own_key_lanes(&self) -> usize {
        match self.multistream_own_keys {
            Variant::Lanes16 => 16,
            _ => 32,
        }
    }

    /// How XTS multiplies its tweaks
    /// (`aesflow_cipher::Aes::with_xts_tweak_mul`).
    pub fn xts_tweak_mul(&self) -> aesflow_cipher::XtsTweakMul {
        match self.xts {
            Variant::TweakShift => aesflow_cipher::XtsTweakMul::Shift,
            _ => aesflow_cipher::XtsTweakMul::Clmul,
        }
    }

    /// Whether the 512-bit fused GCM kernel runs groups of 32 blocks.
    pub fn gcm_32_blocks(&self) -> bool {
        self.gcm == Variant::Groups32
    }

    /// `operation=variant` for every operation, space-separated (the
    /// table's and `aesflow kernels`' form).
    pub fn describe(&self) -> String {
        Operation::ALL
            .iter()
            .map(|&o| format!("{}={}", o.name(), self.variant(o)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for o in Operation::ALL {
            assert_eq!(Operation::from_name(o.name()), Some(o));
            for &v in o.variants() {
                assert_eq!(v.operation(), o);
                assert_eq!(Variant::parse(o, v.name()), Some(v));
                assert_eq!(Variant::from_name(v.name()), Some(v));
                assert!(seen.insert(v.name()), "{} named twice", v.name());
            }
        }
        assert_eq!(Variant::from_name("no-such-variant"), None);
    }

    #[test]
    fn with_sets_one_operation() {
        let p = Plan::rule(Features::default());
        for o in Operation::ALL {
            for &v in o.variants() {
                let q = p.with(v);
                assert_eq!(q.variant(o), v);
            }
        }
        assert_eq!(p.with(Variant::Lanes16).own_key_lanes(), 16);
        assert_eq!(p.with(Variant::Lanes32).own_key_lanes(), 32);
        use aesflow_cipher::XtsTweakMul;
        assert_eq!(
            p.with(Variant::TweakShift).xts_tweak_mul(),
            XtsTweakMul::Shift
        );
        assert_eq!(
            p.with(Variant::TweakClmul).xts_tweak_mul(),
            XtsTweakMul::Clmul
        );
    }

    #[test]
    fn this_cpu_has_a_plan() {
        let (plan, origin) = Plan::for_cpu(aesflow_cipher::identity(), aesflow_cipher::features());
        assert_eq!(plan, Plan::for_this_cpu());
        assert!(!origin.to_string().is_empty());
        assert!(plan.describe().contains("multistream-own-keys="));
    }
}
