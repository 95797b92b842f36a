//! The S-boxes through Yosys: the registers sit where the paper's Fig. 4
//! puts them, and pipelining shortens the slowest stage.

mod common;

use aesflow_hw::synth::synthesize;
use aesflow_hw::{KeyMode, SboxKind, Variant, processor};
use common::skip_or;

#[test]
fn sbox_registers_and_depths() {
    let mut depth = Vec::new();
    for kind in SboxKind::ALL {
        let v = Variant::new(kind, kind.stages(), KeyMode::Online).unwrap();
        let Some(s) = skip_or(synthesize(&processor(&v), "sub_byte")) else {
            return;
        };
        // Fig. 4c: three 4-bit registers; Fig. 4d: two sets of three.
        let ffs = match kind {
            SboxKind::Lut | SboxKind::Composite => 0,
            SboxKind::Composite2 => 12,
            SboxKind::Composite3 => 24,
        };
        assert_eq!(s.flip_flops, ffs, "{}", kind.name());
        eprintln!("{}: {:.1} GE, {} levels", kind.name(), s.ge, s.depth);
        depth.push(s.depth);
    }
    // composite > composite-2 > composite-3 in the slowest stage's depth.
    assert!(depth[1] > depth[2] && depth[2] > depth[3], "{depth:?}");
}
