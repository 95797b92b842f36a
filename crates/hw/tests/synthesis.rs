//! The S-boxes through Yosys: the registers sit where the paper's Fig. 4
//! puts them, and pipelining shortens the slowest stage.

use aesflow_hw::synth::{stage_depth, synthesize, synthesize_with};
use aesflow_hw::{Error, KeyMode, KeySize, SboxKind, Variant, processor};

#[test]
fn sbox_registers_and_depths() {
    let mut depth = Vec::new();
    for kind in SboxKind::ALL {
        let v = Variant::new(kind, kind.stages(), KeyMode::Online).unwrap();
        let s = match synthesize(&processor(&v), "sub_byte") {
            Ok(s) => s,
            Err(Error::ToolMissing(t)) => {
                aesflow_vectors::skip!("{t} is not installed");
                return;
            }
            Err(e) => panic!("{e}"),
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

/// The paper's four online designs with AES-128 and AES-256 keys, through
/// the sweep's flow (`aes_ctr` whole, depth of the slowest stage); prints a
/// table (`cargo test -p aesflow-hw --release --test synthesis -- --ignored
/// --nocapture`).
#[test]
#[ignore = "long: eight syntheses"]
fn paper_designs_with_aes256_keys() {
    println!("| variant | latency | kGE | flip-flops | levels |");
    println!("|---|---|---|---|---|");
    for v in Variant::paper(KeyMode::Online) {
        for size in [KeySize::Aes128, KeySize::Aes256] {
            let v = v.with_key_size(size);
            let s = match synthesize_with(&processor(&v), "aes_ctr", false) {
                Ok(s) => s,
                Err(Error::ToolMissing(t)) => {
                    aesflow_vectors::skip!("{t} is not installed");
                    return;
                }
                Err(e) => panic!("{e}"),
            };
            let d = stage_depth(&v).unwrap();
            println!(
                "| {} | {} | {:.1} | {} | {d} |",
                v.name(),
                v.latency(),
                s.ge / 1000.0,
                s.flip_flops
            );
        }
    }
}
