//! Synthesis with Yosys to a small generic cell set, counted in gate
//! equivalents (NAND2 = 1), and the logic depth of the slowest stage.
//!
//! The flow: `synth -noabc` keeps the module hierarchy (each S-box kind is
//! synthesised once, as in a hierarchical ASIC flow), `dfflegalize` turns
//! every flip-flop into a plain D flip-flop plus gates (enables and resets
//! become multiplexers and AND gates), `abc -g AND,NAND,OR,NOR,XOR,XNOR,MUX`
//! maps the logic to two-input gates and 2:1 multiplexers (inverters always
//! included). The area is the sum over the flattened hierarchy of cells ×
//! [`GE_WEIGHTS`]; the depth is Yosys's `ltp -noff` (the longest path of
//! cells between flip-flops and ports) on the flattened netlist — in a fully
//! pipelined design, the slowest stage.
//!
//! The weights are the cell areas of the NanGate 45 nm Open Cell Library
//! (X1 drive) divided by NAND2_X1's 0.798 µm². Hodjat & Verbauwhede's areas
//! come from a 0.18 µm standard-cell library with Synopsys Design Compiler
//! pushed for speed; absolute figures differ in kind, ratios compare.

use crate::tools::{Error, run};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Gate equivalents per generic cell (NanGate 45 nm X1 area / NAND2_X1).
pub const GE_WEIGHTS: [(&str, f64); 9] = [
    ("$_NOT_", 0.667),
    ("$_NAND_", 1.0),
    ("$_NOR_", 1.0),
    ("$_AND_", 1.333),
    ("$_OR_", 1.333),
    ("$_XOR_", 2.0),
    ("$_XNOR_", 2.0),
    ("$_MUX_", 2.333),
    ("$_DFF_P_", 5.667),
];

/// The gate set given to ABC.
pub const GATES: &str = "AND,NAND,OR,NOR,XOR,XNOR,MUX";

/// The synthesis figures of one top module.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Synthesis {
    /// Generic cells by type over the flattened hierarchy.
    pub cells: BTreeMap<String, u64>,
    /// Gate equivalents (NAND2 = 1).
    pub ge: f64,
    /// Of which flip-flops.
    pub flip_flops: u64,
    /// Logic levels of the longest register-to-register path.
    pub depth: u64,
}

/// Per-module cell counts from Yosys's `stat` text.
fn parse_stat(text: &str) -> BTreeMap<String, BTreeMap<String, u64>> {
    let mut modules = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut in_cells = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("=== ").and_then(|s| s.strip_suffix(" ===")) {
            current =
                (name != "design hierarchy").then(|| name.trim_start_matches('\\').to_string());
            in_cells = false;
            if let Some(c) = &current {
                modules.insert(c.clone(), BTreeMap::new());
            }
            continue;
        }
        let Some(c) = &current else { continue };
        if t.starts_with("Number of cells:") {
            in_cells = true;
            continue;
        }
        if in_cells {
            let mut f = t.split_whitespace();
            match (
                f.next(),
                f.next().and_then(|n| n.parse::<u64>().ok()),
                f.next(),
            ) {
                (Some(ty), Some(n), None) => {
                    modules.get_mut(c).map(|m: &mut BTreeMap<String, u64>| {
                        m.insert(ty.trim_start_matches('\\').to_string(), n)
                    });
                }
                _ => in_cells = false,
            }
        }
    }
    modules
}

/// Cells of `top` with every submodule instance expanded.
fn flatten_counts(
    modules: &BTreeMap<String, BTreeMap<String, u64>>,
    top: &str,
) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    if let Some(cells) = modules.get(top) {
        for (ty, n) in cells {
            if modules.contains_key(ty) {
                for (t2, n2) in flatten_counts(modules, ty) {
                    *out.entry(t2).or_insert(0) += n * n2;
                }
            } else {
                *out.entry(ty.clone()).or_insert(0) += n;
            }
        }
    }
    out
}

/// Gate equivalents of a cell count.
pub fn gate_equivalents(cells: &BTreeMap<String, u64>) -> Result<f64, Error> {
    let mut ge = 0.0;
    for (ty, n) in cells {
        let w = GE_WEIGHTS
            .iter()
            .find(|(t, _)| t == ty)
            .map(|(_, w)| *w)
            .ok_or_else(|| Error::Tool {
                tool: "yosys".into(),
                message: format!("cell type {ty} outside the generic set"),
            })?;
        ge += w * *n as f64;
    }
    Ok(ge)
}

/// Synthesise module `top` of `verilog`: area and depth.
pub fn synthesize(verilog: &str, top: &str) -> Result<Synthesis, Error> {
    synthesize_with(verilog, top, true)
}

/// Synthesise module `top`; its depth only when `depth` (0 otherwise).
pub fn synthesize_with(verilog: &str, top: &str, depth: bool) -> Result<Synthesis, Error> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("design.v"), verilog)?;
    let script = format!(
        "read_verilog design.v
hierarchy -top {top}
synth -top {top} -noabc
dfflegalize -cell $_DFF_P_ x
abc -g {GATES}
opt_clean
tee -q -o stat.txt stat
{}
",
        if depth {
            "flatten\ntee -q -o ltp.txt ltp -noff"
        } else {
            ""
        }
    );
    std::fs::write(dir.path().join("flow.ys"), script)?;
    run("yosys", &["-q", "-s", "flow.ys"], dir.path())?;
    let stat = std::fs::read_to_string(dir.path().join("stat.txt"))?;
    let cells = flatten_counts(&parse_stat(&stat), top);
    let depth = if !depth {
        0
    } else {
        let ltp = std::fs::read_to_string(dir.path().join("ltp.txt"))?;
        ltp.split("length=")
            .nth(1)
            .and_then(|s| s.split(')').next())
            .and_then(|s| s.trim().parse().ok())
            .ok_or_else(|| Error::Tool {
                tool: "yosys".into(),
                message: "no ltp length in its output".into(),
            })?
    };
    Ok(Synthesis {
        ge: gate_equivalents(&cells)?,
        flip_flops: cells.get("$_DFF_P_").copied().unwrap_or(0),
        cells,
        depth,
    })
}

/// Logic levels of a processor's slowest pipeline stage: the deepest of its
/// round modules (`aes_round`, `aes_final_round`, with AES-128's online key
/// datapath inside) and, for offline keys, the key scheduling unit. The
/// online key stages of AES-192/256 (`key_round_N`) hand their round key to
/// the round's AddRoundKey across the module boundary, so for those the
/// whole `aes_encrypt_pipeline` is measured as well (its valid bits' OR
/// tree is shallower than any round). The
/// counter's 128-bit increment is not counted: its speed is the synthesis
/// tool's choice of adder (a carry-lookahead or a split counter keeps it
/// off the critical path), and the generic flow maps it as a ripple.
pub fn stage_depth(v: &crate::Variant) -> Result<u64, Error> {
    let text = crate::processor(v);
    let mut tops = vec!["aes_round".to_string(), "aes_final_round".to_string()];
    match v.keys {
        crate::KeyMode::Offline => tops.push("key_schedule_unit".into()),
        crate::KeyMode::Online if v.key_size != crate::KeySize::Aes128 => {
            tops.push("aes_encrypt_pipeline".into());
        }
        crate::KeyMode::Online => {}
    }
    let mut d = 0;
    for t in &tops {
        d = d.max(synthesize(&text, t)?.depth);
    }
    Ok(d)
}

/// The Yosys version line (for the record beside every figure).
pub fn yosys_version() -> Result<String, Error> {
    let dir = tempfile::tempdir()?;
    Ok(run("yosys", &["-V"], dir.path())?.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "
=== top ===

   Number of wires:                 13
   Number of cells:                  3
     $_NAND_                         2
     leaf                            2

=== leaf ===

   Number of cells:                  2
     $_XOR_                          3
     $_DFF_P_                        1

=== design hierarchy ===

   top                               1
     leaf                            2
";

    #[test]
    fn hierarchy_is_expanded_and_weighted() {
        let m = parse_stat(STAT);
        let c = flatten_counts(&m, "top");
        assert_eq!(c["$_NAND_"], 2);
        assert_eq!(c["$_XOR_"], 6);
        assert_eq!(c["$_DFF_P_"], 2);
        let ge = gate_equivalents(&c).unwrap();
        assert!((ge - (2.0 + 12.0 + 2.0 * 5.667)).abs() < 1e-9);
        let mut bad = c.clone();
        bad.insert("$_AOI3_".into(), 1);
        assert!(gate_equivalents(&bad).is_err());
    }
}
