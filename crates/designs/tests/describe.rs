use aesflow_cipher::KeySize;
use aesflow_designs::Engine;
use aesflow_designs::describe::{SHIPPED, parse, to_dot, write};

#[test]
fn shipped_files_are_the_builtin_designs() {
    for (slug, text) in SHIPPED {
        let e = Engine::parse(slug).unwrap();
        let d = parse(text).unwrap();
        assert_eq!(d, e.base_design(KeySize::Aes128), "{slug}");
        assert!(to_dot(&d).starts_with("digraph"));
    }
}

#[test]
fn round_trip_all_sizes() {
    for k in KeySize::ALL {
        for e in Engine::ALL {
            let d = e.base_design(k);
            assert_eq!(parse(&write(&d)).unwrap(), d);
        }
    }
}

/// SubBytes-1 designs carry byte parts (`SubBytes:b5`, `state:b5`) in
/// steps and edges; they read back as the same design.
#[test]
fn byte_parts_round_trip() {
    use aesflow_designs::Expansion;
    use aesflow_designs::space::{Params, Split, Style, generate};
    for (loops, x) in [(1, Expansion::Online), (9, Expansion::Offline)] {
        let p = Params {
            loops,
            style: Style::Merge {
                sub: Split::Bytes,
                mix: Split::Columns,
                fuse_mix_key: false,
            },
            ..Params::paper(Engine::Otop, KeySize::Aes128, x)
        };
        let d = generate(&p).unwrap();
        let t = write(&d);
        assert!(t.contains("steps=SubBytes:b5\n"), "{t}");
        assert!(t.contains(" state:b5 "), "{t}");
        assert!(t.contains("steps=MixColumns:2..3"), "{t}");
        assert_eq!(parse(&t).unwrap(), d, "{}", p.label());
    }
}

#[test]
fn parts_parse_as_written() {
    use aesflow_designs::kinds::Part;
    for a in 0..16u8 {
        for b in a + 1..=16 {
            let p = Part(a, b);
            assert_eq!(Part::parse(&p.to_string()), Ok(p), "{p}");
        }
    }
    assert_eq!(Part::ALL.to_string(), "0..4");
    assert_eq!(Part::byte(7).to_string(), "b7");
    assert_eq!(Part(2, 4).to_string(), "b2..4");
    for bad in [
        "b16", "b3..3", "b4..2", "0..5", "1..1", "b", "x", "b1..17", "3",
    ] {
        assert!(Part::parse(bad).is_err(), "{bad}");
    }
}

mod user_files {
    use aesflow_array::Platform;
    use aesflow_cipher::KeySize;
    use aesflow_designs::describe::{parse, write};
    use aesflow_designs::report::{fips_key, test_blocks};
    use aesflow_designs::run::map_design;
    use aesflow_designs::{Engine, Error, Expansion, Optimisations, build, run_design};

    fn small() -> String {
        write(&Engine::Small.base_design(KeySize::Aes128))
    }

    fn without(text: &str, pat: &dyn Fn(&str) -> bool) -> String {
        text.lines()
            .filter(|l| !pat(l))
            .map(|l| format!("{l}\n"))
            .collect()
    }

    #[test]
    fn byte_parts_stay_between_cipher_cores_and_mix_columns_takes_columns() {
        let t = small();
        let last = t
            .lines()
            .rfind(|l| l.contains(" ciphertext state:"))
            .unwrap();
        let bytes = last.replace("state:0..4", "state:b0..16");
        assert!(
            parse(&t.replace(last, &bytes)).is_ok(),
            "word-aligned bytes"
        );
        let one = last.replace("state:0..4", "state:b3");
        let e = parse(&t.replace(last, &one)).unwrap_err();
        assert!(e.to_string().contains("byte-level part b3"), "{e}");
        let mix = t.lines().find(|l| l.contains("MixColumns:")).unwrap();
        let e = parse(&t.replace(mix, &mix.replace("MixColumns:0..4", "MixColumns:b0..2")))
            .unwrap_err();
        assert!(e.to_string().contains("whole columns"), "{e}");
    }

    #[test]
    fn deleted_key_expansion_edges_are_an_error_not_a_hang() {
        let t = without(&small(), &|l| {
            l.starts_with("edge ks") || l.contains(" ksw ")
        });
        match parse(&t) {
            Err(Error::Invalid { actor: Some(a), .. }) => assert!(a.starts_with("ks"), "{a}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn missing_key_paths_are_an_error_not_preloaded_keys() {
        let t = without(&small(), &|l| l.contains(" key:"));
        let e = parse(&t).unwrap_err();
        assert!(e.to_string().contains("missing key path"), "{e}");
        // Every key edge and the key source's edges gone, key cores kept.
        let t = without(&small(), &|l| {
            l.contains("cipherkey") && l.starts_with("edge")
        });
        assert!(parse(&t).is_err());
        // Without key source and key cores the design is offline: fine.
        let t = without(&small(), &|l| {
            l.contains("cipherkey") || l.contains(" ks") || l.contains(" key:")
        });
        let d = parse(&t).unwrap();
        let blocks = test_blocks(8, 3);
        let r = run_design(
            &d,
            &fips_key(KeySize::Aes128),
            &blocks,
            &Platform::default(),
        )
        .unwrap();
        assert_eq!(r.ciphertext.len(), 8);
    }

    #[test]
    fn bad_numbers_are_errors() {
        for (from, to) in [
            ("interleave 2", "interleave 100"),
            ("interleave 2", "interleave 0"),
            ("actor sb Cipher n=9", "actor sb Cipher n=4000000000"),
            ("actor sb Cipher n=9", "actor sb Cipher n=0"),
            ("round=1 steps=SubBytes", "round=4294967295 steps=SubBytes"),
        ] {
            let t = small().replace(from, to);
            assert!(parse(&t).is_err(), "{to}");
        }
    }

    #[test]
    fn no_blocks_is_an_error() {
        let d = build(
            Engine::Otop,
            KeySize::Aes128,
            Expansion::Online,
            Optimisations::ALL,
        );
        let e = run_design(&d, &fips_key(KeySize::Aes128), &[], &Platform::default());
        assert!(matches!(e, Err(Error::NoBlocks)));
    }

    #[test]
    fn a_design_over_the_chip_is_flagged() {
        for (key, opts, cores, over) in [
            (KeySize::Aes256, Optimisations::ALL, 193, true),
            (KeySize::Aes128, Optimisations::NONE, 164, false),
        ] {
            let d = build(Engine::FullParallelism, key, Expansion::Online, opts);
            let m = map_design(&d, &fips_key(key), &Platform::default()).unwrap();
            assert_eq!(m.total_cores(), cores);
            assert_eq!(m.exceeds_chip, over);
        }
    }
}

/// A design file with 100,000 actors (a chain of AddRoundKey cores) is
/// read, checked, compiled, mapped, simulated and analysed in time linear
/// in its size: actors are looked up by name through an index and every
/// walk over the actors uses edge lists built once. With a scan per lookup
/// this file took minutes; the chain is valid, so every stage runs.
#[test]
fn a_hundred_thousand_actor_file_is_handled_in_linear_time() {
    use aesflow_array::Platform;
    use aesflow_designs::analysis::sdf_bound;
    use aesflow_designs::report::{fips_key, test_blocks};
    use std::fmt::Write;

    let n = 100_000 - 2;
    let mut text = String::from("design Chain\nkey 128\ninterleave 1\n");
    text.push_str("actor plaintext PlainSource\nactor ciphertext Sink\n");
    for i in 0..n {
        let _ = writeln!(text, "actor a{i} Cipher round=0 steps=AddRoundKey:0..4");
    }
    let mut prev = "plaintext".to_string();
    for i in 0..n {
        let _ = writeln!(text, "edge {prev} a{i} state:0..4");
        prev = format!("a{i}");
    }
    let _ = writeln!(text, "edge {prev} ciphertext state:0..4");
    let d = parse(&text).unwrap();
    assert_eq!(d.actors.len(), 100_000);

    // A name looked up late in the file is still found (or reported).
    let bad = text.replace("edge a99997 ciphertext", "edge a99997 nowhere");
    let e = parse(&bad).unwrap_err().to_string();
    assert!(e.contains("no actor nowhere"), "{e}");
    let dup = format!("{text}actor a5 Cipher round=0 steps=AddRoundKey:0..4\n");
    let e = parse(&dup).unwrap_err().to_string();
    assert!(e.contains("duplicate actor a5"), "{e}");

    let platform = Platform::asap2();
    let blocks = test_blocks(8, 1);
    let r = aesflow_designs::run_design(&d, &fips_key(d.key), &blocks, &platform).unwrap();
    assert_eq!(r.ciphertext.len(), 8);
    assert!(r.mapping.exceeds_chip);
    // Every core does one AddRoundKey (Table 1: 22 cycles per block).
    let (bound, critical) = sdf_bound(&d).unwrap();
    assert_eq!(bound, 22.0);
    assert!(!critical.is_empty());
}
