#![no_main]
//! `cargo +nightly fuzz run cobblestone`: see `aesflow_fuzzing::cobblestone`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| aesflow_fuzzing::cobblestone(data));
