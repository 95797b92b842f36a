//! Writes a large SDF3 document to stdout, for timing the reader and the
//! analyses end to end:
//!
//! ```text
//! cargo run --release -p aesflow-dataflow --example sdf3_gen -- ring 100000 > /tmp/ring100k.xml
//! cargo run --release -p aesflow-dataflow --example sdf3_gen -- chain 100000 > /tmp/chain100k.xml
//! time target/release/aesflow sdf /tmp/ring100k.xml
//! ```
//!
//! `ring N`: actors `a0 .. a{N-1}` in a cycle with one initial token per
//! 1000 channels; `chain N`: the same without the closing channel. Every
//! actor has one default processor (execution time `1 + i % 5`), every
//! channel a `<channelProperties>` with a token size, laid out as SDF3
//! writes its files.

use std::io::{self, BufWriter, Write};

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (kind, n) = match args.as_slice() {
        [k, n] if k == "ring" || k == "chain" => (k.as_str(), n.parse::<usize>().ok()),
        _ => ("", None),
    };
    let Some(n) = n else {
        eprintln!("usage: sdf3_gen ring|chain N");
        std::process::exit(2);
    };
    let channels = if kind == "ring" {
        n
    } else {
        n.saturating_sub(1)
    };
    let mut w = BufWriter::new(io::stdout().lock());
    writeln!(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    writeln!(w, "<sdf3 type=\"sdf\" version=\"1.0\">")?;
    writeln!(w, "  <applicationGraph name=\"{kind}\">")?;
    writeln!(w, "    <sdf name=\"{kind}\" type=\"G\">")?;
    for i in 0..n {
        writeln!(w, "      <actor name=\"a{i}\" type=\"T\">")?;
        writeln!(w, "        <port name=\"in\" type=\"in\" rate=\"1\"/>")?;
        writeln!(w, "        <port name=\"out\" type=\"out\" rate=\"1\"/>")?;
        writeln!(w, "      </actor>")?;
    }
    for i in 0..channels {
        let j = (i + 1) % n;
        let tok = usize::from(i % 1000 == 999);
        writeln!(
            w,
            "      <channel name=\"ch{i}\" srcActor=\"a{i}\" srcPort=\"out\" dstActor=\"a{j}\" dstPort=\"in\" initialTokens=\"{tok}\"/>"
        )?;
    }
    writeln!(w, "    </sdf>")?;
    writeln!(w, "    <sdfProperties>")?;
    for i in 0..n {
        writeln!(w, "      <actorProperties actor=\"a{i}\">")?;
        writeln!(w, "        <processor type=\"p\" default=\"true\">")?;
        writeln!(w, "          <executionTime time=\"{}\"/>", 1 + i % 5)?;
        writeln!(w, "        </processor>")?;
        writeln!(w, "      </actorProperties>")?;
    }
    for i in 0..channels {
        writeln!(
            w,
            "      <channelProperties channel=\"ch{i}\"><tokenSize sz=\"1\"/></channelProperties>"
        )?;
    }
    writeln!(w, "    </sdfProperties>")?;
    writeln!(w, "  </applicationGraph>")?;
    writeln!(w, "</sdf3>")?;
    w.flush()
}
