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
