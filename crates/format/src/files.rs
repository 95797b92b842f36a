//! Whole encryption and decryption jobs on files and streams, as the
//! `aesflow encrypt` and `aesflow decrypt` commands run them; the
//! command-line layer plans the jobs, obtains keys, draws progress and
//! prints summaries.
//!
//! * Inputs are paths or stdin; outputs are paths or stdout.
//! * A path output is an [`aesflow_output::AtomicFile`]: an unnamed file in
//!   the target directory, given its name only after the whole input was
//!   processed (and, when decrypting, authenticated). Any error, or the
//!   process being killed, leaves no output file. Existing files are not
//!   overwritten without `force`; special files and the input itself never.
//! * Decrypting to stdout writes a batch of chunks only after all of them
//!   authenticated, but an error in a later batch comes after earlier
//!   plaintext was written: the command then exits non-zero and the
//!   partial output must be discarded.
//! * Regular input files are processed with positional I/O from all
//!   workers ([`cobblestone::encrypt_file`]), up to the length they had at
//!   the start; a file whose size changed by the end is an error (no
//!   output), never an output cut at the old size. Pipes are streamed.
//! * A passphrase header's Argon2id parameters are checked against
//!   [`KdfLimits`] before any work, and one derivation runs at a time, so a
//!   crafted file (or many inputs at once) cannot exhaust memory.

use crate::cobblestone::{self, ChunkKeys, ProgressFn, Suite};
use crate::error::{Error, Result};
use crate::passphrase::{HEADER_SIZE, Header, KdfLimits, KdfParams};
use crate::pool::Pool;
use crate::raw::{RawMode, RawParams, SaltedHeader, raw_stream};
use aesflow_output::{AtomicFile, same_file};
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::time::Instant;
use zeroize::Zeroizing;

/// The extension `encrypt` appends (and `decrypt` strips) when no output
/// name is given.
pub const EXTENSION: &str = "cob";

/// Where the key comes from.
pub enum KeyMaterial {
    /// A Cobblestone input key (a bare Cobblestone message).
    Key(Zeroizing<Vec<u8>>),
    /// A passphrase: a passphrase header precedes the message.
    Passphrase {
        /// The passphrase bytes.
        passphrase: Zeroizing<Vec<u8>>,
        /// Argon2id parameters for encryption (decryption reads them from
        /// the header).
        params: KdfParams,
    },
}

impl std::fmt::Debug for KeyMaterial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyMaterial::Key(_) => f.write_str("Key(<secret>)"),
            KeyMaterial::Passphrase { params, .. } => {
                write!(f, "Passphrase(<secret>, {params:?})")
            }
        }
    }
}

/// What to do with the bytes.
#[derive(Debug)]
pub enum Operation {
    /// Cobblestone (authenticated, chunked).
    Cobblestone {
        /// The suite for encryption (decryption with a passphrase takes it
        /// from the header).
        suite: Suite,
        /// The context string.
        context: Vec<u8>,
        /// The key.
        key: KeyMaterial,
    },
    /// An `openssl enc`-compatible raw mode.
    Raw(RawParams),
    /// An `openssl enc -pbkdf2 -md sha256` passphrase file: `Salted__`
    /// header, key and IV from PBKDF2-HMAC-SHA-256.
    Salted(SaltedRaw),
}

/// The parameters of [`Operation::Salted`].
pub struct SaltedRaw {
    /// The mode.
    pub mode: RawMode,
    /// AES key length in bytes (16, 24, 32).
    pub key_len: usize,
    /// The passphrase.
    pub passphrase: Zeroizing<Vec<u8>>,
    /// PBKDF2 iterations (`-iter`; OpenSSL's default is 10000).
    pub iterations: u32,
    /// PKCS#7 padding for ECB/CBC (`false`: `-nopad`).
    pub pad: bool,
}

impl std::fmt::Debug for SaltedRaw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SaltedRaw")
            .field("mode", &self.mode)
            .field("key_len", &self.key_len)
            .field("iterations", &self.iterations)
            .finish_non_exhaustive()
    }
}

/// One input and its output (`None`: stdin / stdout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The input path; `None` for stdin.
    pub input: Option<PathBuf>,
    /// The output path; `None` for stdout.
    pub output: Option<PathBuf>,
}

impl Job {
    /// The input for messages: its path, or `-` for stdin.
    pub fn input_name(&self) -> String {
        stdio_name(&self.input)
    }
}

/// A path for messages, `-` for stdin / stdout.
fn stdio_name(p: &Option<PathBuf>) -> String {
    p.as_ref().map_or("-".into(), |p| p.display().to_string())
}

/// What one job did.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Report {
    /// The input (`-` for stdin).
    pub input: String,
    /// The output (`-` for stdout).
    pub output: String,
    /// Bytes read.
    pub bytes_in: u64,
    /// Bytes written.
    pub bytes_out: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// What was done, e.g. `Cobblestone-256 encrypt`.
    pub operation: String,
}

impl Report {
    /// The report of `job`, started at `t0`, from what it did: (bytes read,
    /// bytes written, operation).
    pub fn new(
        job: &Job,
        t0: Instant,
        (bytes_in, bytes_out, operation): (u64, u64, String),
    ) -> Self {
        Report {
            input: job.input_name(),
            output: stdio_name(&job.output),
            bytes_in,
            bytes_out,
            seconds: t0.elapsed().as_secs_f64(),
            operation,
        }
    }

    /// Throughput over the input, in GB/s (10^9 bytes).
    pub fn gbps(&self) -> f64 {
        self.bytes_in as f64 / self.seconds.max(1e-9) / 1e9
    }
}

/// How to run a job.
#[derive(Clone, Copy, Debug)]
pub struct JobOptions {
    /// Encrypt (`true`) or decrypt.
    pub encrypt: bool,
    /// Replace an existing output file.
    pub force: bool,
    /// `fsync` the output file and its directory before success.
    pub sync: bool,
    /// The ceiling on a passphrase header's Argon2id parameters.
    pub kdf_limits: KdfLimits,
}

impl JobOptions {
    /// Defaults: no overwrite, synced, default Argon2id limits.
    pub fn new(encrypt: bool) -> Self {
        JobOptions {
            encrypt,
            force: false,
            sync: true,
            kdf_limits: KdfLimits::default(),
        }
    }
}

enum Src<'a> {
    Stdin(io::Stdin),
    File(File, u64, bool), // file, length, regular
    Reader(&'a mut dyn Read),
}

/// Where the output goes.
#[derive(Clone, Copy)]
enum Out<'a, 'w> {
    File(&'a AtomicFile),
    Stdout,
    Writer(&'a std::cell::RefCell<&'w mut dyn Write>),
}

/// Run `op` from any reader to any writer (the streaming paths): e.g. with
/// ASCII armor around the ciphertext. Returns (bytes read, bytes written,
/// what was done).
pub fn run_stream(
    pool: &Pool,
    op: &Operation,
    input: &mut dyn Read,
    output: &mut dyn Write,
    opts: &JobOptions,
    progress: ProgressFn<'_>,
) -> Result<(u64, u64, String)> {
    let cell = std::cell::RefCell::new(output);
    let mut src = Src::Reader(input);
    process(pool, op, &mut src, Out::Writer(&cell), opts, progress)
}

/// Run one job with synced output, default limits and no progress callback
/// (the library draws nothing: pass a callback to [`run_job_with`]).
pub fn run_job(
    pool: &Pool,
    op: &Operation,
    job: &Job,
    encrypt: bool,
    force: bool,
) -> Result<Report> {
    let opts = JobOptions {
        force,
        ..JobOptions::new(encrypt)
    };
    run_job_with(pool, op, job, &opts, &|_| {})
}

/// The input's total length, when known (for progress); `None` for stdin
/// and pipes.
pub fn input_len(job: &Job) -> Option<u64> {
    let m = std::fs::metadata(job.input.as_ref()?).ok()?;
    m.is_file().then_some(m.len())
}

/// The output file of `job` (`None`: stdout), created atomically: refused
/// if it is the input (encrypting or decrypting a file onto itself would
/// replace it while it is read); a decryption gets the permissions of the
/// input file (`input`: its metadata, `None` for stdin), an encryption
/// `0o666` minus the umask.
pub fn create_output(
    job: &Job,
    opts: &JobOptions,
    input: Option<&std::fs::Metadata>,
) -> Result<Option<AtomicFile>> {
    use std::os::unix::fs::PermissionsExt;
    let Some(o) = &job.output else {
        return Ok(None);
    };
    if job.input.as_ref().is_some_and(|i| same_file(i, o)) {
        return Err(aesflow_output::Error::SameAsInput(o.clone()).into());
    }
    let mode = match input {
        Some(m) if !opts.encrypt => m.permissions().mode(),
        _ => 0o666,
    };
    let file = AtomicFile::builder()
        .force(opts.force)
        .mode(mode & 0o777)
        .create(o)?;
    Ok(Some(file))
}

/// Run one job; `progress` is called with the input bytes done.
pub fn run_job_with(
    pool: &Pool,
    op: &Operation,
    job: &Job,
    opts: &JobOptions,
    progress: ProgressFn<'_>,
) -> Result<Report> {
    let t0 = Instant::now();
    let (mut src, meta) = match &job.input {
        None => (Src::Stdin(io::stdin()), None),
        Some(p) => {
            let f = File::open(p).map_err(|e| Error::io("cannot open", e))?;
            let m = f.metadata().map_err(|e| Error::io("cannot read", e))?;
            if m.is_dir() {
                return Err(Error::InvalidInput("is a directory".into()));
            }
            (Src::File(f, m.len(), m.is_file()), Some(m))
        }
    };
    let out = create_output(job, opts, meta.as_ref())?;
    let sink = out.as_ref().map_or(Out::Stdout, Out::File);
    let done = process(pool, op, &mut src, sink, opts, progress)?;
    if let Some(o) = out {
        o.commit(opts.sync)?;
    }
    Ok(Report::new(job, t0, done))
}

struct CountingReader<'a> {
    inner: &'a mut dyn Read,
    n: u64,
}

impl Read for CountingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.inner.read(buf)?;
        self.n += k as u64;
        Ok(k)
    }
}

fn reader<'b>(src: &'b mut Src<'_>) -> &'b mut dyn Read {
    match src {
        Src::Stdin(s) => s,
        Src::File(f, ..) => f,
        Src::Reader(r) => *r,
    }
}

fn with_writer<R>(out: Out<'_, '_>, f: impl FnOnce(&mut dyn Write) -> Result<R>) -> Result<R> {
    match out {
        Out::Writer(cell) => {
            let mut w = cell.borrow_mut();
            let r = f(&mut **w)?;
            w.flush().map_err(|e| Error::io("writing output", e))?;
            Ok(r)
        }
        Out::File(o) => {
            let mut w = io::BufWriter::with_capacity(1 << 20, o.file());
            let r = f(&mut w)?;
            w.flush().map_err(|e| Error::io("writing output", e))?;
            Ok(r)
        }
        Out::Stdout => {
            let mut lock = io::stdout().lock();
            f(&mut lock)
        }
    }
}

fn read_header(src: &mut Src<'_>) -> Result<[u8; HEADER_SIZE]> {
    let mut h = [0u8; HEADER_SIZE];
    let r = match src {
        Src::File(f, _, true) => {
            use std::os::unix::fs::FileExt;
            f.read_exact_at(&mut h, 0)
        }
        s => reader(s).read_exact(&mut h),
    };
    match r {
        Ok(()) => Ok(h),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Err(Error::BadHeader(
            "the input is shorter than the passphrase header (truncated, or not an aesflow passphrase file)".into(),
        )),
        Err(e) => Err(Error::io("reading input", e)),
    }
}

/// [`Operation::Salted`]: the `Salted__` header, then the raw mode.
fn process_salted(
    pool: &Pool,
    s: &SaltedRaw,
    src: &mut Src<'_>,
    out: Out<'_, '_>,
    encrypt: bool,
    prog: ProgressFn<'_>,
) -> Result<(u64, u64, String)> {
    let header = if encrypt {
        SaltedHeader::new(s.iterations)?
    } else {
        let mut h = [0u8; 16];
        reader(src).read_exact(&mut h).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => {
                Error::BadHeader("the input is shorter than the 16-byte Salted__ header".into())
            }
            _ => Error::io("reading input", e),
        })?;
        SaltedHeader::parse(&h, s.iterations)?
    };
    let p = RawParams::from_passphrase(s.mode, s.key_len, &s.passphrase, &header, s.pad)?;
    let mut counted = CountingReader {
        inner: reader(src),
        n: 0,
    };
    let w = with_writer(out, |w| {
        if encrypt {
            w.write_all(&header.to_bytes())
                .map_err(|e| Error::io("writing output", e))?;
        }
        raw_stream(pool, &p, encrypt, &mut counted, w, prog)
    })?;
    let name = format!("{} pbkdf2", p.openssl_name());
    Ok(if encrypt {
        (counted.n, w + 16, format!("{name} encrypt"))
    } else {
        (counted.n + 16, w, format!("{name} decrypt"))
    })
}

/// The error for a regular input file that is no longer `len` bytes long
/// after it was read by length (grown or shrunk meanwhile: the output
/// would be cut at, or padded to, its old size).
fn same_size(f: &File, len: u64) -> Result<()> {
    let now = f
        .metadata()
        .map_err(|e| Error::io("reading input", e))?
        .len();
    if now == len {
        return Ok(());
    }
    Err(Error::InvalidInput(format!(
        "the input changed size while being read ({len} bytes at the start, {now} at \
         the end); nothing was written: run again once it is complete"
    )))
}

/// Whether a regular input file starts with the passphrase header's magic.
fn starts_with_passphrase_magic(f: &Option<File>) -> bool {
    use std::os::unix::fs::FileExt;
    let mut m = [0u8; 8];
    f.as_ref()
        .is_some_and(|f| f.read_exact_at(&mut m, 0).is_ok() && &m == crate::passphrase::MAGIC)
}

fn process(
    pool: &Pool,
    op: &Operation,
    src: &mut Src<'_>,
    out: Out<'_, '_>,
    opts: &JobOptions,
    prog: ProgressFn<'_>,
) -> Result<(u64, u64, String)> {
    let encrypt = opts.encrypt;
    let dir = if encrypt { "encrypt" } else { "decrypt" };
    let (suite, context, key) = match op {
        Operation::Raw(p) => {
            let mut counted = CountingReader {
                inner: reader(src),
                n: 0,
            };
            let w = with_writer(out, |w| raw_stream(pool, p, encrypt, &mut counted, w, prog))?;
            return Ok((counted.n, w, format!("{} {dir}", p.openssl_name())));
        }
        Operation::Salted(s) => return process_salted(pool, s, src, out, encrypt, prog),
        Operation::Cobblestone {
            suite,
            context,
            key,
        } => (*suite, context, key),
    };
    // The header (passphrase mode), the input key and the context.
    let (header, suite, input_key, context) = match key {
        KeyMaterial::Key(k) => (None, suite, Zeroizing::new(k.to_vec()), context.clone()),
        KeyMaterial::Passphrase { passphrase, params } => {
            let h = if encrypt {
                Header::new(suite, *params)?
            } else {
                Header::parse(&read_header(src)?)?
            };
            h.params.check_limits(&opts.kdf_limits)?;
            let hb = h.to_bytes();
            // One derivation at a time: several inputs must not multiply
            // the memory the limits allow.
            static KDF: std::sync::Mutex<()> = std::sync::Mutex::new(());
            let k = {
                let _one = KDF.lock().unwrap_or_else(|e| e.into_inner());
                h.derive_key(passphrase)?
            };
            let mut c = hb.to_vec();
            c.extend_from_slice(context);
            (Some(hb), h.suite, k, c)
        }
    };
    let hlen = header.map_or(0, |h| h.len()) as u64;
    let src_file = match &*src {
        Src::File(f, _, true) => f.try_clone().ok(),
        _ => None,
    };
    let op_name = format!("{} {dir}", suite.name());
    let pw = |e: Error| match (e, header.is_some()) {
        (Error::WrongKey, true) => Error::WrongPassphrase,
        (Error::WrongKey, false) if starts_with_passphrase_magic(&src_file) => Error::InvalidInput(
            "this file was encrypted with a passphrase (it starts with the AESFLOWP header): \
             use --passphrase instead of a key"
                .into(),
        ),
        (e, _) => e,
    };
    if encrypt {
        let keys = ChunkKeys::for_encryption(pool, suite, &input_key, &context)?;
        let pt = match (&*src, out) {
            (Src::File(f, len, true), Out::File(o)) => {
                if let Some(h) = header {
                    use std::os::unix::fs::FileExt;
                    o.file()
                        .write_all_at(&h, 0)
                        .map_err(|e| Error::io("writing output", e))?;
                }
                cobblestone::encrypt_file(pool, &keys, f, *len, o.file(), hlen, prog)?;
                same_size(f, *len)?;
                *len
            }
            _ => with_writer(out, |w| {
                if let Some(h) = header {
                    w.write_all(&h)
                        .map_err(|e| Error::io("writing output", e))?;
                }
                cobblestone::encrypt_stream(pool, &keys, reader(src), w, prog)
            })?,
        };
        Ok((pt, hlen + cobblestone::ciphertext_len(pt), op_name))
    } else {
        let pt = match (&*src, out) {
            (Src::File(f, len, true), Out::File(o)) => {
                let ct_len = len
                    .checked_sub(hlen)
                    .ok_or(Error::Truncated(crate::cobblestone::TOO_SHORT))?;
                let pt = cobblestone::decrypt_file(
                    pool,
                    suite,
                    &input_key,
                    &context,
                    f,
                    hlen,
                    ct_len,
                    o.file(),
                    prog,
                )
                .map_err(pw)?;
                same_size(f, *len)?;
                pt
            }
            _ => {
                if let Src::File(f, _, true) = src {
                    use std::io::Seek;
                    f.seek(io::SeekFrom::Start(hlen))
                        .map_err(|e| Error::io("reading input", e))?;
                }
                with_writer(out, |w| {
                    cobblestone::decrypt_stream(
                        pool,
                        suite,
                        &input_key,
                        &context,
                        reader(src),
                        w,
                        prog,
                    )
                })
                .map_err(pw)?
            }
        };
        Ok((hlen + cobblestone::ciphertext_len(pt), pt, op_name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_size_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, [1u8; 100]).unwrap();
        let f = File::open(&p).unwrap();
        assert!(same_size(&f, 100).is_ok());
        std::fs::OpenOptions::new()
            .append(true)
            .open(&p)
            .unwrap()
            .write_all(b"more")
            .unwrap();
        let e = same_size(&f, 100).unwrap_err().to_string();
        assert!(e.contains("changed size") && e.contains("104"), "{e}");
    }
}
