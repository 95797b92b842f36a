//! Adjacency lists in compressed rows: the rows of all nodes in one
//! vector, so that a graph of 10^5 nodes costs two allocations, not 10^5.

use crate::graph::FlowEdge;

/// A row of items per node, stored contiguously.
#[derive(Debug, Clone)]
pub(crate) struct Csr<T> {
    start: Vec<usize>,
    items: Vec<T>,
}

impl<T: Copy + Default> Csr<T> {
    /// Rows for `n` nodes from `(node, item)` pairs, each row in the order
    /// of the pairs.
    pub(crate) fn new<I>(n: usize, pairs: I) -> Self
    where
        I: IntoIterator<Item = (usize, T)>,
        I::IntoIter: Clone,
    {
        let pairs = pairs.into_iter();
        let mut start = vec![0usize; n + 1];
        for (u, _) in pairs.clone() {
            start[u + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start[..n].to_vec();
        let mut items = vec![T::default(); start[n]];
        for (u, x) in pairs {
            items[fill[u]] = x;
            fill[u] += 1;
        }
        Csr { start, items }
    }

    /// The items of node `u` (also `csr[u]`).
    pub(crate) fn row(&self, u: usize) -> &[T] {
        &self[u]
    }

    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.start.len() - 1
    }
}

impl<T> std::ops::Index<usize> for Csr<T> {
    type Output = [T];

    fn index(&self, u: usize) -> &[T] {
        &self.items[self.start[u]..self.start[u + 1]]
    }
}

/// The indices of the input and of the output edges of every actor.
pub(crate) fn in_out(n: usize, edges: &[FlowEdge]) -> (Csr<usize>, Csr<usize>) {
    let ins = Csr::new(n, edges.iter().enumerate().map(|(i, e)| (e.dst, i)));
    let outs = Csr::new(n, edges.iter().enumerate().map(|(i, e)| (e.src, i)));
    (ins, outs)
}

/// `(successor, edge index)` of every actor.
pub(crate) fn successors(n: usize, edges: &[FlowEdge]) -> Csr<(usize, usize)> {
    Csr::new(
        n,
        edges.iter().enumerate().map(|(i, e)| (e.src, (e.dst, i))),
    )
}
