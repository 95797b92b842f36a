//! Writing SDF3 XML.

use std::fmt::Write;

use crate::dot::escape;
use crate::error::SdfError;
use crate::graph::SdfGraph;

/// Escapes text for an XML attribute value.
fn xml_esc(s: &str) -> String {
    const ENTITIES: [(char, &str); 8] = [
        ('&', "&amp;"),
        ('<', "&lt;"),
        ('>', "&gt;"),
        ('"', "&quot;"),
        ('\'', "&apos;"),
        ('\n', "&#10;"),
        ('\r', "&#13;"),
        ('\t', "&#9;"),
    ];
    escape(s, &ENTITIES)
}

/// Options of [`to_xml_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriteOptions {
    /// Give every actor that is not already sequential a self-edge with one
    /// token (rate 1, ports `seq_in`/`seq_out`, channel `<actor>_seq`, names
    /// made unique), so that SDF3's auto-concurrency semantics compute the
    /// period of this crate's default semantics (actors as sequential
    /// processes). See [`SdfGraph::make_all_sequential`].
    pub sequential_actors: bool,
}

/// Writes `g` as an SDF3 XML document. Fails with
/// [`SdfError::DuplicateName`] if names are not unique (SDF3 refers to
/// actors, ports and channels by name).
pub fn to_xml(g: &SdfGraph) -> Result<String, SdfError> {
    to_xml_with(g, &WriteOptions::default())
}

/// [`to_xml`] with options.
pub fn to_xml_with(g: &SdfGraph, opts: &WriteOptions) -> Result<String, SdfError> {
    if opts.sequential_actors {
        let mut seq = g.clone();
        seq.make_all_sequential();
        return to_xml(&seq);
    }
    g.validate()?;
    let mut s = String::new();
    let n = xml_esc(g.name());
    s.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    s.push_str("<sdf3 type=\"sdf\" version=\"1.0\"\n");
    s.push_str("    xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n");
    s.push_str(
        "    xsi:noNamespaceSchemaLocation=\"http://www.es.ele.tue.nl/sdf3/xsd/sdf3-sdf.xsd\">\n",
    );
    let _ = writeln!(s, "  <applicationGraph name=\"{n}\">");
    let _ = writeln!(s, "    <sdf name=\"{n}\" type=\"{n}\">");
    for a in g.actors() {
        let _ = writeln!(
            s,
            "      <actor name=\"{}\" type=\"{}\">",
            xml_esc(&a.name),
            xml_esc(&a.kind)
        );
        for p in a.ports() {
            let _ = writeln!(
                s,
                "        <port name=\"{}\" type=\"{}\" rate=\"{}\"/>",
                xml_esc(&p.name),
                p.direction.as_str(),
                p.rate
            );
        }
        s.push_str("      </actor>\n");
    }
    for c in g.channels() {
        let _ = write!(
            s,
            "      <channel name=\"{}\" srcActor=\"{}\" srcPort=\"{}\" dstActor=\"{}\" dstPort=\"{}\"",
            xml_esc(&c.name),
            xml_esc(&g.actor(c.src.actor).name),
            xml_esc(&g.port(c.src).name),
            xml_esc(&g.actor(c.dst.actor).name),
            xml_esc(&g.port(c.dst).name),
        );
        if c.initial_tokens > 0 {
            let _ = write!(s, " initialTokens=\"{}\"", c.initial_tokens);
        }
        s.push_str("/>\n");
    }
    s.push_str("    </sdf>\n    <sdfProperties>\n");
    for a in g.actors() {
        let _ = writeln!(
            s,
            "      <actorProperties actor=\"{}\">\n        <processor type=\"proc_0\" default=\"true\">\n          <executionTime time=\"{}\"/>\n        </processor>\n      </actorProperties>",
            xml_esc(&a.name),
            a.exec_time
        );
    }
    for c in g.channels() {
        if c.token_size.is_none() && c.capacity.is_none() {
            continue;
        }
        let _ = writeln!(
            s,
            "      <channelProperties channel=\"{}\">",
            xml_esc(&c.name)
        );
        if let Some(ts) = c.token_size {
            let _ = writeln!(s, "        <tokenSize sz=\"{ts}\"/>");
        }
        if let Some(cap) = c.capacity {
            let _ = writeln!(s, "        <bufferSize sz=\"{cap}\"/>");
        }
        s.push_str("      </channelProperties>\n");
    }
    s.push_str("    </sdfProperties>\n  </applicationGraph>\n</sdf3>\n");
    Ok(s)
}
