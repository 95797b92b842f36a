//! Rewrite the shipped description files `engines/*.aesflow` from the
//! built-in designs (run from `crates/designs`):
//! `cargo run -p aesflow-designs --example regenerate_engines`.
//! The test `shipped_files_are_the_builtin_designs` checks they agree.

use aesflow_cipher::KeySize;
use aesflow_designs::Engine;
use aesflow_designs::describe::write;

fn main() -> std::io::Result<()> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("engines");
    for e in Engine::ALL {
        let d = e.base_design(KeySize::Aes128);
        let path = dir.join(format!("{}.aesflow", e.slug()));
        std::fs::write(&path, write(&d))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
