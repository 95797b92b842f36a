//! Helpers shared by the designs crate's integration tests.

use aesflow_array::{Mapping, Platform};
use aesflow_cipher::{Aes, KeyExpansion, KeySize};
use aesflow_designs::report::fips_key;
use aesflow_designs::run::map_design;
use aesflow_designs::{Design, Engine, Expansion, Run, run_design};

/// The paper's eight engines, each with online and offline key expansion.
pub fn paper_points() -> impl Iterator<Item = (Engine, Expansion)> {
    Engine::ALL
        .into_iter()
        .flat_map(|e| Expansion::ALL.map(|x| (e, x)))
}

/// Asserts that `ct` is `blocks` encrypted under `key` by the reference
/// kernel (`what` names the design in a failure).
pub fn assert_encrypts(key: &[u8], blocks: &[[u8; 16]], ct: &[[u8; 16]], what: &str) {
    let aes = Aes::with_kernel_name(key, "reference", KeyExpansion::Offline).unwrap();
    assert_eq!(ct.len(), blocks.len(), "{what}");
    for (p, c) in blocks.iter().zip(ct) {
        let mut q = *p;
        aes.encrypt_block(&mut q);
        assert_eq!(q, *c, "{what}");
    }
}

/// `d` mapped for AES-128 (the FIPS-197 key) on the default platform.
pub fn map128(d: &Design) -> Mapping {
    map_design(d, &fips_key(KeySize::Aes128), &Platform::default()).unwrap()
}

/// `d` run on `blocks` under the FIPS-197 AES-128 key on the default
/// platform.
pub fn run128(d: &Design, blocks: &[[u8; 16]]) -> Run {
    run_design(d, &fips_key(KeySize::Aes128), blocks, &Platform::default()).unwrap()
}
