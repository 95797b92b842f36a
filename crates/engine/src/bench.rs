//! Benchmarks (to do).
