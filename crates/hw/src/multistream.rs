//! The multi-stream AES core of Pericàs, Chaves, Gaydadjiev, Vassiliadis &
//! Valero, *A Vectorized AES Core for High-Throughput Secure Environments*
//! (§3, Fig. 1): N folded AES-128 cores, each one round per cycle (10
//! cycles per block, round keys computed on the fly), behind one shared
//! W-bit bus, and a small control unit that fetches each stream's key, IV
//! and data words and writes its results back, one bus transfer per cycle.
//!
//! A stream runs packets: a command `(stream, blocks, cbc)` makes the control
//! unit read the packet's key (128/W words), its IV (128/W words), then its
//! blocks, and write each result block back; the next command for that
//! stream is taken once the packet's last block is written (the set-up cost
//! of §4). Bus grants: writes before reads, each round-robin over the
//! streams. CBC chains each stream's blocks from its IV; ECB ignores the IV.
//! With W = 64 a stream needs 4 bus cycles per 10-cycle block, so two
//! streams use 80 % of the bus, and ⌊5·W/128⌋ streams saturate it (the
//! paper's Eq. 1).

use crate::SboxKind;
use crate::sim::parse_words;
use crate::tools::Error;
use crate::verilog::{Src, blocks};
use aesflow_cipher::{Aes, Block};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// One multi-stream core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MultiStream {
    /// Streams (folded cores), 1-8.
    pub streams: usize,
    /// Bus width in bits: 32, 64 or 128.
    pub bus_bits: usize,
}

impl MultiStream {
    /// A checked configuration.
    pub fn new(streams: usize, bus_bits: usize) -> Result<MultiStream, crate::InvalidVariant> {
        if !(1..=8).contains(&streams) {
            return Err(crate::InvalidVariant(format!(
                "streams must be 1 to 8, not {streams}"
            )));
        }
        if ![32, 64, 128].contains(&bus_bits) {
            return Err(crate::InvalidVariant(format!(
                "the bus is 32, 64 or 128 bits wide, not {bus_bits}"
            )));
        }
        Ok(MultiStream { streams, bus_bits })
    }

    /// Words per 128-bit block on the bus.
    pub fn words(&self) -> usize {
        128 / self.bus_bits
    }

    /// The paper's Eq. 1: streams the bus can feed at 10 cycles per block.
    pub fn max_streams(&self) -> usize {
        5 * self.bus_bits / 128
    }

    fn stream_bits(&self) -> usize {
        let mut b = 1;
        while (1 << b) < self.streams {
            b += 1;
        }
        b
    }

    /// `ms-2x64`.
    pub fn name(&self) -> String {
        format!("ms-{}x{}", self.streams, self.bus_bits)
    }
}

/// The standalone Verilog file of the multi-stream core (top
/// `aes_multistream`).
pub fn multistream(m: &MultiStream) -> String {
    let mut out = Src::default();
    let (n, w, q, sw) = (m.streams, m.bus_bits, m.words(), m.stream_bits());
    out.text(&format!(
        "// aesflow-hw: multi-stream AES-128 core, {n} stream(s) on a {w}-bit bus.
// After Pericas, Chaves, Gaydadjiev, Vassiliadis & Valero, \"A Vectorized AES Core
// for High-Throughput Secure Environments\" (Fig. 1): {n} folded AES-128 cores (one
// round per cycle, 10 cycles per block) and a control unit sharing one bus.
//
// Top: aes_multistream (synchronous, active-high rst; inputs sampled on the rising edge)
//   cmd_valid, cmd_stream, cmd_blocks[15:0], cmd_cbc   start a packet on an idle stream
//   stream_idle[{nm1}:0]                                 the stream takes a command
//   rd_en, rd_stream -> rd_data[{wm1}:0]                 read the stream's next word; the
//                       memory answers in the same cycle (key, IV, then the blocks,
//                       each 128-bit value as {q} word(s), most significant first)
//   wr_en, wr_stream, wr_data[{wm1}:0]                   the stream's next result word
// One bus transfer per cycle (writes first, round-robin over the streams).
",
        nm1 = n - 1,
        wm1 = w - 1,
    ));
    out.line("");
    // The folded core reuses the processor's LUT S-box and round steps.
    crate::verilog::sbox::emit(SboxKind::Lut, &mut out);
    blocks::emit_steps(&mut out);
    folded_core(&mut out);
    let asm_next = if q == 1 {
        "rd_data".to_string()
    } else {
        format!("{{asm[{}:0], rd_data}}", 127 - w)
    };
    let wcw = if q == 1 {
        1
    } else {
        q.trailing_zeros() as usize
    };
    out.text(&format!(
        "module aes_multistream (input clk, input rst,
  input cmd_valid, input [{swm1}:0] cmd_stream, input [15:0] cmd_blocks, input cmd_cbc,
  output [{nm1}:0] stream_idle,
  output rd_en, output [{swm1}:0] rd_stream, input [{wm1}:0] rd_data,
  output wr_en, output [{swm1}:0] wr_stream, output [{wm1}:0] wr_data);
  localparam N = {n};
  localparam S_IDLE = 2'd0, S_KEY = 2'd1, S_IV = 2'd2, S_DATA = 2'd3;
  wire [N-1:0] rd_req, wr_req;
  wire [{wm1}:0] out_word [0:N-1];
  // The control unit's bus arbiter: writes first, then reads, round-robin.
  reg [{swm1}:0] rr;
  reg gw, gr;
  reg [{swm1}:0] gs;
  integer i, s;
  always @* begin
    gw = 1'b0; gr = 1'b0; gs = {sw}'d0;
    for (i = 0; i < N; i = i + 1) begin
      s = rr + i;
      if (s >= N) s = s - N;
      if (!gw && wr_req[s]) begin gw = 1'b1; gs = s; end
    end
    for (i = 0; i < N; i = i + 1) begin
      s = rr + i;
      if (s >= N) s = s - N;
      if (!gw && !gr && rd_req[s]) begin gr = 1'b1; gs = s; end
    end
  end
  always @(posedge clk)
    if (rst) rr <= {sw}'d0;
    else if (gw | gr) rr <= (gs == N - 1) ? {sw}'d0 : gs + {sw}'d1;
  assign rd_en = gr;
  assign wr_en = gw;
  assign rd_stream = gs;
  assign wr_stream = gs;
  assign wr_data = out_word[gs];
  genvar k;
  generate
    for (k = 0; k < N; k = k + 1) begin : stream
      reg [1:0] st;
      reg [{wcm1}:0] wc, oc;
      reg [127:0] asm, key_q, in_buf;
      reg [15:0] fetch_left, out_left;
      reg cbc_q, in_full, iv_load;
      wire rd_me = gr && gs == k;
      wire wr_me = gw && gs == k;
      wire [127:0] word_in = {asm_next};
      wire take, core_idle, out_full;
      wire [127:0] result;
      wire out_take = wr_me && oc == {qm1};
      assign rd_req[k] = (st == S_KEY) || (st == S_IV) || (st == S_DATA && !in_full);
      assign wr_req[k] = out_full;
      assign out_word[k] = result[127 - {w} * oc -: {w}];
      assign stream_idle[k] = st == S_IDLE && out_left == 16'd0 && !in_full && core_idle;
      always @(posedge clk) begin
        if (rst) begin
          st <= S_IDLE; wc <= 0; oc <= 0; in_full <= 1'b0; out_left <= 16'd0; iv_load <= 1'b0;
        end else begin
          iv_load <= 1'b0;
          if (cmd_valid && cmd_stream == k && stream_idle[k] && cmd_blocks != 16'd0) begin
            st <= S_KEY; wc <= 0; fetch_left <= cmd_blocks; out_left <= cmd_blocks; cbc_q <= cmd_cbc;
          end
          if (rd_me) begin
            asm <= word_in;
            wc <= (wc == {qm1}) ? 0 : wc + 1;
            if (wc == {qm1}) begin
              case (st)
                S_KEY: begin key_q <= word_in; st <= S_IV; end
                S_IV: begin iv_load <= 1'b1; st <= S_DATA; end
                S_DATA: begin
                  in_buf <= word_in; in_full <= 1'b1;
                  fetch_left <= fetch_left - 16'd1;
                  if (fetch_left == 16'd1) st <= S_IDLE;
                end
                default: ;
              endcase
            end
          end
          if (take) in_full <= 1'b0;
          if (wr_me) begin
            oc <= (oc == {qm1}) ? 0 : oc + 1;
            if (oc == {qm1}) out_left <= out_left - 16'd1;
          end
        end
      end
      aes_folded u_core (.clk(clk), .rst(rst), .key(key_q), .iv_load(iv_load), .iv(asm),
        .cbc(cbc_q), .start(in_full), .block(in_buf), .take(take), .idle(core_idle),
        .out_full(out_full), .out_take(out_take), .result(result));
    end
  endgenerate
endmodule
",
        swm1 = sw - 1,
        nm1 = n - 1,
        wm1 = w - 1,
        wcm1 = wcw - 1,
        qm1 = q - 1,
    ));
    out.finish()
}

fn folded_core(out: &mut Src) {
    out.line("// One folded AES-128 core: one round per cycle, the round key computed beside it.");
    out.line("// A block starts when the core is idle or in its final round (10 cycles per block");
    out.line("// back to back); the result waits in out_buf until the control unit took it.");
    let mut rcon = String::new();
    for (i, r) in crate::verilog::processor::RCON.iter().enumerate() {
        let _ = writeln!(rcon, "      4'd{}: rcon = 8'h{r:02x};", i + 1);
    }
    out.text(&format!(
        "module aes_folded (input clk, input rst, input [127:0] key, input iv_load, input [127:0] iv,
  input cbc, input start, input [127:0] block, output take, output idle, output reg out_full,
  input out_take, output reg [127:0] result);
  reg [3:0] round;
  reg [127:0] state, rk, chain;
  reg [7:0] rcon;
  always @* begin
    case (round)
{rcon}      default: rcon = 8'h00;
    endcase
  end
  wire [31:0] sw;
  sub_word u_sub_word (.clk(clk), .a({{rk[23:0], rk[31:24]}}), .s(sw));
  wire [127:0] rk_next;
  key_expand u_key_expand (.key(rk), .t(sw ^ {{rcon, 24'h000000}}), .next(rk_next));
  wire [127:0] sb, sr, mc;
  sub_bytes u_sub_bytes (.clk(clk), .a(state), .s(sb));
  shift_rows u_shift_rows (.a(sb), .y(sr));
  mix_columns u_mix_columns (.a(sr), .y(mc));
  wire [127:0] ct = sr ^ rk_next;
  wire finishing = round == 4'd10 && (!out_full || out_take);
  assign take = start && (round == 4'd0 || finishing);
  assign idle = round == 4'd0;
  wire [127:0] chain_now = finishing ? ct : chain;
  always @(posedge clk) begin
    if (rst) begin
      round <= 4'd0; out_full <= 1'b0;
    end else begin
      if (out_take) out_full <= 1'b0;
      if (iv_load) chain <= iv;
      if (finishing) begin
        result <= ct; out_full <= 1'b1; chain <= ct;
      end
      if (take) begin
        state <= block ^ (cbc ? chain_now : 128'd0) ^ key;
        rk <= key;
        round <= 4'd1;
      end else if (finishing) begin
        round <= 4'd0;
      end else if (round != 4'd0 && round != 4'd10) begin
        state <= mc ^ rk_next;
        rk <= rk_next;
        round <= round + 4'd1;
      end
    end
  end
endmodule
"
    ));
    out.line("");
}

/// One packet of a stream.
#[derive(Clone, Debug)]
pub struct Packet {
    /// The stream.
    pub stream: usize,
    /// The key.
    pub key: Block,
    /// The IV (CBC).
    pub iv: Block,
    /// CBC (true) or ECB.
    pub cbc: bool,
    /// The plaintext blocks (1 to 65535).
    pub blocks: Vec<Block>,
}

/// What a multi-stream run measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MsRun {
    /// Blocks encrypted in all.
    pub blocks: usize,
    /// Cycles from the first command to the last result word.
    pub cycles: u64,
    /// Bus transfers / cycles.
    pub bus_use: f64,
    /// Payload bits per cycle (multiply by the clock for bit/s).
    pub bits_per_cycle: f64,
}

fn tb(m: &MultiStream, mem_words: usize) -> String {
    let (n, w, sw) = (m.streams, m.bus_bits, m.stream_bits());
    format!(
        "`timescale 1ns/1ps
module tb;
  reg clk = 1'b0;
  always #5 clk = ~clk;
  reg rst = 1'b1;
  integer cycle = 0;
  always @(posedge clk) cycle <= cycle + 1;
  reg [{wm1}:0] mem [0:{mm1}];
  integer ptr [0:{nm1}];
  integer nx [0:{nm1}];
  integer cs [0:4095];
  integer cb [0:4095];
  integer cc [0:4095];
  integer fi, fo, r, nc, s, j, issued, busy, transfers;
  reg cmd_valid = 1'b0, cmd_cbc = 1'b0;
  reg [{swm1}:0] cmd_stream = 0;
  reg [15:0] cmd_blocks = 16'd0;
  wire rd_en, wr_en;
  wire [{swm1}:0] rd_stream, wr_stream;
  wire [{wm1}:0] wr_data;
  wire [{nm1}:0] idle;
  wire [{wm1}:0] rd_data = mem[ptr[rd_stream]];
  aes_multistream dut (.clk(clk), .rst(rst), .cmd_valid(cmd_valid), .cmd_stream(cmd_stream),
    .cmd_blocks(cmd_blocks), .cmd_cbc(cmd_cbc), .stream_idle(idle), .rd_en(rd_en),
    .rd_stream(rd_stream), .rd_data(rd_data), .wr_en(wr_en), .wr_stream(wr_stream),
    .wr_data(wr_data));
  always @(posedge clk) if (!rst) begin
    if (rd_en) ptr[rd_stream] <= ptr[rd_stream] + 1;
    if (wr_en) $fwrite(fo, \"W %0d %0d %h\\n\", cycle, wr_stream, wr_data);
    if (rd_en | wr_en) transfers = transfers + 1;
  end
  initial begin
    $readmemh(\"mem.hex\", mem);
    fi = $fopen(\"cmds.txt\", \"r\");
    fo = $fopen(\"trace.txt\", \"w\");
    transfers = 0;
    for (s = 0; s < {n}; s = s + 1) r = $fscanf(fi, \"%d\\n\", ptr[s]);
    r = $fscanf(fi, \"%d\\n\", nc);
    for (j = 0; j < nc; j = j + 1) r = $fscanf(fi, \"%d %d %d\\n\", cs[j], cb[j], cc[j]);
    for (s = 0; s < {n}; s = s + 1) begin
      nx[s] = 0;
      while (nx[s] < nc && cs[nx[s]] != s) nx[s] = nx[s] + 1;
    end
    @(negedge clk);
    @(negedge clk);
    rst = 1'b0;
    busy = 1;
    while (busy) begin
      cmd_valid = 1'b0;
      issued = 0;
      busy = 0;
      for (s = 0; s < {n}; s = s + 1) begin
        if (nx[s] < nc || !idle[s]) busy = 1;
        if (!issued && nx[s] < nc && idle[s]) begin
          cmd_valid = 1'b1; cmd_stream = s; cmd_blocks = cb[nx[s]]; cmd_cbc = cc[nx[s]];
          issued = 1;
          $fwrite(fo, \"C %0d %0d\\n\", cycle, s);
          nx[s] = nx[s] + 1;
          while (nx[s] < nc && cs[nx[s]] != s) nx[s] = nx[s] + 1;
        end
      end
      @(negedge clk);
    end
    $fwrite(fo, \"T %0d %0d\\n\", cycle, transfers);
    $fclose(fo);
    $finish;
  end
endmodule
",
        wm1 = w - 1,
        mm1 = mem_words.max(1) - 1,
        nm1 = n - 1,
        swm1 = sw - 1,
    )
}

/// Run `packets` through the core, check every result block against
/// `aesflow-modes` (CBC) or the cipher (ECB), and measure the cycles.
pub fn run_packets(m: &MultiStream, packets: &[Packet]) -> Result<MsRun, Error> {
    let (n, w, q) = (m.streams, m.bus_bits, m.words());
    let word = |b: &Block, i: usize| -> String {
        b[i * w / 8..(i + 1) * w / 8]
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect()
    };
    let mut per_stream: Vec<Vec<String>> = vec![Vec::new(); n];
    let mut expected: Vec<Vec<Block>> = vec![Vec::new(); n];
    for p in packets {
        if p.stream >= n || p.blocks.is_empty() || p.blocks.len() > 65535 {
            return Err(Error::Check(format!(
                "packet for stream {} with {} blocks does not fit {}",
                p.stream,
                p.blocks.len(),
                m.name()
            )));
        }
        let s = &mut per_stream[p.stream];
        for v in [&p.key, &p.iv].into_iter().chain(&p.blocks) {
            for i in 0..q {
                s.push(word(v, i));
            }
        }
        let aes = Aes::new(&p.key).map_err(|e| Error::Check(e.to_string()))?;
        let mut buf: Vec<u8> = p.blocks.iter().flatten().copied().collect();
        if p.cbc {
            aesflow_modes::cbc::encrypt_in_place(&aes, &p.iv, &mut buf)
                .map_err(|e| Error::Check(e.to_string()))?;
        } else {
            aesflow_modes::ecb::encrypt_in_place(&aes, &mut buf)
                .map_err(|e| Error::Check(e.to_string()))?;
        }
        expected[p.stream].extend(buf.chunks(16).map(|c| {
            let mut b = [0u8; 16];
            b.copy_from_slice(c);
            b
        }));
    }
    let mut mem = String::new();
    let mut cmds = String::new();
    let mut base = 0;
    for s in &per_stream {
        let _ = writeln!(cmds, "{base}");
        base += s.len();
        for x in s {
            mem.push_str(x);
            mem.push('\n');
        }
    }
    let _ = writeln!(cmds, "{}", packets.len());
    for p in packets {
        let _ = writeln!(cmds, "{} {} {}", p.stream, p.blocks.len(), u8::from(p.cbc));
    }
    let text = crate::sim::run_testbench(
        &multistream(m),
        &tb(m, base),
        &[("mem.hex", &mem), ("cmds.txt", &cmds)],
    )?;
    let t = parse_words(&text, n, w)?;
    for (s, exp) in expected.iter().enumerate() {
        let got = &t.blocks[s];
        if got.len() != exp.len() {
            return Err(Error::Check(format!(
                "{}: stream {s} wrote {} blocks, {} expected",
                m.name(),
                got.len(),
                exp.len()
            )));
        }
        if let Some(i) = (0..exp.len()).find(|&i| got[i] != exp[i]) {
            return Err(Error::Check(format!(
                "{}: stream {s} block {i} differs from aesflow-modes",
                m.name()
            )));
        }
    }
    let blocks: usize = expected.iter().map(Vec::len).sum();
    let cycles = t.last_write + 1 - t.first_command;
    Ok(MsRun {
        blocks,
        cycles,
        bus_use: t.transfers as f64 / cycles as f64,
        bits_per_cycle: (blocks * 128) as f64 / cycles as f64,
    })
}
