//! `aesflow encrypt` / `aesflow decrypt`: files and streams, Cobblestone or
//! raw `openssl enc`-compatible modes. Argument parsing and printing only;
//! the work is in `aesflow_engine::files`.
//!
//! Decrypting to stdout writes each batch of chunks only after it
//! authenticated; an error in a later batch exits non-zero after earlier
//! plaintext was written, and that output must be discarded.

use aesflow_engine::cobblestone::Suite;
use aesflow_engine::files::{self, KeyMaterial, Operation};
use aesflow_engine::passphrase::{self, KdfParams, PassphraseSource};
use aesflow_engine::raw::{RawMode, RawParams};
use aesflow_engine::{Pool, output};
use anyhow::{Result, anyhow, bail};
use clap::Args;
use std::path::PathBuf;

/// Options shared by `encrypt` and `decrypt`.
#[derive(Args, Debug)]
pub struct FileArgs {
    /// Input files (several are processed concurrently); `-` or none: stdin.
    pub inputs: Vec<PathBuf>,
    /// Output file (one input only; `-`: stdout). Default: stdout for
    /// stdin, else INPUT.cob (encrypt) or INPUT without .cob (decrypt).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Overwrite existing output files.
    #[arg(short, long)]
    pub force: bool,
    /// Key file: 32 raw bytes or 64 hex characters (16/32 for
    /// --suite 128); makes a bare Cobblestone message.
    #[arg(short, long, value_name = "FILE", group = "keysrc")]
    pub key_file: Option<PathBuf>,
    /// Cobblestone context string.
    #[arg(long, default_value = "")]
    pub context: String,
    /// Use a passphrase, prompted without echo on the terminal.
    #[arg(short, long, group = "keysrc")]
    pub passphrase: bool,
    /// Read the passphrase from the first line of FILE.
    #[arg(long, value_name = "FILE", group = "keysrc")]
    pub passphrase_file: Option<PathBuf>,
    /// Read the passphrase from environment variable VAR.
    #[arg(long, value_name = "VAR", group = "keysrc")]
    pub passphrase_env: Option<String>,
    /// Cobblestone-256 (AES-256-GCM) or Cobblestone-128 (AES-128-GCM).
    #[arg(long, default_value = "256", value_parser = ["128", "256"])]
    pub suite: String,
    /// Raw mode, byte-identical to `openssl enc -aes-N-MODE -K … -iv …`.
    #[arg(long, group = "keysrc", requires_all = ["mode", "key"])]
    pub raw: bool,
    /// Raw mode: ecb, cbc, ctr, cfb, ofb.
    #[arg(long, requires = "raw", value_parser = ["ecb", "cbc", "ctr", "cfb", "ofb"])]
    pub mode: Option<String>,
    /// Raw mode: key in hex (32/48/64 digits: AES-128/192/256).
    #[arg(long, requires = "raw", value_name = "HEX")]
    pub key: Option<String>,
    /// Raw mode: IV / initial counter in hex (32 digits).
    #[arg(long, requires = "raw", value_name = "HEX")]
    pub iv: Option<String>,
    /// Raw mode: no PKCS#7 padding (like `openssl enc -nopad`).
    #[arg(long, requires = "raw")]
    pub no_pad: bool,
    /// Worker threads (0: all available cores).
    #[arg(short = 'j', long, default_value_t = 0)]
    pub threads: usize,
    /// No progress bar and no summary.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print the summary as JSON (on stdout, or stderr when data goes there).
    #[arg(long)]
    pub json: bool,
    /// Argon2id memory in KiB when encrypting with a passphrase.
    #[arg(long, default_value_t = KdfParams::default().memory_kib, hide_short_help = true)]
    pub kdf_memory_kib: u32,
    /// Argon2id iterations when encrypting with a passphrase.
    #[arg(long, default_value_t = KdfParams::default().iterations, hide_short_help = true)]
    pub kdf_iterations: u32,
    /// Argon2id lanes when encrypting with a passphrase.
    #[arg(long, default_value_t = KdfParams::default().parallelism, hide_short_help = true)]
    pub kdf_parallelism: u32,
}

/// `aesflow encrypt`.
#[derive(Args, Debug)]
pub struct EncryptArgs {
    #[command(flatten)]
    pub args: FileArgs,
}

/// `aesflow decrypt`.
#[derive(Args, Debug)]
pub struct DecryptArgs {
    #[command(flatten)]
    pub args: FileArgs,
}

/// Run `aesflow encrypt`.
pub fn run_encrypt(a: EncryptArgs) -> Result<()> {
    run(a.args, true)
}

/// Run `aesflow decrypt`.
pub fn run_decrypt(a: DecryptArgs) -> Result<()> {
    run(a.args, false)
}

fn operation(a: &FileArgs, encrypt: bool) -> Result<Operation> {
    if a.raw {
        let mode = RawMode::parse(a.mode.as_deref().unwrap_or_default())?;
        let key = a
            .key
            .as_deref()
            .ok_or_else(|| anyhow!("--raw needs --key"))?;
        return Ok(Operation::Raw(RawParams::new(
            mode,
            key,
            a.iv.as_deref(),
            !a.no_pad,
        )?));
    }
    let suite = if a.suite == "128" {
        Suite::Cobblestone128
    } else {
        Suite::Cobblestone256
    };
    let pass = if a.passphrase {
        Some(PassphraseSource::Prompt)
    } else if let Some(f) = &a.passphrase_file {
        Some(PassphraseSource::File(f.clone()))
    } else {
        a.passphrase_env.clone().map(PassphraseSource::Env)
    };
    let key = match (&a.key_file, pass) {
        (Some(f), _) => KeyMaterial::Key(files::load_key_file(f, suite.key_len())?),
        (None, Some(src)) => KeyMaterial::Passphrase {
            passphrase: passphrase::obtain(&src, encrypt)?,
            params: KdfParams {
                memory_kib: a.kdf_memory_kib,
                iterations: a.kdf_iterations,
                parallelism: a.kdf_parallelism,
            },
        },
        (None, None) => bail!(
            "no key: give --key-file, --passphrase (or --passphrase-file / --passphrase-env), or --raw"
        ),
    };
    Ok(Operation::Cobblestone {
        suite,
        context: a.context.as_bytes().to_vec(),
        key,
    })
}

fn run(a: FileArgs, encrypt: bool) -> Result<()> {
    output::install_interrupt_handler();
    let jobs = files::plan_jobs(&a.inputs, a.output.as_deref(), encrypt)?;
    let op = operation(&a, encrypt)?;
    let pool = Pool::new(a.threads)?;
    let results = files::run_jobs(&pool, &op, &jobs, encrypt, a.force, !a.quiet);
    let to_stdout = jobs.iter().any(|j| j.output.is_none());
    let mut failed = Vec::new();
    let mut reports = Vec::new();
    for (job, r) in jobs.iter().zip(results) {
        match r {
            Ok(rep) => reports.push(rep),
            Err(e) => {
                let name = job
                    .input
                    .as_ref()
                    .map_or("-".to_string(), |p| p.display().to_string());
                failed.push(format!("{name}: {e}"));
            }
        }
    }
    if a.json {
        let body: Vec<String> = reports.iter().map(|r| r.to_json()).collect();
        let errs: Vec<String> = failed.iter().map(|e| files::json_str(e)).collect();
        let s = format!(
            "{{\"ok\":[{}],\"failed\":[{}]}}",
            body.join(","),
            errs.join(",")
        );
        if to_stdout {
            eprintln!("{s}");
        } else {
            println!("{s}");
        }
    } else if !a.quiet {
        for r in &reports {
            eprintln!("{}", r.to_line());
        }
    }
    match failed.len() {
        0 => Ok(()),
        1 if jobs.len() == 1 => Err(anyhow!("{}", failed.remove(0))),
        n => {
            for f in &failed {
                eprintln!("aesflow: {f}");
            }
            bail!(
                "{n} of {} inputs failed; no output was written for them",
                jobs.len()
            )
        }
    }
}

/// The demo's file round trip on built-in data, with the measured speed.
pub fn demo_round_trip() -> Result<()> {
    let size = 64 << 20;
    let (e, d) = files::demo_round_trip(size)?;
    println!(
        "File round trip (Cobblestone-256, {} MiB in {}, {} threads): encrypt {:.2} GB/s, decrypt {:.2} GB/s, data identical",
        size >> 20,
        aesflow_engine::bench::default_dir().display(),
        Pool::global().threads(),
        e.gbps(),
        d.gbps()
    );
    Ok(())
}
