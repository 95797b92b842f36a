//! # aesflow-report: one page a person opens in a browser
//!
//! `aesflow report` runs everything fresh and writes one self-contained HTML
//! file (inline CSS and SVG, a few lines of inline script, no network: a
//! Content-Security-Policy forbids every request) that reads well with
//! scripts off and when mailed:
//!
//! * the many-core engines of Liu & Baas, "Parallel AES Encryption Engines
//!   for Many-Core Processor Arrays": Table 2 (16 engines, plus the model's
//!   AES-192/256), Tables 4 and 5, Figs. 12, 14, 15 and the companion
//!   talk's per-core DVFS savings, the model beside the paper with every
//!   error colour-coded ([`paper`]);
//! * every engine's placement on the AsAP mesh and its dataflow graph
//!   ([`mesh`]);
//! * the design space of `aesflow explore`, when the caller has one
//!   ([`DesignSpace`]; [`Inputs::front`] is the hook): the explorer's own
//!   charts, on the same block count, and every design;
//! * this host's benchmark (kernels, modes, engine) with its peers and
//!   ratios, the CPU, versions and load, and GB/s by message size
//!   ([`host`]);
//! * a methods section: what is simulated, what is measured, and the
//!   command that reproduces each number ([`methods`]).
//!
//! Sections are computed by [`collect`] (slow: simulations and benchmarks)
//! and drawn by [`render`] (pure), so a test can render without measuring.
//!
//! No engine simulation runs twice in [`collect`]: the energy study
//! simulates each engine on the energy platform (16-cycle halting latency)
//! on `n` and `2n` blocks (steady state by subtraction) and again with
//! scaled clocks; Table 2 is a separate, plain run of [`TABLE2_BLOCKS`]
//! blocks (64 quick) on the array's default platform, with other
//! plaintexts, for all three key sizes, as `aesflow designs --table`
//! measures it; the maps ([`mesh`]) only compile and place, they do not
//! simulate.
//!
//! Every section names the command that reproduces its numbers.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod host;
pub mod html;
pub mod mesh;
pub mod methods;
pub mod paper;

use aesflow_energy::{HostFigure, Study};

/// Why the report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The energy study failed.
    #[error("energy study: {0}")]
    Energy(#[from] aesflow_energy::EnergyError),
    /// Table 2's simulations failed.
    #[error("Table 2 (AES-{key}): {message}")]
    Table2 {
        /// Key size in bits.
        key: usize,
        /// What the designs crate said.
        message: String,
    },
    /// Mapping an engine on the mesh failed.
    #[error("mesh map of {engine}: {message}")]
    Map {
        /// Engine name.
        engine: String,
        /// What the mapper said.
        message: String,
    },
    /// The host benchmark failed.
    #[error("host benchmark: {0}")]
    Bench(String),
}

/// How much to run, and on which kernel.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Short runs: fewer simulated blocks, a short benchmark without the
    /// OpenSSL peer or the file benchmark.
    pub quick: bool,
    /// Run the host benchmark at all.
    pub bench: bool,
    /// The kernel the modes and engine sections of the host benchmark run
    /// on (the kernels section measures every kernel this CPU has). The
    /// command line passes the one `AESFLOW_KERNEL` names.
    pub kernel: &'static dyn aesflow_cipher::Kernel,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            quick: false,
            bench: true,
            kernel: aesflow_cipher::detect_best(),
        }
    }
}

/// One design of the design-space exploration (`aesflow explore`), for the
/// front chart and table: the hook through which the CLI hands the
/// explorer's result to the report.
#[derive(Clone, Debug, PartialEq)]
pub struct FrontPoint {
    /// Design label.
    pub label: String,
    /// Cores on the mesh.
    pub cores: usize,
    /// Simulated cycles per byte.
    pub cycles_per_byte: f64,
    /// Energy per bit at 1.3 V (nJ/bit), if computed.
    pub nj_per_bit: Option<f64>,
    /// On the Pareto front.
    pub on_front: bool,
}

/// Blocks per engine of Table 2 in a full report: the default of
/// `aesflow designs --table`, so both print the same numbers.
pub const TABLE2_BLOCKS: usize = 4096;

/// The design-space exploration as the report shows it: the explorer's own
/// two charts (as `aesflow explore -o DIR` writes them) and every design.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DesignSpace {
    /// Every design that fits the chip and was simulated.
    pub points: Vec<FrontPoint>,
    /// The explorer's charts (SVG documents): throughput vs cores, energy
    /// per bit vs throughput.
    pub charts: Vec<String>,
    /// Blocks simulated per design.
    pub blocks: usize,
}

/// What the caller hands in besides the options.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// The design space from `aesflow explore`, when the caller ran it;
    /// `None` shows where the section will go.
    pub front: Option<DesignSpace>,
    /// The command line that made the report (shown in the methods).
    pub command: String,
    /// The CPU the host row of Table 5 assumes (see
    /// [`aesflow_energy::host::identify`]); `None`: identify it.
    pub host_cpu: Option<aesflow_energy::CpuChoice>,
    /// The hardware sweep (`aesflow hw sweep`) whose tables and charts the
    /// report shows; `None`: no hardware section.
    pub hardware: Option<aesflow_hw::sweep::Sweep>,
}

/// Everything the page shows, computed.
#[derive(Clone, Debug)]
pub struct Collected {
    /// Options used.
    pub options: Options,
    /// Inputs used.
    pub inputs: Inputs,
    /// The energy study (with Table 5's host row when the benchmark ran).
    pub study: Study,
    /// Table 2 rows for AES-128, -192, -256.
    pub table2: Vec<Vec<aesflow_designs::report::Row>>,
    /// The engines' maps and graphs.
    pub engines: Vec<mesh::EngineDrawing>,
    /// The host benchmark (`aesflow bench`'s suite) and the host figure
    /// derived from it.
    pub bench: Option<(aesflow_bench::SuiteReport, Option<HostFigure>)>,
    /// Seconds each part took.
    pub timings: Vec<(String, f64)>,
    /// When the report was made (UTC, from the system clock).
    pub made_at: String,
}

/// Run everything: the host benchmark, the energy study (with the host
/// figure from the benchmark), Table 2 for three key sizes, the maps.
/// `progress(part, done, total)` reports as parts finish.
pub fn collect(
    opt: &Options,
    inputs: Inputs,
    progress: &(dyn Fn(&str, usize, usize) + Sync),
) -> Result<Collected, ReportError> {
    let mut timings = Vec::new();
    let mut timed = |name: &str, t: std::time::Instant| {
        timings.push((name.to_string(), t.elapsed().as_secs_f64()))
    };
    let t = std::time::Instant::now();
    let bench = if opt.bench {
        progress("host benchmark", 0, 1);
        let b = host::run_bench(opt.quick, opt.kernel, &mut |what| progress(what, 0, 1))?;
        let fig = host::host_figure(&b);
        progress("host benchmark", 1, 1);
        Some((b, fig))
    } else {
        None
    };
    timed("host benchmark", t);
    let t = std::time::Instant::now();
    let host = bench.as_ref().and_then(|(_, f)| f.clone()).map(|h| {
        let cpu = inputs
            .host_cpu
            .clone()
            .unwrap_or_else(|| aesflow_energy::host::identify(&h));
        (h, cpu)
    });
    let study = aesflow_energy::study_with_progress(
        &aesflow_energy::Options {
            blocks: if opt.quick { 64 } else { 256 },
            host,
            ..Default::default()
        },
        &|d, n| progress("energy study", d, n),
    )?;
    timed("energy study", t);
    let t = std::time::Instant::now();
    let table2 = paper::table2_all(if opt.quick { 64 } else { TABLE2_BLOCKS }, progress)?;
    timed("Table 2", t);
    let t = std::time::Instant::now();
    let engines = mesh::draw_all(progress)?;
    timed("maps and graphs", t);
    Ok(Collected {
        options: *opt,
        inputs,
        study,
        table2,
        engines,
        bench,
        timings,
        made_at: methods::now_utc(),
    })
}

/// The page.
pub fn render(c: &Collected) -> String {
    let mut body = String::new();
    body.push_str(&methods::header(c));
    body.push_str(&paper::summary(c));
    body.push_str(&paper::table2_section(c));
    body.push_str(&paper::energy_section(c));
    body.push_str(&paper::figures_section(c));
    body.push_str(&mesh::section(c));
    body.push_str(&paper::front_section(c));
    body.push_str(&host::section(c));
    if let Some(sweep) = &c.inputs.hardware {
        // Its tables and charts scroll in their own boxes, as the page's.
        let html = aesflow_hw::charts::report_html(sweep)
            .replace("<table>", "<div class=\"tablewrap\"><table>")
            .replace("</table>", "</table></div>")
            .replace("<svg", "<figure class=\"chart\"><svg")
            .replace("</svg>", "</svg></figure>");
        body.push_str(&html);
    }
    body.push_str(&methods::section(c));
    html::page(
        "aesflow report: parallel AES engines, model and host",
        &body,
    )
}
