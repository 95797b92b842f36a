//! The FPGA flow on the smallest designs: two S-boxes through Yosys
//! `synth_ecp5` and nextpnr-ecp5 (tens of seconds). The look-up-table S-box
//! stays in logic (no block RAM), the pipelined composite S-box keeps its
//! twelve flip-flops once the wrapper's are subtracted, and both have an
//! Fmax an ECP5 can reach.

use aesflow_hw::fpga::{FpgaSweep, FpgaTarget, FpgaTools};
use aesflow_hw::{Error, SboxKind};

#[test]
fn two_sboxes_through_place_and_route() {
    let tools = match FpgaTools::find() {
        Ok(t) => t,
        Err(Error::ToolMissing(t)) => {
            aesflow_vectors::skip!("{t} not found (scripts/hw-tools installs it)");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let mut s = FpgaSweep::default();
    for kind in [SboxKind::Lut, SboxKind::Composite2] {
        FpgaTarget::Sbox(kind).measure(&tools, &mut s).unwrap();
    }
    let lut = &s.sboxes[0].fpga;
    let c2 = &s.sboxes[1].fpga;
    eprintln!("lut: {lut:?}\ncomposite-2: {c2:?}");
    assert_eq!(lut.brams, 0, "the S-box table is logic, not a block RAM");
    assert_eq!(lut.design_flip_flops(), 0);
    assert_eq!(c2.design_flip_flops(), 12, "Fig. 4c: three 4-bit registers");
    // A 256-entry table of 8 outputs needs more than 8 LUT4s per output bit.
    assert!(lut.luts > 64 && c2.luts > 16, "{lut:?} {c2:?}");
    for p in [lut, c2] {
        assert!((20.0..1000.0).contains(&p.fmax_mhz), "{p:?}");
    }
}

#[test]
fn the_kept_figures_parse_and_name_their_flow() {
    let f = FpgaSweep::measured();
    assert!(f.yosys.starts_with("Yosys"), "{}", f.yosys);
    assert!(f.nextpnr.starts_with("nextpnr-ecp5"), "{}", f.nextpnr);
    assert!(f.command.starts_with("aesflow hw fpga"), "{}", f.command);
    assert_eq!(f.sboxes.len(), 4);
    for p in f.processors.iter() {
        assert!((p.gbps - 0.128 * p.fpga.fmax_mhz).abs() < 1e-9, "{p:?}");
        assert_eq!(p.fpga.brams, 0, "{p:?}");
    }
}
