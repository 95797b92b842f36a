//! # aesflow-engine: the host engine on all cores, and the Cobblestone format
//!
//! * [`pool`] — a reusable pool of worker threads ([`Pool`]); default: one
//!   per available CPU.
//! * [`par`] — parallel CTR, ECB, CBC decryption and GCM over a pool,
//!   byte-identical to the serial modes.
//! * [`cobblestone`] — C2SP chunked encryption with HKDF-SHA-512 and
//!   AES-256-GCM / AES-128-GCM (Cobblestone-256 / -128): in memory, on
//!   streams, on files with parallel positional I/O, and random access.
//! * [`passphrase`] — the small versioned header (Argon2id parameters and
//!   salt) that precedes a Cobblestone message encrypted under a passphrase.
//! * [`raw`] — `openssl enc`-compatible raw modes.
//! * [`files`] — whole encryption and decryption jobs on files and streams
//!   (output through the `aesflow-output` crate's atomic files); the
//!   command line plans jobs, reads keys and prompts, draws progress and
//!   prints summaries.
//! * [`bench`] — the benchmarks behind the README's figures.
//!
//! ```
//! use aesflow_engine::{Pool, cobblestone::{self, Suite}};
//! let pool = Pool::new(0).unwrap();
//! let key = [7u8; 32];
//! let msg = vec![42u8; 100_000];
//! let ct = cobblestone::encrypt(&pool, Suite::Cobblestone256, &key, b"ctx", &msg).unwrap();
//! assert_eq!(cobblestone::decrypt(&pool, Suite::Cobblestone256, &key, b"ctx", &ct).unwrap(), msg);
//! assert!(cobblestone::decrypt(&pool, Suite::Cobblestone256, &key, b"other", &ct).is_err());
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod bench;
pub mod cobblestone;
pub mod error;
pub mod files;
pub mod par;
pub mod passphrase;
pub mod pool;
pub mod raw;
pub mod streams;

pub use error::{Error, Result};
pub use pool::{Pool, available_threads};
