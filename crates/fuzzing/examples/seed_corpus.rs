//! Writes the seed corpus of the fuzz targets into `fuzz/corpus/` (run from
//! the repository root: `cargo run -p aesflow-fuzzing --example seed_corpus`).
//! Valid inputs of every reader, so that the fuzzers start from messages
//! that parse and mutate from there.

use aesflow_format::Pool;
use aesflow_format::cobblestone::{self, Suite};
use aesflow_format::passphrase::{Header, KdfParams};
use aesflow_format::raw::{RawMode, RawParams, raw_stream};
use aesflow_fuzzing::{COBBLESTONE_CONTEXT, RAW_IV_HEX, RAW_KEY_HEX, cobblestone_key};
use std::path::Path;

fn put(target: &str, name: &str, data: &[u8]) {
    let dir = Path::new("fuzz/corpus").join(target);
    std::fs::create_dir_all(&dir).expect("create corpus dir");
    std::fs::write(dir.join(name), data).expect("write seed");
}

fn main() {
    let pool = Pool::new(2).expect("pool");
    let text = |n: usize| -> Vec<u8> { (0..n).map(|i| (i * 7 + 3) as u8).collect() };
    for (sel, suite) in [(0u8, Suite::Cobblestone256), (1, Suite::Cobblestone128)] {
        for n in [0usize, 1, 100, 16384, 16385] {
            let ct = cobblestone::encrypt(
                &pool,
                suite,
                cobblestone_key(suite),
                COBBLESTONE_CONTEXT,
                &text(n),
            )
            .expect("seal");
            let mut seed = vec![sel];
            seed.extend_from_slice(&ct);
            put("cobblestone", &format!("{}-{n}", suite.name()), &seed);
        }
    }
    for suite in [Suite::Cobblestone256, Suite::Cobblestone128] {
        let h = Header::new(suite, KdfParams::default()).expect("header");
        put("passphrase_header", suite.name(), &h.to_bytes());
    }
    for (sel, mode) in [(0u8, RawMode::Cbc), (1, RawMode::Ecb)] {
        let iv = (mode == RawMode::Cbc).then_some(RAW_IV_HEX);
        let p = RawParams::new(mode, RAW_KEY_HEX, iv, true).expect("params");
        for n in [0usize, 5, 16, 33] {
            let mut ct = vec![sel];
            let plain = text(n);
            let mut reader = &plain[..];
            raw_stream(&pool, &p, true, &mut reader, &mut ct, &|_| {}).expect("encrypt");
            put("raw_padding", &format!("{}-{n}", mode.name()), &ct);
        }
    }
    for dir in ["../shared/sdf3-testbench", "crates/designs/engines"] {
        let target = if dir.contains("sdf3") {
            "sdf3"
        } else {
            "engine_description"
        };
        for e in std::fs::read_dir(dir).expect("read seeds dir") {
            let path = e.expect("entry").path();
            if matches!(
                path.extension().and_then(|x| x.to_str()),
                Some("xml" | "aesflow")
            ) {
                let name = path
                    .file_name()
                    .expect("name")
                    .to_string_lossy()
                    .into_owned();
                put(target, &name, &std::fs::read(&path).expect("read seed"));
            }
        }
    }
}
