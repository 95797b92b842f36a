//! SVG drawing of a placement on the mesh.

use std::fmt::Write;

use aesflow_chart::esc;

use crate::mapper::{CoreClass, Mapping};

pub use aesflow_chart::kind_colour;

/// Render the placement: one square per tile, cores coloured by kind, links
/// as lines (dashed for long-distance links).
pub fn render(mapping: &Mapping, title: &str) -> String {
    let cell = 64u32;
    let pad = 20u32;
    let legend_h = 20 * 12;
    let w = mapping.width * cell + 2 * pad + 220;
    let h = (mapping.height * cell + 2 * pad + 30).max(legend_h + 60);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="8">"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{pad}" y="14" font-size="12">{}</text>"#,
        esc(title)
    );
    let centre = |x: u32, y: u32| (pad + x * cell + cell / 2, pad + 20 + y * cell + cell / 2);
    for y in 0..mapping.height {
        for x in 0..mapping.width {
            let _ = writeln!(
                s,
                r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#f5f5f5" stroke="#ddd"/>"##,
                pad + x * cell,
                pad + 20 + y * cell,
                cell,
                cell
            );
        }
    }
    for l in &mapping.links {
        if let (Some(a), Some(b)) = (mapping.cores[l.src].pos, mapping.cores[l.dst].pos) {
            let (x1, y1) = centre(a.0, a.1);
            let (x2, y2) = centre(b.0, b.1);
            let dash = if l.is_long() {
                r#" stroke-dasharray="4,3""#
            } else {
                ""
            };
            let _ = writeln!(
                s,
                r##"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#333" stroke-width="1"{dash}/>"##
            );
        }
    }
    let mut kinds: Vec<String> = Vec::new();
    for c in &mapping.cores {
        let Some((x, y)) = c.pos else { continue };
        if !kinds.contains(&c.kind) {
            kinds.push(c.kind.clone());
        }
        let (cx, cy) = centre(x, y);
        let r = cell / 2 - 6;
        let stroke = if c.class == CoreClass::Compute {
            "#222"
        } else {
            "#000"
        };
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" rx="4" fill="{}" stroke="{stroke}"><title>{} ({})</title></rect>"#,
            cx - r,
            cy - r,
            2 * r,
            2 * r,
            kind_colour(&c.kind),
            esc(&c.name),
            esc(&c.kind)
        );
        let _ = writeln!(
            s,
            r#"<text x="{cx}" y="{}" text-anchor="middle">{}</text>"#,
            cy + 3,
            esc(&short(&c.name))
        );
    }
    let lx = pad + mapping.width * cell + 20;
    for (i, k) in kinds.iter().enumerate() {
        let y = pad + 20 + i as u32 * 20;
        let _ = writeln!(
            s,
            r#"<rect x="{lx}" y="{y}" width="14" height="14" fill="{}"/><text x="{}" y="{}" font-size="11">{}</text>"#,
            kind_colour(k),
            lx + 20,
            y + 11,
            esc(k)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn short(name: &str) -> String {
    if name.len() <= 12 {
        name.to_string()
    } else {
        name[..12].to_string()
    }
}
