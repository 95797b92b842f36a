//! Reading SDF3 XML (see the module documentation for the exact rules).

use super::dom::{Dom, Node, text_pos};
use crate::error::SdfError;
use std::collections::hash_map::Entry;

use crate::fxhash::FxMap;
use crate::graph::{ActorId, ChannelId, PortDirection, PortId, SdfGraph};

/// SDF3's `SDFTIME_MAX` (its execution times are 32-bit `uint`): the
/// execution time SDF3 gives an actor whose default processor has no
/// `<executionTime>`.
pub const SDF3_TIME_MAX: u64 = u32::MAX as u64;

/// Limits applied while reading untrusted XML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Maximum element nesting depth, checked before parsing. Default 64
    /// (SDF3 documents are 6 deep).
    pub max_depth: usize,
    /// Maximum number of XML nodes the parser may create. Default
    /// 50,000,000.
    pub max_nodes: u32,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_depth: 64,
            max_nodes: 50_000_000,
        }
    }
}

/// A graph read from SDF3 XML, with what SDF3 would have accepted
/// silently.
#[derive(Debug, Clone)]
pub struct Sdf3Import {
    /// The graph.
    pub graph: SdfGraph,
    /// Corner cases met while reading (several default processors, a
    /// missing execution time, ...), one sentence each.
    pub warnings: Vec<String>,
}

/// Parses an SDF3 XML document into an [`SdfGraph`] with default limits.
pub fn from_xml(xml: &str) -> Result<SdfGraph, SdfError> {
    from_xml_with(xml, &ReadOptions::default()).map(|i| i.graph)
}

/// Parses an SDF3 XML document, returning the graph and the warnings.
pub fn from_xml_with(xml: &str, opts: &ReadOptions) -> Result<Sdf3Import, SdfError> {
    let dom = Dom::parse(xml, opts.max_depth, opts.max_nodes)?;

    let root = dom.root();
    let r = Reader { xml };
    if root.name() != "sdf3" {
        return Err(r.err(
            root,
            format!("root element is <{}>, expected <sdf3>", root.name()),
        ));
    }
    if let Some(t) = root.attribute("type")
        && t != "sdf"
    {
        return Err(r.err(root, format!("unsupported graph type `{t}` (only `sdf`)")));
    }
    let app = root
        .children("applicationGraph")
        .next()
        .ok_or_else(|| r.err(root, "missing <applicationGraph>"))?;
    let sdf = app
        .children("sdf")
        .next()
        .ok_or_else(|| r.err(app, "missing <sdf> in <applicationGraph>"))?;
    let name = sdf
        .attribute("name")
        .or_else(|| app.attribute("name"))
        .unwrap_or("");
    let (na, nc) = (
        sdf.children("actor").count(),
        sdf.children("channel").count(),
    );
    let mut b = Builder {
        g: SdfGraph::with_capacity(name, na, nc),
        actors: FxMap::with_capacity_and_hasher(na, Default::default()),
        ports: FxMap::default(),
        channels: FxMap::with_capacity_and_hasher(nc, Default::default()),
    };
    for an in sdf.children("actor") {
        r.actor(&mut b, an)?;
    }
    let mut guesses = (0, 0);
    for cn in sdf.children("channel") {
        r.channel(&mut b, cn, &mut guesses)?;
    }

    let mut warnings = Vec::new();
    if let Some(props) = app.children("sdfProperties").next() {
        r.properties(&mut b, props, &mut warnings)?;
    } else if b.g.num_actors() > 0 {
        warnings.push("no <sdfProperties>: every execution time is 0, as in SDF3".into());
    }

    Ok(Sdf3Import {
        graph: b.g,
        warnings,
    })
}

/// Reads a number like C's `strtoul(s, NULL, 0)` (decimal, `0x` hex,
/// leading-zero octal) but refuses trailing garbage and signs.
pub(crate) fn parse_c_number(s: &str) -> Option<u64> {
    let t = s.trim_matches(|c: char| c.is_ascii_whitespace());
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if t.len() > 1 && t.starts_with('0') {
        (&t[1..], 8)
    } else {
        (t, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// The graph under construction and name indexes borrowing from the
/// document (no string is copied for a lookup).
struct Builder<'d> {
    g: SdfGraph,
    /// Actor name -> index.
    actors: FxMap<&'d str, usize>,
    /// (actor, port name) -> port index, for the actors with more than
    /// [`FEW_PORTS`] ports (the ports of the others are searched in place).
    ports: FxMap<(usize, &'d str), usize>,
    /// Channel name -> index.
    channels: FxMap<&'d str, usize>,
}

const FEW_PORTS: usize = 8;

/// Looks `name` up among `names` (unique): first at `*guess`, then in
/// `index`; `*guess` becomes the position after the one found. Files list
/// actors, channels and their properties mostly in one order, so that the
/// guess saves most hash lookups.
fn find<'n>(
    names: impl Fn(usize) -> Option<&'n str>,
    index: &FxMap<&str, usize>,
    name: &str,
    guess: &mut usize,
) -> Option<usize> {
    let found = match names(*guess) {
        Some(n) if n == name => *guess,
        _ => *index.get(name)?,
    };
    *guess = found + 1;
    Some(found)
}

impl Builder<'_> {
    fn actor(&self, name: &str, guess: &mut usize) -> Option<ActorId> {
        let names = |i: usize| self.g.actors().get(i).map(|a| a.name.as_str());
        find(names, &self.actors, name, guess).map(ActorId::from_index)
    }

    fn channel(&self, name: &str, guess: &mut usize) -> Option<ChannelId> {
        let names = |i: usize| self.g.channels().get(i).map(|c| c.name.as_str());
        find(names, &self.channels, name, guess).map(ChannelId::from_index)
    }

    fn port(&self, a: ActorId, name: &str) -> Option<usize> {
        let ports = self.g.actor(a).ports();
        if ports.len() <= FEW_PORTS {
            ports.iter().position(|p| p.name == name)
        } else {
            self.ports.get(&(a.index(), name)).copied()
        }
    }
}

/// What the `<actorProperties>` of one actor said.
#[derive(Default)]
struct ActorProps<'d> {
    types: Vec<&'d str>,
    /// The last processor marked default: its type and execution time.
    default: Option<(&'d str, Option<u64>)>,
    defaults_seen: u32,
}

struct Reader<'x> {
    xml: &'x str,
}

impl Reader<'_> {
    fn err(&self, n: Node<'_>, message: impl Into<String>) -> SdfError {
        let (row, col) = text_pos(self.xml, n.pos());
        SdfError::sdf3_at(message, row, col)
    }

    fn attr<'d>(&self, n: Node<'d>, attr: &str) -> Result<&'d str, SdfError> {
        n.attribute(attr)
            .ok_or_else(|| self.err(n, format!("<{}> lacks attribute `{attr}`", n.name())))
    }

    fn num(&self, n: Node<'_>, attr: &str) -> Result<u64, SdfError> {
        let v = self.attr(n, attr)?;
        parse_c_number(v).ok_or_else(|| {
            self.err(
                n,
                format!(
                    "attribute `{attr}` of <{}>: `{v}` is not a non-negative integer below 2^64",
                    n.name()
                ),
            )
        })
    }

    /// [`num`](Self::num) if `n` has the attribute, `None` if not.
    fn opt_num(&self, n: Node<'_>, attr: &str) -> Result<Option<u64>, SdfError> {
        n.attribute(attr).map(|_| self.num(n, attr)).transpose()
    }

    fn actor<'d>(&self, b: &mut Builder<'d>, an: Node<'d>) -> Result<(), SdfError> {
        let aname = self.attr(an, "name")?;
        let Entry::Vacant(slot) = b.actors.entry(aname) else {
            return Err(self.err(an, format!("duplicate actor `{aname}`")));
        };
        let a = b.g.add_actor(aname, an.attribute("type").unwrap_or(""), 0);
        slot.insert(a.index());
        let many = an.children("port").nth(FEW_PORTS).is_some();
        for pn in an.children("port") {
            let pname = self.attr(pn, "name")?;
            let dir = match self.attr(pn, "type")? {
                "in" => PortDirection::In,
                "out" => PortDirection::Out,
                other => {
                    return Err(self.err(
                        pn,
                        format!(
                            "port `{aname}.{pname}` has type `{other}`, expected `in` or `out`"
                        ),
                    ));
                }
            };
            if pn.attribute("rate").is_none() {
                return Err(self.err(
                    pn,
                    format!("port `{aname}.{pname}` has no `rate` (SDF3 requires one)"),
                ));
            }
            let rate = self.num(pn, "rate")?;
            if rate == 0 {
                return Err(self.err(pn, format!("port `{aname}.{pname}` has rate 0")));
            }
            let duplicate = if many {
                b.ports
                    .insert((a.index(), pname), b.g.actor(a).ports().len())
                    .is_some()
            } else {
                b.port(a, pname).is_some()
            };
            if duplicate {
                return Err(self.err(pn, format!("duplicate port `{aname}.{pname}`")));
            }
            b.g.add_port(a, pname, dir, rate);
        }
        Ok(())
    }

    fn channel<'d>(
        &self,
        b: &mut Builder<'d>,
        cn: Node<'d>,
        guesses: &mut (usize, usize),
    ) -> Result<(), SdfError> {
        let cname = self.attr(cn, "name")?;
        if b.channels.contains_key(cname) {
            return Err(self.err(cn, format!("duplicate channel `{cname}`")));
        }
        let endpoint = |actor_attr: &str, port_attr: &str, guess: &mut usize| {
            let an = self.attr(cn, actor_attr)?;
            let pn = self.attr(cn, port_attr)?;
            let unknown =
                |what| self.err(cn, format!("channel `{cname}` refers to unknown {what}"));
            let actor = b
                .actor(an, guess)
                .ok_or_else(|| unknown(format!("actor `{an}`")))?;
            let index = b
                .port(actor, pn)
                .ok_or_else(|| unknown(format!("port `{an}.{pn}`")))?;
            Ok::<_, SdfError>(PortId { actor, index })
        };
        let src = endpoint("srcActor", "srcPort", &mut guesses.0)?;
        let dst = endpoint("dstActor", "dstPort", &mut guesses.1)?;
        let tokens = self.opt_num(cn, "initialTokens")?.unwrap_or(0);
        let c =
            b.g.connect_ports(cname, src, dst, tokens)
                .map_err(|e| self.err(cn, format!("channel `{cname}`: {e}")))?;
        b.channels.insert(cname, c.index());
        Ok(())
    }

    fn properties<'d>(
        &self,
        b: &mut Builder<'d>,
        props: Node<'d>,
        warnings: &mut Vec<String>,
    ) -> Result<(), SdfError> {
        let mut aprops: Vec<ActorProps> = Vec::new();
        aprops.resize_with(b.g.num_actors(), ActorProps::default);
        let mut guess = 0;
        for ap in props.children("actorProperties") {
            let an = self.attr(ap, "actor")?;
            let a = b
                .actor(an, &mut guess)
                .ok_or_else(|| self.err(ap, format!("actorProperties for unknown actor `{an}`")))?;
            let st = &mut aprops[a.index()];
            for p in ap.children("processor") {
                let ty = self.attr(p, "type")?;
                if st.types.contains(&ty) {
                    return Err(
                        self.err(p, format!("actor `{an}` has two processors of type `{ty}`"))
                    );
                }
                st.types.push(ty);
                let et = match p.children("executionTime").next() {
                    Some(et) => Some(self.num(et, "time")?),
                    None => None,
                };
                if p.attribute("default").is_some() {
                    st.default = Some((ty, et));
                    st.defaults_seen += 1;
                }
            }
        }
        for (i, st) in aprops.into_iter().enumerate() {
            let a = ActorId::from_index(i);
            let name = || b.g.actor(a).name.clone();
            let t = match st.default {
                Some((ty, Some(t))) => {
                    if st.defaults_seen > 1 {
                        warnings.push(format!(
                            "actor `{}`: {} processors marked default; the last (`{ty}`, time {t}) counts, as in SDF3",
                            name(),
                            st.defaults_seen
                        ));
                    }
                    t
                }
                Some((ty, None)) => {
                    warnings.push(format!(
                        "actor `{}`: default processor `{ty}` has no executionTime; SDF3 uses {SDF3_TIME_MAX} (and its state space then mistakes that firing for a deadlock: SDF3 reports throughput 0)",
                        name()
                    ));
                    SDF3_TIME_MAX
                }
                None => {
                    warnings.push(format!(
                        "actor `{}`: no processor marked default; execution time 0, as in SDF3",
                        name()
                    ));
                    0
                }
            };
            b.g.actor_mut(a).exec_time = t;
        }
        let mut guess = 0;
        for cp in props.children("channelProperties") {
            let cname = self.attr(cp, "channel")?;
            let c = b.channel(cname, &mut guess).ok_or_else(|| {
                self.err(
                    cp,
                    format!("channelProperties for unknown channel `{cname}`"),
                )
            })?;
            let size = |tag| match cp.children(tag).next() {
                Some(n) => self.opt_num(n, "sz"),
                None => Ok(None),
            };
            if let Some(v) = size("tokenSize")? {
                b.g.channel_mut(c).set_token_size(Some(v));
            }
            if let Some(v) = size("bufferSize")? {
                b.g.channel_mut(c).set_capacity(Some(v));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::parse_c_number;

    #[test]
    fn numbers_like_strtoul() {
        assert_eq!(parse_c_number(" 42 "), Some(42));
        assert_eq!(parse_c_number("0x1F"), Some(31));
        assert_eq!(parse_c_number("017"), Some(15));
        assert_eq!(parse_c_number("0"), Some(0));
        assert_eq!(parse_c_number("18446744073709551615"), Some(u64::MAX));
        for bad in ["", "1.5", "-1", "12abc", "0x", "08", "18446744073709551616"] {
            assert_eq!(parse_c_number(bad), None, "{bad}");
        }
    }
}
