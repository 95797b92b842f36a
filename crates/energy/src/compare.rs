//! Table 5: software AES platforms scaled to 65 nm and 1.3 V, plus AsAP from
//! the model and (see [`crate::host`]) one row for the host the study runs on.
//!
//! The paper scales with PTM SPICE curves of an FO4 inverter (Fig. 16) that
//! are not in its text; what the text gives is the general rule of Fig. 16's
//! caption: area × 1/s², delay × 1/s (s = old feature size / 65 nm) and power
//! × 1/v² (v = old supply / 1.3 V). The paper's own rows are quoted with
//! their PTM-scaled values; the host row ([`crate::host`]) uses the general rule, and
//! [`rule_scaled`] recomputes the paper's rows with the same rule so the
//! two scalings can be compared.

/// One platform of Table 5.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Platform5 {
    /// Name.
    #[serde(rename = "platform")]
    pub name: String,
    /// Method.
    pub method: String,
    /// Technology (nm).
    pub tech_nm: f64,
    /// Area (mm²), if known.
    pub area_mm2: Option<f64>,
    /// Supply (V).
    pub vdd: f64,
    /// Clock (MHz).
    pub mhz: f64,
    /// Cycles per byte, if given.
    pub cycles_per_byte: Option<f64>,
    /// Power (W; 50% of TDP for CPUs), if known.
    pub power_w: Option<f64>,
    /// Scaled throughput (Mbps).
    pub scaled_mbps: f64,
    /// Scaled area (mm²).
    #[serde(rename = "scaled_area_mm2")]
    pub scaled_area: Option<f64>,
    /// Scaled throughput per area (Mbps/mm²).
    pub mbps_per_mm2: Option<f64>,
    /// Scaled energy per bit (nJ/bit).
    pub nj_per_bit: Option<f64>,
}

impl Platform5 {
    /// The row with its scaled columns from the throughput (Mbps), area
    /// (mm²) and power (W) at 65 nm / 1.3 V.
    pub(crate) fn with_scaled(self, mbps: f64, area: f64, power: f64) -> Platform5 {
        Platform5 {
            scaled_mbps: mbps,
            scaled_area: Some(area),
            mbps_per_mm2: Some(mbps / area),
            nj_per_bit: Some(power / (mbps * 1e6) * 1e9),
            ..self
        }
    }
}

/// One row of Table 5, in its columns' order.
#[allow(clippy::too_many_arguments)]
pub(crate) fn table5_row(
    name: &str,
    method: &str,
    tech: f64,
    area: Option<f64>,
    vdd: f64,
    mhz: f64,
    cpb: Option<f64>,
    p: Option<f64>,
    mbps: f64,
    sarea: Option<f64>,
    tpa: Option<f64>,
    e: Option<f64>,
) -> Platform5 {
    Platform5 {
        name: name.into(),
        method: method.into(),
        tech_nm: tech,
        area_mm2: area,
        vdd,
        mhz,
        cycles_per_byte: cpb,
        power_w: p,
        scaled_mbps: mbps,
        scaled_area: sarea,
        mbps_per_mm2: tpa,
        nj_per_bit: e,
    }
}

/// The rows of the paper's Table 5 as printed (PTM-scaled).
pub fn paper_rows() -> Vec<Platform5> {
    vec![
        table5_row(
            "Pentium 4 561",
            "",
            90.0,
            Some(112.0),
            1.2,
            3600.0,
            Some(16.0),
            Some(57.5),
            2570.0,
            Some(58.42),
            Some(43.99),
            Some(17.50),
        ),
        table5_row(
            "Athlon 64 3500",
            "",
            90.0,
            Some(193.0),
            1.2,
            2200.0,
            Some(10.6),
            Some(44.5),
            2370.0,
            Some(101.0),
            Some(23.55),
            Some(14.69),
        ),
        table5_row(
            "Core2 Duo E6400",
            "Bitslice",
            65.0,
            Some(111.0),
            1.3,
            2130.0,
            Some(9.19),
            Some(32.5),
            1854.0,
            Some(111.0),
            Some(16.70),
            Some(17.53),
        ),
        table5_row(
            "Core2 Quad Q6600 (one core)",
            "Bitslice + SSSE3",
            65.0,
            Some(143.0),
            1.3,
            2400.0,
            Some(9.32),
            Some(26.25),
            2060.0,
            Some(143.0),
            Some(14.41),
            Some(12.74),
        ),
        table5_row(
            "Core2 Quad Q9550 (one core)",
            "Bitslice + SSSE3",
            45.0,
            Some(53.5),
            1.15,
            2830.0,
            Some(7.59),
            Some(11.88),
            1307.0,
            Some(112.0),
            Some(11.71),
            Some(21.16),
        ),
        table5_row(
            "Core i7 920 (one core)",
            "Bitslice + SSSE3",
            45.0,
            Some(65.75),
            1.15,
            2668.0,
            Some(6.92),
            Some(16.25),
            1351.0,
            Some(137.0),
            Some(9.84),
            Some(28.00),
        ),
        table5_row(
            "TI C6201",
            "",
            180.0,
            None,
            1.8,
            200.0,
            Some(14.25),
            None,
            509.0,
            None,
            None,
            None,
        ),
        table5_row(
            "GeForce 8800 GTX",
            "T-box",
            90.0,
            Some(484.0),
            1.2,
            575.0,
            None,
            Some(67.5),
            11800.0,
            Some(252.0),
            Some(46.82),
            Some(4.48),
        ),
        table5_row(
            "AsAP (paper)",
            "No-merge offline",
            65.0,
            Some(6.63),
            1.3,
            1210.0,
            Some(9.5),
            Some(1.58),
            1019.0,
            Some(6.63),
            Some(153.70),
            Some(1.55),
        ),
    ]
}

/// Scale throughput (Mbps), area (mm²) and power (W) at `tech_nm`/`vdd` to
/// 65 nm / 1.3 V by the general rule; returns `(Mbps, mm², W)`.
pub fn general_rule(tech_nm: f64, vdd: f64, mbps: f64, area: f64, power: f64) -> (f64, f64, f64) {
    let s = tech_nm / 65.0;
    let v = vdd / 1.3;
    (mbps * s, area / (s * s), power / (v * v))
}

/// A row rescaled by [`general_rule`] from its unscaled columns (where it
/// has cycles per byte, area and power).
pub fn rule_scaled(p: &Platform5) -> Option<Platform5> {
    let cpb = p.cycles_per_byte?;
    let area = p.area_mm2?;
    let power = p.power_w?;
    let mbps = p.mhz * 8.0 / cpb;
    let (m, a, w) = general_rule(p.tech_nm, p.vdd, mbps, area, power);
    Some(p.clone().with_scaled(m, a, w))
}

/// The AsAP row from the model: `cores` × 0.17 mm², the given throughput
/// and power at 1.3 V.
pub fn asap_row(name: &str, cores: usize, cpb: f64, mhz: f64, power_w: f64) -> Platform5 {
    let area = cores as f64 * 0.17;
    let mbps = mhz * 8.0 / cpb;
    let (c, a, p) = (Some(cpb), Some(area), Some(power_w));
    let method = "No-merge offline (model)";
    table5_row(
        name, method, 65.0, a, 1.3, mhz, c, p, mbps, None, None, None,
    )
    .with_scaled(mbps, area, power_w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_rule_is_identity_at_65nm_1v3() {
        let (m, a, p) = general_rule(65.0, 1.3, 100.0, 10.0, 2.0);
        assert_eq!((m, a, p), (100.0, 10.0, 2.0));
        // Core2 Duo E6400 is at 65 nm / 1.3 V: the rule reproduces its row.
        let r = rule_scaled(&paper_rows()[2]).unwrap();
        assert!((r.scaled_mbps / 1854.0 - 1.0).abs() < 0.01);
        assert!((r.nj_per_bit.unwrap() / 17.53 - 1.0).abs() < 0.01);
    }
}
