//! The sweep's charts (SVG, drawn with `aesflow-chart`), the papers'
//! figures redrawn from measured points, and the report section.

use crate::fpga::FpgaSweep;
use crate::paper::{CLAIMS, MS_CLOCK_MHZ, MS_PACKET, MS_TABLE1};
use crate::sweep::{ProcessorPoint, Sweep};
use crate::{KeyMode, KeySize, SboxKind};
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
    sbox_points_chart(
        s.sboxes
            .iter()
            .map(|p| (p.kind, (p.synthesis.depth as f64, p.synthesis.ge))),
        "S-box area against the depth of its slowest stage (cf. Hodjat & Verbauwhede Fig. 5)"
            .into(),
        AxisSpec::new(
            "logic levels of the slowest stage (generic 2-input gates)",
            Scale::Linear,
        ),
        AxisSpec::new("area (gate equivalents, NAND2 = 1)", Scale::Linear),
    )
}

/// One labelled point a series for each S-box kind (Fig. 5 and its FPGA
/// counterpart).
fn sbox_points_chart(
    points: impl Iterator<Item = (SboxKind, (f64, f64))>,
    title: String,
    x: AxisSpec,
    y: AxisSpec,
) -> LabelledChart {
    let mut series_v = Vec::new();
    let mut labels = Vec::new();
    for (i, (kind, pt)) in points.enumerate() {
        series_v.push(series(kind.name(), vec![pt], Style::Line, i));
        labels.push(Label {
            x: pt.0,
            y: pt.1,
            text: kind.name().into(),
        });
    }
    LabelledChart {
        chart: LineChart {
            title,
            x,
            y,
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
        .filter(|p| p.variant.keys == keys && p.variant.key_size == KeySize::Aes128)
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
    if let Some(f) = &s.fpga {
        for m in &f.multistream {
            let streams = m.config.streams;
            if m.config.bus_bits != 64 || streams > 2 {
                continue;
            }
            let pts: Vec<(f64, f64)> = s
                .packets
                .iter()
                .filter(|p| p.streams == streams)
                .map(|p| (p.bytes as f64, p.mbps / MS_CLOCK_MHZ * m.fpga.fmax_mhz))
                .collect();
            v.push(series(
                &format!(
                    "aesflow, {streams} stream{} at the ECP5 Fmax ({:.0} MHz)",
                    if streams == 1 { "" } else { "s" },
                    m.fpga.fmax_mhz
                ),
                pts,
                Style::Path,
                streams - 1,
            ));
        }
    }
    v.push(series(
        "Pericàs et al., 1 stream",
        MS_PACKET.iter().map(|&(b, m)| (b as f64, m)).collect(),
        Style::Markers,
        0,
    ));
    LineChart {
        title: "Multi-stream core, 64-bit bus at 100 MHz (and at its ECP5 Fmax): throughput against packet size".into(),
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

/// Fig. 5 on the FPGA: S-box LUT4s against Fmax (with its registers, in the
/// measurement wrapper).
pub fn fpga_sbox_chart(f: &FpgaSweep) -> LabelledChart {
    sbox_points_chart(
        f.sboxes
            .iter()
            .map(|p| (p.kind, (p.fpga.fmax_mhz, p.fpga.luts as f64))),
        format!(
            "S-box on the FPGA ({}): LUT4s against Fmax (cf. Hodjat & Verbauwhede Fig. 5)",
            f.device
        ),
        AxisSpec::new("Fmax after place and route (MHz)", Scale::Linear),
        AxisSpec::new("LUT4s", Scale::Linear),
    )
}

/// Fig. 7 / Fig. 9 on the FPGA: processor LUT4s against 128 bits × Fmax.
pub fn fpga_processor_chart(f: &FpgaSweep, keys: KeyMode) -> LabelledChart {
    let pts: Vec<(crate::Variant, &crate::fpga::FpgaProcessor)> = f
        .processors
        .iter()
        .filter_map(|p| crate::Variant::parse(&p.name).ok().map(|v| (v, p)))
        .filter(|(v, _)| v.keys == keys && v.key_size == KeySize::Aes128)
        .collect();
    let mut series_v = Vec::new();
    let mut labels = Vec::new();
    for (i, kind) in SboxKind::ALL.iter().enumerate() {
        let mut v: Vec<(f64, f64)> = pts
            .iter()
            .filter(|(v, _)| v.sbox == *kind)
            .map(|(_, p)| (p.gbps, p.fpga.luts as f64 / 1000.0))
            .collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        if !v.is_empty() {
            series_v.push(series(&format!("{} S-box", kind.name()), v, Style::Line, i));
        }
    }
    for (v, p) in &pts {
        labels.push(Label {
            x: p.gbps,
            y: p.fpga.luts as f64 / 1000.0,
            text: format!("{} st.", v.stages),
        });
    }
    let (fig, what) = match keys {
        KeyMode::Online => ("Fig. 7", "online"),
        KeyMode::Offline => ("Fig. 9", "offline"),
    };
    LabelledChart {
        chart: LineChart {
            title: format!(
                "AES-128 CTR processors on the FPGA ({}), {what} keys: LUT4s against throughput (cf. {fig})",
                f.device
            ),
            x: AxisSpec::new("throughput: 128 bits × Fmax (Gbit/s)", Scale::Linear),
            y: AxisSpec::new("LUT4s (thousands)", Scale::Linear),
            series: series_v,
            refs: Vec::new(),
        },
        labels,
        size: Size::STANDARD,
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
    if let Some(f) = &s.fpga {
        if !f.sboxes.is_empty() {
            out.push(("hw-fpga-sbox.svg", fpga_sbox_chart(f).render()));
        }
        for (keys, name) in [
            (KeyMode::Online, "hw-fpga-online.svg"),
            (KeyMode::Offline, "hw-fpga-offline.svg"),
        ] {
            if f.processors.iter().any(|p| p.name.ends_with(keys.name())) {
                out.push((name, fpga_processor_chart(f, keys).render()));
            }
        }
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
            "<table><tr><th>claim</th><th>paper</th><th>aesflow (Yosys GE)</th><th>error (pp)</th><th>direction holds</th><th>aesflow (ECP5 LUT4s)</th><th>source</th></tr>"
        );
        for c in &s.claims {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{:+.0} %</td><td>{:+.1} %</td><td>{:+.1}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&c.what),
                c.paper,
                c.aesflow,
                c.error,
                if c.direction_holds { "yes" } else { "no" },
                c.fpga_luts.map_or("–".into(), |v| format!("{v:+.1} %")),
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
    if let Some(f) = &s.fpga {
        fpga_html(s, f, &mut h);
    }
    for (_, svg) in charts(s) {
        h.push_str(&svg);
        h.push('\n');
    }
    let _ = writeln!(h, "</section>");
    h
}

/// The FPGA flow's tables: every design placed and routed, and Table 1 of
/// Pericàs et al. on the FPGA.
fn fpga_html(s: &Sweep, f: &FpgaSweep, h: &mut String) {
    let _ = writeln!(
        h,
        "<p>FPGA: {} <code>synth_ecp5 -nobram -nolutram</code> (ROMs as logic), {} on {}, seed {}; \
         the design in a wrapper that shifts its inputs in and XORs its registered outputs to one pin \
         (the wrapper's flip-flops are subtracted, its XOR tree is in the LUT4s).</p>",
        esc(&f.yosys),
        esc(&f.nextpnr),
        esc(&f.device),
        f.seed
    );
    let _ = writeln!(
        h,
        "<table><tr><th>design</th><th>LUT4s</th><th>flip-flops</th><th>Fmax (MHz)</th><th>Gbit/s</th><th>Yosys kGE</th></tr>"
    );
    for p in &f.sboxes {
        let ge = s.sboxes.iter().find(|q| q.kind == p.kind);
        let _ = writeln!(
            h,
            "<tr><td>S-box {}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>–</td><td>{}</td></tr>",
            p.kind.name(),
            p.fpga.luts,
            p.fpga.design_flip_flops(),
            p.fpga.fmax_mhz,
            ge.map_or("–".into(), |q| format!("{:.2}", q.synthesis.ge / 1000.0))
        );
    }
    for p in &f.processors {
        let ge = s.processors.iter().find(|q| q.name == p.name);
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{:.1}</td><td>{}</td></tr>",
            esc(&p.name),
            p.fpga.luts,
            p.fpga.design_flip_flops(),
            p.fpga.fmax_mhz,
            p.gbps,
            ge.map_or("–".into(), |q| format!("{:.1}", q.synthesis.ge / 1000.0))
        );
    }
    let _ = writeln!(h, "</table>");
    let rows = fpga_table1(s, f);
    if !rows.is_empty() {
        let _ = writeln!(
            h,
            "<table><tr><th>streams</th><th>paper slices</th><th>paper Mbit/s (100 MHz)</th><th>ECP5 LUT4s</th><th>flip-flops</th><th>slices (≥)</th><th>Fmax (MHz)</th><th>Mbit/s at Fmax</th></tr>"
        );
        for r in rows {
            let paper = MS_TABLE1.iter().find(|p| p.0 == r.streams);
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{:.0}</td></tr>",
                r.streams,
                paper.map_or("–".into(), |p| p.1.to_string()),
                paper.map_or("–".into(), |p| p.5.to_string()),
                r.luts,
                r.flip_flops,
                r.slices,
                r.fmax_mhz,
                r.mbps
            );
        }
        let _ = writeln!(h, "</table>");
    }
}

/// One row of Pericàs et al.'s Table 1 on the FPGA.
#[derive(Clone, Debug, PartialEq)]
pub struct FpgaTable1Row {
    /// Streams.
    pub streams: usize,
    /// LUT4s.
    pub luts: u64,
    /// Flip-flops (the wrapper's subtracted).
    pub flip_flops: u64,
    /// Slices, a lower bound (2 LUT4s and 2 flip-flops each).
    pub slices: u64,
    /// Fmax (MHz).
    pub fmax_mhz: f64,
    /// Throughput at Fmax: the simulated bits per cycle (64-block CBC
    /// packets) × Fmax.
    pub mbps: f64,
}

/// Pericàs et al.'s Table 1 on the FPGA: the 64-bit multi-stream cores that
/// were placed and routed and simulated.
pub fn fpga_table1(s: &Sweep, f: &FpgaSweep) -> Vec<FpgaTable1Row> {
    f.multistream
        .iter()
        .filter(|m| m.config.bus_bits == 64)
        .filter_map(|m| {
            s.ms_bits_per_cycle(&m.config).map(|bpc| FpgaTable1Row {
                streams: m.config.streams,
                luts: m.fpga.luts,
                flip_flops: m.fpga.design_flip_flops(),
                slices: m
                    .fpga
                    .luts
                    .div_ceil(2)
                    .max(m.fpga.design_flip_flops().div_ceil(2)),
                fmax_mhz: m.fpga.fmax_mhz,
                mbps: bpc * m.fpga.fmax_mhz,
            })
        })
        .collect()
}

/// The claims as a plain-text table (for `aesflow hw sweep`).
pub fn claims_text(s: &Sweep) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<66} {:>7} {:>8} {:>7}  {:<13} {:>9}",
        "claim (Hodjat & Verbauwhede)", "paper", "Yosys GE", "error", "direction", "ECP5 LUT4"
    );
    for c in &s.claims {
        let _ = writeln!(
            t,
            "{:<66} {:>6.0}% {:>7.1}% {:>6.1}pp  {:<13} {:>9}",
            c.what,
            c.paper,
            c.aesflow,
            c.error,
            if c.direction_holds {
                "holds"
            } else {
                "does not hold"
            },
            c.fpga_luts.map_or("-".into(), |v| format!("{v:.1}%"))
        );
    }
    debug_assert!(s.claims.len() <= CLAIMS.len());
    t
}
