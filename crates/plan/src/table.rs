//! The table of measured CPUs (`cpus.txt` beside the crate's manifest): for
//! each CPU, the variant of each operation that was fastest there, and
//! where that measurement is written down. Plain text, one row per CPU, so
//! that adding a CPU is adding a line.

use crate::{Operation, Plan, Variant};
use aesflow_cipher::{Features, Identity, Vendor};
use std::sync::OnceLock;

/// The table's text.
pub const TEXT: &str = include_str!("../cpus.txt");

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The vendor.
    pub vendor: Vendor,
    /// The family.
    pub family: u32,
    /// The models the row covers (inclusive).
    pub models: (u32, u32),
    /// The plan: the row's variants over the rule's.
    pub plan: Plan,
    /// The CPU's name.
    pub cpu: String,
    /// Where the measurement behind the row is.
    pub source: String,
}

impl Row {
    /// Whether the row covers this CPU.
    pub fn matches(&self, cpu: Identity) -> bool {
        cpu.vendor == self.vendor
            && cpu.family == self.family
            && (self.models.0..=self.models.1).contains(&cpu.model)
    }
}

/// Every row, parsed once.
pub fn rows() -> &'static [Row] {
    static ROWS: OnceLock<Vec<Row>> = OnceLock::new();
    ROWS.get_or_init(|| parse(TEXT).expect("cpus.txt parses (checked by a unit test)"))
}

/// The first row that covers this CPU.
pub fn lookup(cpu: Identity) -> Option<&'static Row> {
    rows().iter().find(|r| r.matches(cpu))
}

/// Parse a table; an error names the line and what is wrong with it.
pub fn parse(text: &str) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |what: &str| format!("cpus.txt line {}: {what}: {line}", i + 1);
        let mut parts = line.splitn(3, '|');
        let (head, cpu, source) = match (parts.next(), parts.next(), parts.next()) {
            (Some(h), Some(c), Some(s)) => (h, c.trim(), s.trim()),
            _ => {
                return Err(err(
                    "expected `vendor family models variants | cpu | source`",
                ));
            }
        };
        if cpu.is_empty() || source.is_empty() {
            return Err(err(
                "the CPU's name and the measurement's source are required",
            ));
        }
        let mut words = head.split_whitespace();
        let vendor = match words.next() {
            Some("AMD") => Vendor::Amd,
            Some("Intel") => Vendor::Intel,
            _ => return Err(err("vendor must be AMD or Intel")),
        };
        let hex = |w: Option<&str>| w.and_then(|w| u32::from_str_radix(w, 16).ok());
        let family = hex(words.next()).ok_or_else(|| err("bad family"))?;
        let models = words
            .next()
            .and_then(|w| w.split_once('-'))
            .and_then(|(lo, hi)| Some((hex(Some(lo))?, hex(Some(hi))?)))
            .filter(|(lo, hi)| lo <= hi)
            .ok_or_else(|| err("models must be lo-hi in hex"))?;
        let mut plan = Plan::rule(Features::default());
        let mut named = Vec::new();
        for word in words {
            let (op, variant) = word
                .split_once('=')
                .ok_or_else(|| err("expected operation=variant"))?;
            let op = Operation::from_name(op).ok_or_else(|| err("unknown operation"))?;
            let variant = Variant::parse(op, variant).ok_or_else(|| err("unknown variant"))?;
            if named.contains(&op) {
                return Err(err("an operation named twice"));
            }
            named.push(op);
            plan = plan.with(variant);
        }
        rows.push(Row {
            vendor,
            family,
            models,
            plan,
            cpu: cpu.to_string(),
            source: source.to_string(),
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(vendor: Vendor, family: u32, model: u32) -> Identity {
        Identity {
            vendor,
            family,
            model,
        }
    }

    #[test]
    fn the_table_parses_and_every_row_cites_a_measurement() {
        let rows = parse(TEXT).unwrap();
        assert!(!rows.is_empty());
        for r in &rows {
            assert!(r.source.contains("docs/performance.md"), "{r:?}");
        }
    }

    #[test]
    fn measured_cpus_get_their_rows() {
        let zen5 = lookup(id(Vendor::Amd, 0x1a, 0x02)).unwrap();
        assert_eq!(zen5.plan.own_key_lanes(), 32);
        assert!(zen5.plan.gcm_32_blocks());
        let zen4 = lookup(id(Vendor::Amd, 0x19, 0x11)).unwrap();
        assert_eq!(zen4.plan.own_key_lanes(), 16);
        assert!(!zen4.plan.gcm_32_blocks());
        assert_eq!(
            zen5.plan.variant(crate::Operation::Xts),
            crate::Variant::TweakClmul
        );
        assert_eq!(
            zen4.plan.variant(crate::Operation::Xts),
            crate::Variant::TweakShift
        );
        // Zen 3 shares Zen 4's family but not its model.
        assert!(lookup(id(Vendor::Amd, 0x19, 0x01)).is_none());
        assert!(lookup(id(Vendor::Intel, 0x19, 0x11)).is_none());
    }

    #[test]
    fn unknown_cpus_get_the_rule() {
        let (plan, origin) = Plan::for_cpu(id(Vendor::Other, 0, 0), Features::default());
        assert_eq!(origin, crate::Origin::Rule);
        assert_eq!(plan, Plan::rule(Features::default()));
    }

    #[test]
    fn bad_rows_are_refused_with_their_line() {
        for bad in [
            "AMD 19 11-11 multistream-own-keys=lanes16",
            "VIA 19 11-11 | x | y",
            "AMD zz 11-11 | x | y",
            "AMD 19 12-11 | x | y",
            "AMD 19 11-11 multistream-own-keys=lanes7 | x | y",
            "AMD 19 11-11 no-such-op=lanes16 | x | y",
            "AMD 19 11-11 multistream-own-keys=lanes16 multistream-own-keys=lanes32 | x | y",
            "AMD 19 11-11 | | y",
        ] {
            let e = parse(&format!("# c\n{bad}\n")).unwrap_err();
            assert!(e.contains("line 2"), "{bad}: {e}");
        }
    }
}
