//! # aesflow-format: what aesflow writes, and the jobs that write it
//!
//! The file formats of aesflow and the encryption jobs on files and
//! streams, computed on the multi-core engine of `aesflow-engine` (a
//! [`Pool`] of workers and the AES kernel they run). The engine knows
//! blocks and buffers; this crate knows messages: how keys are derived and
//! committed, how a message is cut into authenticated chunks, what a header
//! says, and when plaintext may be released.
//!
//! * [`cobblestone`] — C2SP chunked encryption with HKDF-SHA-512 and
//!   AES-256-GCM / AES-128-GCM (Cobblestone-256 / -128): in memory, on
//!   streams, on files with parallel positional I/O, and random access.
//!   Chunks are independent, so they are sealed and opened on all cores.
//! * [`passphrase`] — the small versioned header (Argon2id parameters and
//!   salt) that precedes a Cobblestone message encrypted under a passphrase.
//! * [`raw`] — `openssl enc`-compatible raw modes (and its `Salted__`
//!   PBKDF2 header), for data exchanged with OpenSSL.
//! * [`files`] — whole encryption and decryption jobs on files and streams
//!   (output through the `aesflow-output` crate's atomic files); the
//!   command line plans jobs, reads keys and prompts, draws progress and
//!   prints summaries.
//!
//! ```
//! use aesflow_format::{Pool, cobblestone::{self, Suite}};
//! let pool = Pool::new(0).unwrap();
//! let key = [7u8; 32];
//! let msg = vec![42u8; 100_000];
//! let ct = cobblestone::encrypt(&pool, Suite::Cobblestone256, &key, b"ctx", &msg).unwrap();
//! assert_eq!(cobblestone::decrypt(&pool, Suite::Cobblestone256, &key, b"ctx", &ct).unwrap(), msg);
//! assert!(cobblestone::decrypt(&pool, Suite::Cobblestone256, &key, b"other", &ct).is_err());
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod cobblestone;
pub mod error;
pub mod files;
pub mod passphrase;
pub mod raw;

pub use aesflow_engine::Pool;
pub use error::{Error, Result};

// The engine's modules, reached as `crate::…` by the formats.
use aesflow_engine::{kernel, par, pool};
