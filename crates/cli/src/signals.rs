//! SIGINT/SIGTERM/SIGHUP: restore the terminal (a passphrase prompt may
//! have turned echo off), stop every output commit, remove named temporary
//! files, say truthfully which outputs exist (files committed, and how
//! much already went to stdout), and exit with status 130.
//!
//! The outputs' commit and this handler take one lock
//! ([`aesflow_output::abort_all`]): a signal that lands while an output is
//! being named waits for it and then reports it as written; every later
//! commit is refused. SIGKILL, SIGQUIT and SIGXFSZ cannot be handled, and
//! need not be: outputs are unnamed (`O_TMPFILE`) until committed, so the
//! kernel frees them.

use std::io::Write;

/// Install the handler (once).
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            crate::prompt::restore_terminal();
            let written = aesflow_output::abort_all();
            let mut e = std::io::stderr().lock();
            let mut parts: Vec<String> = Vec::new();
            if !written.is_empty() {
                let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
                parts.push(format!(
                    "written before the interrupt: {}",
                    names.join(", ")
                ));
            }
            parts.extend(crate::stdio::stdout_note());
            let _ = if parts.is_empty() {
                writeln!(e, "aesflow: interrupted; no output written")
            } else {
                writeln!(
                    e,
                    "aesflow: interrupted; {}; no other output",
                    parts.join("; ")
                )
            };
            std::process::exit(crate::exit::INTERRUPTED.into());
        });
    });
}
