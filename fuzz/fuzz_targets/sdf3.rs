#![no_main]
//! `cargo +nightly fuzz run sdf3`: see `aesflow_fuzzing::sdf3`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| aesflow_fuzzing::sdf3(data));
