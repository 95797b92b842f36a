//! Every engine on the AsAP mesh (the placement SVG of `aesflow-array`)
//! and its dataflow graph (actors in layers, drawn here).

use std::fmt::Write;

use aesflow_array::{Platform, svg};
use aesflow_cipher::KeySize;
use aesflow_designs::report::fips_key;
use aesflow_designs::{Design, Engine, Expansion, Optimisations, build};

use crate::html::esc;
use crate::{Collected, ReportError};

/// One engine with one key expansion, drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineDrawing {
    /// Engine.
    pub engine: Engine,
    /// Key expansion.
    pub expansion: Expansion,
    /// Cores on the mesh.
    pub cores: usize,
    /// Communication cores.
    pub comm: usize,
    /// The placement (SVG).
    pub map_svg: String,
    /// The dataflow graph (SVG).
    pub graph_svg: String,
}

/// Map and draw all 16 engines (AES-128).
pub fn draw_all(
    progress: &(dyn Fn(&str, usize, usize) + Sync),
) -> Result<Vec<EngineDrawing>, ReportError> {
    let platform = Platform::default();
    let key = fips_key(KeySize::Aes128);
    let mut out = Vec::new();
    let total = Engine::ALL.len() * 2;
    for e in Engine::ALL {
        for x in Expansion::ALL {
            let d = build(e, KeySize::Aes128, x, Optimisations::ALL);
            let m = aesflow_designs::run::map_design(&d, &key, &platform).map_err(|message| {
                ReportError::Map {
                    engine: format!("{} ({})", e.name(), x.name()),
                    message: message.to_string(),
                }
            })?;
            let title = format!(
                "{} ({}, AES-128): {} cores, {} communication",
                d.name,
                x.name(),
                m.total_cores(),
                m.comm_cores()
            );
            out.push(EngineDrawing {
                engine: e,
                expansion: x,
                cores: m.total_cores(),
                comm: m.comm_cores(),
                map_svg: crop_map(&svg::render(&m, &title), &m),
                graph_svg: graph_svg(&d, &format!("{}-{}", e.slug(), x.name())),
            });
            progress("maps and graphs", out.len(), total);
        }
    }
    Ok(out)
}

/// The map cropped to the rows the engine uses (the array draws the whole
/// mesh): a `viewBox` over the used rows and the legend, so the page
/// scales it.
fn crop_map(svg: &str, m: &aesflow_array::Mapping) -> String {
    // The array's layout: 20 px padding, a 20 px title, 64 px tiles, the
    // legend's rows 20 px apart.
    let rows = m
        .cores
        .iter()
        .filter_map(|c| c.pos)
        .map(|p| p.1 + 1)
        .max()
        .unwrap_or(1);
    let mut kinds: Vec<&str> = m
        .cores
        .iter()
        .filter(|c| c.pos.is_some())
        .map(|c| c.kind.as_str())
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    let h = (20 + 20 + rows * 64 + 6).max(20 + 20 + kinds.len() as u32 * 20 + 6);
    let Some(open_end) = svg.find('>') else {
        return svg.to_string();
    };
    let open = &svg[..open_end];
    let width = open
        .split("width=\"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .unwrap_or("800");
    let mut tag = String::new();
    for part in open.split(' ') {
        if part.starts_with("height=") || part.starts_with("viewBox=") {
            continue;
        }
        if !tag.is_empty() {
            tag.push(' ');
        }
        tag.push_str(part);
    }
    format!(
        "{tag} height=\"{h}\" viewBox=\"0 0 {width} {h}\"{}",
        &svg[open_end..]
    )
}

const NODE_W: f64 = 150.0;
const NODE_H: f64 = 44.0;
const GAP_X: f64 = 56.0;
const GAP_Y: f64 = 14.0;
const PAD: f64 = 16.0;

/// Layers: the longest path from a source over the edges that are not
/// loop-back edges (found by a depth-first search); returns each actor's
/// layer and whether each edge goes back.
fn layers(d: &Design) -> (Vec<usize>, Vec<bool>) {
    let n = d.actors.len();
    let mut out: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (i, e) in d.edges.iter().enumerate() {
        out[e.src].push((e.dst, i));
    }
    let mut back = vec![false; d.edges.len()];
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut indeg = vec![0usize; n];
    for e in &d.edges {
        indeg[e.dst] += 1;
    }
    let starts: Vec<usize> = (0..n).filter(|&i| indeg[i] == 0).chain(0..n).collect();
    for s in starts {
        if state[s] != 0 {
            continue;
        }
        let mut stack = vec![(s, 0usize)];
        state[s] = 1;
        while let Some(&mut (v, ref mut k)) = stack.last_mut() {
            if let Some(&(w, ei)) = out[v].get(*k) {
                *k += 1;
                match state[w] {
                    0 => {
                        state[w] = 1;
                        stack.push((w, 0));
                    }
                    1 => back[ei] = true,
                    _ => {}
                }
            } else {
                state[v] = 2;
                stack.pop();
            }
        }
    }
    // Longest path over forward edges (Kahn's order).
    let mut fin = vec![0usize; n];
    for (e, b) in d.edges.iter().zip(&back) {
        if !b {
            fin[e.dst] += 1;
        }
    }
    let mut layer = vec![0usize; n];
    let mut ready: Vec<usize> = (0..n).filter(|&i| fin[i] == 0).collect();
    while let Some(v) = ready.pop() {
        for &(w, ei) in &out[v] {
            if back[ei] {
                continue;
            }
            layer[w] = layer[w].max(layer[v] + 1);
            fin[w] -= 1;
            if fin[w] == 0 {
                ready.push(w);
            }
        }
    }
    (layer, back)
}

/// Widest a graph is drawn (px): longer chains wrap into bands.
const MAX_W: f64 = 1100.0;
/// Vertical gap between bands (room for the wrapping edges).
const BAND_GAP: f64 = 34.0;
/// Left lane for edges that loop back to an earlier band.
const LANE: f64 = 14.0;

/// Where each layer and band of a wrapped layered graph goes.
struct Layout {
    /// Layers per band.
    per_band: usize,
    /// Top of each band (px).
    band_top: Vec<f64>,
    /// Height of each band (px).
    band_h: Vec<f64>,
    /// Width and height of the picture.
    w: f64,
    h: f64,
}

impl Layout {
    /// Bands of at most as many layers as fit in [`MAX_W`], each as tall
    /// as its fullest layer (plus room under it for loop-back curves).
    fn new(count: &[usize]) -> Layout {
        let depth = count.len().max(1);
        let fit = ((MAX_W - 2.0 * PAD - LANE + GAP_X) / (NODE_W + GAP_X)).floor() as usize;
        let per_band = fit.max(1).min(depth);
        let bands = depth.div_ceil(per_band);
        let mut band_top = Vec::new();
        let mut band_h = Vec::new();
        let mut y = PAD;
        for b in 0..bands {
            let rows = count[b * per_band..((b + 1) * per_band).min(depth)]
                .iter()
                .copied()
                .max()
                .unwrap_or(1);
            let h = rows as f64 * (NODE_H + GAP_Y) + 26.0;
            band_top.push(y);
            band_h.push(h);
            y += h + BAND_GAP;
        }
        let w = 2.0 * PAD + LANE + per_band as f64 * (NODE_W + GAP_X) - GAP_X;
        Layout {
            per_band,
            band_top,
            band_h,
            w,
            h: y - BAND_GAP + PAD,
        }
    }

    fn band(&self, layer: usize) -> usize {
        layer / self.per_band
    }

    /// Top-left corner of slot `slot` of `layer`, whose layer holds `n`.
    fn pos(&self, layer: usize, slot: usize, n: usize) -> (f64, f64) {
        let b = self.band(layer);
        let x = PAD + LANE + (layer % self.per_band) as f64 * (NODE_W + GAP_X);
        let rows = ((self.band_h[b] - 26.0) / (NODE_H + GAP_Y)).round() as usize;
        let off = (rows.saturating_sub(n)) as f64 * (NODE_H + GAP_Y) / 2.0;
        (x, self.band_top[b] + off + slot as f64 * (NODE_H + GAP_Y))
    }

    /// The bottom of `band` (where loop-back curves run).
    fn band_bottom(&self, band: usize) -> f64 {
        self.band_top[band] + self.band_h[band]
    }
}

/// The design as a layered left-to-right SVG graph: actors as boxes
/// coloured by kind (cores) or ovals (input/output), state edges solid,
/// key edges dashed, loop-back edges curving underneath. A chain too long
/// for 1100 px wraps into bands read top to bottom (an edge into the next
/// band runs down the gap between them), so the graph is drawn at its own
/// size with readable labels. `id` makes the arrow marker's id unique in a
/// page.
pub fn graph_svg(d: &Design, id: &str) -> String {
    let (layer, back) = layers(d);
    let depth = layer.iter().copied().max().unwrap_or(0) + 1;
    let mut slot = vec![0usize; d.actors.len()];
    let mut count = vec![0usize; depth];
    for (i, &l) in layer.iter().enumerate() {
        slot[i] = count[l];
        count[l] += 1;
    }
    let lay = Layout::new(&count);
    let (w, h) = (lay.w, lay.h);
    let pos = |i: usize| lay.pos(layer[i], slot[i], count[layer[i]]);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="sans-serif" font-size="10"><defs><marker id="arrow-{id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>"##
    );
    let _ = writeln!(s, r#"<rect width="{w:.0}" height="{h:.0}" fill="white"/>"#);
    for (e, &b) in d.edges.iter().zip(&back) {
        let (sx, sy) = pos(e.src);
        let (dx, dy) = pos(e.dst);
        let (bs, bd) = (lay.band(layer[e.src]), lay.band(layer[e.dst]));
        let dash = if matches!(e.payload, aesflow_designs::graph::Payload::State(_)) {
            ""
        } else {
            r#" stroke-dasharray="5 3""#
        };
        let path = if b && bs == bd {
            let (x1, y1) = (sx + NODE_W / 2.0, sy + NODE_H);
            let (x2, y2) = (dx + NODE_W / 2.0, dy + NODE_H);
            let low = y1.max(y2) + 22.0;
            format!("M{x1:.1},{y1:.1} C{x1:.1},{low:.1} {x2:.1},{low:.1} {x2:.1},{y2:.1}")
        } else if b {
            // Back to an earlier band: down under the source's band, left
            // to the lane, up to under the target's band, in from below.
            let (x1, y1) = (sx + NODE_W / 2.0, sy + NODE_H);
            let (x2, y2) = (dx + NODE_W / 2.0, dy + NODE_H);
            let (l1, l2) = (lay.band_bottom(bs) - 6.0, lay.band_bottom(bd) - 6.0);
            let lane = PAD + LANE / 2.0;
            format!("M{x1:.1},{y1:.1} V{l1:.1} H{lane:.1} V{l2:.1} H{x2:.1} V{y2:.1}")
        } else if bs == bd {
            let (x1, y1) = (sx + NODE_W, sy + NODE_H / 2.0);
            let (x2, y2) = (dx, dy + NODE_H / 2.0);
            let mx = (x1 + x2) / 2.0;
            format!("M{x1:.1},{y1:.1} C{mx:.1},{y1:.1} {mx:.1},{y2:.1} {x2:.1},{y2:.1}")
        } else {
            // Into a later band: right out of the source, down the gap
            // above the target's band, left, and in from the left.
            let (x1, y1) = (sx + NODE_W, sy + NODE_H / 2.0);
            let (x2, y2) = (dx, dy + NODE_H / 2.0);
            let gap = lay.band_top[bd] - BAND_GAP / 2.0;
            let (out, inn) = (x1 + PAD * 0.75, x2 - GAP_X / 2.0);
            format!("M{x1:.1},{y1:.1} H{out:.1} V{gap:.1} H{inn:.1} V{y2:.1} H{x2:.1}")
        };
        let _ = writeln!(
            s,
            r##"<path d="{path}" fill="none" stroke="#555" stroke-width="1.2"{dash} marker-end="url(#arrow-{id})"><title>{} → {}: {}</title></path>"##,
            esc(&d.actors[e.src].name),
            esc(&d.actors[e.dst].name),
            esc(&e.payload.label())
        );
    }
    for (i, a) in d.actors.iter().enumerate() {
        let (x, y) = pos(i);
        let kind = a.role.kind();
        let fill = svg::kind_colour(&kind);
        let delay = d.delay(i);
        let shape = if a.role.is_core() {
            format!(
                r##"<rect x="{x:.1}" y="{y:.1}" width="{NODE_W}" height="{NODE_H}" rx="4" fill="{fill}" stroke="#333"/>"##
            )
        } else {
            format!(
                r##"<ellipse cx="{:.1}" cy="{:.1}" rx="{}" ry="{}" fill="#eee" stroke="#333"/>"##,
                x + NODE_W / 2.0,
                y + NODE_H / 2.0,
                NODE_W / 2.0,
                NODE_H / 2.0
            )
        };
        let detail = if a.role.is_core() {
            if a.n > 1 {
                format!("{kind}, {delay} cyc × {}", a.n)
            } else {
                format!("{kind}, {delay} cyc")
            }
        } else {
            String::new()
        };
        let name_y = if detail.is_empty() {
            y + NODE_H / 2.0 + 4.0
        } else {
            y + 18.0
        };
        let _ = writeln!(
            s,
            r#"<g>{shape}<title>{}: {}</title><text x="{:.1}" y="{:.1}" text-anchor="middle" font-weight="bold">{}</text><text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text></g>"#,
            esc(&a.name),
            esc(&detail),
            x + NODE_W / 2.0,
            name_y,
            esc(&clip(&a.name, 24)),
            x + NODE_W / 2.0,
            y + 33.0,
            esc(&clip(&detail, 26))
        );
    }
    s.push_str("</svg>\n");
    s
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}

/// The section: one collapsible block per engine with its two maps and
/// graphs, and a legend for both drawings.
pub fn section(c: &Collected) -> String {
    let mut s = String::from(
        "<section id=\"mesh\"><h2>5. The engines on the AsAP mesh, and their dataflow graphs</h2>\
         <p class=\"legend\"><b>Maps:</b> one square per tile of the mesh, each core coloured by \
         its kind (the same colours as the graphs). <b>Solid lines</b> are nearest-neighbour \
         links between adjacent tiles; <b>dashed lines</b> are long-distance links, routed \
         through the switches of the tiles in between (they cost more energy per word: Table 3). \
         <b>Graphs:</b> boxes are actors mapped to cores (kind, cycles per firing × firings per \
         block), ovals the input and output; solid edges carry the state, dashed edges round \
         keys or key-schedule words; edges curving underneath close a loop. Hover for names.</p>",
    );
    for (i, e) in Engine::ALL.iter().enumerate() {
        let mine: Vec<&EngineDrawing> = c.engines.iter().filter(|d| d.engine == *e).collect();
        let cores: Vec<String> = mine
            .iter()
            .map(|d| format!("{} {}", d.cores, d.expansion.name()))
            .collect();
        let _ = write!(
            s,
            "<details id=\"engine-{}\"{}><summary>{} — {} cores</summary>",
            e.slug(),
            if i == 0 { " open" } else { "" },
            esc(e.name()),
            cores.join(" / ")
        );
        for d in mine {
            let _ = write!(
                s,
                "<h4>{} key expansion: {} cores ({} communication)</h4>\
                 <div class=\"map\" id=\"map-{slug}-{x}\">{}</div>\
                 <div class=\"graph\" id=\"graph-{slug}-{x}\">{}</div>",
                esc(d.expansion.name()),
                d.cores,
                d.comm,
                d.map_svg,
                d.graph_svg,
                slug = e.slug(),
                x = d.expansion.name(),
            );
        }
        s.push_str("</details>\n");
    }
    s.push_str("</section>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(svg: &str, key: &str) -> f64 {
        svg.split(&format!(" {key}=\""))
            .nth(1)
            .and_then(|t| t.split('"').next())
            .and_then(|t| t.parse().ok())
            .expect("the attribute")
    }

    /// Every graph fits [`MAX_W`] (long chains wrap into bands), and on
    /// every map each kind of core has a colour of its own, apart from the
    /// others (at least 50 apart in sRGB).
    #[test]
    fn graphs_wrap_and_kinds_have_distinct_colours() {
        let all = draw_all(&|_, _, _| {}).unwrap();
        assert_eq!(all.len(), 16);
        let mut banded = 0;
        for d in &all {
            let w = attr(&d.graph_svg, "width");
            assert!(w <= MAX_W, "{:?} {:?}: {w} px", d.engine, d.expansion);
            if attr(&d.graph_svg, "height") > 2.0 * (NODE_H + GAP_Y) * 4.0 {
                banded += 1;
            }
            let mut kinds: Vec<(String, String)> = d
                .map_svg
                .split("<title>")
                .skip(1)
                .filter_map(|t| {
                    let t = t.split("</title>").next()?;
                    let kind = t.rsplit_once(" (")?.1.trim_end_matches(')');
                    Some((kind.to_string(), svg::kind_colour(kind)))
                })
                .collect();
            kinds.sort();
            kinds.dedup();
            let rgb = |c: &str| -> [f64; 3] {
                let c = c.strip_prefix('#').expect("a hex colour");
                [0, 2, 4].map(|i| f64::from(u8::from_str_radix(&c[i..i + 2], 16).unwrap()))
            };
            for (i, a) in kinds.iter().enumerate() {
                for b in &kinds[..i] {
                    let (p, q) = (rgb(&a.1), rgb(&b.1));
                    let dist = (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>().sqrt();
                    assert!(
                        dist >= 50.0,
                        "{:?}: {} and {} look alike ({} and {})",
                        d.engine,
                        a.0,
                        b.0,
                        a.1,
                        b.1
                    );
                }
            }
        }
        assert!(banded >= 4, "the long engines wrap into bands");
    }
}
