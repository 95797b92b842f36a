//! This host's benchmark, run through `aesflow-bench` (kernels, modes,
//! engine, with their peers in the same run), shown as tables and as GB/s
//! by message size; and the host figure of Table 5 taken from it.
//!
//! The suite is read through its JSON document (`aesflow bench --json`),
//! so every column the harness reports is shown without this crate naming
//! each row type.

use std::fmt::Write;
use std::time::Duration;

use aesflow_bench::{
    BenchOptions, EngineOptions, ModesOptions, Op, Peers, SuiteOptions, run_suite,
};
use aesflow_cipher::KeySize;
use aesflow_energy::HostFigure;
use aesflow_energy::chart::{LineChart, Scale, Series, Style};
use serde_json::Value;

use crate::html::{Cell, Table, esc, figure};
use crate::{Collected, ReportError};

/// The options of the report's benchmark run: `quick` keeps it to a few
/// seconds (AES-128, three sizes, RustCrypto peer only, no file
/// benchmark); otherwise sizes from 64 B to 1 MiB, AES-128 and AES-256,
/// with OpenSSL.
pub fn suite_options(quick: bool) -> SuiteOptions {
    let peers = Peers {
        rustcrypto: true,
        openssl: !quick,
    };
    let kernels = BenchOptions {
        key_sizes: if quick {
            vec![KeySize::Aes128]
        } else {
            vec![KeySize::Aes128, KeySize::Aes256]
        },
        sizes: if quick {
            vec![64, 1024, 16384]
        } else {
            vec![64, 256, 1024, 4096, 16384, 65536, 1 << 20]
        },
        ops: if quick {
            vec![Op::EcbEnc, Op::Ctr]
        } else {
            Op::ALL.to_vec()
        },
        min_time: Duration::from_millis(if quick { 40 } else { 200 }),
        repetitions: if quick { 3 } else { 5 },
        peers,
        ..BenchOptions::quick()
    };
    let modes = ModesOptions {
        streams: if quick {
            vec![1, 8]
        } else {
            vec![1, 2, 4, 8, 16, 32, 64]
        },
        key_sizes: if quick {
            vec![KeySize::Aes128]
        } else {
            KeySize::ALL.to_vec()
        },
        min_time: Duration::from_millis(if quick { 40 } else { 200 }),
        repetitions: if quick { 3 } else { 5 },
        peers,
        ..ModesOptions::default()
    };
    let engine = EngineOptions {
        mem_size: if quick { 8 << 20 } else { 128 << 20 },
        reps: if quick { 1 } else { 3 },
        file_size: if quick { 0 } else { 256 << 20 },
        file_reps: 2,
        openssl: !quick,
        ..EngineOptions::default()
    };
    SuiteOptions {
        kernels: Some(kernels),
        modes: Some(modes),
        engine: Some(engine),
    }
}

/// Run the benchmark suite; its JSON document.
pub fn run_bench(quick: bool) -> Result<Value, ReportError> {
    let r = run_suite(&suite_options(quick)).map_err(|e| ReportError::Bench(e.to_string()))?;
    serde_json::to_value(&r).map_err(|e| ReportError::Bench(e.to_string()))
}

fn rows<'a>(v: &'a Value, section: &str) -> &'a [Value] {
    v.get(section)
        .and_then(|s| s.get("rows"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The host figure of Table 5 from the kernels section: the fastest kernel
/// on AES-128-CTR at 16 KiB, one core.
pub fn host_figure(v: &Value) -> Option<HostFigure> {
    let best = rows(v, "kernels")
        .iter()
        .filter(|r| r["op"] == "ctr" && r["key_bits"] == 128 && r["size"] == 16384)
        .max_by(|a, b| {
            let g = |r: &Value| r["gbps"].as_f64().unwrap_or(0.0);
            g(a).total_cmp(&g(b))
        })?;
    let (cpu_model, cpu_family, cpu_model_number) = aesflow_energy::host::cpuinfo_id();
    Some(HostFigure {
        kernel: best["kernel"].as_str()?.to_string(),
        workload: "AES-128-CTR, 16 KiB, one core (aesflow bench, best of the repetitions)".into(),
        bytes_per_second: best["gbps"].as_f64()? * 1e9,
        clock_ghz: v["tsc_ghz"].as_f64()?,
        clock_source: v["tsc_method"].as_str().unwrap_or("").to_string(),
        cpu_model,
        cpu_family,
        cpu_model_number,
    })
}

fn scalar(v: &Value) -> Option<Cell> {
    Some(match v {
        Value::Null => Cell::text("-"),
        Value::Bool(b) => Cell::text(if *b { "yes" } else { "no" }),
        Value::Number(n) => {
            let x = n.as_f64()?;
            if n.is_f64() {
                Cell::num(x, if x.abs() >= 100.0 { 1 } else { 3 })
            } else {
                Cell::num(x, 0)
            }
        }
        Value::String(s) => Cell::text(s),
        _ => return None,
    })
}

fn explain(col: &str) -> &'static str {
    match col {
        "gbps" => "aesflow's throughput, GB/s (10^9 bytes per second)",
        "cycles_per_byte" => "cycles per byte at the nominal clock",
        "rustcrypto_gbps" => "RustCrypto (aes/ctr/cbc/aes-gcm crates), same run",
        "openssl_gbps" => "openssl speed, same run",
        "vs_rustcrypto" => "aesflow / RustCrypto (above 1: aesflow faster)",
        "vs_openssl" => "aesflow / OpenSSL (above 1: aesflow faster)",
        "vs_baseline" => "ratio to the row named in baseline",
        "size" | "bytes" => "message or buffer size in bytes",
        "key_bits" => "AES key size",
        "streams" => "independent messages processed together",
        "threads" => "worker threads",
        _ => "",
    }
}

/// A generic table of a section's rows: every scalar column, long command
/// lines left out (they are listed in the methods).
fn rows_table(id: &str, caption: &str, rows: &[Value]) -> String {
    let mut cols: Vec<String> = Vec::new();
    for r in rows {
        if let Some(o) = r.as_object() {
            for (k, v) in o {
                if !cols.contains(k) && !k.contains("command") && scalar(v).is_some() {
                    cols.push(k.clone());
                }
            }
        }
    }
    // Identity first, then the measurement, the peers, the ratios.
    const ORDER: [&str; 20] = [
        "group",
        "name",
        "kernel",
        "implementation",
        "op",
        "key_bits",
        "style",
        "size",
        "bytes",
        "streams",
        "threads",
        "seconds",
        "gbps",
        "cycles_per_byte",
        "rustcrypto_gbps",
        "openssl_gbps",
        "baseline",
        "vs_baseline",
        "vs_rustcrypto",
        "vs_openssl",
    ];
    let rank = |c: &str| ORDER.iter().position(|o| *o == c).unwrap_or(ORDER.len());
    cols.sort_by_key(|c| rank(c));
    let headers: Vec<(&str, &str)> = cols.iter().map(|c| (c.as_str(), explain(c))).collect();
    let mut t = Table::new(id, caption, &headers);
    for r in rows {
        t.rows.push(
            cols.iter()
                .map(|c| scalar(&r[c.as_str()]).unwrap_or_else(|| Cell::text("-")))
                .collect(),
        );
    }
    t.render()
}

/// GB/s by message size: one chart per operation at AES-128, one line per
/// kernel, the peers as hollow markers.
fn size_charts(v: &Value) -> String {
    let rs = rows(v, "kernels");
    let mut ops: Vec<&str> = rs.iter().filter_map(|r| r["op"].as_str()).collect();
    ops.dedup();
    ops.sort_unstable();
    ops.dedup();
    let mut out = String::new();
    for op in ops {
        let mine: Vec<&Value> = rs
            .iter()
            .filter(|r| r["op"] == op && r["key_bits"] == 128)
            .collect();
        let mut kernels: Vec<&str> = mine.iter().filter_map(|r| r["kernel"].as_str()).collect();
        kernels.sort_unstable();
        kernels.dedup();
        let mut series = Vec::new();
        let pts = |k: Option<&str>, field: &str| -> Vec<(f64, f64)> {
            let mut p: Vec<(f64, f64)> = mine
                .iter()
                .filter(|r| k.is_none_or(|k| r["kernel"] == k))
                .filter_map(|r| Some((r["size"].as_f64()?, r[field].as_f64()?)))
                .collect();
            p.sort_by(|a, b| a.0.total_cmp(&b.0));
            p.dedup_by(|a, b| a.0 == b.0);
            p
        };
        for (i, k) in kernels.iter().enumerate() {
            series.push(Series {
                label: format!("aesflow {k}"),
                points: pts(Some(k), "gbps"),
                style: Style::Line,
                colour: i,
                tips: vec![],
            });
        }
        for (j, (field, name)) in [
            ("rustcrypto_gbps", "RustCrypto"),
            ("openssl_gbps", "OpenSSL"),
        ]
        .iter()
        .enumerate()
        {
            let p = pts(kernels.first().copied(), field);
            if !p.is_empty() {
                series.push(Series {
                    label: format!("{name} (peer, same run)"),
                    points: p,
                    style: Style::Markers,
                    colour: 7 + j,
                    tips: vec![],
                });
            }
        }
        if series.iter().all(|s| s.points.is_empty()) {
            continue;
        }
        let svg = LineChart {
            title: format!("AES-128 {op}: throughput by message size (one core)"),
            xlabel: "message size (bytes, log scale)".into(),
            ylabel: "throughput (GB/s)".into(),
            xscale: Scale::Log2,
            yscale: Scale::Linear,
            series,
            refs: vec![],
        }
        .render();
        out.push_str(&figure(
            &format!("bench-size-{op}"),
            &svg,
            &format!(
                "GB/s by message size, AES-128 {}, measured on this host.",
                esc(op)
            ),
        ));
    }
    out
}

fn machine(v: &Value, c: &Collected) -> String {
    let s = |k: &str| v[k].as_str().map_or("?".to_string(), esc);
    let secs: Vec<String> = v["sections"]
        .as_array()
        .map(|a| {
            a.iter()
                .zip(v["section_seconds"].as_array().into_iter().flatten())
                .map(|(n, t)| {
                    format!(
                        "{} {:.1} s",
                        n.as_str().unwrap_or("?"),
                        t.as_f64().unwrap_or(0.0)
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    format!(
        "<p>CPU: <b>{}</b>, {} logical CPUs, nominal clock {:.2} GHz ({}). OpenSSL: {}. \
         aesflow {}. Load average before {}, after {} (the machine may be shared: every \
         figure is the best of several repetitions, and every ratio compares runs made \
         side by side). Sections: {}. Mode: {}.</p>",
        s("cpu"),
        v["cpus"].as_u64().unwrap_or(0),
        v["tsc_ghz"].as_f64().unwrap_or(f64::NAN),
        s("tsc_method"),
        v["openssl_version"]
            .as_str()
            .map_or("not measured (quick run, or not installed)".into(), esc),
        env!("CARGO_PKG_VERSION"),
        s("load_before"),
        s("load_after"),
        secs.join(", "),
        if c.options.quick {
            "--quick (short runs, no OpenSSL peer, no file benchmark)"
        } else {
            "full"
        }
    )
}

/// The host benchmark section.
pub fn section(c: &Collected) -> String {
    let mut s = String::from("<section id=\"host\"><h2>7. This host: benchmark</h2>");
    let Some((v, _)) = &c.bench else {
        s.push_str("<p>Not run (<code>--no-bench</code>).</p></section>\n");
        return s;
    };
    s.push_str(&machine(v, c));
    s.push_str(&size_charts(v));
    for (key, caption) in [
        (
            "kernels",
            "Kernels: ECB and CTR on one core, beside RustCrypto and OpenSSL",
        ),
        ("modes", "Modes: multi-stream CBC, CBC decryption, CTR, GCM"),
        ("engine", "Engine: all cores, in memory and on files"),
    ] {
        let r = rows(v, key);
        if r.is_empty() {
            continue;
        }
        let _ = write!(s, "<h3>{}</h3>", esc(caption));
        s.push_str(&rows_table(&format!("bench-{key}"), caption, r));
        if let Some(notes) = v[key]["notes"].as_array().filter(|n| !n.is_empty()) {
            s.push_str("<ul class=\"legend\">");
            for n in notes.iter().filter_map(Value::as_str) {
                let _ = write!(s, "<li>{}</li>", esc(n));
            }
            s.push_str("</ul>");
        }
    }
    s.push_str("</section>\n");
    s
}
