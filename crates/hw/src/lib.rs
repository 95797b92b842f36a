//! # aesflow-hw: the hardware papers as hardware
//!
//! Verilog generators for two AES hardware designs, with their checks and
//! measurements:
//!
//! * Hodjat & Verbauwhede, *Area-Throughput Trade-Offs for Fully Pipelined 30
//!   to 70 Gbits/s AES Processors* (IEEE Trans. Computers, 2006): loop-
//!   unrolled AES-128 in counter mode. The design space ([`Variant`]) is the
//!   S-box (look-up table, or the composite field GF((2^4)^2) unpipelined or
//!   in two or three stages, Fig. 4) × 1-4 pipeline stages per round
//!   (latency 11/21/31/41, Fig. 7) × the key schedule (online beside the
//!   rounds, Fig. 6, or offline with one key round filling round-key
//!   registers, Fig. 8), wrapped in a counter register that issues one block
//!   per clock (Fig. 1). [`processor`] writes one variant as one standalone
//!   Verilog file. AES-192 and AES-256 ([`KeySize`]) extend the space: 12
//!   or 14 rounds (latency `1 + Nr × stages`), the online key pipeline
//!   carrying a window of the last Nk key words, the offline unit filling
//!   4(Nr+1) round-key words.
//! * Pericàs et al., *A Vectorized AES Core for High-Throughput Secure
//!   Environments*: N folded AES-128 cores (10 cycles per block, CBC or ECB
//!   per stream) behind one W-bit bus and a control unit ([`multistream`]).
//!
//! ## Why Verilog from Rust
//!
//! The generators are pure functions from a design point to text, so they
//! are tested like any other code, without tools; the default build needs
//! nothing but Rust; the reference the hardware is checked against is
//! aesflow's own cipher and modes (`aesflow-cipher`, `aesflow-modes`) in the
//! same process; and `aesflow hw` is a subcommand like the others. The
//! output is plain Verilog-2001 that any simulator or synthesis tool reads.
//!
//! ## Checks and measurements
//!
//! [`sim`] drives a generated file cycle by cycle in Icarus Verilog
//! (`iverilog`/`vvp`): NIST vectors and random keys and blocks against
//! `aesflow-cipher`, the latency and one block per clock, the keystream
//! against `aesflow-modes` CTR, and a key change mid-stream. [`synth`] runs
//! Yosys to a small generic cell set and reports gate equivalents
//! (NAND2 = 1) and the logic depth of the slowest stage. [`sweep`] measures
//! the whole space and sets it beside the papers' figures ([`paper`]).
//! [`fpga`] places and routes designs on a Lattice ECP5 with Yosys and
//! nextpnr-ecp5 (the YoWASP builds that `scripts/hw-tools` installs): LUTs,
//! flip-flops, Fmax and so Gbit/s.
//! The tools are optional: where one is missing, the functions that need it
//! return [`Error::ToolMissing`].

#![warn(missing_docs)]

pub mod charts;
pub mod design;
pub mod fpga;
pub mod gf;
pub mod multistream;
pub mod paper;
pub mod sim;
pub mod sweep;
pub mod synth;
mod tools;
pub mod verify;
pub mod verilog;

pub use design::{InvalidVariant, KeyMode, KeySize, SboxKind, Variant};
pub use tools::{Error, tool_available};
pub use verilog::processor::processor;
