//! `aesflow encrypt` / `aesflow decrypt`: arguments, the safety checks of
//! the command line (closed or terminal stdio, variable-time kernels), key
//! sources and summaries. The work is `aesflow_format::files`.
//!
//! Decrypting to stdout writes each batch of chunks only after it
//! authenticated; an error in a later batch exits non-zero after earlier
//! plaintext was written, and that output must be discarded.

use crate::args::KeySizeArg;
use crate::exit::{self, CliError};
use crate::jobs::{self, Failure};
use crate::keys::{self, KeySource, PassSource};
use crate::stdio;
use aesflow_format::Pool;
use aesflow_format::cobblestone::Suite;
use aesflow_format::files::{Job, JobOptions, KeyMaterial, Operation, SaltedRaw};
use aesflow_format::passphrase::{KdfLimits, KdfParams};
use aesflow_format::raw::{RawMode, RawParams};
use anyhow::{Result, anyhow, bail};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// A Cobblestone suite.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SuiteArg {
    /// Cobblestone-128: AES-128-GCM, 128-bit keys.
    #[value(name = "128")]
    S128,
    /// Cobblestone-256: AES-256-GCM, 256-bit keys.
    #[value(name = "256")]
    S256,
}

impl From<SuiteArg> for Suite {
    fn from(s: SuiteArg) -> Suite {
        match s {
            SuiteArg::S128 => Suite::Cobblestone128,
            SuiteArg::S256 => Suite::Cobblestone256,
        }
    }
}

/// The PBKDF2 digest (`openssl enc -md`).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum MdArg {
    /// SHA-256 (OpenSSL's default since 1.1.0).
    Sha256,
}

/// `--mode`: the raw modes by name, each with its description in `--help`.
fn raw_mode_parser() -> impl clap::builder::TypedValueParser<Value = RawMode> {
    let modes = RawMode::all().map(|m| PossibleValue::new(m.name()).help(m.description()));
    PossibleValuesParser::new(modes).map(|s| RawMode::parse(&s).expect("a listed mode"))
}

/// Options shared by `encrypt` and `decrypt`.
#[derive(Args, Debug)]
pub struct FileArgs {
    /// Input files (several are processed concurrently); `-` or none: stdin.
    pub inputs: Vec<PathBuf>,
    /// Output file (one input only; `-`: stdout). Default: stdout for
    /// stdin, else INPUT.cob (encrypt) or INPUT without .cob (decrypt).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Overwrite existing output files (never directories or special
    /// files); also allows ciphertext to a terminal.
    #[arg(short, long)]
    pub force: bool,
    /// Key file (`-`: read the key from stdin): 32 raw bytes or 64 hex
    /// digits (Cobblestone-256), 16 or 32 (Cobblestone-128).
    #[arg(short, long, value_name = "FILE", group = "keysrc")]
    pub key_file: Option<PathBuf>,
    /// Read the key (hex) from environment variable VAR.
    #[arg(long, value_name = "VAR", group = "keysrc")]
    pub key_env: Option<String>,
    /// Cobblestone context (a string bound to the ciphertext; the same one
    /// must be given to decrypt).
    #[arg(long, value_name = "TEXT", group = "ctx")]
    pub context: Option<String>,
    /// Cobblestone context as hex bytes.
    #[arg(long, value_name = "HEX", group = "ctx")]
    pub context_hex: Option<String>,
    /// Cobblestone context: the bytes of FILE (at most 64 KiB).
    #[arg(long, value_name = "FILE", group = "ctx")]
    pub context_file: Option<PathBuf>,
    /// Use a passphrase, prompted without echo on the terminal.
    #[arg(short, long, group = "keysrc")]
    pub passphrase: bool,
    /// Read the passphrase from the first line of FILE.
    #[arg(long, value_name = "FILE", group = "keysrc")]
    pub passphrase_file: Option<PathBuf>,
    /// Read the passphrase from environment variable VAR.
    #[arg(long, value_name = "VAR", group = "keysrc")]
    pub passphrase_env: Option<String>,
    /// Cobblestone suite (default: from the key's length; 256 for a
    /// passphrase).
    #[arg(long, value_enum)]
    pub suite: Option<SuiteArg>,
    /// Raw mode, byte-identical to `openssl enc -aes-N-MODE -K … -iv …`.
    #[arg(long, requires = "mode", conflicts_with_all = ["key_file", "key_env"])]
    pub raw: bool,
    /// Raw mode: the mode.
    #[arg(long, requires = "raw", value_parser = raw_mode_parser())]
    pub mode: Option<RawMode>,
    /// Raw mode: key in hex (32/48/64 digits: AES-128/192/256).
    #[arg(long, requires = "raw", value_name = "HEX", conflicts_with = "pbkdf2")]
    pub key: Option<String>,
    /// Raw mode: IV / initial counter in hex (32 digits).
    #[arg(long, requires = "raw", value_name = "HEX")]
    pub iv: Option<String>,
    /// Raw mode: no PKCS#7 padding (like `openssl enc -nopad`).
    #[arg(long, requires = "raw")]
    pub no_pad: bool,
    /// Raw mode: key and IV from a passphrase as `openssl enc -pbkdf2
    /// -md sha256` (a `Salted__` header precedes the data).
    #[arg(long, requires = "raw", conflicts_with = "iv")]
    pub pbkdf2: bool,
    /// PBKDF2 iterations (`openssl enc -iter`).
    #[arg(long, requires = "pbkdf2", default_value_t = aesflow_format::raw::OPENSSL_DEFAULT_ITER,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub iter: u32,
    /// PBKDF2 digest (`openssl enc -md`).
    #[arg(long, requires = "pbkdf2", value_enum, default_value = "sha256")]
    pub md: MdArg,
    /// AES key size for --pbkdf2.
    #[arg(long, requires = "pbkdf2", value_enum, default_value = "256")]
    pub key_size: KeySizeArg,
    /// Worker threads (0: all available cores).
    #[arg(short = 'j', long, default_value_t = 0)]
    pub threads: usize,
    /// No progress bar and no summary.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print a summary line per input on stderr (the default only when
    /// stdout is a terminal).
    #[arg(short, long)]
    pub verbose: bool,
    /// Print the summary as JSON (on stdout, or stderr when data goes there).
    #[arg(long)]
    pub json: bool,
    /// Do not fsync outputs (faster; a power failure may lose them).
    #[arg(long)]
    pub no_sync: bool,
    /// Run even if the AES kernel forced by AESFLOW_KERNEL is not
    /// constant-time (its timing can leak the key).
    #[arg(long)]
    pub allow_variable_time: bool,
}

/// `aesflow encrypt`.
#[derive(Args, Debug)]
pub struct EncryptArgs {
    #[command(flatten)]
    pub args: FileArgs,
    /// Argon2id memory in KiB for a passphrase.
    #[arg(long, default_value_t = KdfParams::default().memory_kib, hide_short_help = true)]
    pub kdf_memory_kib: u32,
    /// Argon2id passes for a passphrase.
    #[arg(long, default_value_t = KdfParams::default().iterations, hide_short_help = true)]
    pub kdf_iterations: u32,
    /// Argon2id lanes for a passphrase.
    #[arg(long, default_value_t = KdfParams::default().parallelism, hide_short_help = true)]
    pub kdf_parallelism: u32,
    /// ASCII armor: base64 between BEGIN/END lines (decrypt recognises it).
    #[arg(short, long)]
    pub armor: bool,
}

/// `aesflow decrypt`.
#[derive(Args, Debug)]
pub struct DecryptArgs {
    #[command(flatten)]
    pub args: FileArgs,
    /// Largest Argon2id memory (KiB) a passphrase file may ask for; a
    /// header asking more, or more work than 4 passes over it, is refused
    /// before any work (default 256 MiB: about 2 s at most).
    #[arg(long, value_name = "KIB", default_value_t = KdfLimits::default().max_memory_kib)]
    pub kdf_max_memory_kib: u32,
}

/// Run `aesflow encrypt`.
pub fn run_encrypt(a: EncryptArgs) -> Result<()> {
    let params = KdfParams {
        memory_kib: a.kdf_memory_kib,
        iterations: a.kdf_iterations,
        parallelism: a.kdf_parallelism,
    };
    exit::as_usage(params.check())?;
    if let Err(e) = params.check_limits(&KdfLimits::default()) {
        eprintln!("aesflow: warning: decrypting will need the limits raised: {e}");
    }
    let limits = KdfLimits::at_least(&params);
    run(a.args, true, params, limits, a.armor)
}

/// Run `aesflow decrypt`.
pub fn run_decrypt(a: DecryptArgs) -> Result<()> {
    let limits = KdfLimits::with_memory(a.kdf_max_memory_kib);
    run(a.args, false, KdfParams::default(), limits, false)
}

/// The context bytes from `--context`, `--context-hex` or `--context-file`.
fn context(a: &FileArgs) -> Result<Vec<u8>> {
    if let Some(h) = &a.context_hex {
        return Ok(exit::as_usage(aesflow_format::raw::parse_hex(h, "--context-hex"))?.to_vec());
    }
    if let Some(p) = &a.context_file {
        use std::io::Read;
        let f = std::fs::File::open(p)
            .map_err(|e| anyhow!("cannot open context file {}: {e}", p.display()))?;
        let mut v = Vec::new();
        f.take(64 * 1024 + 1)
            .read_to_end(&mut v)
            .map_err(|e| anyhow!("cannot read context file {}: {e}", p.display()))?;
        if v.len() > 64 * 1024 {
            bail!("context file {} is larger than 64 KiB", p.display());
        }
        return Ok(v);
    }
    Ok(a.context.as_deref().unwrap_or_default().as_bytes().to_vec())
}

fn operation(a: &FileArgs, encrypt: bool, params: KdfParams) -> Result<Operation> {
    let pass = if a.passphrase {
        Some(PassSource::Prompt)
    } else if let Some(f) = &a.passphrase_file {
        Some(PassSource::File(f.clone()))
    } else {
        a.passphrase_env.clone().map(PassSource::Env)
    };
    if a.raw {
        let mode = a.mode.ok_or_else(|| anyhow!("--raw needs --mode"))?;
        if a.pbkdf2 {
            let src = pass.ok_or_else(|| {
                exit::usage("--pbkdf2 needs --passphrase, --passphrase-file or --passphrase-env")
            })?;
            return Ok(Operation::Salted(SaltedRaw {
                mode,
                key_len: a.key_size.size().bytes(),
                passphrase: keys::passphrase(&src, encrypt)?,
                iterations: a.iter,
                pad: !a.no_pad,
            }));
        }
        let key = a
            .key
            .as_deref()
            .ok_or_else(|| exit::usage("--raw needs --key HEX (or --pbkdf2 with a passphrase)"))?;
        let p = exit::as_usage(RawParams::new(mode, key, a.iv.as_deref(), !a.no_pad))?;
        return Ok(Operation::Raw(p));
    }
    let context = context(a)?;
    let key_src = match (&a.key_file, &a.key_env) {
        (Some(f), _) if f.as_os_str() == "-" => Some(KeySource::Stdin),
        (Some(f), _) => Some(KeySource::File(f.clone())),
        (None, Some(v)) => Some(KeySource::Env(v.clone())),
        (None, None) => None,
    };
    let asked = a.suite.map(Suite::from);
    let (suite, key) = match (key_src, pass) {
        (Some(src), _) => {
            let k = keys::load_key(&src)?;
            (keys::suite_for(k.len(), asked)?, KeyMaterial::Key(k))
        }
        (None, Some(src)) => (
            asked.unwrap_or_default(),
            KeyMaterial::Passphrase {
                passphrase: keys::passphrase(&src, encrypt)?,
                params,
            },
        ),
        (None, None) => {
            return Err(exit::usage(
                "no key: give -k FILE (or -k - for stdin, --key-env VAR), \
                 --passphrase (or --passphrase-file / --passphrase-env), or --raw",
            ));
        }
    };
    Ok(Operation::Cobblestone {
        suite,
        context,
        key,
    })
}

/// The checks before any work: stdio, terminals, the kernel (returned: the
/// one `AESFLOW_KERNEL` forces, else the fastest constant-time one).
fn preflight(
    a: &FileArgs,
    jobs: &[Job],
    encrypt: bool,
    armor: bool,
) -> Result<&'static dyn aesflow_cipher::Kernel> {
    let reads_stdin = jobs.iter().any(|j| j.input.is_none());
    let writes_stdout = jobs.iter().any(|j| j.output.is_none());
    if reads_stdin && stdio::stdin_closed() {
        bail!("stdin is closed: there is no input to read (give a file name)");
    }
    if writes_stdout && stdio::stdout_closed() {
        bail!("stdout is closed: the output would be lost (use -o FILE)");
    }
    if reads_stdin && a.key_file.as_ref().is_some_and(|k| k.as_os_str() == "-") {
        return Err(exit::usage(
            "-k - reads the key from stdin, so the input must be a file",
        ));
    }
    // `-o -`, or `-o /dev/stdout` and the like (planned as stdout).
    let explicit_stdout = a.output.is_some() && writes_stdout;
    if encrypt
        && !armor
        && writes_stdout
        && !explicit_stdout
        && !a.force
        && stdio::stdout_is_terminal()
    {
        return Err(exit::refused(
            "refusing to write binary ciphertext to a terminal; \
             redirect it, use -o FILE, or force it with -o - or --force",
        ));
    }
    // The one resolution of AESFLOW_KERNEL: the pool carries it, so every
    // engine operation (the Cobblestone format, parallel GCM, the raw
    // modes) runs on it.
    let kernel = aesflow_cipher::default_kernel()?;
    if !kernel.is_constant_time() {
        let what = format!(
            "the {} kernel (chosen by {}) is not constant-time: its memory accesses \
             depend on the key and data, so its timing can leak the key",
            kernel.name(),
            aesflow_cipher::KERNEL_ENV
        );
        if !a.allow_variable_time {
            return Err(exit::refused(format!(
                "{what}; unset {} or pass --allow-variable-time",
                aesflow_cipher::KERNEL_ENV
            )));
        }
        eprintln!("aesflow: warning: {what}");
    }
    if reads_stdin && stdio::stdin_is_terminal() {
        let what = if encrypt { "plaintext" } else { "ciphertext" };
        eprintln!(
            "aesflow: reading the {what} from the terminal; give a file name or pipe \
             the data in (Ctrl-D ends the input, Ctrl-C cancels)"
        );
    }
    Ok(kernel)
}

fn run(
    a: FileArgs,
    encrypt: bool,
    params: KdfParams,
    kdf_limits: KdfLimits,
    armor: bool,
) -> Result<()> {
    crate::signals::install();
    let jobs = jobs::plan_jobs(&a.inputs, a.output.as_deref(), encrypt)?;
    let kernel = preflight(&a, &jobs, encrypt, armor)?;
    let op = operation(&a, encrypt, params)?;
    let pool = exit::as_usage(Pool::new(a.threads))?
        .with_kernel(kernel)
        .with_plan(crate::plan_cmd::resolved().plan);
    let kernel = kernel.name();
    let opts = JobOptions {
        encrypt,
        force: a.force,
        sync: !a.no_sync,
        kdf_limits,
    };
    let results = jobs::run_jobs(&pool, &op, &jobs, &opts, !a.quiet, armor);
    let mut failed = Vec::new();
    let mut reports = Vec::new();
    for (job, r) in jobs.iter().zip(results) {
        match r {
            Ok(rep) => reports.push(rep),
            Err(e) => {
                failed.push(Failure {
                    input: job.input_name(),
                    exit_code: exit::code(&e),
                    error: e.to_string(),
                });
            }
        }
    }
    let to_stdout = jobs.iter().any(|j| j.output.is_none());
    if a.json {
        let s = jobs::json(&reports, &failed, kernel);
        if to_stdout {
            eprintln!("{s}");
        } else {
            println!("{s}");
        }
    } else if a.verbose || (!a.quiet && stdio::stdout_is_terminal()) {
        for r in &reports {
            eprintln!("{}", jobs::line(r, kernel));
        }
    }
    failure(&jobs, failed)
}

/// The error for the failed jobs (one line each), with the exit code they
/// share (1 if they differ).
fn failure(jobs: &[Job], failed: Vec<Failure>) -> Result<()> {
    let Some(first) = failed.first() else {
        return Ok(());
    };
    let code = if failed.iter().all(|f| f.exit_code == first.exit_code) {
        first.exit_code
    } else {
        exit::FAILURE
    };
    let mut message = if failed.len() == 1 && jobs.len() == 1 {
        format!("{}: {}", first.input, first.error)
    } else {
        for f in &failed {
            eprintln!("aesflow: {}: {}", f.input, f.error);
        }
        format!(
            "{} of {} inputs failed; no output was written for them",
            failed.len(),
            jobs.len()
        )
    };
    if let Some(note) = stdio::stdout_note() {
        message = format!("{message}; {note}");
    }
    Err(CliError { code, message }.into())
}
