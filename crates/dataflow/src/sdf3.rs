//! Import and export of SDF3's XML format (`<sdf3 type="sdf">`).
//!
//! Supported subset (what SDF graphs in SDF3's testbench use):
//!
//! ```xml
//! <sdf3 type="sdf" version="1.0">
//!   <applicationGraph name="g">
//!     <sdf name="g" type="G">
//!       <actor name="a" type="A">
//!         <port name="p0" type="out" rate="2"/>
//!       </actor>
//!       ...
//!       <channel name="c" srcActor="a" srcPort="p0" dstActor="b" dstPort="p0"
//!                initialTokens="1"/>
//!     </sdf>
//!     <sdfProperties>
//!       <actorProperties actor="a">
//!         <processor type="p" default="true"><executionTime time="10"/></processor>
//!       </actorProperties>
//!       <channelProperties channel="c">
//!         <tokenSize sz="4"/><bufferSize sz="8"/>
//!       </channelProperties>
//!     </sdfProperties>
//!   </applicationGraph>
//! </sdf3>
//! ```
//!
//! Mapping: actor `type` → [`Actor::kind`](crate::Actor::kind); the
//! execution time of the first processor marked `default="true"` (else the
//! first processor) → [`Actor::exec_time`](crate::Actor::exec_time) (0 if
//! absent); `bufferSize/@sz` → [`Channel::capacity`](crate::Channel::capacity);
//! `tokenSize/@sz` → [`Channel::token_size`](crate::Channel::token_size).
//! Other elements (memory, graph properties, ...) are ignored on import and
//! not written on export. Malformed input yields [`SdfError::Sdf3`], never a
//! panic.

use std::collections::HashMap;
use std::fmt::Write;

use roxmltree::{Document, Node};

use crate::error::SdfError;
use crate::graph::{ActorId, PortDirection, SdfGraph};

fn pos(doc: &Document<'_>, n: Node<'_, '_>) -> String {
    let p = doc.text_pos_at(n.range().start);
    format!("line {}, column {}", p.row, p.col)
}

fn req_attr<'a>(doc: &Document<'_>, n: Node<'a, '_>, attr: &str) -> Result<&'a str, SdfError> {
    n.attribute(attr).ok_or_else(|| {
        SdfError::sdf3(format!(
            "<{}> at {} lacks attribute `{attr}`",
            n.tag_name().name(),
            pos(doc, n)
        ))
    })
}

fn parse_u64(doc: &Document<'_>, n: Node<'_, '_>, attr: &str, v: &str) -> Result<u64, SdfError> {
    v.trim().parse::<u64>().map_err(|_| {
        SdfError::sdf3(format!(
            "attribute `{attr}` of <{}> at {}: `{v}` is not a non-negative integer",
            n.tag_name().name(),
            pos(doc, n)
        ))
    })
}

fn children<'a, 'i>(n: Node<'a, 'i>, tag: &'static str) -> impl Iterator<Item = Node<'a, 'i>> {
    n.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == tag)
}

/// Parses an SDF3 XML document into an [`SdfGraph`].
pub fn from_xml(xml: &str) -> Result<SdfGraph, SdfError> {
    let doc = Document::parse(xml).map_err(|e| SdfError::sdf3(e.to_string()))?;
    let root = doc.root_element();
    if root.tag_name().name() != "sdf3" {
        return Err(SdfError::sdf3(format!(
            "root element is <{}>, expected <sdf3>",
            root.tag_name().name()
        )));
    }
    if let Some(t) = root.attribute("type")
        && t != "sdf"
    {
        return Err(SdfError::sdf3(format!(
            "unsupported graph type `{t}` (only `sdf`)"
        )));
    }
    let app = children(root, "applicationGraph")
        .next()
        .ok_or_else(|| SdfError::sdf3("missing <applicationGraph>"))?;
    let sdf = children(app, "sdf")
        .next()
        .ok_or_else(|| SdfError::sdf3("missing <sdf> in <applicationGraph>"))?;
    let name = sdf
        .attribute("name")
        .or_else(|| app.attribute("name"))
        .unwrap_or("");
    let mut g = SdfGraph::new(name);
    let mut by_name: HashMap<String, ActorId> = HashMap::new();

    for an in children(sdf, "actor") {
        let aname = req_attr(&doc, an, "name")?;
        let kind = an.attribute("type").unwrap_or("");
        if by_name.contains_key(aname) {
            return Err(SdfError::sdf3(format!(
                "duplicate actor `{aname}` at {}",
                pos(&doc, an)
            )));
        }
        let a = g.add_actor(aname, kind, 0);
        by_name.insert(aname.to_string(), a);
        for pn in children(an, "port") {
            let pname = req_attr(&doc, pn, "name")?;
            let dir = match req_attr(&doc, pn, "type")? {
                "in" => PortDirection::In,
                "out" => PortDirection::Out,
                other => {
                    return Err(SdfError::sdf3(format!(
                        "port `{aname}.{pname}` at {} has type `{other}`, expected `in` or `out`",
                        pos(&doc, pn)
                    )));
                }
            };
            let rate = match pn.attribute("rate") {
                Some(r) => parse_u64(&doc, pn, "rate", r)?,
                None => 1,
            };
            if rate == 0 {
                return Err(SdfError::sdf3(format!(
                    "port `{aname}.{pname}` at {} has rate 0",
                    pos(&doc, pn)
                )));
            }
            if g.actor(a).find_port(pname).is_some() {
                return Err(SdfError::sdf3(format!(
                    "duplicate port `{aname}.{pname}` at {}",
                    pos(&doc, pn)
                )));
            }
            g.add_port(a, pname, dir, rate);
        }
    }

    for cn in children(sdf, "channel") {
        let cname = req_attr(&doc, cn, "name")?;
        if g.find_channel(cname).is_some() {
            return Err(SdfError::sdf3(format!(
                "duplicate channel `{cname}` at {}",
                pos(&doc, cn)
            )));
        }
        let endpoint = |actor_attr: &str, port_attr: &str| {
            let an = req_attr(&doc, cn, actor_attr)?;
            let pn = req_attr(&doc, cn, port_attr)?;
            let a = *by_name.get(an).ok_or_else(|| {
                SdfError::sdf3(format!(
                    "channel `{cname}` at {} refers to unknown actor `{an}`",
                    pos(&doc, cn)
                ))
            })?;
            let index = g.actor(a).find_port(pn).ok_or_else(|| {
                SdfError::sdf3(format!(
                    "channel `{cname}` at {} refers to unknown port `{an}.{pn}`",
                    pos(&doc, cn)
                ))
            })?;
            Ok::<_, SdfError>(crate::graph::PortId { actor: a, index })
        };
        let src = endpoint("srcActor", "srcPort")?;
        let dst = endpoint("dstActor", "dstPort")?;
        let tokens = match cn.attribute("initialTokens") {
            Some(t) => parse_u64(&doc, cn, "initialTokens", t)?,
            None => 0,
        };
        g.connect_ports(cname, src, dst, tokens)
            .map_err(|e| SdfError::sdf3(format!("channel `{cname}` at {}: {e}", pos(&doc, cn))))?;
    }

    if let Some(props) = children(app, "sdfProperties").next() {
        for ap in children(props, "actorProperties") {
            let an = req_attr(&doc, ap, "actor")?;
            let a = *by_name.get(an).ok_or_else(|| {
                SdfError::sdf3(format!(
                    "actorProperties at {} for unknown actor `{an}`",
                    pos(&doc, ap)
                ))
            })?;
            let proc = children(ap, "processor")
                .find(|p| p.attribute("default") == Some("true"))
                .or_else(|| children(ap, "processor").next());
            if let Some(p) = proc
                && let Some(et) = children(p, "executionTime").next()
            {
                let t = req_attr(&doc, et, "time")?;
                g.actor_mut(a).exec_time = parse_u64(&doc, et, "time", t)?;
            }
        }
        for cp in children(props, "channelProperties") {
            let cname = req_attr(&doc, cp, "channel")?;
            let c = g.find_channel(cname).ok_or_else(|| {
                SdfError::sdf3(format!(
                    "channelProperties at {} for unknown channel `{cname}`",
                    pos(&doc, cp)
                ))
            })?;
            if let Some(ts) = children(cp, "tokenSize").next()
                && let Some(sz) = ts.attribute("sz")
            {
                let v = parse_u64(&doc, ts, "sz", sz)?;
                g.channel_mut(c).set_token_size(Some(v));
            }
            if let Some(bs) = children(cp, "bufferSize").next()
                && let Some(sz) = bs.attribute("sz")
            {
                let v = parse_u64(&doc, bs, "sz", sz)?;
                g.channel_mut(c).set_capacity(Some(v));
            }
        }
    }
    Ok(g)
}

/// Escapes text for an XML attribute value.
fn xml_esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\n' => o.push_str("&#10;"),
            '\r' => o.push_str("&#13;"),
            '\t' => o.push_str("&#9;"),
            c => o.push(c),
        }
    }
    o
}

/// Writes `g` as an SDF3 XML document. Fails with
/// [`SdfError::DuplicateName`] if names are not unique (SDF3 refers to
/// actors, ports and channels by name).
pub fn to_xml(g: &SdfGraph) -> Result<String, SdfError> {
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
