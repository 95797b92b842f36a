//! The sweep's charts (SVG, drawn with `aesflow-chart`), the papers'
//! figures redrawn from measured points, and the report section.

use crate::paper::{CLAIMS, MS_PACKET, MS_TABLE1};
use crate::sweep::{ProcessorPoint, Sweep};
use crate::{KeyMode, SboxKind};
use aesflow_chart::{
    AxisSpec, Label, LabelledChart, LineChart, Reference, Scale, Series, Size, Style, esc,
};
use std::fmt::Write;

fn series(label: &str, points: Vec<(f64, f64)>, style: Style, colour: usize) -> Series {
    Series {
        label: label.into(),
        points,
        style,
        colour,
        tips: Vec::new(),
    }
}

/// Fig. 5: S-box area against the logic levels of its slowest stage.
pub fn sbox_chart(s: &Sweep) -> LabelledChart {
    let mut series_v = Vec::new();
    let mut labels = Vec::new();
    for (i, p) in s.sboxes.iter().enumerate() {
        let pt = (p.synthesis.depth as f64, p.synthesis.ge);
        series_v.push(series(p.kind.name(), vec![pt], Style::Line, i));
        labels.push(Label {
            x: pt.0,
            y: pt.1,
            text: p.kind.name().into(),
        });
    }
    LabelledChart {
        chart: LineChart {
            title: "S-box area against the depth of its slowest stage (cf. Hodjat & Verbauwhede Fig. 5)"
                .into(),
            x: AxisSpec::new("logic levels of the slowest stage (generic 2-input gates)", Scale::Linear),
            y: AxisSpec::new("area (gate equivalents, NAND2 = 1)", Scale::Linear),
            series: series_v,
            refs: Vec::new(),
        },
        labels,
        size: Size::STANDARD,
    }
}

/// Fig. 7 (online) or Fig. 9 (offline): processor area against throughput
/// per gate delay, every variant of the key mode, the paper's four designs
/// labelled.
pub fn processor_chart(s: &Sweep, keys: KeyMode) -> LabelledChart {
    let pts: Vec<&ProcessorPoint> = s
        .processors
        .iter()
        .filter(|p| p.variant.keys == keys)
        .collect();
    let mut series_v = Vec::new();
    let mut labels = Vec::new();
    for (i, kind) in SboxKind::ALL.iter().enumerate() {
        let v: Vec<(f64, f64)> = pts
            .iter()
            .filter(|p| p.variant.sbox == *kind)
            .map(|p| (p.bits_per_level, p.synthesis.ge / 1000.0))
            .collect();
        if !v.is_empty() {
            series_v.push(series(&format!("{} S-box", kind.name()), v, Style::Line, i));
        }
    }
    for p in &pts {
        labels.push(Label {
            x: p.bits_per_level,
            y: p.synthesis.ge / 1000.0,
            text: format!("{} st.", p.variant.stages),
        });
    }
    let (fig, what) = match keys {
        KeyMode::Online => ("Fig. 7", "online"),
        KeyMode::Offline => ("Fig. 9", "offline"),
    };
    LabelledChart {
        chart: LineChart {
            title: format!(
                "AES-128 CTR processors, {what} key schedule: area against throughput (cf. {fig})"
            ),
            x: AxisSpec::new(
                "throughput: 128 bits / logic levels of the slowest stage (bit per gate delay)",
                Scale::Linear,
            ),
            y: AxisSpec::new("area (kGE, NAND2 = 1)", Scale::Linear),
            series: series_v,
            refs: Vec::new(),
        },
        labels,
        size: Size::STANDARD,
    }
}

/// Pericàs et al. §4: throughput against packet size (key and IV set-up
/// per packet), 1 and 2 streams, the paper's two figures as markers.
pub fn packet_chart(s: &Sweep) -> LineChart {
    let mut v = Vec::new();
    for streams in [1, 2] {
        let pts: Vec<(f64, f64)> = s
            .packets
            .iter()
            .filter(|p| p.streams == streams)
            .map(|p| (p.bytes as f64, p.mbps))
            .collect();
        v.push(series(
            &format!(
                "aesflow, {streams} stream{}",
                if streams == 1 { "" } else { "s" }
            ),
            pts,
            Style::Line,
            streams - 1,
        ));
    }
    v.push(series(
        "Pericàs et al., 1 stream",
        MS_PACKET.iter().map(|&(b, m)| (b as f64, m)).collect(),
        Style::Markers,
        0,
    ));
    LineChart {
        title: "Multi-stream core, 64-bit bus at 100 MHz: throughput against packet size".into(),
        x: AxisSpec::new("packet size (bytes)", Scale::Log2),
        y: AxisSpec::new("throughput (Mbit/s)", Scale::Linear),
        series: v,
        refs: Vec::new(),
    }
}

/// Throughput against streams for the 64- and 128-bit buses, the paper's
/// Eq. 1 bound as references.
pub fn streams_chart(s: &Sweep) -> LineChart {
    let mut v = Vec::new();
    let mut refs = Vec::new();
    for (i, bus) in [64usize, 128].into_iter().enumerate() {
        let pts: Vec<(f64, f64)> = s
            .multistream
            .iter()
            .filter(|p| p.config.bus_bits == bus)
            .map(|p| (p.config.streams as f64, p.mbps))
            .collect();
        v.push(series(&format!("{bus}-bit bus"), pts, Style::Line, i));
        let max = (5 * bus / 128) as f64 * 1280.0;
        refs.push(Reference {
            label: format!("Eq. 1 bound, {bus}-bit bus ({} streams)", 5 * bus / 128),
            lo: max,
            hi: max,
            colour: i,
        });
    }
    LineChart {
        title: "Multi-stream core at 100 MHz: throughput against streams (CBC, 64-block packets)"
            .into(),
        x: AxisSpec::new("streams (folded AES-128 cores)", Scale::Linear),
        y: AxisSpec::new("throughput (Mbit/s)", Scale::Linear),
        series: v,
        refs,
    }
}

/// Every chart with its file name.
pub fn charts(s: &Sweep) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if !s.sboxes.is_empty() {
        out.push(("hw-sbox.svg", sbox_chart(s).render()));
    }
    if !s.processors.is_empty() {
        out.push((
            "hw-online.svg",
            processor_chart(s, KeyMode::Online).render(),
        ));
        out.push((
            "hw-offline.svg",
            processor_chart(s, KeyMode::Offline).render(),
        ));
    }
    if !s.packets.is_empty() {
        out.push(("hw-packets.svg", packet_chart(s).render()));
        out.push(("hw-streams.svg", streams_chart(s).render()));
    }
    out
}

/// The multi-stream counterpart of the paper's Table 1: (streams, GE,
/// flip-flops, Mbit/s at 100 MHz, Mbit/s per kGE) at 64 bits.
pub fn table1(s: &Sweep) -> Vec<(usize, f64, u64, f64, f64)> {
    s.multistream
        .iter()
        .filter(|p| p.config.bus_bits == 64)
        .filter_map(|p| {
            p.synthesis.as_ref().map(|syn| {
                (
                    p.config.streams,
                    syn.ge,
                    syn.flip_flops,
                    p.mbps,
                    p.mbps / (syn.ge / 1000.0),
                )
            })
        })
        .collect()
}

/// The hardware section of the report: the tables and charts as one HTML
/// fragment (an `<section>`; no scripts, styles inherited).
pub fn report_html(s: &Sweep) -> String {
    let mut h = String::new();
    let _ = writeln!(
        h,
        "<section id=\"hardware\">\n<h2>8. Hardware: the pipelined processors and the multi-stream core</h2>"
    );
    let _ = writeln!(
        h,
        "<p>Generated Verilog, simulated in Icarus Verilog against aesflow's cipher and modes, \
         synthesised with {} to generic gates (gate equivalents, NAND2 = 1). The papers' areas are \
         0.18&nbsp;µm ASIC (Hodjat &amp; Verbauwhede) and Virtex-II Pro slices (Pericàs et al.): \
         ratios compare, absolute figures do not.</p>",
        esc(&s.yosys)
    );
    if !s.claims.is_empty() {
        let _ = writeln!(
            h,
            "<table><tr><th>claim</th><th>paper</th><th>aesflow</th><th>error (pp)</th><th>direction holds</th><th>source</th></tr>"
        );
        for c in &s.claims {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{:+.0} %</td><td>{:+.1} %</td><td>{:+.1}</td><td>{}</td><td>{}</td></tr>",
                esc(&c.what),
                c.paper,
                c.aesflow,
                c.error,
                if c.direction_holds { "yes" } else { "no" },
                esc(&c.source)
            );
        }
        let _ = writeln!(h, "</table>");
        let _ = writeln!(
            h,
            "<table><tr><th>variant</th><th>latency</th><th>kGE</th><th>flip-flops</th><th>levels</th><th>bit / gate delay</th></tr>"
        );
        for p in &s.processors {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{:.1}</td><td>{}</td><td>{}</td><td>{:.2}</td></tr>",
                esc(&p.name),
                p.latency,
                p.synthesis.ge / 1000.0,
                p.synthesis.flip_flops,
                p.synthesis.depth,
                p.bits_per_level
            );
        }
        let _ = writeln!(h, "</table>");
    }
    let t1 = table1(s);
    if !t1.is_empty() {
        let _ = writeln!(
            h,
            "<table><tr><th>streams</th><th>paper slices</th><th>paper Mbit/s</th><th>aesflow kGE</th><th>aesflow Mbit/s (100 MHz)</th><th>aesflow Mbit/s per kGE</th></tr>"
        );
        for (n, ge, _, mbps, per) in &t1 {
            let paper = MS_TABLE1.iter().find(|r| r.0 == *n);
            let _ = writeln!(
                h,
                "<tr><td>{n}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{mbps:.0}</td><td>{per:.1}</td></tr>",
                paper.map_or("–".into(), |r| r.1.to_string()),
                paper.map_or("–".into(), |r| r.5.to_string()),
                ge / 1000.0
            );
        }
        let _ = writeln!(h, "</table>");
    }
    for (_, svg) in charts(s) {
        h.push_str(&svg);
        h.push('\n');
    }
    let _ = writeln!(h, "</section>");
    h
}

/// The claims as a plain-text table (for `aesflow hw sweep`).
pub fn claims_text(s: &Sweep) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<66} {:>7} {:>8} {:>7}  direction",
        "claim (Hodjat & Verbauwhede)", "paper", "aesflow", "error"
    );
    for c in &s.claims {
        let _ = writeln!(
            t,
            "{:<66} {:>6.0}% {:>7.1}% {:>6.1}pp  {}",
            c.what,
            c.paper,
            c.aesflow,
            c.error,
            if c.direction_holds {
                "holds"
            } else {
                "does not hold"
            }
        );
    }
    debug_assert!(s.claims.len() <= CLAIMS.len());
    t
}
