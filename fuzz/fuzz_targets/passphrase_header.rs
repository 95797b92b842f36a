#![no_main]
//! `cargo +nightly fuzz run passphrase_header`: see `aesflow_fuzzing::passphrase_header`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| aesflow_fuzzing::passphrase_header(data));
