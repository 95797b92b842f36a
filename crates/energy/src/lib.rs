//! scratch
#![forbid(unsafe_code)]
pub mod activity;
pub mod dvfs;
pub mod power;
