//! # aesflow-modes: modes of operation over any aesflow AES kernel
//!
//! placeholder docs
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod cbc;
pub mod cfb;
pub mod ctr;
pub mod ecb;
pub mod error;
pub mod gcm;
mod kernels;
pub mod ofb;
pub mod padding;
pub mod streaming;

pub use cbc::Cbc;
pub use cfb::{Cfb, Cfb1, Cfb8};
pub use ctr::Ctr;
pub use error::{Error, Result};
pub use gcm::{Gcm, GcmOptions, Tag};
pub use ofb::Ofb;
pub use padding::Padding;
pub use streaming::{BlockDecryptor, BlockEncryptor};
