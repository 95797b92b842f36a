//! Engines as data: a line-based description format, and DOT.
//!
//! ```text
//! # comment
//! design Full-parallelism
//! key 128
//! interleave 1
//! actor plaintext PlainSource
//! actor ark0 Cipher n=1 round=0 steps=AddRoundKey:0..4
//! actor srsb1_0 Cipher round=1 steps=ShiftRows,SubBytes:0..2
//! actor ks1 KeySchedule round=1
//! actor sb_5 Cipher n=9 round=1 steps=SubBytes:b5
//! edge plaintext ark0 state:0..4
//! edge ark sb state:0..4 src=0..8 dst=1..9
//! ```
//!
//! An actor is `Cipher` (with `steps`: `SubBytes:P`, `ShiftRows`,
//! `MixColumns:P`, `AddRoundKey:P`, applied in order on the part `P` of the
//! state), `KeySubWord`, `KeySchedule`, `PlainSource`, `KeySource` or
//! `Sink`; `n` is its firings per block (default 1), `round` the AES round
//! of its first firing. A part `P` is columns `c0..c1` (`0..4`: the whole
//! state) or bytes: `bK` (byte `K` alone, as a SubBytes-1 core works on)
//! or `bA..B` ([`Part`], which also says how a byte-level part travels in
//! the array's 16-bit words). An edge carries `state:P`, `key:P`
//! (word-aligned), `window` or `word`, written in producer firings `src` and
//! read in consumer firings `dst` (default: all). The paper's eight engines
//! ship in this form (`engines/*.aesflow`, AES-128, online, before the §5
//! optimisations, which apply to any description like to the built-ins).

use std::collections::HashMap;
use std::fmt::Write;

use aesflow_cipher::KeySize;

use crate::error::Error;
use crate::graph::{Design, Payload, Role};
use crate::kinds::{Part, Prim};

/// The paper's eight, embedded (AES-128, online, unoptimised).
pub const SHIPPED: [(&str, &str); 8] = [
    ("small", include_str!("../engines/small.aesflow")),
    ("otop", include_str!("../engines/otop.aesflow")),
    ("p-mix", include_str!("../engines/p-mix.aesflow")),
    ("p-sub-mix", include_str!("../engines/p-sub-mix.aesflow")),
    ("l-three", include_str!("../engines/l-three.aesflow")),
    ("l-nine", include_str!("../engines/l-nine.aesflow")),
    ("no-merge", include_str!("../engines/no-merge.aesflow")),
    ("full", include_str!("../engines/full.aesflow")),
];

fn step(p: Prim) -> String {
    match p {
        Prim::Sub(c) => format!("SubBytes:{c}"),
        Prim::Shift => "ShiftRows".into(),
        Prim::Mix(c) => format!("MixColumns:{c}"),
        Prim::AddKey(c) => format!("AddRoundKey:{c}"),
    }
}

fn payload(p: Payload) -> String {
    match p {
        Payload::State(c) => format!("state:{c}"),
        Payload::Key(c) => format!("key:{c}"),
        Payload::Window => "window".into(),
        Payload::SubWord => "word".into(),
    }
}

/// Write a design in the description format.
pub fn write(d: &Design) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# aesflow engine description");
    let _ = writeln!(s, "design {}", d.name);
    let _ = writeln!(s, "key {}", d.key.bits());
    let _ = writeln!(s, "interleave {}", d.interleave);
    for a in &d.actors {
        let role = match &a.role {
            Role::Cipher(_) => "Cipher",
            Role::KeySubWord => "KeySubWord",
            Role::KeySchedule => "KeySchedule",
            Role::PlainSource => "PlainSource",
            Role::KeySource => "KeySource",
            Role::Sink => "Sink",
        };
        let _ = write!(s, "actor {} {role} n={} round={}", a.name, a.n, a.round0);
        if let Role::Cipher(st) = &a.role {
            let v: Vec<String> = st.iter().map(|p| step(*p)).collect();
            let _ = write!(s, " steps={}", v.join(","));
        }
        s.push('\n');
    }
    for e in &d.edges {
        let _ = writeln!(
            s,
            "edge {} {} {} src={}..{} dst={}..{}",
            d.actors[e.src].name,
            d.actors[e.dst].name,
            payload(e.payload),
            e.src_ph.0,
            e.src_ph.1,
            e.dst_ph.0,
            e.dst_ph.1
        );
    }
    s
}

fn parse_range(s: &str) -> Result<(u32, u32), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("expected a..b, got {s}"))?;
    Ok((
        a.parse().map_err(|_| format!("bad number {a}"))?,
        b.parse().map_err(|_| format!("bad number {b}"))?,
    ))
}

fn parse_step(s: &str) -> Result<Prim, String> {
    let (name, c) = match s.split_once(':') {
        Some((n, c)) => (n, Part::parse(c)?),
        None => (s, Part::ALL),
    };
    Prim::parse(name, c).ok_or_else(|| format!("unknown step {s}"))
}

/// Parse the description format.
pub fn parse(text: &str) -> Result<Design, Error> {
    let mut d = Design::new("unnamed", KeySize::Aes128);
    let mut pending_edges = Vec::new();
    // Actor index by name: edges name their ends, and a design file may
    // hold many actors (a scan per lookup would be quadratic).
    let mut index: HashMap<String, usize> = HashMap::new();
    for (ln, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let err = |message: String| Error::Parse {
            line: ln + 1,
            message,
        };
        let (kw, rest) = line.split_once(' ').unwrap_or((line, ""));
        match kw {
            "design" => d.name = rest.trim().to_string(),
            "key" => {
                let bits: usize = rest
                    .trim()
                    .parse()
                    .map_err(|_| err("bad key size".into()))?;
                d.key = KeySize::from_bits(bits).map_err(|e| err(e.to_string()))?;
            }
            "interleave" => {
                d.interleave = rest
                    .trim()
                    .parse()
                    .map_err(|_| err("bad interleave".into()))?
            }
            "actor" => {
                let mut it = rest.split_whitespace();
                let name = it.next().ok_or_else(|| err("actor needs a name".into()))?;
                let role_s = it.next().ok_or_else(|| err("actor needs a role".into()))?;
                let (mut n, mut round, mut steps) = (1u32, 0u32, Vec::new());
                for kv in it {
                    let (k, v) = kv
                        .split_once('=')
                        .ok_or_else(|| err(format!("expected key=value, got {kv}")))?;
                    match k {
                        "n" => n = v.parse().map_err(|_| err("bad n".into()))?,
                        "round" => round = v.parse().map_err(|_| err("bad round".into()))?,
                        "steps" => {
                            steps = v
                                .split(',')
                                .map(parse_step)
                                .collect::<Result<_, _>>()
                                .map_err(err)?
                        }
                        _ => return Err(err(format!("unknown attribute {k}"))),
                    }
                }
                let role = match role_s {
                    "Cipher" => {
                        if steps.is_empty() {
                            return Err(err("a Cipher actor needs steps=".into()));
                        }
                        Role::Cipher(steps)
                    }
                    "KeySubWord" => Role::KeySubWord,
                    "KeySchedule" => Role::KeySchedule,
                    "PlainSource" => Role::PlainSource,
                    "KeySource" => Role::KeySource,
                    "Sink" => Role::Sink,
                    r => return Err(err(format!("unknown role {r}"))),
                };
                if index.contains_key(name) {
                    return Err(err(format!("duplicate actor {name}")));
                }
                index.insert(name.to_string(), d.add(name, role, n, round));
            }
            "edge" => pending_edges.push((ln + 1, rest.to_string())),
            k => return Err(err(format!("unknown keyword {k}"))),
        }
    }
    for (ln, rest) in pending_edges {
        let err = |message: String| Error::Parse { line: ln, message };
        let mut it = rest.split_whitespace();
        let (Some(s), Some(t), Some(p)) = (it.next(), it.next(), it.next()) else {
            return Err(err("edge needs src dst payload".into()));
        };
        let src = *index.get(s).ok_or_else(|| err(format!("no actor {s}")))?;
        let dst = *index.get(t).ok_or_else(|| err(format!("no actor {t}")))?;
        let pl = match p.split_once(':') {
            Some(("state", c)) => Payload::State(Part::parse(c).map_err(err)?),
            Some(("key", c)) => Payload::Key(Part::parse(c).map_err(err)?),
            None if p == "window" => Payload::Window,
            None if p == "word" => Payload::SubWord,
            _ => return Err(err(format!("bad payload {p}"))),
        };
        let mut sp = (0, d.actors[src].n);
        let mut dp = (0, d.actors[dst].n);
        for kv in it {
            match kv.split_once('=') {
                Some(("src", v)) => sp = parse_range(v).map_err(err)?,
                Some(("dst", v)) => dp = parse_range(v).map_err(err)?,
                _ => return Err(err(format!("unknown edge attribute {kv}"))),
            }
        }
        d.connect(src, dst, pl, sp, dp);
    }
    d.validate()?;
    Ok(d)
}

/// Graphviz DOT of a design: actors coloured by kind, edges labelled with
/// what they carry and, for loop edges, the firings that use them.
pub fn to_dot(d: &Design) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "digraph \"{}\" {{", d.name.replace('"', "'"));
    let _ = writeln!(
        s,
        "  rankdir=LR; node [style=filled, fontname=\"sans-serif\"];"
    );
    for (i, a) in d.actors.iter().enumerate() {
        let kind = a.role.kind();
        let shape = if a.role.is_core() { "box" } else { "ellipse" };
        let delay = d.delay(i);
        let label = if a.n > 1 {
            format!("{}\\n{kind}\\n{delay} cyc × {}", a.name, a.n)
        } else if a.role.is_core() {
            format!("{}\\n{kind}\\n{delay} cyc", a.name)
        } else {
            a.name.clone()
        };
        let col = aesflow_array::svg::kind_colour(&kind);
        let _ = writeln!(
            s,
            "  a{i} [label=\"{label}\", shape={shape}, fillcolor=\"{}\"];",
            col.replace("hsl(", "")
                .replace(')', "")
                .split(',')
                .next()
                .map_or(col.clone(), |_| hsl_to_hex(&col))
        );
    }
    for e in &d.edges {
        let full = e.src_ph == (0, d.actors[e.src].n) && e.dst_ph == (0, d.actors[e.dst].n);
        let lab = if full {
            e.payload.label()
        } else {
            format!(
                "{} [{}..{}→{}..{}]",
                e.payload.label(),
                e.src_ph.0,
                e.src_ph.1,
                e.dst_ph.0,
                e.dst_ph.1
            )
        };
        let style = match e.payload {
            Payload::State(_) => "solid",
            _ => "dashed",
        };
        let _ = writeln!(
            s,
            "  a{} -> a{} [label=\"{lab}\", style={style}];",
            e.src, e.dst
        );
    }
    s.push_str("}\n");
    s
}

fn hsl_to_hex(c: &str) -> String {
    if c.starts_with('#') {
        return c.to_string();
    }
    let inner = c.trim_start_matches("hsl(").trim_end_matches(')');
    let v: Vec<f64> = inner
        .split(',')
        .map(|x| x.trim().trim_end_matches('%').parse().unwrap_or(0.0))
        .collect();
    let (h, s, l) = (v[0] / 360.0, v[1] / 100.0, v[2] / 100.0);
    let q = if l < 0.5 {
        l * (1.0 + s)
    } else {
        l + s - l * s
    };
    let p = 2.0 * l - q;
    let f = |mut t: f64| {
        if t < 0.0 {
            t += 1.0
        }
        if t > 1.0 {
            t -= 1.0
        }
        let x = if t < 1.0 / 6.0 {
            p + (q - p) * 6.0 * t
        } else if t < 0.5 {
            q
        } else if t < 2.0 / 3.0 {
            p + (q - p) * (2.0 / 3.0 - t) * 6.0
        } else {
            p
        };
        (x * 255.0).round() as u8
    };
    format!(
        "#{:02x}{:02x}{:02x}",
        f(h + 1.0 / 3.0),
        f(h),
        f(h - 1.0 / 3.0)
    )
}
