//! The area optimisations of §5 as graph transformations, and the offline
//! derivation of §4 ("the offline implementations can be derived by
//! removing the cores used for key expansion").
//!
//! * [`swap_sub_shift`] — §5.1 step 1: ShiftRows only moves bytes, so
//!   SubBytes and ShiftRows commute. Where a group of parallel SubBytes
//!   actors feeds one ShiftRows, put ShiftRows first: each SubBytes then
//!   feeds the consumers of its columns directly, which removes the
//!   MergeCores in front of ShiftRows (and often a DispatchCore behind the
//!   previous step).
//! * [`fuse_sub_shift`] — §5.2: fuse a SubBytes-16 with the ShiftRows it
//!   feeds when both fire once per block (outside a round loop) and the
//!   fused core is no slower than the design's bottleneck.
//! * [`fuse_addkey_shiftrows`] — §5.1 step 2: fuse an AddRoundKey with the
//!   ShiftRows of the next round it alone feeds, when the fused core
//!   (22 + 38 = 60 cycles, §5.1's sum of the standalone delays) stays under
//!   the bottleneck. The fused core then runs faster than that
//!   ([`crate::kinds::FUSED_SHIFT_ROWS_DELAY`]): the criterion is the
//!   designer's, the delay the chip's (Table 4).
//! * [`to_offline`] — remove the key-expansion cores; every AddRoundKey then
//!   holds its round keys in its data memory.
//!
//! A fusion must also fit one core's instruction memory (the sum of the
//! parts' Table 1 IMEM use at most 100%).

use crate::error::Error;
use crate::graph::{Design, Edge, Payload, Role};
use crate::kinds::{Part, Prim};

/// Which optimisations to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Optimisations {
    /// §5.1 step 1.
    pub swap_sub_shift: bool,
    /// §5.2.
    pub fuse_sub_shift: bool,
    /// §5.1 step 2.
    pub fuse_addkey_shiftrows: bool,
}

impl Optimisations {
    /// All on (the paper's Table 2).
    pub const ALL: Optimisations = Optimisations {
        swap_sub_shift: true,
        fuse_sub_shift: true,
        fuse_addkey_shiftrows: true,
    };
    /// All off (the designs of §4).
    pub const NONE: Optimisations = Optimisations {
        swap_sub_shift: false,
        fuse_sub_shift: false,
        fuse_addkey_shiftrows: false,
    };
}

/// Apply the chosen optimisations in the paper's order.
pub fn optimise(d: &mut Design, o: Optimisations) {
    if o.swap_sub_shift {
        swap_sub_shift(d);
    }
    if o.fuse_sub_shift {
        fuse_sub_shift(d);
    }
    if o.fuse_addkey_shiftrows {
        fuse_addkey_shiftrows(d);
    }
}

fn steps(d: &Design, a: usize) -> Option<&[Prim]> {
    match &d.actors[a].role {
        Role::Cipher(s) => Some(s),
        _ => None,
    }
}

/// §5.1 step 1. Returns the number of swaps.
pub fn swap_sub_shift(d: &mut Design) -> usize {
    let mut count = 0;
    'outer: loop {
        for sr in 0..d.actors.len() {
            if steps(d, sr) != Some(&[Prim::Shift][..]) {
                continue;
            }
            let ins: Vec<(usize, Edge)> = d.ins(sr).map(|(i, e)| (i, e.clone())).collect();
            if ins.len() < 2 {
                continue;
            }
            let sbs: Vec<usize> = ins.iter().map(|(_, e)| e.src).collect();
            let ok = ins.iter().all(|(_, e)| {
                let s = e.src;
                matches!(steps(d, s), Some([Prim::Sub(c)]) if Some(*c) == e.payload.state())
                    && d.outs(s).count() == 1
                    && d.actors[s].n == d.actors[sr].n
                    && e.src_ph == (0, d.actors[s].n)
            });
            if !ok {
                continue;
            }
            // New edge list: drop every edge touching the SubBytes group
            // and every edge out of ShiftRows; rewire.
            let sb_cols: Vec<Part> = ins
                .iter()
                .map(|(_, e)| e.payload.state().unwrap())
                .collect();
            let mut new_edges: Vec<Edge> = Vec::new();
            let mut sr_outs: Vec<Edge> = Vec::new();
            let mut sb_ins: Vec<Edge> = Vec::new();
            for e in d.edges.iter() {
                if e.src == sr {
                    sr_outs.push(e.clone());
                } else if sbs.contains(&e.dst) {
                    sb_ins.push(e.clone());
                } else if sbs.contains(&e.src) {
                    // SubBytes -> ShiftRows: dropped
                } else {
                    new_edges.push(e.clone());
                }
            }
            // Producers of the SubBytes now feed ShiftRows (same columns).
            for e in sb_ins {
                new_edges.push(Edge { dst: sr, ..e });
            }
            // ShiftRows feeds each SubBytes its columns.
            for (k, &sb) in sbs.iter().enumerate() {
                let n = d.actors[sb].n;
                new_edges.push(Edge {
                    src: sr,
                    dst: sb,
                    payload: Payload::State(sb_cols[k]),
                    src_ph: (0, n),
                    dst_ph: (0, n),
                });
            }
            // Each SubBytes feeds the part of every ShiftRows consumer it
            // covers.
            for e in sr_outs {
                match e.payload {
                    Payload::State(c) => {
                        for (k, &sb) in sbs.iter().enumerate() {
                            if let Some(x) = c.intersect(sb_cols[k]) {
                                new_edges.push(Edge {
                                    src: sb,
                                    payload: Payload::State(x),
                                    ..e.clone()
                                });
                            }
                        }
                    }
                    _ => new_edges.push(e),
                }
            }
            d.edges = new_edges;
            sort_edges(d);
            count += 1;
            continue 'outer;
        }
        break;
    }
    count
}

/// Keep each consumer's state inputs in column order (the order in which
/// the consumer reads them), stable otherwise.
pub fn sort_edges(d: &mut Design) {
    let key = |e: &Edge| match e.payload {
        Payload::State(c) => (e.dst, 0u8, e.dst_ph.0, c.0),
        Payload::Key(c) => (e.dst, 1, e.dst_ph.0, c.0),
        _ => (e.dst, 2, e.dst_ph.0, 0),
    };
    d.edges.sort_by_key(key);
}

/// Fuse actor `b` into `a` (a → b, `a` feeds only `b`, `b`'s only state
/// producer is `a`). The fused actor takes `a`'s place.
pub fn fuse(d: &mut Design, a: usize, b: usize) -> Result<(), Error> {
    let no = |m: String| Error::invalid(&d.name, Some(&d.actors[a].name), m);
    let (sa, sb) = match (steps(d, a), steps(d, b)) {
        (Some(x), Some(y)) => (x.to_vec(), y.to_vec()),
        _ => return Err(no("only cipher actors fuse".into())),
    };
    if d.actors[a].n != d.actors[b].n {
        return Err(no("fused actors must fire equally often".into()));
    }
    if d.outs(a).any(|(_, e)| e.dst != b) {
        return Err(no(format!("feeds more than {}", d.actors[b].name)));
    }
    if d.ins(b)
        .any(|(_, e)| e.src != a && matches!(e.payload, Payload::State(_)))
    {
        return Err(no(format!("{} has other state inputs", d.actors[b].name)));
    }
    let has_key = |s: &[Prim]| s.iter().any(|p| matches!(p, Prim::AddKey(_)));
    if has_key(&sa) && has_key(&sb) {
        return Err(no("two AddRoundKey steps cannot share a round".into()));
    }
    let round0 = if has_key(&sb) {
        d.actors[b].round0
    } else {
        d.actors[a].round0
    };
    let mut fused = sa;
    fused.extend(sb);
    let name = format!("{}+{}", d.actors[a].name, d.actors[b].name);
    d.actors[a].role = Role::Cipher(fused);
    d.actors[a].round0 = round0;
    d.actors[a].name = name;
    d.edges.retain(|e| !(e.src == a && e.dst == b));
    for e in d.edges.iter_mut() {
        if e.src == b {
            e.src = a;
        }
        if e.dst == b {
            e.dst = a;
        }
    }
    let bname = d.actors[b].name.clone();
    d.retain_actors(|x| x.name != bname);
    sort_edges(d);
    Ok(())
}

fn try_fuse_pairs(d: &mut Design, first: &[Prim], second: &[Prim]) -> usize {
    let (bound, _) = d.bottleneck();
    let mut count = 0;
    'outer: loop {
        for i in 0..d.edges.len() {
            let (a, b) = (d.edges[i].src, d.edges[i].dst);
            if steps(d, a) != Some(first) || steps(d, b) != Some(second) {
                continue;
            }
            if d.actors[a].n != 1 || d.actors[b].n != 1 {
                continue;
            }
            let fused_load = u64::from(d.delay(a) + d.delay(b));
            if fused_load > bound || d.imem(a) + d.imem(b) > 100 {
                continue;
            }
            if fuse(d, a, b).is_ok() {
                count += 1;
                continue 'outer;
            }
        }
        break;
    }
    count
}

/// §5.2: fuse SubBytes-16 → ShiftRows pairs outside loops. Returns the
/// number of fusions.
pub fn fuse_sub_shift(d: &mut Design) -> usize {
    try_fuse_pairs(d, &[Prim::Sub(Part::ALL)], &[Prim::Shift])
}

/// §5.1 step 2: fuse AddRoundKey → ShiftRows pairs. Returns the number of
/// fusions.
pub fn fuse_addkey_shiftrows(d: &mut Design) -> usize {
    try_fuse_pairs(d, &[Prim::AddKey(Part::ALL)], &[Prim::Shift])
}

/// Offline key expansion: drop the key-expansion cores and the key source;
/// AddRoundKey steps use round keys stored in their data memory.
pub fn to_offline(d: &mut Design) {
    d.retain_actors(|a| !a.role.is_key() && a.role != Role::KeySource);
}
