use aesflow_cipher::KeySize;
use aesflow_designs::{Engine, Expansion};
use aesflow_energy::activity::*;
fn main() {
    let a = run(
        &RunSpec::engine(Engine::Small, KeySize::Aes128, Expansion::Offline, 512),
        &platform(),
        None,
    )
    .unwrap();
    for c in &a.cores {
        println!(
            "{} {} exec {} nop {} stall {} halted {}",
            c.name, c.kind, c.exec, c.nop, c.stall, c.halted
        );
    }
}
