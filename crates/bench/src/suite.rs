//! A suite run: the machine, then each section asked for, in
//! [`Section::ALL`] order — the document `aesflow bench --json` prints.

use crate::engine::{EngineOptions, run_engine};
use crate::kernels::{BenchOptions, run as run_kernels};
use crate::machine::Machine;
use crate::modes::{ModesOptions, run_modes};
use crate::row::Section;
use crate::{BenchError, Report};
use serde::Serialize;
use std::time::Instant;

/// Options of a suite run: each present section is run.
#[derive(Clone, Debug, Default)]
pub struct SuiteOptions {
    /// The kernels section.
    pub kernels: Option<BenchOptions>,
    /// The modes section.
    pub modes: Option<ModesOptions>,
    /// The engine section.
    pub engine: Option<EngineOptions>,
}

/// One section's result.
#[derive(Clone, Debug, Serialize)]
pub struct SectionReport {
    /// Which section.
    pub section: Section,
    /// Wall-clock seconds the section took.
    pub seconds: f64,
    /// Rows and notes.
    #[serde(flatten)]
    pub report: Report,
}

/// Result of a suite run.
#[derive(Clone, Debug, Serialize)]
pub struct SuiteReport {
    /// The machine and software measured.
    pub machine: Machine,
    /// The sections run, in order.
    pub sections: Vec<SectionReport>,
}

impl SuiteReport {
    /// The section's report, if it was run.
    pub fn section(&self, s: Section) -> Option<&Report> {
        self.sections
            .iter()
            .find(|x| x.section == s)
            .map(|x| &x.report)
    }
}

/// A section's run, given the progress callback.
type SectionFn<'a> = dyn FnMut(&mut dyn FnMut(&str)) -> Result<Report, BenchError> + 'a;

/// Run the sections present in `opts`; `progress` is told what is being
/// measured (the CLI shows it on stderr).
pub fn run_suite(
    opts: &SuiteOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<SuiteReport, BenchError> {
    let mut machine = Machine::describe();
    // The kernel the sections ran on (they share the one the caller chose).
    let kernel = (opts.modes.as_ref().map(|o| o.kernel)).or(opts.engine.as_ref().map(|o| o.kernel));
    if let Some(k) = kernel {
        machine = machine.with_kernel(k);
    }
    let mut sections = Vec::new();
    let mut timed = |section: Section, f: &mut SectionFn<'_>| -> Result<(), BenchError> {
        let t = Instant::now();
        let report = f(progress)?;
        sections.push(SectionReport {
            section,
            seconds: t.elapsed().as_secs_f64(),
            report,
        });
        Ok(())
    };
    if let Some(o) = &opts.kernels {
        timed(Section::Kernels, &mut |p| run_kernels(o, p))?;
    }
    if let Some(o) = &opts.modes {
        timed(Section::Modes, &mut |p| run_modes(o, p))?;
    }
    if let Some(o) = &opts.engine {
        timed(Section::Engine, &mut |p| run_engine(o, p))?;
    }
    machine.finish();
    Ok(SuiteReport { machine, sections })
}

/// The suite as one pretty-printed JSON document.
pub fn render_suite_json(report: &SuiteReport) -> String {
    serde_json::to_string_pretty(report).expect("the report serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_suite_renders() {
        let r = run_suite(&SuiteOptions::default(), &mut |_| {}).unwrap();
        assert!(r.sections.is_empty() && r.section(Section::Modes).is_none());
        assert!(r.machine.header().contains("load average"));
        let j: serde_json::Value = serde_json::from_str(&render_suite_json(&r)).unwrap();
        assert!(j["sections"].as_array().unwrap().is_empty());
        assert!(j["machine"]["rustc"].as_str().unwrap().starts_with("rustc"));
    }
}
