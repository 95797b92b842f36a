use aesflow_cipher::KeySize;
use aesflow_designs::report::*;
#[test]
#[ignore]
fn print_table() {
    let p = aesflow_array::Platform::default();
    for k in KeySize::ALL {
        let t0 = std::time::Instant::now();
        let rows = table2(k, 4096, &p).unwrap();
        println!("{}", format_table(&rows, &p));
        println!(
            "sim seconds {:.2} total {:.2}",
            rows.iter().map(|r| r.sim_seconds).sum::<f64>(),
            t0.elapsed().as_secs_f64()
        );
    }
}
