//! Every variant kind simulated in Icarus Verilog against aesflow's cipher.

use aesflow_hw::verify::{check_blocks, check_ctr, fips197_cases, random_cases};
use aesflow_hw::{Error, Variant};

fn skip_or<T>(r: Result<T, Error>) -> Option<T> {
    match r {
        Ok(t) => Some(t),
        Err(Error::ToolMissing(t)) => {
            eprintln!("skipped: {t} is not installed");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn fips197_on_one_variant() {
    let v = Variant::parse("composite-3-4-offline").unwrap();
    let mut cases = fips197_cases();
    cases.extend(random_cases(1, 2, 5));
    let Some(r) = skip_or(check_blocks(&v, &cases)) else { return };
    assert_eq!(r.latency, 41);
    let k = cases[0].key;
    let Some(c) = skip_or(check_ctr(&v, &k, &cases[1].key, &[0xff; 16], 7, 5)) else { return };
    eprintln!("{r:?} {c:?}");
}
