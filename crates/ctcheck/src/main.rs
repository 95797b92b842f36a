//! `aesflow-ctcheck CASE…`: runs constant-time check cases (see the crate
//! docs); meant to run under `valgrind --tool=memcheck`.

use aesflow_ctcheck::{Case, valgrind};
use std::process::ExitCode;

fn main() -> ExitCode {
    let names: Vec<String> = std::env::args().skip(1).collect();
    if names.is_empty() {
        let all: Vec<&str> = Case::ALL.iter().map(|c| c.name()).collect();
        eprintln!(
            "usage: aesflow-ctcheck CASE...   (cases: {})",
            all.join(", ")
        );
        return ExitCode::from(2);
    }
    for name in &names {
        let Some(case) = Case::from_name(name) else {
            eprintln!("aesflow-ctcheck: unknown case {name:?}");
            return ExitCode::from(2);
        };
        if let Err(e) = case.run() {
            eprintln!("aesflow-ctcheck: {name}: {e}");
            return ExitCode::FAILURE;
        }
    }
    let under = if valgrind::running_on_valgrind() {
        "under valgrind"
    } else {
        "natively"
    };
    println!("ran {} ({under})", names.join(", "));
    ExitCode::SUCCESS
}
