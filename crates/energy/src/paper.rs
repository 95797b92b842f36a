//! The paper's own figures that the model is compared with ("Parallel AES
//! Encryption Engines for Many-Core Processor Arrays", Tables 4–5 and
//! §6.3; the companion talk's DVFS results).

/// Table 4's rows as printed: kind, number, exec, NOP, stall AC, stall HC,
/// near, long cycles per 70-cycle period; then P exe, stall, leak, comm,
/// per-core total (mW).
pub const PAPER_TABLE4: [(&str, usize, [f64; 6], [f64; 4]); 5] = [
    (
        "AddKeyShiftRows",
        10,
        [37.0, 0.0, 18.0, 15.0, 8.0, 8.0],
        [31.47, 7.97, 0.03, 2.05],
    ),
    (
        "SubByte",
        40,
        [27.0, 12.0, 16.0, 15.0, 4.0, 0.0],
        [22.97, 12.40, 0.03, 0.34],
    ),
    (
        "MixColumn-4",
        36,
        [63.0, 7.0, 0.0, 0.0, 2.0, 2.0],
        [53.59, 3.10, 0.0, 0.51],
    ),
    (
        "FinalRoundAddKey",
        1,
        [18.0, 0.0, 40.0, 12.0, 16.0, 0.0],
        [15.31, 17.71, 0.02, 1.35],
    ),
    (
        "MergeCore",
        20,
        [10.0, 0.0, 44.0, 16.0, 0.0, 8.0],
        [8.34, 19.49, 0.03, 1.38],
    ),
];

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
