//! `aesflow bench`'s text output: the rows of each section as a table that
//! fits the terminal (comfy-table), columns only for what the rows carry,
//! a legend of every abbreviation underneath, then the section's notes.

use aesflow_bench::measure::human_size;
use aesflow_bench::{Peer, Report, Row, SuiteReport};
use comfy_table::{CellAlignment, ContentArrangement, Table, presets};

fn num(v: Option<f64>, prec: usize) -> String {
    v.map(|v| format!("{v:.prec$}"))
        .unwrap_or_else(|| "-".into())
}

/// Rows as a table that fits `width` columns (`None`: the terminal's width
/// when stdout is a terminal, else unbounded), columns only for what the
/// rows carry, a legend of every abbreviated header underneath.
pub(crate) fn render_rows(rows: &[Row], width: Option<u16>) -> String {
    let has = |f: &dyn Fn(&Row) -> bool| rows.iter().any(f);
    let show_keys = has(&|r| r.key_bits.is_some());
    // Key expansion only when the rows differ in it.
    let show_style = rows
        .iter()
        .any(|r| r.key_expansion.is_some() && r.key_expansion != rows[0].key_expansion);
    let show_streams = has(&|r| r.streams > 1);
    let show_threads = has(&|r| r.threads > 1);
    let show_base = has(&|r| r.vs_baseline.is_some());
    let show_packets = has(&|r| r.packets.is_some());
    let peers: Vec<Peer> = Peer::ALL
        .into_iter()
        .filter(|p| has(&|r| r.peer(*p).is_some()))
        .collect();
    let mut header: Vec<String> = vec!["op".into()];
    let mut legend: Vec<String> = Vec::new();
    if show_keys {
        header.push("key".into());
    }
    if show_style {
        header.push("keys".into());
        legend.push("keys: key expansion (offline: round keys stored; online: derived)".into());
    }
    header.push("impl".into());
    if show_streams {
        header.push("str".into());
        legend.push("str: independent streams per call (GB/s is their total)".into());
    }
    if show_threads {
        header.push("thr".into());
        legend.push("thr: threads".into());
    }
    if show_packets {
        header.push("tun".into());
        legend.push("tun: tunnels, each with its own key (gateway rows)".into());
    }
    header.extend(["size".into(), "GB/s".into(), "cyc/B".into()]);
    if show_packets {
        header.push("Mpps".into());
        legend.push(
            "Mpps: 10^6 packets/s (gateway rows; their size: all packets of one pass)".into(),
        );
    }
    legend.push("size: bytes per stream/message/buffer; GB/s: 10^9 B/s, best of reps".into());
    legend.push("cyc/B: cycles per byte per thread at the nominal clock".into());
    if show_base {
        header.push("x base".into());
        legend.push(
            "x base: vs aesflow's own baseline (all threads: the same op on one thread)".into(),
        );
    }
    for p in &peers {
        header.push(format!("{} GB/s", p.abbrev()));
        header.push(format!("x {}", p.abbrev()));
        legend.push(format!("{}: {}", p.abbrev(), p.describe()));
    }
    if !peers.is_empty() {
        legend.push("x PEER: aesflow GB/s / the peer's (above 1: aesflow faster)".into());
    }
    let mut table = Table::new();
    table
        .load_preset(presets::ASCII_MARKDOWN)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(header.clone());
    if let Some(w) = width {
        table.set_width(w);
    }
    for r in rows {
        let mut cells: Vec<String> = vec![r.op.clone()];
        if show_keys {
            cells.push(r.key_bits.map_or("-".into(), |b| format!("AES-{b}")));
        }
        if show_style {
            cells.push(r.key_expansion.clone().unwrap_or_else(|| "-".into()));
        }
        cells.push(r.implementation.clone());
        if show_streams {
            cells.push(r.streams.to_string());
        }
        if show_threads {
            cells.push(r.threads.to_string());
        }
        if show_packets {
            cells.push(
                r.packets
                    .as_ref()
                    .map_or("-".into(), |p| p.tunnels.to_string()),
            );
        }
        cells.push(human_size(r.bytes));
        cells.push(format!("{:.3}", r.gbps));
        cells.push(format!("{:.3}", r.cycles_per_byte));
        if show_packets {
            cells.push(num(r.packets.as_ref().map(|p| p.mpps), 2));
        }
        if show_base {
            cells.push(num(r.vs_baseline, 2));
        }
        for p in &peers {
            let f = r.peer(*p);
            cells.push(num(f.map(|f| f.gbps), 3));
            cells.push(num(f.map(|f| f.ratio), 2));
        }
        table.add_row(cells);
    }
    let first_number = header
        .iter()
        .position(|h| h == "tun" || h == "size")
        .unwrap_or(0);
    for (i, col) in table.column_iter_mut().enumerate() {
        if i >= first_number {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut s = table.to_string();
    s.push('\n');
    for l in legend {
        s.push_str("  ");
        s.push_str(&l);
        s.push('\n');
    }
    s
}

/// One section as text: its table (fitting `width`, see
/// [`render_rows`]) and notes.
pub(crate) fn render_report(report: &Report, width: Option<u16>) -> String {
    let mut s = render_rows(&report.rows, width);
    for n in &report.notes {
        s.push_str("note: ");
        s.push_str(n);
        s.push('\n');
    }
    s
}

/// The suite as text: the machine, then each section.
pub(crate) fn render_suite_table(report: &SuiteReport, width: Option<u16>) -> String {
    let mut s = report.machine.header();
    for sec in &report.sections {
        s.push_str(&format!(
            "\n== {} ({:.1} s) ==\n",
            sec.section.name(),
            sec.seconds
        ));
        s.push_str(&render_report(&sec.report, width));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use aesflow_bench::{BenchOptions, Measuring, Packets, Peers};
    use aesflow_cipher::KeySize;

    /// The rows of a smoke run of the kernels section on the best kernel,
    /// without peers.
    fn rows() -> Vec<Row> {
        let o = BenchOptions {
            kernels: vec![aesflow_cipher::detect_best().name().into()],
            key_sizes: vec![KeySize::Aes128],
            sizes: vec![64],
            measuring: Measuring {
                peers: Peers {
                    rustcrypto: false,
                    rustcrypto09: false,
                    openssl: false,
                    ipsec_mb: false,
                },
                ..Measuring::smoke()
            },
            ..BenchOptions::quick()
        };
        aesflow_bench::run(&o).expect("a smoke run").rows
    }

    #[test]
    fn table_fits_and_explains() {
        let mut r = rows().remove(0);
        r.add_peer(Peer::Openssl, Some(4.0), Some("openssl speed".into()));
        r.add_peer(Peer::IpsecMb, Some(8.0), None);
        let t = render_rows(&[r.clone(), r], Some(80));
        for line in t.lines() {
            assert!(line.chars().count() <= 80, "{line}");
        }
        assert!(t.contains("x MB") && t.contains("Intel ipsec-mb") && t.contains("cyc/B"));
        assert!(!t.contains("Mpps"));
    }

    #[test]
    fn packet_rows_show_tunnels_and_packet_rate() {
        let plain = rows().remove(0);
        let mut r = plain.clone();
        r.packets = Some(Packets {
            tunnels: 1000,
            packets: 4096,
            mix: "7:4:1 of 64/576/1500 B".into(),
            mpps: 12.345,
        });
        let t = render_rows(&[plain, r], None);
        assert!(
            t.contains(" tun |") && t.contains("Mpps") && t.contains("12.35"),
            "{t}"
        );
    }
}
