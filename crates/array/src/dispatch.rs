//! The shape of the DispatchCores behind a producer with more destinations
//! than a core's output reaches (paper §4.4–4.5).
//!
//! A producer core reaches `m` = [`crate::Platform::max_outputs`] next
//! hops; a DispatchCore takes one stream in and forwards it to up to `m`
//! next hops, so each DispatchCore adds `m − 1` destinations. For `n > m`
//! destinations the fewest DispatchCores is `⌈(n − m) / (m − 1)⌉`; both
//! shapes use exactly that many and differ only in how they are arranged:
//!
//! * [`DispatchShape::Chain`] keeps the first `m − 1` destinations direct
//!   and sends the rest through one DispatchCore, which does the same with
//!   what it receives: the last destinations cross every DispatchCore.
//! * [`DispatchShape::Tree`] builds the tree bottom-up like an `m`-ary
//!   Huffman code with equal weights: destinations and finished
//!   DispatchCores wait in a first-in first-out queue; the first
//!   DispatchCore takes the `(n − m − 1) mod (m − 1) + 2` oldest items (so
//!   that every later one can be full), every later one the `m` oldest,
//!   until the producer's `m` outputs suffice. Items join the queue in
//!   order of depth, so each DispatchCore gathers the shallowest subtrees
//!   and the tree is complete: the deepest destination crosses
//!   `⌈log_m n⌉ − 1` DispatchCores, the least any arrangement of `m`-way
//!   cores allows (at most `m^(d+1)` destinations within depth `d`). The
//!   destinations enter the queue last first, so with a single DispatchCore
//!   both shapes send the same destinations through it.

/// How DispatchCores are arranged when one is not enough.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DispatchShape {
    /// Each DispatchCore keeps `m − 1` destinations and passes the rest on.
    #[default]
    Chain,
    /// A balanced tree: the same number of DispatchCores, the least depth.
    Tree,
}

impl DispatchShape {
    /// `chain` or `tree`.
    pub fn name(self) -> &'static str {
        match self {
            DispatchShape::Chain => "chain",
            DispatchShape::Tree => "tree",
        }
    }

    /// The arrangement for `n` destinations and `m` outputs per core (at
    /// least 2): for each destination (in order), the DispatchCores it
    /// crosses from the producer down, as indices `0..count` (where
    /// `count` is one more than the largest index present).
    pub fn plan(self, n: usize, m: usize) -> Vec<Vec<usize>> {
        let m = m.max(2);
        let mut above: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut core = 0;
        match self {
            DispatchShape::Chain => {
                let mut start = 0;
                while n - start > m {
                    for a in &mut above[start + m - 1..] {
                        a.push(core);
                    }
                    start += m - 1;
                    core += 1;
                }
            }
            DispatchShape::Tree => {
                let mut queue: std::collections::VecDeque<Vec<usize>> =
                    (0..n).rev().map(|d| vec![d]).collect();
                let mut take = 2 + (n.max(m + 1) - m - 1) % (m - 1);
                while queue.len() > m {
                    let under: Vec<usize> = queue.drain(..take).flatten().collect();
                    for &d in &under {
                        above[d].insert(0, core);
                    }
                    queue.push_back(under);
                    core += 1;
                    take = m;
                }
            }
        }
        above
    }
}
