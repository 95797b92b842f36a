#![no_main]
//! `cargo +nightly fuzz run engine_description`: see `aesflow_fuzzing::engine_description`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| aesflow_fuzzing::engine_description(data));
