//! Writes a large SDF3 document to stdout, for timing the reader and the
//! analyses end to end:
//!
//! ```text
//! cargo run --release -p aesflow-dataflow --example sdf3_gen -- ring 100000 > /tmp/ring100k.xml
//! cargo run --release -p aesflow-dataflow --example sdf3_gen -- chain 100000 > /tmp/chain100k.xml
//! time target/release/aesflow sdf /tmp/ring100k.xml
//! ```
//!
//! The documents are described in `tests/common/sdf3_gen.rs`, which the
//! timing test of `tests/adversarial.rs` shares.

#[allow(dead_code)] // `document` is for the tests
#[path = "../tests/common/sdf3_gen.rs"]
mod sdf3_gen;

use std::io::{self, BufWriter, Write};

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (ring, n) = match args.as_slice() {
        [k, n] if k == "ring" || k == "chain" => (k == "ring", n.parse::<usize>().ok()),
        _ => (false, None),
    };
    let Some(n) = n else {
        eprintln!("usage: sdf3_gen ring|chain N");
        std::process::exit(2);
    };
    let mut w = BufWriter::new(io::stdout().lock());
    sdf3_gen::write(&mut w, n, ring)?;
    w.flush()
}
