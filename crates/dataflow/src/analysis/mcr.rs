//! Maximum cycle ratio by Howard's policy iteration, in exact integer
//! arithmetic.
//!
//! Input: a directed graph whose edges carry a `weight` (e.g. the execution
//! time of the edge's source node) and a number of `tokens`. The ratio of a
//! cycle is `sum(weight) / sum(tokens)`; the maximum cycle ratio (MCR) is
//! the maximum over all cycles. For an HSDF graph it is the period of
//! self-timed execution.
//!
//! The graph is split into strongly connected components; Howard's
//! algorithm (Cochet-Terrasson, Cohen, Gaubert, Mc Gettrick, Quadrat,
//! "Numerical computation of spectral elements in max-plus algebra", 1998;
//! see also Dasdan, "Experimental analysis of the fastest optimum cycle ratio
//! and mean algorithms", 2004) runs on every non-trivial component. Cycle
//! ratios are exact reduced fractions `a/b`; node values are kept scaled by
//! `b` as signed 256-bit integers, so every comparison is exact and the
//! algorithm cannot cycle because of rounding. A value step `b·w − a·t`
//! multiplies a 128-bit ratio term by a 64-bit weight or token count, so it
//! needs 193 bits; a path of up to 2^62 such steps still fits in 256 bits,
//! which makes every ratio whose cycle sums fit in 128 bits exact. Every sum
//! and product is checked all the same: a value that does not fit gives
//! [`McrError::Overflow`] instead of a wrong ratio, and the number of
//! policy-improvement rounds is bounded ([`McrError::IterationLimit`]).

use super::csr::Csr;
use crate::rational::{Rational, gcd, mul_wide};

/// An edge for [`max_cycle_ratio`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatioEdge {
    /// Source node.
    pub src: usize,
    /// Destination node.
    pub dst: usize,
    /// Weight (time).
    pub weight: u64,
    /// Tokens (transit).
    pub tokens: u64,
}

/// A cycle achieving the maximum ratio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CriticalCycle {
    /// The maximum cycle ratio.
    pub ratio: Rational,
    /// Sum of weights on the cycle.
    pub weight: u128,
    /// Sum of tokens on the cycle.
    pub tokens: u128,
    /// Indices (into the input edge slice) of the cycle's edges, in order.
    pub edges: Vec<usize>,
}

/// Outcome of [`max_cycle_ratio`] when a cycle without tokens exists (the
/// ratio would be infinite; for dataflow graphs this means deadlock).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZeroTokenCycle {
    /// Indices of the cycle's edges, in order.
    pub edges: Vec<usize>,
}

/// Why [`max_cycle_ratio`] has no finite answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McrError {
    /// A cycle carries no tokens: the ratio is infinite (for a dataflow
    /// graph, a deadlock).
    ZeroTokenCycle(ZeroTokenCycle),
    /// An intermediate value does not fit: a cycle sum beyond 128 bits or a
    /// scaled node value beyond 256 bits.
    Overflow,
    /// Policy iteration did not converge within the given number of rounds.
    IterationLimit(u64),
}

/// Default bound on policy-improvement rounds of [`max_cycle_ratio`].
pub const DEFAULT_MAX_ROUNDS: u64 = 1_000_000;

/// Strongly connected components (iterative Tarjan) of the graph whose
/// node `v` has the successors `succ[v]` (as `(node, edge)` pairs). Returns
/// a component index per node and the number of components.
pub fn strongly_connected_components(
    num_nodes: usize,
    succ: &[Vec<(usize, usize)>],
) -> (Vec<usize>, usize) {
    let rows = (0..num_nodes).flat_map(|v| succ[v].iter().map(move |&s| (v, s)));
    scc(&Csr::new(num_nodes, rows))
}

/// [`strongly_connected_components`] on compressed rows.
pub(crate) fn scc(succ: &Csr<(usize, usize)>) -> (Vec<usize>, usize) {
    const UNSEEN: usize = usize::MAX;
    let num_nodes = succ.len();
    let mut index = vec![UNSEEN; num_nodes];
    let mut low = vec![0usize; num_nodes];
    let mut on_stack = vec![false; num_nodes];
    let mut comp = vec![UNSEEN; num_nodes];
    let mut stack = Vec::new();
    let mut next = 0usize;
    let mut ncomp = 0usize;
    let mut call: Vec<(usize, usize)> = Vec::new();
    for root in 0..num_nodes {
        if index[root] != UNSEEN {
            continue;
        }
        call.push((root, 0));
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = call.last_mut() {
            if let Some(&(w, _)) = succ.row(v).get(*pos) {
                *pos += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(parent, _)) = call.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = ncomp;
                        if w == v {
                            break;
                        }
                    }
                    ncomp += 1;
                }
            }
        }
    }
    (comp, ncomp)
}

/// Finds a cycle consisting only of edges with zero tokens, if any.
pub fn find_zero_token_cycle(num_nodes: usize, edges: &[RatioEdge]) -> Option<ZeroTokenCycle> {
    let succ = successors(num_nodes, edges, |e| e.tokens == 0);
    let (comp, ncomp) = scc(&succ);
    let mut size = vec![0usize; ncomp];
    for &c in &comp {
        size[c] += 1;
    }
    for v in 0..num_nodes {
        let c = comp[v];
        let nontrivial = size[c] > 1 || succ.row(v).iter().any(|&(w, _)| w == v);
        if !nontrivial {
            continue;
        }
        // walk inside the component until a node repeats
        let mut pos: Vec<usize> = Vec::new();
        let mut seen: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
        let mut u = v;
        loop {
            if let Some(&k) = seen.get(&u) {
                return Some(ZeroTokenCycle {
                    edges: pos.split_off(k),
                });
            }
            seen.insert(u, pos.len());
            let &(w, ei) = succ
                .row(u)
                .iter()
                .find(|&&(w, _)| comp[w] == c)
                .expect("node of a non-trivial SCC has a successor inside it");
            pos.push(ei);
            u = w;
        }
    }
    None
}

/// Computes the maximum cycle ratio of the graph, with at most
/// [`DEFAULT_MAX_ROUNDS`] policy-improvement rounds per component.
///
/// Returns `Ok(None)` if the graph is acyclic, [`McrError::ZeroTokenCycle`]
/// with a witness if some cycle carries no tokens, and otherwise a critical
/// cycle.
///
/// # Panics
/// Panics if an edge refers to a node `>= num_nodes`.
pub fn max_cycle_ratio(
    num_nodes: usize,
    edges: &[RatioEdge],
) -> Result<Option<CriticalCycle>, McrError> {
    max_cycle_ratio_with(num_nodes, edges, DEFAULT_MAX_ROUNDS)
}

/// [`max_cycle_ratio`] with an explicit bound on policy-improvement rounds
/// per strongly connected component.
pub fn max_cycle_ratio_with(
    num_nodes: usize,
    edges: &[RatioEdge],
    max_rounds: u64,
) -> Result<Option<CriticalCycle>, McrError> {
    if let Some(z) = find_zero_token_cycle(num_nodes, edges) {
        return Err(McrError::ZeroTokenCycle(z));
    }
    let succ = successors(num_nodes, edges, |_| true);
    let (comp, ncomp) = scc(&succ);
    let members = Csr::new(ncomp, (0..num_nodes).map(|v| (comp[v], v)));
    // the edges inside components, per node
    let inner = (0..num_nodes).flat_map(|v| {
        let comp = &comp;
        succ.row(v)
            .iter()
            .filter(move |&&(w, _)| comp[w] == comp[v])
            .map(move |&(_, ei)| (v, ei))
    });
    let out = Csr::new(num_nodes, inner);
    let mut best: Option<CriticalCycle> = None;
    let mut local = vec![usize::MAX; num_nodes];
    for c in 0..ncomp {
        let nodes = members.row(c);
        if nodes.iter().all(|&v| out.row(v).is_empty()) {
            continue;
        }
        for (i, &v) in nodes.iter().enumerate() {
            local[v] = i;
        }
        let cyc = howard(edges, &local, nodes, &out, max_rounds)?;
        if best.as_ref().is_none_or(|b| cyc.ratio > b.ratio) {
            best = Some(cyc);
        }
    }
    Ok(best)
}

/// `(successor, edge index)` per node over the edges that pass `keep`.
fn successors(
    num_nodes: usize,
    edges: &[RatioEdge],
    keep: impl Fn(&RatioEdge) -> bool + Clone,
) -> Csr<(usize, usize)> {
    let rows = edges
        .iter()
        .enumerate()
        .filter(move |(_, e)| keep(e))
        .map(|(i, e)| (e.src, (e.dst, i)));
    Csr::new(num_nodes, rows)
}

/// Howard's policy iteration on one strongly connected component: its
/// `nodes` (local node `u` is `nodes[u]`, and `local` maps back), and the
/// edges inside their components per node, `out` (every node of the
/// component has at least one).
fn howard(
    edges: &[RatioEdge],
    local: &[usize],
    nodes: &[usize],
    out: &Csr<usize>,
    max_rounds: u64,
) -> Result<CriticalCycle, McrError> {
    let n = nodes.len();
    let out = |u: usize| out.row(nodes[u]);
    // initial policy: each node's heaviest out-edge
    let mut policy: Vec<usize> = (0..n)
        .map(|u| {
            *out(u)
                .iter()
                .max_by_key(|&&ei| edges[ei].weight)
                .expect("non-empty")
        })
        .collect();
    let mut lam: Vec<(u128, u128)> = vec![(0, 1); n];
    let mut val: Vec<I256> = vec![I256::ZERO; n];
    let mut stamp: Vec<usize> = vec![usize::MAX; n];
    let mut done: Vec<bool> = vec![false; n];
    let mut cycles: Vec<(usize, (u128, u128))> = Vec::new();
    let mut path: Vec<usize> = Vec::new();
    let mut rounds = 0u64;
    loop {
        rounds += 1;
        if rounds > max_rounds {
            return Err(McrError::IterationLimit(max_rounds));
        }
        // ---- value determination ----
        done.iter_mut().for_each(|d| *d = false);
        stamp.iter_mut().for_each(|s| *s = usize::MAX);
        cycles.clear();
        for start in 0..n {
            if done[start] {
                continue;
            }
            path.clear();
            let mut u = start;
            while !done[u] && stamp[u] != start {
                stamp[u] = start;
                path.push(u);
                u = local[edges[policy[u]].dst];
            }
            let mut rest: &[usize] = &path;
            if !done[u] {
                // new cycle starting at u
                let k = path.iter().position(|&x| x == u).expect("on path");
                let cyc = &path[k..];
                let (mut w, mut t) = (0u128, 0u128);
                for &x in cyc {
                    let e = &edges[policy[x]];
                    w = w.checked_add(e.weight as u128).ok_or(McrError::Overflow)?;
                    t = t.checked_add(e.tokens as u128).ok_or(McrError::Overflow)?;
                }
                debug_assert!(t > 0, "zero-token cycles are excluded beforehand");
                let g = gcd(w, t);
                let l = (w / g, t / g);
                // a canonical anchor (the smallest node of the cycle): an
                // unchanged policy cycle keeps its values from one round
                // to the next, which is what makes the improvements
                // monotone (with an arbitrary anchor the values of a cycle
                // shift between rounds and the policy can cycle forever)
                let j = (0..cyc.len())
                    .min_by_key(|&i| cyc[i])
                    .expect("non-empty cycle");
                let anchor = cyc[j];
                cycles.push((anchor, l));
                lam[anchor] = l;
                val[anchor] = I256::ZERO;
                done[anchor] = true;
                // the rest of the cycle, backwards from the anchor's predecessor
                for &x in cyc[j + 1..].iter().chain(&cyc[..j]).rev() {
                    set_value(edges, local, &policy, &mut lam, &mut val, x)?;
                    done[x] = true;
                }
                rest = &path[..k];
            }
            for &x in rest.iter().rev() {
                set_value(edges, local, &policy, &mut lam, &mut val, x)?;
                done[x] = true;
            }
        }
        // ---- policy improvement, first on cycle ratios ----
        let ratio = |x: (u128, u128)| Rational::new(x.0, x.1);
        let mut changed = improve(
            &out,
            &mut policy,
            |u| ratio(lam[u]),
            |_, ei| Ok(Some(ratio(lam[local[edges[ei].dst]]))),
        )?;
        if !changed {
            // ---- then on values, among edges with equal ratio ----
            changed = improve(
                &out,
                &mut policy,
                |u| val[u],
                |u, ei| {
                    let e = &edges[ei];
                    let v = local[e.dst];
                    if lam[v] != lam[u] {
                        return Ok(None);
                    }
                    step_value(lam[u], e, val[v]).map(Some)
                },
            )?;
        }
        if !changed {
            break;
        }
    }
    // the critical cycle: a policy cycle with the maximum ratio
    let &(anchor, (a, b)) = cycles
        .iter()
        .max_by(|x, y| cmp_ratio(x.1, y.1))
        .expect("a strongly connected component with edges has a cycle");
    let mut cyc_edges = Vec::new();
    let (mut w, mut t) = (0u128, 0u128);
    let mut u = anchor;
    loop {
        let ei = policy[u];
        cyc_edges.push(ei);
        w += edges[ei].weight as u128;
        t += edges[ei].tokens as u128;
        u = local[edges[ei].dst];
        if u == anchor {
            break;
        }
    }
    debug_assert_eq!(Rational::new(w, t), Rational::new(a, b));
    Ok(CriticalCycle {
        ratio: Rational::new(a, b),
        weight: w,
        tokens: t,
        edges: cyc_edges,
    })
}

/// Points the policy of every node `u` (of `policy.len()`) at its out-edge
/// `ei` with the largest `key(u, ei)` if that beats `start(u)` (the first
/// such edge on ties); whether any node changed.
fn improve<'o, K: Ord>(
    out: &impl Fn(usize) -> &'o [usize],
    policy: &mut [usize],
    start: impl Fn(usize) -> K,
    key: impl Fn(usize, usize) -> Result<Option<K>, McrError>,
) -> Result<bool, McrError> {
    let mut changed = false;
    for (u, pu) in policy.iter_mut().enumerate() {
        let mut best = start(u);
        let mut best_e = None;
        for &ei in out(u) {
            if let Some(k) = key(u, ei)?
                && k > best
            {
                best = k;
                best_e = Some(ei);
            }
        }
        if let Some(ei) = best_e {
            *pu = ei;
            changed = true;
        }
    }
    Ok(changed)
}

/// A signed 256-bit integer in two's complement (`hi` carries the sign):
/// just what Howard's node values need — checked addition and subtraction,
/// and the exact order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct I256 {
    // field order matters: the derived order compares `hi` (signed) first,
    // then `lo` (unsigned), which is the numeric order
    hi: i128,
    lo: u128,
}

impl I256 {
    pub(crate) const ZERO: I256 = I256 { hi: 0, lo: 0 };

    /// A 256-bit unsigned value given as `(high, low)` halves, if it fits.
    pub(crate) fn from_u256((hi, lo): (u128, u128)) -> Option<I256> {
        Some(I256 {
            hi: i128::try_from(hi).ok()?,
            lo,
        })
    }

    pub(crate) fn checked_add(self, o: I256) -> Option<I256> {
        let (lo, carry) = self.lo.overflowing_add(o.lo);
        let hi = self.hi.checked_add(o.hi)?.checked_add(i128::from(carry))?;
        Some(I256 { hi, lo })
    }

    pub(crate) fn checked_sub(self, o: I256) -> Option<I256> {
        let (lo, borrow) = self.lo.overflowing_sub(o.lo);
        let hi = self.hi.checked_sub(o.hi)?.checked_sub(i128::from(borrow))?;
        Some(I256 { hi, lo })
    }
}

/// `b * weight - a * tokens + next`, checked (the products are exact
/// 192-bit values, the sum a signed 256-bit one).
fn step_value((a, b): (u128, u128), e: &RatioEdge, next: I256) -> Result<I256, McrError> {
    let bw = I256::from_u256(mul_wide(b, u128::from(e.weight)));
    let at = I256::from_u256(mul_wide(a, u128::from(e.tokens)));
    bw.zip(at)
        .and_then(|(bw, at)| bw.checked_sub(at)?.checked_add(next))
        .ok_or(McrError::Overflow)
}

fn set_value(
    edges: &[RatioEdge],
    local: &[usize],
    policy: &[usize],
    lam: &mut [(u128, u128)],
    val: &mut [I256],
    x: usize,
) -> Result<(), McrError> {
    let e = &edges[policy[x]];
    let s = local[e.dst];
    lam[x] = lam[s];
    val[x] = step_value(lam[s], e, val[s])?;
    Ok(())
}

fn cmp_ratio(x: (u128, u128), y: (u128, u128)) -> std::cmp::Ordering {
    Rational::new(x.0, x.1).cmp(&Rational::new(y.0, y.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(src: usize, dst: usize, weight: u64, tokens: u64) -> RatioEdge {
        RatioEdge {
            src,
            dst,
            weight,
            tokens,
        }
    }

    #[test]
    fn two_cycles() {
        // cycle 0-1: (3+5)/2 = 4 ; cycle 1-2: (5+7)/1 = 12
        let edges = [e(0, 1, 3, 1), e(1, 0, 5, 1), e(1, 2, 5, 0), e(2, 1, 7, 1)];
        let c = max_cycle_ratio(3, &edges).unwrap().unwrap();
        assert_eq!(c.ratio, Rational::from_integer(12));
        let mut es = c.edges.clone();
        es.sort();
        assert_eq!(es, vec![2, 3]);
    }

    #[test]
    fn acyclic_and_zero_token() {
        assert_eq!(max_cycle_ratio(2, &[e(0, 1, 1, 0)]).unwrap(), None);
        match max_cycle_ratio(2, &[e(0, 1, 1, 0), e(1, 0, 1, 0)]) {
            Err(McrError::ZeroTokenCycle(z)) => assert_eq!(z.edges.len(), 2),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fractional_ratio() {
        // self-loop 7/3 and cycle (2+2)/2 = 2
        let edges = [e(0, 0, 7, 3), e(0, 1, 2, 1), e(1, 0, 2, 1)];
        let c = max_cycle_ratio(2, &edges).unwrap().unwrap();
        assert_eq!(c.ratio, Rational::new(7, 3));
        assert_eq!(c.edges, vec![0]);
    }

    #[test]
    fn huge_weights_stay_exact() {
        // a ring of execution times near 2^64: exact answer (sums fit u128)
        let m = u64::MAX;
        let edges = [e(0, 1, m, 0), e(1, 2, m, 1), e(2, 0, m, 0)];
        let c = max_cycle_ratio(3, &edges).unwrap().unwrap();
        assert_eq!(c.ratio, Rational::from_integer(3 * m as u128));
        // two cycles with token sums near 2^64 and weights near 2^64: the
        // scaled node values need more than 128 bits; the ratio is exact
        let edges = [
            e(0, 1, m, m),
            e(1, 0, m, m - 1),
            e(1, 2, m - 2, m),
            e(2, 1, m, 1),
        ];
        let c = max_cycle_ratio(3, &edges).unwrap().unwrap();
        let r1 = Rational::new(2 * m as u128, 2 * m as u128 - 1);
        let r2 = Rational::new(2 * m as u128 - 2, m as u128 + 1);
        assert_eq!(c.ratio, r1.max(r2));
        assert_eq!(
            max_cycle_ratio_with(3, &edges, 0),
            Err(McrError::IterationLimit(0))
        );
    }

    #[test]
    fn ratio_2_pow_65_with_a_heavy_token_edge_is_exact() {
        // cycle 0-1: (2m)/1 = 2^65 - 2; cycle 0-1-2 carries 2^63 tokens,
        // so a value step on its last edge is (2^65 - 2) * 2^63 > 2^127
        let m = u64::MAX;
        let edges = [
            e(0, 1, m, 0),
            e(1, 0, m, 1),
            e(1, 2, m, 0),
            e(2, 0, 0, 1 << 63),
        ];
        let c = max_cycle_ratio(3, &edges).unwrap().unwrap();
        assert_eq!(c.ratio, Rational::from_integer((1 << 65) - 2));
        assert_eq!(c.edges, vec![0, 1]);
    }

    #[test]
    fn i256_orders_and_checks() {
        let v = |x: i128| {
            let hi = if x < 0 { -1 } else { 0 };
            I256 { hi, lo: x as u128 }
        };
        assert!(v(-1) < v(0) && v(0) < v(1));
        assert_eq!(v(-5).checked_add(v(7)), Some(v(2)));
        assert_eq!(v(2).checked_sub(v(7)), Some(v(-5)));
        let big = I256::from_u256((i128::MAX as u128, u128::MAX)).unwrap();
        assert_eq!(big.checked_add(v(1)), None);
        assert!(I256::from_u256((1 << 127, 0)).is_none());
        let two_128 = I256::from_u256((1, 0)).unwrap();
        assert_eq!(
            two_128.checked_sub(v(1)).unwrap(),
            I256 {
                hi: 0,
                lo: u128::MAX
            }
        );
        assert!(v(-1).checked_sub(two_128).unwrap() < v(i128::MIN));
    }
}
