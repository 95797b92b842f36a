//! The round's steps as modules: `sub_bytes` (16 S-boxes), `sub_word` (4
//! S-boxes of the key expansion), `shift_rows` (wiring), `mix_columns`,
//! `key_expand` (the XOR chain of one key-expansion round), and the rounds
//! themselves with the pipeline registers of the chosen variant.

use super::{Src, byte};
use crate::design::{KeyMode, KeySize, Variant};

/// `sub_bytes`, `sub_word`, `shift_rows`, `mix_column(s)` and, for online
/// keys or the offline key unit, `key_expand`.
pub(crate) fn emit_steps(out: &mut Src) {
    out.line("// SubBytes on the whole state: 16 S-boxes.");
    out.line("module sub_bytes (input clk, input [127:0] a, output [127:0] s);");
    for b in 0..16 {
        out.line(format!(
            "  sub_byte u_sb{b} (.clk(clk), .a({}), .s({}));",
            byte("a", b),
            byte("s", b)
        ));
    }
    out.line("endmodule");
    out.line("");
    out.line("// SubWord of the key expansion: 4 S-boxes.");
    out.line("module sub_word (input clk, input [31:0] a, output [31:0] s);");
    for b in 0..4 {
        let (hi, lo) = (31 - 8 * b, 24 - 8 * b);
        out.line(format!(
            "  sub_byte u_sb{b} (.clk(clk), .a(a[{hi}:{lo}]), .s(s[{hi}:{lo}]));"
        ));
    }
    out.line("endmodule");
    out.line("");
    out.line("// ShiftRows: row r of the state rotates left by r bytes (wiring only).");
    out.line("module shift_rows (input [127:0] a, output [127:0] y);");
    for c in 0..4 {
        for r in 0..4 {
            out.line(format!(
                "  assign {} = {};",
                byte("y", r + 4 * c),
                byte("a", r + 4 * ((c + r) % 4))
            ));
        }
    }
    out.line("endmodule");
    out.line("");
    out.text(
        "// MixColumns of one column: multiplication by {03}x^3 + {01}x^2 + {01}x + {02}
// modulo x^4 + 1.
module mix_column (input [31:0] a, output [31:0] y);
  function [7:0] xtime (input [7:0] v);
    xtime = {v[6:0], 1'b0} ^ (8'h1b & {8{v[7]}});
  endfunction
  wire [7:0] a0 = a[31:24], a1 = a[23:16], a2 = a[15:8], a3 = a[7:0];
  assign y[31:24] = xtime(a0) ^ xtime(a1) ^ a1 ^ a2 ^ a3;
  assign y[23:16] = a0 ^ xtime(a1) ^ xtime(a2) ^ a2 ^ a3;
  assign y[15:8]  = a0 ^ a1 ^ xtime(a2) ^ xtime(a3) ^ a3;
  assign y[7:0]   = xtime(a0) ^ a0 ^ a1 ^ a2 ^ xtime(a3);
endmodule

// MixColumns on the whole state.
module mix_columns (input [127:0] a, output [127:0] y);
  mix_column u_c0 (.a(a[127:96]), .y(y[127:96]));
  mix_column u_c1 (.a(a[95:64]), .y(y[95:64]));
  mix_column u_c2 (.a(a[63:32]), .y(y[63:32]));
  mix_column u_c3 (.a(a[31:0]), .y(y[31:0]));
endmodule

// One round of the AES-128 key expansion after SubWord: t is
// SubWord(RotWord(w3)) ^ Rcon; the four words are chained by XOR.
module key_expand (input [127:0] key, input [31:0] t, output [127:0] next);
  wire [31:0] w0 = key[127:96] ^ t;
  wire [31:0] w1 = key[95:64] ^ w0;
  wire [31:0] w2 = key[63:32] ^ w1;
  wire [31:0] w3 = key[31:0] ^ w2;
  assign next = {w0, w1, w2, w3};
endmodule
",
    );
}

/// `aes_round` and `aes_final_round` of the variant: SubBytes with the
/// S-box's own registers, an optional register after SubBytes, then
/// ShiftRows, MixColumns (not in the final round) and AddRoundKey into the
/// round's output register. With online keys the round carries the key
/// beside the state (Fig. 6): SubWord runs in parallel with SubBytes through
/// the same registers, the previous round key is delayed to meet it, and the
/// XOR chain of the key expansion sits in the round's last stage.
pub(crate) fn emit_rounds(v: &Variant, out: &mut Src) {
    for last in [false, true] {
        round(v, last, out);
    }
}

fn round(v: &Variant, last: bool, out: &mut Src) {
    // AES-192/256 rounds take their round key from the key pipeline beside
    // them (`key_round_N`), like offline rounds take it from the registers.
    let online = v.keys == KeyMode::Online && v.key_size == KeySize::Aes128;
    let name = if last { "aes_final_round" } else { "aes_round" };
    let inner = v.sbox.stages() - 1;
    let sep = v.separate_sub_bytes();
    out.line(format!(
        "// {} round: {} pipeline stage{} ({}{}).",
        if last { "The final" } else { "One" },
        v.stages,
        if v.stages == 1 { "" } else { "s" },
        if inner > 0 {
            format!("{inner} register set(s) inside the S-box, ")
        } else {
            String::new()
        },
        if sep {
            "a register after SubBytes, one at the round's end"
        } else {
            "one register at the round's end"
        }
    ));
    let mut ports = vec![
        "input clk".to_string(),
        "input [127:0] state_in".to_string(),
    ];
    if online {
        ports.push("input [127:0] key_in".into());
        ports.push("input [7:0] rcon".into());
    } else {
        ports.push("input [127:0] round_key".into());
    }
    ports.push("output reg [127:0] state_out".into());
    if online && !last {
        ports.push("output reg [127:0] key_out".into());
    }
    out.line(format!("module {name} ({});", ports.join(", ")));
    out.line("  wire [127:0] sb;");
    out.line("  sub_bytes u_sub_bytes (.clk(clk), .a(state_in), .s(sb));");
    let mut key = "key_in".to_string();
    let mut sw = "sw".to_string();
    let mut sbq = "sb".to_string();
    if online {
        out.line("  wire [31:0] sw;");
        out.line("  sub_word u_sub_word (.clk(clk), .a({key_in[23:0], key_in[31:24]}), .s(sw));");
        for i in 1..=inner {
            out.line(format!("  reg [127:0] key_d{i};"));
            out.line(format!("  always @(posedge clk) key_d{i} <= {key};"));
            key = format!("key_d{i}");
        }
    }
    if sep {
        out.line("  reg [127:0] sb_q;");
        out.line("  always @(posedge clk) sb_q <= sb;");
        sbq = "sb_q".into();
        if online {
            out.line("  reg [31:0] sw_q;");
            out.line("  reg [127:0] key_q;");
            out.line(format!(
                "  always @(posedge clk) begin sw_q <= sw; key_q <= {key}; end"
            ));
            sw = "sw_q".into();
            key = "key_q".into();
        }
    }
    let rk = if online {
        out.line("  wire [127:0] rk;");
        out.line(format!(
            "  key_expand u_key_expand (.key({key}), .t({sw} ^ {{rcon, 24'h000000}}), .next(rk));"
        ));
        "rk"
    } else {
        "round_key"
    };
    out.line("  wire [127:0] sr;");
    out.line(format!("  shift_rows u_shift_rows (.a({sbq}), .y(sr));"));
    let mixed = if last {
        "sr"
    } else {
        out.line("  wire [127:0] mc;");
        out.line("  mix_columns u_mix_columns (.a(sr), .y(mc));");
        "mc"
    };
    out.line("  always @(posedge clk) begin");
    out.line(format!("    state_out <= {mixed} ^ {rk};"));
    if online && !last {
        out.line("    key_out <= rk;");
    }
    out.line("  end");
    out.line("endmodule");
    out.line("");
}
