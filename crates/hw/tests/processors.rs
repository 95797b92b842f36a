//! Processor variants simulated cycle by cycle in Icarus Verilog against
//! aesflow's cipher and CTR mode. Every S-box kind and both key schedules
//! run here (four variants); `aesflow hw verify` runs all sixteen.

mod common;
use aesflow_hw::verify::{Case, check_blocks, fips197_cases, random_cases};
use aesflow_hw::{KeyMode, Variant};
use common::{key_change_mid_stream, skip_or};

fn block(v: Vec<u8>) -> [u8; 16] {
    v.try_into().expect("a 16-byte block")
}

/// The ENCRYPT records of the NIST AESAVS ECB files for AES-128, grouped
/// into runs of blocks under one key (`every_key`: all files; otherwise
/// VarKey, whose 128 records each have their own key, is left out).
fn nist_cases(every_key: bool) -> Vec<Case> {
    let mut fams = vec!["GFSbox", "KeySbox", "VarTxt", "MMT"];
    if every_key {
        fams.push("VarKey");
    }
    let mut cases: Vec<Case> = Vec::new();
    for fam in fams {
        let f = aesflow_vectors::load(&format!("ECB/ECB{fam}128.rsp"))
            .unwrap_or_else(|e| panic!("{e}"));
        for (section, rec) in f.records() {
            if section.name() != Some("ENCRYPT") {
                continue;
            }
            let key = block(rec.hex("KEY").unwrap());
            let pt = rec.hex("PLAINTEXT").unwrap();
            let blocks: Vec<[u8; 16]> = pt.chunks(16).map(|c| block(c.to_vec())).collect();
            match cases.last_mut() {
                Some(c) if c.key == key => c.blocks.extend(blocks),
                _ => cases.push(Case {
                    key: key.to_vec(),
                    blocks,
                }),
            }
        }
    }
    cases
}

fn run_variant(name: &str) {
    let v = Variant::parse(name).unwrap();
    // Online keys change every cycle for free: every NIST record. Offline
    // keys cost a drain and a key schedule per key: all but VarKey.
    let mut cases = nist_cases(v.keys == KeyMode::Online);
    let nist: usize = cases.iter().map(|c| c.blocks.len()).sum();
    cases.extend(fips197_cases());
    cases.extend(random_cases(0x5eed ^ v.latency() as u64, 3, 24));
    let Some(r) = skip_or(check_blocks(&v, &cases)) else {
        return;
    };
    assert_eq!(r.latency as usize, v.latency());
    assert!(nist >= 150, "{nist} NIST blocks");
    let Some(c) = key_change_mid_stream(&v, &cases) else {
        return;
    };
    eprintln!("{name}: {r:?}; {c:?}");
}

#[test]
fn lut_one_stage_online() {
    run_variant("lut-1-online");
}

#[test]
fn composite_unpipelined_offline() {
    run_variant("composite-1-offline");
}

#[test]
fn composite_two_stages_three_per_round_online() {
    run_variant("composite-2-3-online");
}

#[test]
fn composite_three_stages_four_per_round_offline() {
    run_variant("composite-3-4-offline");
}
