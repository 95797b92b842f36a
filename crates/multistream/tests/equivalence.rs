//! The multi-stream engine against single-stream RustCrypto references.

mod common;

use aesflow_multistream::{
    Backend, Error, InPlaceJob, Job, Key, Mode, MultiStream, RoundKeys, Scratch, process,
};
use common::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn engines() -> Vec<MultiStream> {
    let v: Vec<MultiStream> = Backend::available()
        .into_iter()
        .map(|b| MultiStream::new(b).unwrap())
        .collect();
    eprintln!(
        "backends under test: {:?}",
        v.iter().map(|e| e.backend()).collect::<Vec<_>>()
    );
    v
}

/// The engines of the hardware backends (the slow portable one skips the
/// long tests), each also with every lane and with one group for streams
/// with keys of their own where that differs from its default (on Zen 4
/// the 512-bit engine runs such streams on 16 of its 32 lanes, so the
/// 32-lane path is tested through the knob).
fn hardware_engines() -> impl Iterator<Item = MultiStream> {
    engines()
        .into_iter()
        .filter(|e| e.backend() != Backend::Portable)
        .flat_map(|e| {
            let mut v = vec![e];
            for lanes in [e.lanes(), 4] {
                if lanes != e.own_key_lanes() && v.iter().all(|x| x.own_key_lanes() != lanes) {
                    v.push(e.with_own_key_lanes(lanes));
                }
            }
            v
        })
}

struct Case {
    mode: Mode,
    key: Vec<u8>,
    iv: [u8; 16],
    data: Vec<u8>,
}

fn random_cases(rng: &mut StdRng, n: usize, mixed_modes: bool) -> Vec<Case> {
    let mode0 = random_mode(rng);
    (0..n)
        .map(|_| {
            let mode = if mixed_modes { random_mode(rng) } else { mode0 };
            let len = random_len(rng, mode);
            Case {
                mode,
                key: random_key(rng),
                iv: rng.random(),
                data: random_bytes(rng, len),
            }
        })
        .collect()
}

fn check(engine: &MultiStream, cases: &[Case], keys: &[Key<'_>], in_place: bool, what: &str) {
    check_with(engine, None, cases, keys, in_place, what)
}

/// [`check`] through `process_with`/`process_in_place_with` on `scratch`
/// when given, else through `process`/`process_in_place`.
fn check_with(
    engine: &MultiStream,
    scratch: Option<&mut Scratch>,
    cases: &[Case],
    keys: &[Key<'_>],
    in_place: bool,
    what: &str,
) {
    let mut outs: Vec<Vec<u8>> = cases.iter().map(|c| vec![0u8; c.data.len()]).collect();
    let ivs: Vec<[u8; 16]> = if in_place {
        for (o, c) in outs.iter_mut().zip(cases) {
            o.copy_from_slice(&c.data);
        }
        let mut jobs: Vec<InPlaceJob<'_>> = cases
            .iter()
            .zip(outs.iter_mut())
            .zip(keys)
            .map(|((c, o), k)| InPlaceJob::new(c.mode, *k, c.iv, o))
            .collect();
        match scratch {
            Some(s) => engine.process_in_place_with(s, &mut jobs).unwrap(),
            None => engine.process_in_place(&mut jobs).unwrap(),
        }
        jobs.iter().map(|j| j.iv).collect()
    } else {
        let mut jobs: Vec<Job<'_>> = cases
            .iter()
            .zip(outs.iter_mut())
            .zip(keys)
            .map(|((c, o), k)| Job::new(c.mode, *k, c.iv, &c.data, o))
            .collect();
        match scratch {
            Some(s) => engine.process_with(s, &mut jobs).unwrap(),
            None => engine.process(&mut jobs).unwrap(),
        }
        jobs.iter().map(|j| j.iv).collect()
    };
    for (i, c) in cases.iter().enumerate() {
        let want = reference(c.mode, &c.key, &c.iv, &c.data);
        assert!(
            outs[i] == want,
            "{what}: backend {} ({} own-key lanes) stream {i}/{} ({}, {}-bit key, {} bytes) differs",
            engine.backend(),
            engine.own_key_lanes(),
            cases.len(),
            c.mode,
            8 * c.key.len(),
            c.data.len()
        );
        if c.data.len().is_multiple_of(16) {
            assert_eq!(
                ivs[i],
                expected_iv(c.mode, &c.key, &c.iv, &c.data, &outs[i]),
                "{what}: backend {} stream {i} continuation value",
                engine.backend()
            );
        }
    }
}

#[test]
fn random_mixes_every_backend() {
    let mut rng = StdRng::seed_from_u64(0x003_5eed);
    for engine in engines() {
        let trials = if engine.backend() == Backend::Portable {
            6
        } else {
            40
        };
        for t in 0..trials {
            let n = rng.random_range(1..=64);
            let mixed = t % 2 == 1;
            let cases = random_cases(&mut rng, n, mixed);
            let keys: Vec<Key<'_>> = cases.iter().map(|c| Key::Bytes(&c.key)).collect();
            check(&engine, &cases, &keys, t % 3 == 0, &format!("trial {t}"));
        }
    }
}

/// One `Scratch` through calls of every shape (stream counts, lengths,
/// modes, key sizes, expanded and byte keys, split and in place, a call
/// that fails validation between them): nothing of one call leaks into
/// the next. Keys re-expanded in place between calls (the same address,
/// new round keys) are read afresh.
#[test]
fn one_scratch_across_calls() {
    let mut rng = StdRng::seed_from_u64(0x5c7a);
    for engine in engines() {
        let mut scratch = Scratch::new();
        let trials = if engine.backend() == Backend::Portable {
            6
        } else {
            30
        };
        for t in 0..trials {
            let n = [1, 7, 16, 33, 64, 100][t % 6];
            let mut cases = random_cases(&mut rng, n, t % 2 == 1);
            let mut rks: Vec<RoundKeys> = cases
                .iter()
                .map(|c| RoundKeys::from_bytes(&c.key).unwrap())
                .collect();
            let what = format!("trial {t}: {n} streams, one scratch");
            {
                let keys: Vec<Key<'_>> = rks.iter().map(Key::Expanded).collect();
                check_with(
                    &engine,
                    Some(&mut scratch),
                    &cases,
                    &keys,
                    t % 3 == 0,
                    &what,
                );
            }
            // New keys at the same addresses.
            for (c, rk) in cases.iter_mut().zip(rks.iter_mut()) {
                c.key = random_key(&mut rng);
                *rk = RoundKeys::from_bytes(&c.key).unwrap();
            }
            {
                let keys: Vec<Key<'_>> = rks.iter().map(Key::Expanded).collect();
                let what = format!("{what}, re-keyed in place");
                check_with(
                    &engine,
                    Some(&mut scratch),
                    &cases,
                    &keys,
                    t % 3 == 1,
                    &what,
                );
            }
            let keys: Vec<Key<'_>> = cases.iter().map(|c| Key::Bytes(&c.key)).collect();
            let what = format!("{what}, key bytes");
            check_with(
                &engine,
                Some(&mut scratch),
                &cases,
                &keys,
                t % 3 == 2,
                &what,
            );
            // A call that fails validation leaves the scratch usable.
            let (mut a, mut b) = (vec![0u8; 32], vec![0u8; 32]);
            let mut bad = [
                InPlaceJob::new(Mode::Ofb, &rks[0], [0; 16], &mut a),
                InPlaceJob::new(Mode::Ofb, &[0u8; 17], [0; 16], &mut b),
            ];
            assert!(
                engine
                    .process_in_place_with(&mut scratch, &mut bad)
                    .is_err()
            );
        }
    }
}

/// The own-key lanes knob keeps whole groups within the engine's lanes.
#[test]
fn own_key_lanes_knob_clamps() {
    for e in engines() {
        let max = e.lanes();
        assert!(
            (1..=max).contains(&e.own_key_lanes()),
            "{} default",
            e.backend()
        );
        for asked in [0, 3, 4, 7, 16, 31, 100] {
            let got = e.with_own_key_lanes(asked).own_key_lanes();
            let want = if max < 4 {
                max
            } else {
                (asked / 4 * 4).clamp(4, max)
            };
            assert_eq!(got, want, "{} asked {asked}", e.backend());
        }
    }
}

#[test]
fn stream_counts_around_lane_boundaries() {
    let mut rng = StdRng::seed_from_u64(7);
    for engine in hardware_engines() {
        for n in [
            1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100,
        ] {
            for mode in Mode::ALL {
                let cases: Vec<Case> = (0..n)
                    .map(|i| Case {
                        mode,
                        key: random_key(&mut rng),
                        iv: rng.random(),
                        // Many equal lengths: lanes retire together.
                        data: random_bytes(&mut rng, 16 * (1 + (i % 3) * 5)),
                    })
                    .collect();
                let keys: Vec<Key<'_>> = cases.iter().map(|c| Key::Bytes(&c.key)).collect();
                check(&engine, &cases, &keys, false, &format!("{n} streams"));
            }
        }
    }
}

/// Packets: equal lengths at block boundaries around the packet sizes
/// (all lanes retire in the same kernel call), every job with expanded
/// keys of its own (read in place) or some of them shared, in and out of
/// place, at stream counts around the lane boundaries.
#[test]
fn packets_with_expanded_keys() {
    let mut rng = StdRng::seed_from_u64(576);
    for engine in hardware_engines() {
        for n in [1, 3, 4, 15, 16, 17, 31, 32, 33, 64, 65] {
            for len in [16, 32, 560, 576, 592, 1520, 1536] {
                let mode = Mode::ALL[rng.random_range(0..Mode::ALL.len())];
                let cases: Vec<Case> = (0..n)
                    .map(|_| Case {
                        mode,
                        key: random_key(&mut rng),
                        iv: rng.random(),
                        data: random_bytes(&mut rng, len),
                    })
                    .collect();
                let rks: Vec<RoundKeys> = cases
                    .iter()
                    .map(|c| RoundKeys::from_bytes(&c.key).unwrap())
                    .collect();
                let own: Vec<Key<'_>> = rks.iter().map(Key::Expanded).collect();
                let what = format!("{n} packets of {len} B, own RoundKeys");
                check(&engine, &cases, &own, n % 2 == 1, &what);
                // Every third job on the first job's key: the same
                // `RoundKeys` or the same key bytes as the first job.
                let mixed: Vec<Case> = cases
                    .iter()
                    .enumerate()
                    .map(|(i, c)| Case {
                        mode,
                        key: if i % 3 == 2 {
                            cases[0].key.clone()
                        } else {
                            c.key.clone()
                        },
                        iv: c.iv,
                        data: c.data.clone(),
                    })
                    .collect();
                let keys: Vec<Key<'_>> = (0..n)
                    .map(|i| match i % 6 {
                        2 => Key::Expanded(&rks[0]),
                        5 => Key::Bytes(&cases[0].key),
                        _ => Key::Expanded(&rks[i]),
                    })
                    .collect();
                let what = format!("{n} packets of {len} B, some keys shared");
                check(&engine, &mixed, &keys, n % 2 == 0, &what);
            }
        }
    }
}

#[test]
fn shared_keys() {
    let mut rng = StdRng::seed_from_u64(11);
    for engine in engines() {
        for key_len in [16, 24, 32] {
            let key = random_bytes(&mut rng, key_len);
            let rk = RoundKeys::from_bytes(&key).unwrap();
            let copy = key.clone();
            let n = if engine.backend() == Backend::Portable {
                5
            } else {
                40
            };
            let mut cases = random_cases(&mut rng, n, true);
            for c in cases.iter_mut() {
                c.key = key.clone();
            }
            // One slice shared by every job.
            let keys: Vec<Key<'_>> = cases.iter().map(|_| Key::Bytes(&key)).collect();
            check(&engine, &cases, &keys, false, "shared slice");
            // Pre-expanded.
            let keys: Vec<Key<'_>> = cases.iter().map(|_| Key::Expanded(&rk)).collect();
            check(&engine, &cases, &keys, true, "shared RoundKeys");
            // Equal bytes in different slices, alternating with expanded.
            let keys: Vec<Key<'_>> = (0..n)
                .map(|i| match i % 3 {
                    0 => Key::Bytes(&key),
                    1 => Key::Bytes(&copy),
                    _ => Key::Expanded(&rk),
                })
                .collect();
            check(&engine, &cases, &keys, false, "equal keys");
        }
    }
}

#[test]
fn continuation_matches_one_shot() {
    // Split each stream at a block boundary into two calls; the returned IVs
    // continue the streams.
    let mut rng = StdRng::seed_from_u64(5);
    for engine in engines() {
        let cases = random_cases(&mut rng, 24, true);
        let mut outs: Vec<Vec<u8>> = cases.iter().map(|c| vec![0u8; c.data.len()]).collect();
        let cuts: Vec<usize> = cases
            .iter()
            .map(|c| 16 * rng.random_range(0..=c.data.len() / 16))
            .collect();
        let mut ivs: Vec<[u8; 16]> = cases.iter().map(|c| c.iv).collect();
        for half in 0..2 {
            let mut jobs: Vec<Job<'_>> = cases
                .iter()
                .zip(outs.iter_mut())
                .zip(&cuts)
                .zip(&ivs)
                .map(|(((c, o), &cut), iv)| {
                    let (i, o) = if half == 0 {
                        (&c.data[..cut], &mut o[..cut])
                    } else {
                        (&c.data[cut..], &mut o[cut..])
                    };
                    Job::new(c.mode, &c.key, *iv, i, o)
                })
                .collect();
            engine.process(&mut jobs).unwrap();
            ivs = jobs.iter().map(|j| j.iv).collect();
        }
        for (c, o) in cases.iter().zip(&outs) {
            assert_eq!(*o, reference(c.mode, &c.key, &c.iv, &c.data));
        }
    }
}

#[test]
fn long_unequal_streams() {
    // A few long streams among many short ones: refill keeps going.
    let mut rng = StdRng::seed_from_u64(99);
    for engine in hardware_engines() {
        let mut cases = Vec::new();
        for i in 0..70 {
            let len = if i % 10 == 0 {
                16 * 1024
            } else {
                16 * rng.random_range(0..40)
            };
            cases.push(Case {
                mode: Mode::CbcEncrypt,
                key: random_key(&mut rng),
                iv: rng.random(),
                data: random_bytes(&mut rng, len),
            });
        }
        let keys: Vec<Key<'_>> = cases.iter().map(|c| Key::Bytes(&c.key)).collect();
        check(&engine, &cases, &keys, false, "long/short");
        check(&engine, &cases, &keys, true, "long/short in place");
    }
}

#[test]
fn free_functions_use_the_best_backend() {
    let key = [3u8; 32];
    let data = vec![9u8; 100];
    let mut out = vec![0u8; 100];
    let mut jobs = [Job::new(Mode::Ofb, &key, [1; 16], &data, &mut out)];
    process(&mut jobs).unwrap();
    assert_eq!(out, reference(Mode::Ofb, &key, &[1; 16], &data));
}

#[test]
fn errors_are_reported_before_any_output() {
    let key = [0u8; 16];
    let data = vec![1u8; 48];
    let mut short = vec![0u8; 32];
    let mut out = vec![0u8; 48];
    let mut jobs = [
        Job::new(Mode::CbcEncrypt, &key, [0; 16], &data, &mut out),
        Job::new(Mode::CbcEncrypt, &key, [0; 16], &data, &mut short),
    ];
    assert_eq!(
        process(&mut jobs),
        Err(Error::LengthMismatch {
            job: 1,
            input: 48,
            output: 32
        })
    );
    assert!(out.iter().all(|&b| b == 0), "job 0 was written");

    let odd = vec![1u8; 47];
    let mut out = vec![0u8; 47];
    let mut jobs = [Job::new(Mode::CbcEncrypt, &key, [0; 16], &odd, &mut out)];
    assert_eq!(
        process(&mut jobs),
        Err(Error::NotBlockAligned { job: 0, len: 47 })
    );
    // CFB/OFB take any length.
    let mut jobs = [Job::new(Mode::CfbEncrypt, &key, [0; 16], &odd, &mut out)];
    process(&mut jobs).unwrap();

    let bad = [0u8; 20];
    let mut out = vec![0u8; 48];
    let mut jobs = [Job::new(Mode::Ofb, &bad, [0; 16], &data, &mut out)];
    assert!(matches!(process(&mut jobs), Err(Error::Key { job: 0, .. })));
}

#[test]
fn forcing_a_missing_backend_is_a_clear_error() {
    for b in Backend::CONCRETE {
        match MultiStream::new(b) {
            Ok(e) => assert!(b.is_available() && e.backend() == b),
            Err(e) => {
                assert!(!b.is_available());
                let msg = e.to_string();
                assert!(msg.contains(b.name()) && msg.contains("lacks"), "{msg}");
            }
        }
    }
    // Auto follows the fastest constant-time kernel (family and width),
    // whatever the environment says: only applications read AESFLOW_KERNEL.
    assert_eq!(
        MultiStream::new(Backend::Auto).unwrap().backend(),
        Backend::for_kernel(aesflow_cipher::detect_best())
    );
    assert_eq!(
        MultiStream::auto().backend(),
        Backend::for_kernel(aesflow_cipher::detect_best())
    );
    for k in aesflow_cipher::available_kernels() {
        let e = MultiStream::with_kernel(k).unwrap();
        assert_eq!(e.backend(), Backend::for_kernel(k), "kernel {}", k.name());
    }
    assert_eq!("vaes256".parse::<Backend>().unwrap(), Backend::Vaes256);
    assert_eq!("AES-NI".parse::<Backend>().unwrap(), Backend::Aesni);
    assert!("nope".parse::<Backend>().is_err());
}
