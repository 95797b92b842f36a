//! Replays the fuzz corpus and every crash found so far through the fuzz
//! properties, on stable Rust (see the crate docs).

use std::path::PathBuf;

fn files(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz")
        .join(kind)
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = entries.map(|e| e.expect("dir entry").path()).collect();
    v.sort();
    v
}

#[test]
fn corpus_and_regressions_replay() {
    for (target, check) in aesflow_fuzzing::TARGETS {
        let corpus = files("corpus", target);
        let crashes = files("regressions", target);
        assert!(!corpus.is_empty(), "{target}: the seed corpus is missing");
        for f in corpus.iter().chain(&crashes) {
            let data = std::fs::read(f).expect("read corpus file");
            let r = std::panic::catch_unwind(|| check(&data));
            assert!(r.is_ok(), "{target}: {} breaks a property", f.display());
        }
        println!(
            "fuzz replay {target:<20} {} corpus files, {} regressions",
            corpus.len(),
            crashes.len()
        );
    }
}
