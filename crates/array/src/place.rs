//! Placement: cores on the mesh, breadth-first from the sources along a
//! serpentine (so neighbours in the dataflow are mostly neighbours on the
//! mesh), then each link's length in tiles and its latency.

use std::collections::VecDeque;

use crate::mapper::{Core, CoreClass, Link};
use crate::platform::Platform;

/// Place `cores`, set every link's length and latency; returns the mesh
/// width and height used and whether the chip is exceeded (the mesh grows
/// by rows so that the mapping can still be simulated).
pub(crate) fn place(
    cores: &mut [Core],
    links: &mut [Link],
    platform: &Platform,
) -> (u32, u32, bool) {
    let n_tiles = cores.iter().filter(|c| c.class.is_core()).count() as u32;
    let width = platform.width.max(1);
    let height = platform.height.max(n_tiles.div_ceil(width));
    let exceeds_chip = n_tiles > platform.chip_cores.min(platform.width * platform.height);
    for (k, &i) in bfs_order(cores, links).iter().enumerate() {
        let k = k as u32;
        let y = k / width;
        let x = if y.is_multiple_of(2) {
            k % width
        } else {
            width - 1 - k % width
        };
        cores[i].pos = Some((x, y));
    }
    for l in links.iter_mut() {
        l.tiles = match (cores[l.src].pos, cores[l.dst].pos) {
            (Some((a, b)), Some((c, d))) => a.abs_diff(c) + b.abs_diff(d),
            _ => 0,
        };
        l.latency = platform.latency(l.tiles.max(1));
    }
    (width, height, exceeds_chip)
}

/// The cores (tiles only) breadth-first from the sources along the links,
/// then from any core not reached.
fn bfs_order(cores: &[Core], links: &[Link]) -> Vec<usize> {
    let mut order = Vec::new();
    let mut seen = vec![false; cores.len()];
    let mut q: VecDeque<usize> = VecDeque::new();
    for (i, c) in cores.iter().enumerate() {
        if c.class == CoreClass::Source {
            q.push_back(i);
            seen[i] = true;
        }
    }
    loop {
        while let Some(i) = q.pop_front() {
            if cores[i].class.is_core() {
                order.push(i);
            }
            for &l in &cores[i].outputs {
                let d = links[l as usize].dst;
                if !seen[d] {
                    seen[d] = true;
                    q.push_back(d);
                }
            }
        }
        match (0..cores.len()).find(|&i| !seen[i]) {
            Some(i) => {
                seen[i] = true;
                q.push_back(i);
            }
            None => break,
        }
    }
    order
}
