//! The SDF3 export round-trips: read back by the SDF3 reader and analysed
//! with SDF3's semantics (auto-concurrency, unbounded channels), it has
//! aesflow's period per block for every engine and generated design.

use aesflow_cipher::KeySize;
use aesflow_designs::analysis::{sdf_bound, sdf3_cycles_per_block, to_sdf3};
use aesflow_designs::space::{Params, generate};
use aesflow_designs::{Engine, Expansion, Optimisations, build};

fn check(d: &aesflow_designs::Design) {
    let xml = to_sdf3(d).unwrap();
    let (want, _) = sdf_bound(d).unwrap();
    let got = sdf3_cycles_per_block(&xml).unwrap();
    assert!(want > 0.0 && want.is_finite(), "{}", d.name);
    assert_eq!(got, want, "{}", d.name);
}

#[test]
fn the_engines_round_trip_under_sdf3_semantics() {
    for k in KeySize::ALL {
        for e in Engine::ALL {
            for x in Expansion::ALL {
                check(&build(e, k, x, Optimisations::ALL));
            }
        }
    }
    // Small holds two blocks per loop: the document says so.
    let small = build(
        Engine::Small,
        KeySize::Aes128,
        Expansion::Online,
        Optimisations::ALL,
    );
    let xml = to_sdf3(&small).unwrap();
    assert!(xml.contains("interleave=2") && xml.contains("period / 2"));
}

#[test]
fn generated_designs_round_trip() {
    for p in Params::enumerate(KeySize::Aes128)
        .into_iter()
        .filter(|p| p.copies == 1)
        .step_by(5)
    {
        check(&generate(&p).unwrap());
    }
}

#[test]
fn pipelines_are_bounded_by_their_slowest_core() {
    // Without self-edges these had unbounded throughput under SDF3's
    // semantics; with them, the slowest core bounds the period.
    for (e, want) in [
        (Engine::LoopUnrolledNine, 266.0),
        (Engine::FullParallelism, 70.0),
        (Engine::NoMerge, 146.0),
    ] {
        let d = build(e, KeySize::Aes128, Expansion::Offline, Optimisations::ALL);
        assert_eq!(sdf3_cycles_per_block(&to_sdf3(&d).unwrap()).unwrap(), want);
    }
}
