#![no_main]
//! `cargo +nightly fuzz run raw_padding`: see `aesflow_fuzzing::raw_padding`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| aesflow_fuzzing::raw_padding(data));
