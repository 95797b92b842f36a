//! The paper's own figures that the model is compared with ("Parallel AES
//! Encryption Engines for Many-Core Processor Arrays", Tables 4–5 and
//! §6.3; the companion talk's DVFS results).

use std::sync::LazyLock;

use crate::table;

/// A row of Table 4 as printed: kind, number, exec, NOP, stall AC, stall
/// HC, near, long cycles per 70-cycle period; then P exe, stall, leak, comm
/// (mW; their sum is the per-core total).
pub type Table4Row = (&'static str, usize, [f64; 6], [f64; 4]);

/// Table 4's rows as printed (`data/paper-table4.txt`).
pub static PAPER_TABLE4: LazyLock<Vec<Table4Row>> = LazyLock::new(|| {
    table::rows(include_str!("../data/paper-table4.txt"))
        .map(|[kind, n, cycles, mw]| (kind, table::num(n), table::nums(cycles), table::nums(mw)))
        .collect()
});

/// The paper's Table 4 kind for a model kind.
pub fn paper_kind(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "AddKeyShiftRows" => "AddKeyShiftRows",
        "SubBytes-4" => "SubByte",
        "MixColumns-4" => "MixColumn-4",
        "AddRoundKey" => "FinalRoundAddKey",
        "MergeCore" => "MergeCore",
        _ => return None,
    })
}

/// Fig. 14 (§6.3's text): No-merge offline at 0.675 V and at 1.3 V (nJ/bit).
pub const FIG14_NO_MERGE: (f64, f64) = (0.39, 1.54);

/// Fig. 15 (§6.3's text): online key expansion costs 35–55% more energy.
pub const FIG15_RANGE: (f64, f64) = (35.0, 55.0);

/// The talk's per-core DVFS power savings (%).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TalkDvfs {
    /// Frequency scaling alone: best engine.
    pub freq_best: f64,
    /// Frequency scaling alone: mean.
    pub freq_mean: f64,
    /// With dual supply: best engine.
    pub dual_best: f64,
    /// With dual supply: mean.
    pub dual_mean: f64,
}

/// The talk's figures.
pub const TALK_DVFS: TalkDvfs = TalkDvfs {
    freq_best: 16.0,
    freq_mean: 11.0,
    dual_best: 32.0,
    dual_mean: 22.0,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table4_reads_as_printed() {
        let kinds: Vec<&str> = PAPER_TABLE4.iter().map(|r| r.0).collect();
        assert_eq!(
            kinds,
            [
                "AddKeyShiftRows",
                "SubByte",
                "MixColumn-4",
                "FinalRoundAddKey",
                "MergeCore"
            ]
        );
        assert_eq!(
            PAPER_TABLE4[1],
            (
                "SubByte",
                40,
                [27.0, 12.0, 16.0, 15.0, 4.0, 0.0],
                [22.97, 12.40, 0.03, 0.34]
            )
        );
    }
}
