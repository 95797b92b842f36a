//! Cycle-accurate simulation of a generated processor with Icarus Verilog.
//!
//! A testbench (generated here) reads a list of operations, drives the
//! design's inputs on falling edges, and logs on rising edges which cycle
//! accepted each block and which cycle showed each output. Cycle `k` is the
//! `k`-th rising edge after reset; a block accepted at edge `k` by a
//! processor of latency `L` appears at edge `k + L`.

use crate::tools::{Error, run};
use crate::{Variant, processor};
use aesflow_cipher::Block;
use std::fmt::Write;

/// One step of the stimulus of [`run_core`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CoreOp {
    /// `key_load` for one cycle (16, 24 or 32 bytes: the variant's key size).
    Key(Vec<u8>),
    /// Present a block until it is accepted (`ready`).
    Block(Block),
    /// Leave the inputs idle for this many cycles.
    Idle(u32),
}

/// One step of the stimulus of [`run_ctr`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CtrOp {
    /// `key_load` for one cycle (16, 24 or 32 bytes: the variant's key size).
    Key(Vec<u8>),
    /// `seed_load` for one cycle.
    Seed(Block),
    /// Hold `run` until this many counter blocks were issued.
    Run(u32),
    /// Leave the inputs idle for this many cycles.
    Idle(u32),
}

/// What a simulation saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// Cycles at which a block was accepted (core) or a counter issued (CTR).
    pub accepted: Vec<u64>,
    /// Cycles and values of every output with `out_valid`.
    pub outputs: Vec<(u64, Block)>,
    /// Cycles simulated in all.
    pub cycles: u64,
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Option<Block> {
    if s.len() != 32 {
        return None;
    }
    let mut b = [0u8; 16];
    for (i, x) in b.iter_mut().enumerate() {
        *x = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(b)
}

const TB_HEAD: &str = "`timescale 1ns/1ps
module tb;
  reg clk = 1'b0;
  always #5 clk = ~clk;
  reg rst = 1'b1;
  integer cycle = 0;
  always @(posedge clk) cycle <= cycle + 1;
  integer fi, fo, r, op, n;
  reg [255:0] val;
  reg ok;
";

/// The testbench of `aes_core` (`ctr == false`) or `aes_ctr`, for keys of
/// `key_bits`.
fn testbench(ctr: bool, drain: usize, key_bits: usize) -> String {
    let mut t = String::from(TB_HEAD);
    let _ = writeln!(t, "  reg [{}:0] key = {key_bits}'d0;", key_bits - 1);
    if ctr {
        t.push_str(
            "  reg key_load = 1'b0, seed_load = 1'b0, run = 1'b0;
  reg [127:0] seed = 128'd0;
  wire ready, out_valid;
  wire [127:0] out_block;
  aes_ctr dut (.clk(clk), .rst(rst), .key_load(key_load), .key(key), .seed_load(seed_load),
    .seed(seed), .run(run), .ready(ready), .out_valid(out_valid), .keystream(out_block));
",
        );
    } else {
        t.push_str(
            "  reg key_load = 1'b0, in_valid = 1'b0;
  reg [127:0] in_block = 128'd0;
  wire ready, out_valid;
  wire [127:0] out_block;
  aes_core dut (.clk(clk), .rst(rst), .key_load(key_load), .key(key), .in_valid(in_valid),
    .in_block(in_block), .ready(ready), .out_valid(out_valid), .out_block(out_block));
",
        );
    }
    t.push_str(
        "  always @(posedge clk) if (!rst && out_valid) $fwrite(fo, \"O %0d %h\\n\", cycle, out_block);
  initial begin
    fi = $fopen(\"ops.txt\", \"r\");
    fo = $fopen(\"trace.txt\", \"w\");
    @(negedge clk);
    @(negedge clk);
    rst = 1'b0;
    while ($fscanf(fi, \"%d %h\\n\", op, val) == 2) begin
      case (op)
        0: begin key_load = 1'b1; key = val; @(negedge clk); key_load = 1'b0; end
        2: begin n = val; repeat (n) @(negedge clk); end
",
    );
    if ctr {
        t.push_str(
            "        3: begin seed_load = 1'b1; seed = val; @(negedge clk); seed_load = 1'b0; end
        4: begin
          n = val;
          run = 1'b1;
          while (n > 0) begin
            if (ready) begin $fwrite(fo, \"A %0d\\n\", cycle); n = n - 1; end
            @(negedge clk);
          end
          run = 1'b0;
        end
",
        );
    } else {
        t.push_str(
            "        1: begin
          in_valid = 1'b1;
          in_block = val;
          ok = 1'b0;
          while (!ok) begin
            ok = ready;
            if (ok) $fwrite(fo, \"A %0d\\n\", cycle);
            @(negedge clk);
          end
          in_valid = 1'b0;
        end
",
        );
    }
    let _ = write!(
        t,
        "      endcase
    end
    repeat ({drain}) @(negedge clk);
    $fwrite(fo, \"E %0d\\n\", cycle);
    $fclose(fo);
    $finish;
  end
endmodule
"
    );
    t
}

/// Compile `design` with the testbench and run it on `ops` (one `op hex`
/// line each); the trace.
pub(crate) fn simulate(design: &str, tb: &str, ops: &str) -> Result<Trace, Error> {
    parse_trace(&run_testbench(design, tb, &[("ops.txt", ops)])?)
}

/// Compile `design` with the testbench `tb` (top module `tb`) in Icarus
/// Verilog and run it in a fresh directory holding `inputs` (file name,
/// text); the `trace.txt` it writes.
pub(crate) fn run_testbench(
    design: &str,
    tb: &str,
    inputs: &[(&str, &str)],
) -> Result<String, Error> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("design.v"), design)?;
    std::fs::write(dir.path().join("tb.v"), tb)?;
    for (name, text) in inputs {
        std::fs::write(dir.path().join(name), text)?;
    }
    run(
        "iverilog",
        &["-g2005", "-o", "sim.vvp", "-s", "tb", "design.v", "tb.v"],
        dir.path(),
    )?;
    run("vvp", &["-n", "sim.vvp"], dir.path())?;
    Ok(std::fs::read_to_string(dir.path().join("trace.txt"))?)
}

pub(crate) fn parse_trace(text: &str) -> Result<Trace, Error> {
    let bad = |l: &str| Error::Tool {
        tool: "vvp".into(),
        message: format!("unexpected trace line `{l}`"),
    };
    let mut t = Trace::default();
    for line in text.lines() {
        let mut f = line.split_whitespace();
        let kind = f.next();
        let cycle: u64 = f
            .next()
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| bad(line))?;
        match kind {
            Some("A") => t.accepted.push(cycle),
            Some("O") => {
                let b = f.next().and_then(unhex).ok_or_else(|| bad(line))?;
                t.outputs.push((cycle, b));
            }
            Some("E") => t.cycles = cycle,
            _ => return Err(bad(line)),
        }
    }
    Ok(t)
}

/// The result words of a multi-stream run, reassembled into blocks.
pub(crate) struct WordTrace {
    /// Per stream, its result blocks in order.
    pub blocks: Vec<Vec<Block>>,
    /// The cycle of the first command.
    pub first_command: u64,
    /// The cycle of the last result word.
    pub last_write: u64,
    /// Bus transfers.
    pub transfers: u64,
}

pub(crate) fn parse_words(text: &str, streams: usize, bus_bits: usize) -> Result<WordTrace, Error> {
    let bad = |l: &str| Error::Tool {
        tool: "vvp".into(),
        message: format!("unexpected trace line `{l}`"),
    };
    let mut partial: Vec<Vec<u8>> = vec![Vec::new(); streams];
    let mut t = WordTrace {
        blocks: vec![Vec::new(); streams],
        first_command: u64::MAX,
        last_write: 0,
        transfers: 0,
    };
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| -> Result<u64, Error> {
            f.get(i)
                .and_then(|x| x.parse().ok())
                .ok_or_else(|| bad(line))
        };
        match f.first().copied() {
            Some("C") => t.first_command = t.first_command.min(num(1)?),
            Some("W") => {
                let s = num(2)? as usize;
                let word = f.get(3).ok_or_else(|| bad(line))?;
                if s >= streams || word.len() != bus_bits / 4 {
                    return Err(bad(line));
                }
                for i in 0..bus_bits / 8 {
                    let b =
                        u8::from_str_radix(&word[2 * i..2 * i + 2], 16).map_err(|_| bad(line))?;
                    partial[s].push(b);
                }
                if partial[s].len() == 16 {
                    let mut b = [0u8; 16];
                    b.copy_from_slice(&partial[s]);
                    t.blocks[s].push(b);
                    partial[s].clear();
                }
                t.last_write = num(1)?;
            }
            Some("T") => t.transfers = num(2)?,
            _ => return Err(bad(line)),
        }
    }
    if t.first_command == u64::MAX {
        t.first_command = 0;
    }
    Ok(t)
}

fn drain(v: &Variant) -> usize {
    v.latency() + v.key_schedule_cycles() + 4
}

/// A key of the wrong length for `v`.
fn check_key(v: &Variant, k: &[u8]) -> Result<(), Error> {
    if k.len() == v.key_size.bytes() {
        Ok(())
    } else {
        Err(Error::Check(format!(
            "{}: a {}-byte key for a {}-bit processor",
            v.name(),
            k.len(),
            v.key_size.bits()
        )))
    }
}

/// Simulate `aes_core` of `v` on `ops`.
pub fn run_core(v: &Variant, ops: &[CoreOp]) -> Result<Trace, Error> {
    let mut s = String::new();
    for op in ops {
        let _ = match op {
            CoreOp::Key(k) => {
                check_key(v, k)?;
                writeln!(s, "0 {}", hex(k))
            }
            CoreOp::Block(b) => writeln!(s, "1 {}", hex(b)),
            CoreOp::Idle(n) => writeln!(s, "2 {n:x}"),
        };
    }
    simulate(
        &processor(v),
        &testbench(false, drain(v), v.key_size.bits()),
        &s,
    )
}

/// Simulate the counter-mode top `aes_ctr` of `v` on `ops`.
pub fn run_ctr(v: &Variant, ops: &[CtrOp]) -> Result<Trace, Error> {
    let mut s = String::new();
    for op in ops {
        let _ = match op {
            CtrOp::Key(k) => {
                check_key(v, k)?;
                writeln!(s, "0 {}", hex(k))
            }
            CtrOp::Seed(b) => writeln!(s, "3 {}", hex(b)),
            CtrOp::Run(n) => writeln!(s, "4 {n:x}"),
            CtrOp::Idle(n) => writeln!(s, "2 {n:x}"),
        };
    }
    simulate(
        &processor(v),
        &testbench(true, drain(v), v.key_size.bits()),
        &s,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_lines_parse() {
        let t = parse_trace("A 3\nO 14 000102030405060708090a0b0c0d0e0f\nE 20\n").unwrap();
        assert_eq!(t.accepted, [3]);
        assert_eq!(t.outputs[0].0, 14);
        assert_eq!(t.outputs[0].1[15], 15);
        assert_eq!(t.cycles, 20);
        assert!(parse_trace("X 1\n").is_err());
        assert!(parse_trace("O 1 zz\n").is_err());
    }
}
