//! Consistency check and repetition vector (balance equations).
//!
//! For every channel `a -> b` with production rate `p` and consumption rate
//! `c`, a periodic schedule must satisfy `q[a] * p == q[b] * c`. The
//! repetition vector is the smallest positive integer solution. It is
//! computed per weakly connected component by propagating exact fractions
//! along a spanning tree and checking every remaining channel; each
//! component is normalised independently to its own smallest solution
//! (actors without channels get `1`).

use std::ops::Index;

use super::csr::Csr;
use crate::error::SdfError;
use crate::graph::{ActorId, ChannelId, SdfGraph};
use crate::rational::gcd;

/// The repetition vector: how often each actor fires in one graph
/// iteration. Index it with an [`ActorId`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepetitionVector {
    counts: Vec<u64>,
}

impl RepetitionVector {
    /// Firings of `actor` per iteration.
    pub fn get(&self, actor: ActorId) -> u64 {
        self.counts[actor.0]
    }

    /// All counts, indexed by [`ActorId::index`].
    pub fn as_slice(&self) -> &[u64] {
        &self.counts
    }

    /// Sum of all counts: the number of nodes of the equivalent HSDF graph.
    pub fn total_firings(&self) -> u128 {
        self.counts.iter().map(|&c| c as u128).sum()
    }

    /// `(actor, count)` pairs.
    pub fn iter(&self) -> impl Iterator<Item = (ActorId, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .map(|(i, &c)| (ActorId(i), c))
    }
}

impl Index<ActorId> for RepetitionVector {
    type Output = u64;
    fn index(&self, a: ActorId) -> &u64 {
        &self.counts[a.0]
    }
}

/// Weakly connected components over the graph's channels: a component index
/// per actor and the number of components.
fn components(g: &SdfGraph) -> (Vec<usize>, usize) {
    let n = g.num_actors();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for c in g.channels() {
        let a = find(&mut parent, c.src.actor.0);
        let b = find(&mut parent, c.dst.actor.0);
        if a != b {
            parent[a] = b;
        }
    }
    let mut comp = vec![usize::MAX; n];
    let mut root_comp = vec![usize::MAX; n];
    let mut k = 0;
    for (i, ci) in comp.iter_mut().enumerate() {
        let r = find(&mut parent, i);
        if root_comp[r] == usize::MAX {
            root_comp[r] = k;
            k += 1;
        }
        *ci = root_comp[r];
    }
    (comp, k)
}

impl SdfGraph {
    /// The weakly connected components (actors linked by channels in either
    /// direction), each listing its actors in id order; components are
    /// ordered by their smallest actor id.
    pub fn weakly_connected_components(&self) -> Vec<Vec<ActorId>> {
        let (comp, k) = components(self);
        let mut v = vec![Vec::new(); k];
        for (i, &c) in comp.iter().enumerate() {
            v[c].push(ActorId(i));
        }
        v
    }

    /// Solves the balance equations. Returns the smallest positive integer
    /// repetition vector (per weakly connected component), or
    /// [`SdfError::Inconsistent`] naming a channel that violates them,
    /// [`SdfError::ZeroRate`] for a zero rate, or
    /// [`SdfError::RepetitionOverflow`] if counts exceed `u64`.
    ///
    /// Capacities do not influence the result (a capacity edge is always
    /// consistent with its channel).
    pub fn repetition_vector(&self) -> Result<RepetitionVector, SdfError> {
        // one flow edge per channel, in channel order
        let edges = self.flow_edges(false)?;
        let n = self.num_actors();
        // (neighbour, channel) per actor, both directions
        let adj = Csr::new(
            n,
            edges
                .iter()
                .enumerate()
                .flat_map(|(i, e)| [(e.src, (e.dst, i)), (e.dst, (e.src, i))]),
        );
        // fraction per actor: (num, den), reduced
        let mut frac: Vec<Option<(u128, u128)>> = vec![None; n];
        let mut counts = vec![0u64; n];
        let mut stack = Vec::new();
        let mut members = Vec::new();
        let mut ints = Vec::new();
        for start in 0..n {
            if frac[start].is_some() {
                continue;
            }
            frac[start] = Some((1, 1));
            members.clear();
            members.push(start);
            stack.push(start);
            while let Some(u) = stack.pop() {
                let (un, ud) = frac[u].expect("visited");
                for &(v, ci) in &adj[u] {
                    let e = &edges[ci];
                    let (p, q) = (e.prod as u128, e.cons as u128);
                    // q_src * p = q_dst * c
                    let (mul, div) = if e.src == u { (p, q) } else { (q, p) };
                    if e.src == e.dst {
                        if p != q {
                            return Err(SdfError::Inconsistent {
                                channel: ChannelId(ci),
                                detail: format!(
                                    "self-loop on `{}` produces {p} but consumes {q} tokens per firing",
                                    self.actors()[e.src].name
                                ),
                            });
                        }
                        continue;
                    }
                    let (nn, nd) = if mul == div {
                        (un, ud)
                    } else {
                        let nn = un.checked_mul(mul).ok_or(SdfError::RepetitionOverflow)?;
                        let nd = ud.checked_mul(div).ok_or(SdfError::RepetitionOverflow)?;
                        let g = gcd(nn, nd);
                        (nn / g, nd / g)
                    };
                    match frac[v] {
                        None => {
                            frac[v] = Some((nn, nd));
                            members.push(v);
                            stack.push(v);
                        }
                        Some((vn, vd)) => {
                            if (vn, vd) != (nn, nd) {
                                let c = &self.channels()[ci];
                                return Err(SdfError::Inconsistent {
                                    channel: ChannelId(ci),
                                    detail: format!(
                                        "channel `{}` from `{}` (rate {p}) to `{}` (rate {q}) contradicts the rates of the rest of the graph",
                                        c.name,
                                        self.actor(c.src.actor).name,
                                        self.actor(c.dst.actor).name
                                    ),
                                });
                            }
                        }
                    }
                }
            }
            // normalise: multiply by lcm of denominators, divide by gcd of numerators
            let mut l: u128 = 1;
            for &m in &members {
                let (_, d) = frac[m].expect("visited");
                if !l.is_multiple_of(d) {
                    l = (l / gcd(l, d))
                        .checked_mul(d)
                        .ok_or(SdfError::RepetitionOverflow)?;
                }
            }
            ints.clear();
            let mut gg: u128 = 0;
            for &m in &members {
                let (nu, d) = frac[m].expect("visited");
                let v = nu.checked_mul(l / d).ok_or(SdfError::RepetitionOverflow)?;
                if gg != 1 {
                    gg = gcd(gg, v);
                }
                ints.push(v);
            }
            for (&m, &v) in members.iter().zip(&ints) {
                counts[m] = u64::try_from(v / gg).map_err(|_| SdfError::RepetitionOverflow)?;
            }
        }
        Ok(RepetitionVector { counts })
    }

    /// Whether the balance equations have a non-trivial solution.
    pub fn is_consistent(&self) -> bool {
        self.repetition_vector().is_ok()
    }
}
