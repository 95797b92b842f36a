//! `aesflow keygen`: a fresh random key file for `encrypt --key-file`.

use crate::files_cmd::SuiteArg;
use aesflow_format::cobblestone::Suite;
use aesflow_output::AtomicFile;
use std::io::Write;
use std::path::PathBuf;
use zeroize::Zeroizing;

/// Arguments of `aesflow keygen`.
#[derive(clap::Args, Debug)]
pub struct KeygenArgs {
    /// Where to write the key (64 hex characters and a newline; 32 for
    /// --suite 128). Without it the key goes to stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Key size for Cobblestone-256 (AES-256) or Cobblestone-128 (AES-128).
    #[arg(long, value_enum, default_value = "256")]
    pub suite: SuiteArg,
    /// Overwrite an existing key file.
    #[arg(short, long)]
    pub force: bool,
}

pub fn run(a: KeygenArgs) -> anyhow::Result<()> {
    let len = Suite::from(a.suite).key_len();
    let mut key = Zeroizing::new(vec![0u8; len]);
    getrandom::fill(&mut key)
        .map_err(|e| anyhow::anyhow!("the system random generator failed: {e}"))?;
    let mut text = Zeroizing::new(String::with_capacity(2 * len + 1));
    for b in key.iter() {
        text.push_str(&format!("{b:02x}"));
    }
    text.push('\n');
    match &a.output {
        None => std::io::stdout().write_all(text.as_bytes())?,
        Some(path) => {
            let mut out = AtomicFile::builder()
                .force(a.force)
                .mode(0o600)
                .create(path)?;
            out.file_mut().write_all(text.as_bytes())?;
            out.commit(true)?;
            eprintln!("wrote a new {}-bit key to {}", 8 * len, path.display());
        }
    }
    Ok(())
}
