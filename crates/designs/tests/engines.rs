//! The engines against the paper: every engine encrypts (FIPS-197 and random
//! blocks, all key sizes), core counts equal Table 2 and the text, cycles per
//! byte within 10% of Table 2.

use aesflow_array::Platform;
use aesflow_cipher::KeySize;
use aesflow_designs::analysis::sdf_bound;
use aesflow_designs::report::{fips_key, paper, test_blocks};
use aesflow_designs::{Engine, Expansion, Optimisations, build, run_design};
use common::{assert_encrypts, map128, paper_points, run128};

mod common;

/// FIPS-197 Appendix C: plaintext 00112233…ff, key 000102…, ciphertexts.
const FIPS_PT: [u8; 16] = [
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
];

fn fips_ct(k: KeySize) -> [u8; 16] {
    let hex = match k {
        KeySize::Aes128 => "69c4e0d86a7b0430d8cdb78070b4c55a",
        KeySize::Aes192 => "dda97ca4864cdfe06eaf70a0ec0d7191",
        KeySize::Aes256 => "8ea2b7ca516745bfeafc49904b496089",
    };
    let mut out = [0u8; 16];
    for i in 0..16 {
        out[i] = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

#[test]
fn every_engine_encrypts_fips197_and_random_blocks() {
    let platform = Platform::default();
    for k in KeySize::ALL {
        let key = fips_key(k);
        let mut blocks = vec![FIPS_PT];
        blocks.extend(test_blocks(63, k.bits() as u64));
        for (e, x) in paper_points() {
            for opt in [Optimisations::ALL, Optimisations::NONE] {
                let d = build(e, k, x, opt);
                let r = run_design(&d, &key, &blocks, &platform)
                    .unwrap_or_else(|err| panic!("{} {k} {x:?}: {err}", e.name()));
                assert_encrypts(
                    &key,
                    &blocks,
                    &r.ciphertext,
                    &format!("{} {k} {x:?}", e.name()),
                );
                assert_eq!(r.ciphertext[0], fips_ct(k), "{} {k} {x:?} FIPS", e.name());
            }
        }
    }
}

#[test]
fn core_counts_equal_table2_and_the_text() {
    for e in Engine::ALL {
        let p = paper(e);
        for (i, x) in Expansion::ALL.into_iter().enumerate() {
            let d = build(e, KeySize::Aes128, x, Optimisations::ALL);
            let m = map128(&d);
            assert_eq!(m.total_cores(), p.cores[i], "{} {x:?} cores", e.name());
            assert_eq!(m.comm_cores(), p.comm[i], "{} {x:?} comm", e.name());
        }
        if let Some(pre) = p.pre_opt_online {
            let d = build(e, KeySize::Aes128, Expansion::Online, Optimisations::NONE);
            let m = map128(&d);
            assert_eq!(m.total_cores(), pre, "{} before §5", e.name());
        }
    }
}

#[test]
fn longer_keys_add_cores_only_to_unrolled_designs() {
    let platform = Platform::default();
    let count = |e: Engine, k: KeySize| {
        let d = build(e, k, Expansion::Online, Optimisations::ALL);
        aesflow_designs::run::map_design(&d, &fips_key(k), &platform)
            .unwrap()
            .total_cores()
    };
    for e in [
        Engine::Small,
        Engine::Otop,
        Engine::ParallelMixColumns,
        Engine::ParallelSubBytesMixColumns,
        Engine::LoopUnrolledThree,
    ] {
        assert_eq!(count(e, KeySize::Aes192), count(e, KeySize::Aes128));
        assert_eq!(count(e, KeySize::Aes256), count(e, KeySize::Aes128));
    }
    // §4.9: No-merge needs 12 and 24 more cores.
    assert_eq!(count(Engine::NoMerge, KeySize::Aes192), 59 + 12);
    assert_eq!(count(Engine::NoMerge, KeySize::Aes256), 59 + 24);
}

#[test]
fn sdf_and_simulator_agree_where_one_actor_bounds() {
    let blocks = test_blocks(256, 1);
    for (e, expect, kind) in [
        (Engine::LoopUnrolledNine, 266.0, "MixColumns-16"),
        (Engine::FullParallelism, 70.0, "MixColumns-4"),
    ] {
        for x in Expansion::ALL {
            let d = build(e, KeySize::Aes128, x, Optimisations::ALL);
            let (sdf, crit) = sdf_bound(&d).unwrap();
            assert_eq!(sdf, expect, "{} {x:?} SDF", e.name());
            let crit_kinds: Vec<String> = crit
                .iter()
                .map(|n| d.actors[d.find(n).unwrap()].role.kind())
                .collect();
            assert!(crit_kinds.iter().all(|k| k == kind), "{crit_kinds:?}");
            let r = run128(&d, &blocks);
            assert_eq!(r.cycles_per_block, expect, "{} {x:?} sim", e.name());
        }
    }
}

#[test]
fn cycles_per_byte_within_ten_percent_of_table2() {
    let blocks = test_blocks(512, 2);
    for (e, x) in paper_points() {
        let d = build(e, KeySize::Aes128, x, Optimisations::ALL);
        let r = run128(&d, &blocks);
        let err = r.cycles_per_byte() / paper(e).cycles_per_byte - 1.0;
        assert!(
            err.abs() <= 0.10,
            "{} {x:?}: {:+.1}%",
            e.name(),
            100.0 * err
        );
    }
}

#[test]
fn optimisations_keep_throughput() {
    let blocks = test_blocks(256, 3);
    for e in [Engine::FullParallelism, Engine::LoopUnrolledNine] {
        let [a, b] = [Optimisations::ALL, Optimisations::NONE].map(|o| {
            let d = build(e, KeySize::Aes128, Expansion::Online, o);
            run128(&d, &blocks)
        });
        assert_eq!(a.cycles_per_block, b.cycles_per_block, "{}", e.name());
    }
}

#[test]
fn activity_accounts_for_every_cycle() {
    let d = build(
        Engine::FullParallelism,
        KeySize::Aes128,
        Expansion::Offline,
        Optimisations::ALL,
    );
    let r = run128(&d, &test_blocks(128, 4));
    for (c, s) in r.mapping.cores.iter().zip(&r.sim.cores) {
        assert_eq!(
            s.exec + s.nop + s.stall + s.halted,
            r.sim.cycles,
            "{}",
            c.name
        );
    }
    // MixColumns-4 is the bottleneck: busy nearly all the time.
    let mc = r
        .mapping
        .cores
        .iter()
        .position(|c| c.kind == "MixColumns-4")
        .unwrap();
    let s = &r.sim.cores[mc];
    assert_eq!((s.exec + s.nop) / 128, 70);
    assert!(r.sim.links.iter().any(|l| l.words > 0));
}
