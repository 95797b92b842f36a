//! The machine a benchmark ran on: CPU model and clock (from the one
//! `/proc/cpuinfo` reader of the workspace, [`cpuinfo`]), logical CPUs,
//! the load average before and after, and the versions of everything
//! measured (rustc, OpenSSL, ipsec-mb). Every report carries one.

use serde::Serialize;

/// What `/proc/cpuinfo` says about the first CPU.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CpuInfo {
    /// `model name`.
    pub model: Option<String>,
    /// `cpu family`.
    pub family: Option<u32>,
    /// `model` (the number).
    pub model_number: Option<u32>,
    /// The nominal clock in the model name (`… @ 2.50GHz`), MHz.
    pub model_mhz: Option<f64>,
    /// `cpu MHz` (the current or, on most virtual machines, nominal clock).
    pub cpu_mhz: Option<f64>,
    /// The AES-related feature flags present (`aes`, `pclmulqdq`, `avx2`,
    /// `vaes`, `vpclmulqdq`, `avx512f`, `avx512bw`, `avx512vl`, `gfni`).
    pub aes_flags: Vec<String>,
}

/// Flags worth reporting beside AES throughput.
const AES_FLAGS: [&str; 9] = [
    "aes",
    "pclmulqdq",
    "avx2",
    "vaes",
    "vpclmulqdq",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "gfni",
];

/// Parse `/proc/cpuinfo` text (first CPU's lines win).
pub fn parse_cpuinfo(text: &str) -> CpuInfo {
    let field = |name: &str| {
        text.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    };
    let model = field("model name");
    let model_mhz = model.as_deref().and_then(|m| {
        let at = m.rfind('@')?;
        let g = m[at + 1..].trim().trim_end_matches("GHz").trim();
        g.parse::<f64>()
            .ok()
            .filter(|g| *g > 0.0)
            .map(|g| g * 1000.0)
    });
    let cpu_mhz = field("cpu MHz")
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|m| *m > 0.0);
    let flags = field("flags").unwrap_or_default();
    let aes_flags = AES_FLAGS
        .iter()
        .filter(|f| flags.split_whitespace().any(|x| x == **f))
        .map(|f| f.to_string())
        .collect();
    CpuInfo {
        model,
        family: field("cpu family").and_then(|v| v.parse().ok()),
        model_number: field("model").and_then(|v| v.parse().ok()),
        model_mhz,
        cpu_mhz,
        aes_flags,
    }
}

/// `/proc/cpuinfo` of this machine (empty if unreadable).
pub fn cpuinfo() -> CpuInfo {
    std::fs::read_to_string("/proc/cpuinfo")
        .map(|s| parse_cpuinfo(&s))
        .unwrap_or_default()
}

/// The clock assumed when `/proc/cpuinfo` gives none, GHz.
pub const ASSUMED_GHZ: f64 = 2.5;

impl CpuInfo {
    /// The clock that turns seconds into cycles, GHz, and where it came
    /// from: the model name's nominal clock, else `cpu MHz`, else
    /// [`ASSUMED_GHZ`]. With turbo the core may run faster: these are
    /// nominal cycles.
    pub fn clock_ghz(&self) -> (f64, String) {
        if let Some(m) = self.model_mhz {
            (
                m / 1000.0,
                "nominal clock in /proc/cpuinfo model name".into(),
            )
        } else if let Some(m) = self.cpu_mhz {
            (
                m / 1000.0,
                "/proc/cpuinfo 'cpu MHz' (nominal clock; turbo may run faster)".into(),
            )
        } else {
            (
                ASSUMED_GHZ,
                format!("assumed {ASSUMED_GHZ} GHz (no clock in /proc/cpuinfo)"),
            )
        }
    }
}

/// `/proc/loadavg`'s three load averages, if readable.
pub fn loadavg() -> Option<String> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    Some(s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
}

/// The machine and software of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Machine {
    /// CPU model, nominal clock and AES flags.
    pub cpu: CpuInfo,
    /// Logical CPUs available to this process.
    pub logical_cpus: usize,
    /// Clock used for every `cycles_per_byte`, GHz.
    pub clock_ghz: f64,
    /// Where `clock_ghz` came from.
    pub clock_source: String,
    /// The AES kernel aesflow's rows ran on: the fastest constant-time
    /// one of this CPU unless the run chose another ([`Machine::with_kernel`]).
    pub default_kernel: String,
    /// `/proc/loadavg` before the run (the machine may be shared).
    pub load_before: Option<String>,
    /// `/proc/loadavg` after the run.
    pub load_after: Option<String>,
    /// The `rustc` that built the benchmark.
    pub rustc: String,
    /// `openssl version`, if OpenSSL was found.
    pub openssl: Option<String>,
    /// Intel ipsec-mb's version, if built with the `ipsec-mb` feature.
    pub ipsec_mb: Option<String>,
}

impl Machine {
    /// Describe this machine now (`load_after` is filled by
    /// [`Machine::finish`]).
    pub fn describe() -> Machine {
        let cpu = cpuinfo();
        let (clock_ghz, clock_source) = cpu.clock_ghz();
        Machine {
            cpu,
            logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            clock_ghz,
            clock_source,
            default_kernel: aesflow_cipher::detect_best().name().to_string(),
            load_before: loadavg(),
            load_after: None,
            rustc: env!("AESFLOW_BENCH_RUSTC").to_string(),
            openssl: crate::openssl::openssl_version(),
            ipsec_mb: crate::ipsec_mb_version(),
        }
    }

    /// This description with `kernel` as the kernel aesflow ran on.
    pub fn with_kernel(mut self, kernel: &dyn aesflow_cipher::Kernel) -> Machine {
        self.default_kernel = kernel.name().to_string();
        self
    }

    /// Record the load average after the run.
    pub fn finish(&mut self) {
        self.load_after = loadavg();
    }

    /// A few lines for the head of a text report.
    pub fn header(&self) -> String {
        let mut s = format!(
            "cpu: {} ({} logical CPUs; {})\n",
            self.cpu.model.as_deref().unwrap_or("unknown"),
            self.logical_cpus,
            self.cpu.aes_flags.join(" ")
        );
        s += &format!(
            "cycles: at {:.3} GHz ({}); default kernel: {}\n",
            self.clock_ghz, self.clock_source, self.default_kernel
        );
        s += &format!(
            "versions: {}; {}; ipsec-mb {}\n",
            self.rustc,
            self.openssl.as_deref().unwrap_or("openssl not found"),
            self.ipsec_mb.as_deref().unwrap_or("not built in")
        );
        s += &format!(
            "load average before: {}, after: {}\n",
            self.load_before.as_deref().unwrap_or("?"),
            self.load_after.as_deref().unwrap_or("?")
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_model_clock_and_flags() {
        let t = "processor\t: 0\ncpu family\t: 6\nmodel\t\t: 85\n\
                 model name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\n\
                 cpu MHz\t\t: 3100.000\nflags\t\t: fpu aes avx2 avx512f pclmulqdq\n\
                 processor\t: 1\nmodel name\t: other\n";
        let c = parse_cpuinfo(t);
        assert_eq!(
            c.model.as_deref(),
            Some("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz")
        );
        assert_eq!((c.family, c.model_number), (Some(6), Some(85)));
        assert_eq!((c.model_mhz, c.cpu_mhz), (Some(2500.0), Some(3100.0)));
        assert_eq!(c.aes_flags, ["aes", "pclmulqdq", "avx2", "avx512f"]);
        assert_eq!(c.clock_ghz().0, 2.5);
        let amd = parse_cpuinfo("model name\t: AMD EPYC\ncpu MHz\t: 2445.404\n");
        assert!((amd.clock_ghz().0 - 2.445404).abs() < 1e-9);
        assert_eq!(parse_cpuinfo("").clock_ghz().0, ASSUMED_GHZ);
    }
}
