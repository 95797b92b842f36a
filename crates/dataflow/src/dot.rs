//! Graphviz DOT export.

use std::fmt::Write;

use crate::graph::SdfGraph;

/// `s` with every character of `table` replaced by its string.
pub(crate) fn escape(s: &str, table: &[(char, &str)]) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match table.iter().find(|&&(c, _)| c == ch) {
            Some((_, r)) => o.push_str(r),
            None => o.push(ch),
        }
    }
    o
}

/// Escapes a string for use inside a double-quoted DOT identifier.
fn esc(s: &str) -> String {
    escape(
        s,
        &[('"', "\\\""), ('\\', "\\\\"), ('\n', "\\n"), ('\r', "")],
    )
}

impl SdfGraph {
    /// Renders the graph in Graphviz DOT syntax. Actors are boxes labelled
    /// `name`, `kind` and execution time; channels are labelled
    /// `production -> consumption`, with initial tokens (`●N`) and capacity
    /// (`[cap N]`) when present. Render with e.g. `dot -Tsvg`.
    pub fn to_dot(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "digraph \"{}\" {{", esc(self.name()));
        let _ = writeln!(s, "  rankdir=LR;");
        let _ = writeln!(s, "  node [shape=box, style=rounded];");
        for (i, a) in self.actors().iter().enumerate() {
            let _ = writeln!(
                s,
                "  a{i} [label=\"{}\\n{}\\n{} cyc\"];",
                esc(&a.name),
                esc(&a.kind),
                a.exec_time
            );
        }
        for (i, c) in self.channels().iter().enumerate() {
            let cid = crate::ChannelId(i);
            let mut label = format!(
                "{} → {}",
                self.production_rate(cid),
                self.consumption_rate(cid)
            );
            if c.initial_tokens > 0 {
                let _ = write!(label, "\\n●{}", c.initial_tokens);
            }
            if let Some(cap) = c.capacity {
                let _ = write!(label, "\\n[cap {cap}]");
            }
            let _ = writeln!(
                s,
                "  a{} -> a{} [label=\"{}\", tooltip=\"{}\"];",
                c.src.actor.index(),
                c.dst.actor.index(),
                label,
                esc(&c.name)
            );
        }
        s.push_str("}\n");
        s
    }
}
