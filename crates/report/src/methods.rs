//! The page's header and its methods section: what is simulated, what is
//! measured, and the command that reproduces each number.

use std::fmt::Write;

use crate::Collected;
use crate::html::esc;

/// The current UTC time as `YYYY-MM-DD HH:MM UTC` (from the system clock).
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let (h, m) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{m:02} UTC")
}

/// Title, provenance and the table of contents.
pub fn header(c: &Collected) -> String {
    let cpu = c
        .bench
        .as_ref()
        .and_then(|(v, _)| v.machine.cpu.model.clone())
        .or_else(|| aesflow_bench::machine::cpuinfo().model)
        .unwrap_or_else(|| "unknown CPU".into());
    format!(
        r##"<h1>aesflow: parallel AES engines, modelled and measured</h1>
<p class="meta">Made {} by <code>{}</code> (aesflow {}) on {}{}. Everything below was computed for this page: the many-core engines simulated, this host measured.</p>
<nav><ol>
<li><a href="#summary">Model beside paper</a></li><li><a href="#table2">Table 2: the 16 engines</a></li>
<li><a href="#energy">Power and energy: Tables 4 and 5</a></li><li><a href="#figures">Figures 12, 14, 15, DVFS</a></li>
<li><a href="#mesh">Engines on the mesh, dataflow graphs</a></li><li><a href="#front">Design space</a></li>
<li><a href="#host">This host: benchmark</a></li>{}<li><a href="#methods">Methods</a></li>
</ol></nav>
"##,
        esc(&c.made_at),
        esc(&c.inputs.command),
        env!("CARGO_PKG_VERSION"),
        esc(&cpu),
        if c.options.quick {
            " (--quick: short runs)"
        } else {
            ""
        },
        if c.inputs.hardware.is_some() {
            r##"<li><a href="#hardware">Hardware: processors and multi-stream core</a></li>"##
        } else {
            ""
        }
    )
}

/// The methods section.
pub fn section(c: &Collected) -> String {
    let blocks = c.study.options.blocks;
    let t2 = c
        .table2
        .first()
        .and_then(|r| r.first())
        .map_or(0, |r| r.blocks);
    let t2_flag = if t2 == crate::TABLE2_BLOCKS {
        String::new()
    } else {
        format!(" --blocks {t2}")
    };
    let energy = crate::paper::energy_command(c, "");
    let explore_flag = match &c.inputs.front {
        Some(f) if f.blocks != crate::paper::EXPLORE_BLOCKS => format!(" --blocks {}", f.blocks),
        _ => String::new(),
    };
    // The hardware section (8) is there only with a sweep.
    let number = if c.inputs.hardware.is_some() { 9 } else { 8 };
    let mut s = format!("<section id=\"methods\"><h2>{number}. Methods</h2>");
    let _ = write!(
        s,
        r#"<h3>What is simulated</h3>
<p>The engines of Liu &amp; Baas, "Parallel AES Encryption Engines for Many-Core Processor Arrays", are built as dataflow graphs (§4–5), compiled to programs for the cores of an AsAP2 model (Table 1's cycle counts, 2 input ports per core, nearest-neighbour and long-distance links), placed on the mesh and simulated cycle by cycle; every ciphertext block is compared with the reference AES. Nothing in Table 2 or the energy figures is typed in: the paper's numbers appear only in the "paper" columns.</p>
<ul>
<li>Table 2 ({t2} blocks per engine, AES-128/192/256): <code>aesflow designs --table{t2_flag}</code> (add <code>--key-size 192</code> or <code>256</code>).</li>
<li>Power and energy (Tables 4–5, Figs. 12, 14, 15, DVFS; {blocks} steady-state blocks per engine): each engine simulated on n and 2n blocks, the difference being steady state; power from Table 3's per-state powers; voltage scaling with dynamic energy ∝ Vdd² and leakage ∝ Vdd along an f<sub>max</sub>(Vdd) curve fitted to three AsAP2 points; per-core DVFS re-simulated with every core on its own clock. Reproduce: {energy} (<code>--json</code> for every number, <code>--charts DIR</code> for the SVGs).</li>
<li>Design space: <code>aesflow explore{explore_flag} -o DIR</code> (the same charts; <code>--all</code> lists every design).</li>
<li>Maps and graphs: <code>aesflow designs --map ENGINE</code> and <code>aesflow designs --dot ENGINE</code> (add <code>--offline</code> for offline key expansion).</li>
</ul>
<h3>What is measured</h3>
<ul>
<li>The host benchmark is measured on this machine by <code>aesflow-bench</code>, each contender the best of several repetitions, its peers (RustCrypto in-process; OpenSSL through <code>openssl speed</code> in full runs) measured in the same run and reported as ratios. Reproduce: <code>aesflow bench --all</code>.</li>
<li>Table 5's host row takes the fastest kernel's AES-128-CTR 16 KiB speed from that benchmark; the CPU's area, power and supply cannot be measured from software and come from a small table of known CPUs, stated under the table (identified from <code>/proc/cpuinfo</code>, or assumed where a virtual machine hides the part). Reproduce: <code>aesflow energy</code> (<code>--host-cpu</code> to choose the CPU).</li>
</ul>
<h3>Reading the page</h3>
<p>Errors are model / paper − 1, green within ±5%, amber within ±15%, red beyond. Charts: filled marks the model, hollow marks and shaded bands the paper. Tables sort by clicking a header; hover a chart mark for its value. The page makes no network request (its Content-Security-Policy forbids them) and reads the same with scripts off.</p>
"#
    );
    s.push_str("<h3>Time taken</h3><ul>");
    for (name, secs) in &c.timings {
        let _ = write!(s, "<li>{}: {secs:.1} s</li>", esc(name));
    }
    s.push_str("</ul></section>\n");
    s
}
