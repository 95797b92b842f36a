//! Pareto fronts: throughput against a cost (cores, energy per bit).

use serde::Serialize;

/// A two-objective view of a point: throughput (more is better) and a
/// cost (less is better).
pub trait Objectives {
    /// Throughput.
    fn throughput(&self) -> f64;
    /// Cost.
    fn cost(&self) -> f64;
}

impl Objectives for (f64, f64) {
    fn throughput(&self) -> f64 {
        self.0
    }
    fn cost(&self) -> f64 {
        self.1
    }
}

/// `a` dominates `b`: at least as fast and as cheap, and better in one.
pub fn dominates(a: &impl Objectives, b: &impl Objectives) -> bool {
    a.throughput() >= b.throughput()
        && a.cost() <= b.cost()
        && (a.throughput() > b.throughput() || a.cost() < b.cost())
}

/// Indices of the non-dominated points, by increasing cost (ties: the
/// first index only, so equal points appear once).
pub fn front<T: Objectives>(pts: &[T]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..pts.len())
        .filter(|&i| pts[i].throughput().is_finite() && pts[i].cost().is_finite())
        .collect();
    idx.sort_by(|&a, &b| {
        pts[a]
            .cost()
            .total_cmp(&pts[b].cost())
            .then(pts[b].throughput().total_cmp(&pts[a].throughput()))
            .then(a.cmp(&b))
    });
    let mut out: Vec<usize> = Vec::new();
    let mut best = f64::NEG_INFINITY;
    for i in idx {
        // Sorted by cost, then by throughput descending: a point is on the
        // front iff it is strictly faster than every cheaper-or-equal one.
        if pts[i].throughput() > best {
            best = pts[i].throughput();
            out.push(i);
        }
    }
    out
}

/// Where a point stands relative to a set.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Standing {
    /// No point dominates it.
    OnFront,
    /// Dominated; the dominating point with the largest margin.
    Dominated {
        /// Index of the dominating point.
        by: usize,
        /// Its throughput over this point's (≥ 1).
        throughput_ratio: f64,
        /// Its cost over this point's (≤ 1).
        cost_ratio: f64,
    },
}

/// The standing of `p` among `pts`: on the front, or dominated; then the
/// dominating point is the one with the lowest cost (ties: the fastest), so
/// the ratios say how much cheaper the same or more throughput comes.
pub fn standing<T: Objectives>(p: &impl Objectives, pts: &[T]) -> Standing {
    let mut best: Option<(usize, f64, f64)> = None;
    for (i, q) in pts.iter().enumerate() {
        if !dominates(q, p) {
            continue;
        }
        let t = q.throughput() / p.throughput();
        let c = q.cost() / p.cost();
        if best.is_none_or(|(_, bt, bc)| c < bc || (c == bc && t > bt)) {
            best = Some((i, t, c));
        }
    }
    match best {
        None => Standing::OnFront,
        Some((by, throughput_ratio, cost_ratio)) => Standing::Dominated {
            by,
            throughput_ratio,
            cost_ratio,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_front() {
        let pts = [
            (1.0, 1.0),
            (2.0, 2.0),
            (1.5, 3.0),
            (2.0, 2.0),
            (3.0, 5.0),
            (0.5, 0.5),
        ];
        assert_eq!(front(&pts), vec![5, 0, 1, 4]);
        assert_eq!(standing(&(1.0, 1.0), &pts), Standing::OnFront);
        match standing(&(1.5, 3.0), &pts) {
            Standing::Dominated {
                by,
                throughput_ratio,
                cost_ratio,
            } => {
                assert_eq!(by, 1);
                assert!((throughput_ratio - 4.0 / 3.0).abs() < 1e-12);
                assert!((cost_ratio - 2.0 / 3.0).abs() < 1e-12);
            }
            s => panic!("{s:?}"),
        }
    }
}
