use aesflow_cipher::KeySize;
use aesflow_designs::{Engine, Expansion};
use aesflow_energy::activity::*;
use aesflow_energy::dvfs::*;
use aesflow_energy::power::*;
fn main() {
    let p = platform();
    let m = PowerModel::TABLE3;
    let c = FmaxCurve::asap2();
    let t = std::time::Instant::now();
    for e in Engine::ALL {
        for x in Expansion::ALL {
            let spec = RunSpec::engine(e, KeySize::Aes128, x, 256);
            let base = run(&spec, &p, None).unwrap();
            let d = scale(&spec, &p, &m, &c, base).unwrap();
            println!(
                "{:<30} {:<7} freq {:>5.1}% dual {:>5.1}% vlow {:.3} low {} k {:.3} dT {:+.2}% ok {}",
                e.name(),
                x.name(),
                d.freq_saving() * 100.0,
                d.dual_saving() * 100.0,
                d.v_low,
                d.cores_low,
                d.margin,
                d.throughput_change() * 100.0,
                d.scaled.verified
            );
        }
    }
    println!("{:?}", t.elapsed());
}
