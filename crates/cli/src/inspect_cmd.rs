//! `aesflow inspect FILE`: what a file is, from its header alone (no key):
//! an aesflow passphrase file (suite, Argon2id parameters, salt), an
//! `openssl enc` salted file, or a Cobblestone message encrypted with a
//! key (which has no magic bytes: its length must be a message's, and its
//! suite is the key's), armored or not, with sizes and the chunk count. A
//! header that `decrypt` would refuse (damaged, or beyond the default
//! Argon2id limits) is shown, and exits with code 4.

use crate::armor;
use crate::text_out::hex;
use aesflow_format::cobblestone::{self, CHUNK_SIZE, MIN_CIPHERTEXT, PREFIX_SIZE, SALT_SIZE};
use aesflow_format::passphrase::{HEADER_SIZE, Header, KdfLimits, MAGIC};
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

/// Read the head of the file and its total size. Only a regular file is
/// read: the size is part of the answer, and a FIFO or device would be
/// consumed or block.
fn head(a: &InspectArgs) -> Result<(Vec<u8>, u64)> {
    let mut buf = Vec::new();
    if a.file.as_os_str() == "-" {
        return Err(crate::exit::usage(
            "inspect needs a file name (the size is part of the answer)",
        ));
    }
    let meta =
        std::fs::metadata(&a.file).map_err(|e| anyhow!("cannot open {}: {e}", a.file.display()))?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file (a FIFO, device or socket)"
        };
        return Err(anyhow!(
            "{} is {what}: inspect reads a file's header and size; \
             save the data to a file first",
            a.file.display()
        ));
    }
    let f = std::fs::File::open(&a.file)
        .map_err(|e| anyhow!("cannot open {}: {e}", a.file.display()))?;
    let size = f
        .metadata()
        .map_err(|e| anyhow!("cannot read {}: {e}", a.file.display()))?
        .len();
    f.take(HEAD as u64)
        .read_to_end(&mut buf)
        .map_err(|e| anyhow!("cannot read {}: {e}", a.file.display()))?;
    Ok((buf, size))
}

/// Bytes of the head read: the passphrase header and, for armor, the
/// text that decodes to it.
const HEAD: usize = 512;

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

/// What the head `h` of a message of `size` bytes (`None`: unknown, inside
/// armor) says; `refused`: the reason `aesflow decrypt` would refuse the
/// header (exit code 4).
fn describe(h: &[u8], size: Option<u64>, refused: &mut Option<String>) -> Info {
    let mut info = Info {
        size: size.unwrap_or(0),
        ..Info::default()
    };
    if h.starts_with(armor::BEGIN.as_bytes()) {
        return describe_armored(h, size.unwrap_or(0), refused);
    }
    if h.starts_with(MAGIC) {
        info.format = "aesflow passphrase file (Argon2id header + Cobblestone)".into();
        match Header::parse(h) {
            Ok(hd) => {
                info.suite = Some(hd.suite.name().into());
                info.argon2id_memory_kib = Some(hd.params.memory_kib);
                info.argon2id_iterations = Some(hd.params.iterations);
                info.argon2id_lanes = Some(hd.params.parallelism);
                info.salt = Some(hex(&hd.salt));
                if let Some(size) = size {
                    cobblestone_sizes(&mut info, size.saturating_sub(HEADER_SIZE as u64));
                }
                if let Err(e) = hd.params.check_limits(&KdfLimits::default()) {
                    info.note = Some(format!("decrypt refuses it by default: {e}"));
                    *refused = Some(e.to_string());
                }
            }
            Err(e) => {
                info.note = Some(e.to_string());
                *refused = Some(e.to_string());
            }
        }
    } else if h.starts_with(SALTED_MAGIC) && h.len() >= 16 {
        info.format = "openssl enc salted file (Salted__; decrypt with --raw --pbkdf2)".into();
        info.salt = Some(hex(&h[8..16]));
        info.note = Some(
            "the mode, key size, digest and iteration count are not recorded; \
             openssl's defaults are -md sha256 -iter 10000"
                .into(),
        );
    } else if size.is_none_or(|n| n >= MIN_CIPHERTEXT) && h.len() >= PREFIX_SIZE {
        // A Cobblestone message made with a key has no magic: its salt is
        // random. A length that no message can have rules it out.
        match size.map_or(Ok(0), cobblestone::plaintext_len) {
            Ok(_) => {
                info.format = "Cobblestone message encrypted with a key (aesflow encrypt -k; \
                               the format has no magic bytes)"
                    .into();
                info.salt = Some(hex(&h[..SALT_SIZE]));
                info.suite = Some(
                    "chosen by the key: Cobblestone-256 with a 32-byte key, \
                     Cobblestone-128 with a 16-byte one"
                        .into(),
                );
                if let Some(size) = size {
                    cobblestone_sizes(&mut info, size);
                }
            }
            Err(e) => {
                info.format = "not an aesflow file".into();
                info.note = Some(format!("its length is no Cobblestone message's: {e}"));
            }
        }
    } else {
        info.format = format!(
            "not an aesflow file (shorter than the {MIN_CIPHERTEXT}-byte minimum of a \
             Cobblestone message)"
        );
    }
    info
}

/// An armored file: the header its first lines decode to.
fn describe_armored(h: &[u8], size: u64, refused: &mut Option<String>) -> Info {
    // The head ends anywhere: what it decodes to before that is enough.
    let mut decoded = Vec::new();
    let _ = armor::ArmorReader::new(h).read_to_end(&mut decoded);
    let mut inner = describe(&decoded, None, refused);
    inner.size = size;
    inner.format = format!("ASCII-armored {}", inner.format);
    inner
}

pub fn run(a: InspectArgs) -> Result<()> {
    let (h, size) = head(&a)?;
    let mut refused = None;
    let info = describe(&h, Some(size), &mut refused);
    print(&a, &info, size)?;
    match refused {
        Some(why) => Err(crate::exit::CliError {
            code: crate::exit::FORMAT,
            message: format!("{}: decrypt refuses this header: {why}", a.file.display()),
        }
        .into()),
        None => Ok(()),
    }
}

fn print(a: &InspectArgs, info: &Info, size: u64) -> Result<()> {
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
