//! The pipeline, the key handling, the core and the counter-mode top of one
//! processor variant, and the whole standalone file.

use super::{Src, blocks, sbox, wide_keys};
use crate::design::{KeyMode, KeySize, Variant};

/// The round constants, rounds 1-10 of AES-128 (AES-192 and AES-256 use the
/// first 8 and 7).
pub(crate) const RCON: [u8; 10] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

/// The header comment: what the file is and its top-level interface.
fn header(v: &Variant, out: &mut Src) {
    let l = v.latency();
    let bits = v.key_size.bits();
    let nr = v.rounds();
    let wide = v.key_size != KeySize::Aes128;
    let keys = match (v.keys, wide) {
        (KeyMode::Online, false) => {
            "online: the key expansion is unrolled beside the rounds and each block carries\n\
             //   its round key down the pipeline (Hodjat & Verbauwhede, Fig. 6)."
                .to_string()
        }
        (KeyMode::Offline, false) => {
            "offline: one key-round unit fills the eleven round-key registers after each\n\
             //   key load (Hodjat & Verbauwhede, Fig. 8)."
                .to_string()
        }
        (KeyMode::Online, true) => format!(
            "online: a key pipeline beside the rounds carries each block's window of the\n\
             //   last {} key words and produces the words each round needs (after\n\
             //   Hodjat & Verbauwhede, Fig. 6).",
            v.key_size.nk()
        ),
        (KeyMode::Offline, true) => format!(
            "offline: one key-step unit fills {} round-key words after each key load\n\
             //   (after Hodjat & Verbauwhede, Fig. 8).",
            4 * (nr + 1)
        ),
    };
    let change = match v.keys {
        KeyMode::Online => {
            "no bubble: the next cycle's block already uses the new key.".to_string()
        }
        KeyMode::Offline => format!(
            "ready falls; the pipeline drains (at most {} cycles),\n\
             //   the key unit computes the round keys ({} cycles), then ready rises again.",
            l - 1,
            v.key_schedule_cycles()
        ),
    };
    out.text(&format!(
        "// aesflow-hw: fully pipelined AES-{bits} processor in counter mode, variant {name}.
// After Hodjat & Verbauwhede, \"Area-Throughput Trade-Offs for Fully Pipelined
// 30 to 70 Gbits/s AES Processors\", IEEE Trans. Computers 55(4), 2006.
//
// S-box: {sbox} ({sbox_stages} stage(s)); {stages} pipeline stage(s) per round; key schedule
// {keys}
// Latency: {l} cycles (1 input register + {nr} rounds x {stages}); one block per clock.
//
// Top: aes_ctr (synchronous, active-high rst; all inputs sampled on the rising edge)
//   key_load, key[{kt}:0]    load a key (FIPS-197 byte order: key[{kt}:{kb}] is byte 0)
//   seed_load, seed[127:0]  load the counter register (the initial counter block)
//   run                     while high and ready, one counter block enters per clock
//                           and the counter increments (128-bit, big-endian, wraps)
//   ready                   a key is loaded and its round keys are in place
//   out_valid, keystream    E(counter) for each issued counter, {l} cycles after issue
// A cycle with key_load or seed_load issues no block. Key change mid-stream: every
// block issued before key_load is encrypted under the old key, every block after it
// under the new one, and the counter runs on; {change}
//
// aes_core is the same processor without the counter: in_valid/in_block instead of
// run (a block is accepted when in_valid & ready & !key_load), out_valid/out_block.
",
        name = v.name(),
        sbox = v.sbox.name(),
        sbox_stages = v.sbox.stages(),
        stages = v.stages,
        kt = bits - 1,
        kb = bits - 8,
    ));
    out.line("");
}

/// The complete standalone Verilog file of a processor variant.
pub fn processor(v: &Variant) -> String {
    let mut out = Src::default();
    header(v, &mut out);
    sbox::emit(v.sbox, &mut out);
    out.line("");
    blocks::emit_steps(&mut out);
    blocks::emit_rounds(v, &mut out);
    let wide = v.key_size != KeySize::Aes128;
    if wide && v.keys == KeyMode::Online {
        wide_keys::emit_key_rounds(v, &mut out);
    }
    pipeline(v, &mut out);
    match (v.keys, wide) {
        (KeyMode::Offline, false) => key_schedule_unit(v, &mut out),
        (KeyMode::Offline, true) => wide_keys::emit_key_unit(v, &mut out),
        (KeyMode::Online, _) => {}
    }
    core(v, &mut out);
    ctr(v, &mut out);
    out.finish()
}

fn pipeline(v: &Variant, out: &mut Src) {
    let l = v.latency();
    let nr = v.rounds();
    let online = v.keys == KeyMode::Online;
    let wide = v.key_size != KeySize::Aes128;
    let kt = v.key_size.bits() - 1;
    let rkt = 128 * (nr + 1) - 1;
    out.line(format!(
        "// The encryption pipeline: the input register (initial AddRoundKey), {nr} unrolled\n\
         // rounds, and a {l}-bit valid shift register beside them. busy: a block is in\n\
         // flight before the output register."
    ));
    let key_port = if online {
        format!("input [{kt}:0] in_key")
    } else {
        format!("input [{rkt}:0] round_keys")
    };
    out.line(format!(
        "module aes_encrypt_pipeline (input clk, input rst, input in_valid, input [127:0] in_block, {key_port}, output out_valid, output [127:0] out_block, output busy);"
    ));
    let rk = |i: usize| format!("round_keys[{}:{}]", rkt - 128 * i, rkt - 127 - 128 * i);
    out.line("  reg [127:0] s0;");
    if online && wide {
        out.line(format!("  reg [{kt}:0] k0;"));
        out.line(format!(
            "  always @(posedge clk) begin s0 <= in_block ^ in_key[{kt}:{}]; k0 <= in_key; end",
            kt - 127
        ));
    } else if online {
        out.line("  reg [127:0] k0;");
        out.line("  always @(posedge clk) begin s0 <= in_block ^ in_key; k0 <= in_key; end");
    } else {
        out.line(format!(
            "  always @(posedge clk) s0 <= in_block ^ {};",
            rk(0)
        ));
    }
    for r in 1..=nr {
        let last = r == nr;
        out.line(format!("  wire [127:0] s{r};"));
        if online && wide {
            out.line(format!("  wire [127:0] rk{r};"));
            let wo = if last {
                String::new()
            } else {
                out.line(format!("  wire [{kt}:0] k{r};"));
                format!(", .win_out(k{r})")
            };
            out.line(format!(
                "  key_round_{r} u_key{r} (.clk(clk), .win_in(k{}), .rk(rk{r}){wo});",
                r - 1
            ));
        } else if online && !last {
            out.line(format!("  wire [127:0] k{r};"));
        }
        let module = if last { "aes_final_round" } else { "aes_round" };
        let keys = if online && wide {
            format!(".round_key(rk{r})")
        } else if online {
            let ko = if last {
                String::new()
            } else {
                format!(", .key_out(k{r})")
            };
            format!(".key_in(k{}), .rcon(8'h{:02x}){ko}", r - 1, RCON[r - 1])
        } else {
            format!(".round_key({})", rk(r))
        };
        out.line(format!(
            "  {module} u_round{r} (.clk(clk), .state_in(s{}), {keys}, .state_out(s{r}));",
            r - 1
        ));
    }
    out.line(format!("  reg [{}:0] valid;", l - 1));
    out.line("  always @(posedge clk)");
    out.line(format!("    if (rst) valid <= {l}'b0;"));
    out.line(format!(
        "    else valid <= {{valid[{}:0], in_valid}};",
        l - 2
    ));
    out.line(format!("  assign out_valid = valid[{}];", l - 1));
    out.line(format!("  assign out_block = s{nr};"));
    out.line(format!("  assign busy = |valid[{}:0];", l - 2));
    out.line("endmodule");
    out.line("");
}

fn key_schedule_unit(v: &Variant, out: &mut Src) {
    let s = v.sbox.stages();
    out.line(format!(
        "// The offline key scheduling unit (Fig. 8a/8b): on key_load the key goes to\n\
         // round_key 0 and to the key round's register; once the pipeline has drained, one\n\
         // key round (SubWord with the processor's S-box, {s} stage(s), then the XOR chain)\n\
         // produces a round key every {} cycles and shifts it into round keys 10 .. 1:\n\
         // {} cycles in all.",
        s + 1,
        v.key_schedule_cycles()
    ));
    out.text(
        "module key_schedule_unit (input clk, input rst, input key_load, input [127:0] key,
  input pipe_busy, output ready, output [1407:0] round_keys);
  localparam IDLE = 2'd0, DRAIN = 2'd1, SCHED = 2'd2, READY = 2'd3;
  reg [1:0] fsm;
  reg [3:0] rnd;
  reg [1:0] phase;
  reg [127:0] kcur;
  reg [127:0] rk0, rk1, rk2, rk3, rk4, rk5, rk6, rk7, rk8, rk9, rk10;
  wire [31:0] sw;
  sub_word u_sub_word (.clk(clk), .a({kcur[23:0], kcur[31:24]}), .s(sw));
  reg [31:0] t_q;
  always @(posedge clk) t_q <= sw;
  reg [7:0] rcon;
  always @* begin
    case (rnd)",
    );
    for (i, r) in RCON.iter().enumerate() {
        out.line(format!("      4'd{}: rcon = 8'h{r:02x};", i + 1));
    }
    out.text(
        "      default: rcon = 8'h00;
    endcase
  end
  wire [127:0] knext;
  key_expand u_key_expand (.key(kcur), .t(t_q ^ {rcon, 24'h000000}), .next(knext));
  always @(posedge clk) begin
    if (rst) begin
      fsm <= IDLE;
    end else if (key_load) begin
      rk0 <= key;
      kcur <= key;
      fsm <= DRAIN;
    end else begin
      case (fsm)
        DRAIN: if (!pipe_busy) begin
          fsm <= SCHED;
          phase <= 2'd0;
          rnd <= 4'd1;
        end
        SCHED:",
    );
    out.line(format!("          if (phase == 2'd{s}) begin"));
    out.text(
        "            kcur <= knext;
            rk10 <= knext; rk9 <= rk10; rk8 <= rk9; rk7 <= rk8; rk6 <= rk7;
            rk5 <= rk6; rk4 <= rk5; rk3 <= rk4; rk2 <= rk3; rk1 <= rk2;
            phase <= 2'd0;
            rnd <= rnd + 4'd1;
            if (rnd == 4'd10) fsm <= READY;
          end else begin
            phase <= phase + 2'd1;
          end
        default: ;
      endcase
    end
  end
  assign ready = fsm == READY;
  assign round_keys = {rk0, rk1, rk2, rk3, rk4, rk5, rk6, rk7, rk8, rk9, rk10};
endmodule
",
    );
}

fn core(v: &Variant, out: &mut Src) {
    let kt = v.key_size.bits() - 1;
    let rkt = 128 * (v.rounds() + 1) - 1;
    out.line("// The processor without the counter: key handling and the pipeline.");
    out.line(format!(
        "module aes_core (input clk, input rst, input key_load, input [{kt}:0] key, input in_valid,\n  \
         input [127:0] in_block, output ready, output out_valid, output [127:0] out_block);",
    ));
    out.line("  wire accept = in_valid & ready & ~key_load;");
    match v.keys {
        KeyMode::Online => out.text(
            &"  reg [127:0] key_q;
  reg have_key;
  always @(posedge clk) begin
    if (rst) have_key <= 1'b0;
    else if (key_load) begin key_q <= key; have_key <= 1'b1; end
  end
  assign ready = have_key;
  aes_encrypt_pipeline u_pipeline (.clk(clk), .rst(rst), .in_valid(accept), .in_block(in_block),
    .in_key(key_q), .out_valid(out_valid), .out_block(out_block), .busy());
endmodule
"
            .replace("[127:0] key_q", &format!("[{kt}:0] key_q")),
        ),
        KeyMode::Offline => out.text(
            &"  wire busy;
  wire [1407:0] round_keys;
  key_schedule_unit u_key_schedule (.clk(clk), .rst(rst), .key_load(key_load), .key(key),
    .pipe_busy(busy), .ready(ready), .round_keys(round_keys));
  aes_encrypt_pipeline u_pipeline (.clk(clk), .rst(rst), .in_valid(accept), .in_block(in_block),
    .round_keys(round_keys), .out_valid(out_valid), .out_block(out_block), .busy(busy));
endmodule
"
            .replace("[1407:0]", &format!("[{rkt}:0]")),
        ),
    }
    out.line("");
}

fn ctr(v: &Variant, out: &mut Src) {
    let kt = v.key_size.bits() - 1;
    out.text(&format!(
        "// The counter-mode processor (Fig. 1): a 128-bit counter register feeds the core,
// one block per clock.
module aes_ctr (input clk, input rst, input key_load, input [{kt}:0] key, input seed_load,
  input [127:0] seed, input run, output ready, output out_valid, output [127:0] keystream);
  reg [127:0] counter;
  wire issue = run & ready & ~key_load & ~seed_load;
  always @(posedge clk) begin
    if (seed_load) counter <= seed;
    else if (issue) counter <= counter + 128'd1;
  end
  aes_core u_core (.clk(clk), .rst(rst), .key_load(key_load), .key(key), .in_valid(issue),
    .in_block(counter), .ready(ready), .out_valid(out_valid), .out_block(keystream));
endmodule
"
    ));
}
