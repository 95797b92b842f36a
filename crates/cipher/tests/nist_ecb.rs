//! Every NIST CAVP AESAVS ECB file (GFSbox, KeySbox, VarKey, VarTxt, MMT ×
//! 128/192/256, encrypt and decrypt) on every kernel × both key-expansion
//! styles, with a per-kernel coverage summary.

mod common;

use aesflow_cipher::KeySize;
use common::{aes, combos, report, to_blocks};
use std::collections::BTreeMap;

const FAMILIES: [&str; 5] = ["GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT"];

#[test]
fn every_ecb_vector_on_every_kernel_and_style() {
    // The expected file list is fixed: a missing file is a failure.
    let mut files = Vec::new();
    for fam in FAMILIES {
        for size in KeySize::ALL {
            files.push(format!("ECB/ECB{fam}{}.rsp", size.bits()));
        }
    }
    let loaded: Vec<_> = files
        .iter()
        .map(|f| aesflow_vectors::load(f).unwrap_or_else(|e| panic!("{e}")))
        .collect();

    let (run, skipped) = combos();
    let mut counts: BTreeMap<String, [usize; 2]> = BTreeMap::new();
    let mut failures = Vec::new();
    for (kernel, style) in &run {
        let label = format!("{}/{}", kernel.name(), style);
        let c = counts.entry(label.clone()).or_default();
        for file in &loaded {
            for (section, rec) in file.records() {
                let key = rec.hex("KEY").unwrap();
                let pt = to_blocks(&rec.hex("PLAINTEXT").unwrap());
                let ct = to_blocks(&rec.hex("CIPHERTEXT").unwrap());
                let a = aes(&key, *kernel, *style);
                let (dir, ok) = match section.name() {
                    Some("ENCRYPT") => {
                        let mut b = pt.clone();
                        a.encrypt_blocks(&mut b);
                        (0, b == ct)
                    }
                    Some("DECRYPT") => {
                        let mut b = ct.clone();
                        a.decrypt_blocks(&mut b);
                        (1, b == pt)
                    }
                    other => panic!("{}: unexpected section {other:?}", file.name),
                };
                c[dir] += 1;
                if !ok {
                    failures.push(format!("{label} {} line {}", file.name, rec.line));
                }
            }
        }
    }
    report("ECB NIST vectors (AESAVS KAT + MMT, 15 files, 128/192/256):");
    for (label, [e, d]) in &counts {
        report(&format!(
            "  {label:<22} {e:>5} encrypt + {d:>5} decrypt = {:>5} vectors",
            e + d
        ));
    }
    for name in &skipped {
        aesflow_vectors::skip!("{name}: this CPU lacks the instructions");
    }
    assert!(
        failures.is_empty(),
        "{} failures: {:#?}",
        failures.len(),
        &failures[..failures.len().min(20)]
    );
    // Sanity: the files hold thousands of vectors; catch a silently empty load.
    let per_combo: usize = loaded.iter().map(|f| f.len()).sum();
    assert!(per_combo > 1000, "only {per_combo} vectors loaded");
    for [e, d] in counts.values() {
        assert_eq!(e + d, per_combo);
    }
}
