//! Large SDF3 documents laid out as SDF3 writes its files: `ring` of `n`
//! actors `a0 .. a{n-1}` with one initial token per 1000 channels, or the
//! same `chain` without the closing channel. Every actor has one default
//! processor (execution time `1 + i % 5`), every channel a
//! `<channelProperties>` with a token size. Shared by the timing test
//! (`tests/adversarial.rs`) and `examples/sdf3_gen.rs`.

use std::io::{self, Write};

/// Writes the document; `ring` closes the chain into a cycle.
pub fn write(w: &mut impl Write, n: usize, ring: bool) -> io::Result<()> {
    let kind = if ring { "ring" } else { "chain" };
    let channels = if ring { n } else { n.saturating_sub(1) };
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
    writeln!(w, "</sdf3>")
}

/// The document as a string.
pub fn document(n: usize, ring: bool) -> String {
    let mut v = Vec::new();
    write(&mut v, n, ring).expect("writing to memory");
    String::from_utf8(v).expect("ASCII")
}
