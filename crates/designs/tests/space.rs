//! The design space reproduces the paper's eight engines.

use aesflow_array::Platform;
use aesflow_cipher::KeySize;
use aesflow_designs::report::{fips_key, test_blocks};
use aesflow_designs::space::{Params, generate};
use aesflow_designs::{Engine, Expansion, Optimisations, build, run_design};
use common::{assert_encrypts, map128, paper_points, run128};

mod common;

fn kinds(d: &aesflow_designs::Design) -> Vec<String> {
    d.actors.iter().map(|a| a.role.kind()).collect()
}

#[test]
fn the_papers_eight_are_points_of_the_space() {
    let blocks = test_blocks(256, 7);
    for (e, x) in paper_points() {
        let p = Params::paper(e, KeySize::Aes128, x);
        assert_eq!(p.paper_engine(), Some(e));
        let g = generate(&p).unwrap();
        let b = build(e, KeySize::Aes128, x, Optimisations::ALL);
        // Same actors (kinds, firings, rounds) and the same edges.
        assert_eq!(kinds(&g), kinds(&b), "{} {x:?}", e.name());
        assert_eq!(g.edges, b.edges, "{} {x:?}", e.name());
        assert_eq!(g.interleave, b.interleave);
        let (mg, mb) = (map128(&g), map128(&b));
        assert_eq!(mg.total_cores(), mb.total_cores(), "{} {x:?}", e.name());
        assert_eq!(mg.comm_cores(), mb.comm_cores(), "{} {x:?}", e.name());
        let rg = run128(&g, &blocks);
        let rb = run128(&b, &blocks);
        assert_eq!(
            rg.cycles_per_block,
            rb.cycles_per_block,
            "{} {x:?}",
            e.name()
        );
    }
}

#[test]
fn enumeration_is_valid_and_holds_the_eight() {
    for k in KeySize::ALL {
        let all = Params::enumerate(k);
        assert!(all.iter().all(|p| p.validate().is_ok()));
        if k == KeySize::Aes128 {
            for (e, x) in paper_points() {
                assert!(all.contains(&Params::paper(e, k, x)), "{}", e.name());
            }
        }
    }
    let bad = Params {
        loops: 4,
        ..Params::paper(Engine::Otop, KeySize::Aes128, Expansion::Online)
    };
    assert!(bad.validate().is_err());
    assert!(generate(&bad).is_err());
}

#[test]
fn every_generated_design_encrypts_correctly() {
    let platform = Platform::default();
    for k in KeySize::ALL {
        let key = fips_key(k);
        let blocks = test_blocks(16, k.bits() as u64);
        for p in Params::enumerate(k).into_iter().filter(|p| p.copies == 1) {
            let d = generate(&p).unwrap();
            let r = run_design(&d, &key, &blocks, &platform)
                .unwrap_or_else(|e| panic!("{} AES-{}: {e}", p.label(), k.bits()));
            let what = format!("{} AES-{}", p.label(), k.bits());
            assert_encrypts(&key, &blocks, &r.ciphertext, &what);
        }
    }
}
