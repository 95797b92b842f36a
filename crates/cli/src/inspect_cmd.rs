//! `aesflow inspect FILE`: what a file is, from its header alone (no key):
//! an aesflow passphrase file (suite, Argon2id parameters, salt), an
//! `openssl enc` salted file, or a bare Cobblestone message (its suite is
//! not recorded: the key's length tells), with sizes and the chunk count.

use crate::text_out::hex;
use aesflow_format::cobblestone::{self, CHUNK_SIZE, PREFIX_SIZE};
use aesflow_format::passphrase::{HEADER_SIZE, Header, MAGIC};
use aesflow_format::raw::SALTED_MAGIC;
use anyhow::{Result, anyhow};
use serde::Serialize;
use std::io::Read;
use std::path::PathBuf;

/// Arguments of `aesflow inspect`.
#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// The file to inspect.
    pub file: PathBuf,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize, Default)]
struct Info {
    format: String,
    size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    suite: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    argon2id_memory_kib: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    argon2id_iterations: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    argon2id_lanes: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    salt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    chunks: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plaintext_size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// Read the head of the file and its total size.
fn head(a: &InspectArgs) -> Result<(Vec<u8>, u64)> {
    let mut buf = Vec::new();
    if a.file.as_os_str() == "-" {
        return Err(anyhow!(
            "inspect needs a file name (the size is part of the answer)"
        ));
    }
    let f = std::fs::File::open(&a.file)
        .map_err(|e| anyhow!("cannot open {}: {e}", a.file.display()))?;
    let size = f
        .metadata()
        .map_err(|e| anyhow!("cannot read {}: {e}", a.file.display()))?
        .len();
    f.take(256)
        .read_to_end(&mut buf)
        .map_err(|e| anyhow!("cannot read {}: {e}", a.file.display()))?;
    Ok((buf, size))
}

/// The chunk count and plaintext size of a Cobblestone message of `len`.
fn cobblestone_sizes(info: &mut Info, len: u64) {
    match cobblestone::plaintext_len(len) {
        Ok(p) => {
            info.plaintext_size = Some(p);
            info.chunks = Some(p / CHUNK_SIZE as u64 + 1);
        }
        Err(e) => info.note = Some(format!("not a whole Cobblestone message: {e}")),
    }
}

fn describe(h: &[u8], size: u64) -> Info {
    let mut info = Info {
        size,
        ..Info::default()
    };
    if h.starts_with(MAGIC) {
        info.format = "aesflow passphrase file (Argon2id header + Cobblestone)".into();
        match Header::parse(h) {
            Ok(hd) => {
                info.suite = Some(hd.suite.name().into());
                info.argon2id_memory_kib = Some(hd.params.memory_kib);
                info.argon2id_iterations = Some(hd.params.iterations);
                info.argon2id_lanes = Some(hd.params.parallelism);
                info.salt = Some(hex(&hd.salt));
                cobblestone_sizes(&mut info, size - HEADER_SIZE as u64);
            }
            Err(e) => info.note = Some(e.to_string()),
        }
    } else if h.starts_with(SALTED_MAGIC) && h.len() >= 16 {
        info.format = "openssl enc salted file (Salted__; decrypt with --raw --pbkdf2)".into();
        info.salt = Some(hex(&h[8..16]));
        info.note = Some(
            "the mode, key size, digest and iteration count are not recorded; \
             openssl's defaults are -md sha256 -iter 10000"
                .into(),
        );
    } else if size >= PREFIX_SIZE as u64 {
        info.format = "bare Cobblestone message (key file; or not an aesflow file)".into();
        info.salt = Some(hex(&h[..24]));
        info.suite = Some(
            "not recorded: Cobblestone-256 with a 32-byte key, Cobblestone-128 with 16".into(),
        );
        cobblestone_sizes(&mut info, size);
    } else {
        info.format = "unknown (too short for any aesflow format)".into();
    }
    info
}

pub fn run(a: InspectArgs) -> Result<()> {
    let (h, size) = head(&a)?;
    let info = describe(&h, size);
    if a.json {
        println!("{}", serde_json::to_string(&info)?);
        return Ok(());
    }
    println!("{}: {}", a.file.display(), info.format);
    println!("  size: {} ({size} bytes)", crate::jobs::human_size(size));
    let rows: [(&str, Option<String>); 8] = [
        ("suite", info.suite.clone()),
        (
            "Argon2id memory",
            info.argon2id_memory_kib.map(|m| format!("{m} KiB")),
        ),
        (
            "Argon2id passes",
            info.argon2id_iterations.map(|v| v.to_string()),
        ),
        ("Argon2id lanes", info.argon2id_lanes.map(|v| v.to_string())),
        ("salt", info.salt.clone()),
        (
            "chunks",
            info.chunks
                .map(|v| format!("{v} (16 KiB each, the last shorter)")),
        ),
        (
            "plaintext",
            info.plaintext_size
                .map(|v| format!("{} ({v} bytes)", crate::jobs::human_size(v))),
        ),
        ("note", info.note.clone()),
    ];
    for (k, v) in rows {
        if let Some(v) = v {
            println!("  {k}: {v}");
        }
    }
    Ok(())
}
