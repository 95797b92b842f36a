//! Running the external tools (Icarus Verilog, Yosys): their absence is an
//! error of its own kind, so that tests can skip with a reason.

use std::fmt;
use std::path::Path;
use std::process::Command;

/// An error from a tool run.
#[derive(Debug)]
pub enum Error {
    /// The tool is not installed (not on `PATH`).
    ToolMissing(String),
    /// The tool ran and failed, or its output could not be read.
    Tool {
        /// The program.
        tool: String,
        /// What went wrong (its stderr's tail).
        message: String,
    },
    /// Reading or writing the work files.
    Io(std::io::Error),
    /// The design ran but did not do what it must (a wrong block, a wrong
    /// cycle).
    Check(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ToolMissing(t) => write!(f, "{t} is not installed (not on PATH)"),
            Error::Tool { tool, message } => write!(f, "{tool} failed: {message}"),
            Error::Io(e) => write!(f, "{e}"),
            Error::Check(m) => write!(f, "check failed: {m}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

/// Whether `tool` can be run (found on `PATH`).
pub fn tool_available(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(tool).is_file()))
}

/// Run `tool args` (a program on `PATH`) in `dir`; its stdout on success.
pub(crate) fn run(tool: &str, args: &[&str], dir: &Path) -> Result<String, Error> {
    if !tool_available(tool) {
        return Err(Error::ToolMissing(tool.into()));
    }
    run_program(Path::new(tool), args, dir)
}

/// Run the program `program` (a path, or a name on `PATH`) in `dir`; its
/// stdout on success.
pub(crate) fn run_program(program: &Path, args: &[&str], dir: &Path) -> Result<String, Error> {
    let tool = program.file_name().map_or_else(
        || program.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::ToolMissing(tool.clone()),
            _ => Error::Io(e),
        })?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let text = if err.trim().is_empty() {
            &stdout
        } else {
            &*err
        };
        let tail: Vec<&str> = text.lines().rev().take(12).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(Error::Tool {
            tool,
            message: tail.join("\n"),
        });
    }
    Ok(stdout)
}
