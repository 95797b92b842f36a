//! Whole operations on files and streams, as the `aesflow encrypt` and
//! `aesflow decrypt` commands run them (the command-line layer only parses
//! arguments and prints).
//!
//! * Inputs are paths or stdin; outputs are paths or stdout.
//! * A path output is an [`AtomicFile`]: written to a temporary file in the
//!   target directory, synced and renamed only after the whole input was
//!   processed (and, when decrypting, authenticated). Any error leaves no
//!   output file. Existing files are not overwritten without `force`; an
//!   output that is the input is refused.
//! * Decrypting to stdout writes a batch of chunks only after all of them
//!   authenticated, but an error in a later batch comes after earlier
//!   plaintext was written: the command then exits non-zero and the
//!   partial output must be discarded.
//! * Regular input files are processed with positional I/O from all
//!   workers ([`cobblestone::encrypt_file`]); pipes are streamed.

use crate::cobblestone::{self, ChunkKeys, Suite};
use crate::error::{Error, Result};
use crate::output::{AtomicFile, same_file};
use crate::passphrase::{HEADER_SIZE, Header, KdfParams};
use crate::pool::Pool;
use crate::progress::Progress;
use crate::raw::{RawParams, raw_stream};
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
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
}

/// One input and its output (`None`: stdin / stdout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The input path; `None` for stdin.
    pub input: Option<PathBuf>,
    /// The output path; `None` for stdout.
    pub output: Option<PathBuf>,
}

/// Load a key file: `key_len` raw bytes, or `2 * key_len` hex digits
/// (surrounding whitespace ignored).
pub fn load_key_file(path: &Path, key_len: usize) -> Result<Zeroizing<Vec<u8>>> {
    let data = Zeroizing::new(
        std::fs::read(path)
            .map_err(|e| Error::io(format!("reading key file {}", path.display()), e))?,
    );
    if data.len() == key_len {
        return Ok(Zeroizing::new(data.to_vec()));
    }
    let text = std::str::from_utf8(&data).ok().map(str::trim);
    match text {
        Some(t) if t.len() == 2 * key_len => crate::raw::parse_hex(t, "key file"),
        _ => Err(Error::InvalidInput(format!(
            "key file {} must hold {key_len} raw bytes or {} hex characters (it has {} bytes)",
            path.display(),
            2 * key_len,
            data.len()
        ))),
    }
}

/// Pair inputs with outputs. `inputs` empty or `-` means stdin; `output`
/// (`-o`) is allowed with one input only. Without `-o`, stdin goes to
/// stdout and a file `F` to `F.cob` (encrypt) or `F` minus `.cob` (decrypt).
pub fn plan_jobs(inputs: &[PathBuf], output: Option<&Path>, encrypt: bool) -> Result<Vec<Job>> {
    let stdin = |p: &PathBuf| p.as_os_str() == "-";
    let inputs: Vec<Option<PathBuf>> = if inputs.is_empty() {
        vec![None]
    } else {
        inputs
            .iter()
            .map(|p| (!stdin(p)).then(|| p.clone()))
            .collect()
    };
    if inputs.iter().filter(|i| i.is_none()).count() > 1 {
        return Err(Error::InvalidInput("stdin (-) given more than once".into()));
    }
    if output.is_some() && inputs.len() > 1 {
        return Err(Error::InvalidInput(
            "-o/--output takes a single input; with several inputs each output is named after its input".into(),
        ));
    }
    let mut jobs = Vec::new();
    for input in inputs {
        let out = match (output, &input) {
            (Some(o), _) if o.as_os_str() == "-" => None,
            (Some(o), _) => Some(o.to_path_buf()),
            (None, None) => None,
            (None, Some(i)) if encrypt => {
                let mut s = i.clone().into_os_string();
                s.push(".");
                s.push(EXTENSION);
                Some(PathBuf::from(s))
            }
            (None, Some(i)) => {
                if i.extension().is_some_and(|e| e == EXTENSION) {
                    Some(i.with_extension(""))
                } else {
                    return Err(Error::InvalidInput(format!(
                        "{}: cannot name the output (the input does not end in .{EXTENSION}); use -o",
                        i.display()
                    )));
                }
            }
        };
        jobs.push(Job { input, output: out });
    }
    // Two jobs writing one file.
    for (i, a) in jobs.iter().enumerate() {
        for b in &jobs[i + 1..] {
            if a.output.is_some() && a.output == b.output {
                return Err(Error::InvalidInput(format!(
                    "two inputs would write {}",
                    a.output
                        .as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                )));
            }
        }
    }
    Ok(jobs)
}

/// What one job did.
#[derive(Clone, Debug, PartialEq)]
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

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

impl Report {
    /// Throughput over the input, in GB/s (10^9 bytes).
    pub fn gbps(&self) -> f64 {
        self.bytes_in as f64 / self.seconds.max(1e-9) / 1e9
    }

    /// A JSON object.
    pub fn to_json(&self) -> String {
        format!(
            "{{\"input\":{},\"output\":{},\"operation\":{},\"bytes_in\":{},\"bytes_out\":{},\"seconds\":{:.6},\"gb_per_s\":{:.3}}}",
            json_str(&self.input),
            json_str(&self.output),
            json_str(&self.operation),
            self.bytes_in,
            self.bytes_out,
            self.seconds,
            self.gbps()
        )
    }

    /// One human-readable line.
    pub fn to_line(&self) -> String {
        format!(
            "{} -> {}: {} ({} bytes in, {} bytes out, {:.3} s, {:.2} GB/s)",
            self.input,
            self.output,
            self.operation,
            self.bytes_in,
            self.bytes_out,
            self.seconds,
            self.gbps()
        )
    }
}

/// Run several jobs concurrently on the pool; results in job order.
pub fn run_jobs(
    pool: &Pool,
    op: &Operation,
    jobs: &[Job],
    encrypt: bool,
    force: bool,
    progress: bool,
) -> Vec<Result<Report>> {
    let single = jobs.len() == 1;
    pool.map(jobs, |j| {
        run_job(pool, op, j, encrypt, force, progress && single)
    })
}

enum Src {
    Stdin(io::Stdin),
    File(File, u64, bool), // file, length, regular
}

/// Run one job.
pub fn run_job(
    pool: &Pool,
    op: &Operation,
    job: &Job,
    encrypt: bool,
    force: bool,
    show_progress: bool,
) -> Result<Report> {
    let t0 = Instant::now();
    let in_name = job
        .input
        .as_ref()
        .map_or("-".to_string(), |p| p.display().to_string());
    let out_name = job
        .output
        .as_ref()
        .map_or("-".to_string(), |p| p.display().to_string());
    let ctx = |e: Error| match e {
        Error::Io { context, source } => Error::Io {
            context: format!("{in_name}: {context}"),
            source,
        },
        e => e,
    };
    let mut src = match &job.input {
        None => Src::Stdin(io::stdin()),
        Some(p) => {
            let f = File::open(p).map_err(|e| Error::io(format!("opening {}", p.display()), e))?;
            let m = f
                .metadata()
                .map_err(|e| Error::io(format!("reading {}", p.display()), e))?;
            if m.is_dir() {
                return Err(Error::InvalidInput(format!(
                    "{} is a directory",
                    p.display()
                )));
            }
            Src::File(f, m.len(), m.is_file())
        }
    };
    let out = match &job.output {
        None => None,
        Some(o) => {
            if job.input.as_ref().is_some_and(|i| same_file(i, o)) {
                return Err(Error::InvalidInput(format!(
                    "{}: input and output are the same file",
                    o.display()
                )));
            }
            Some(AtomicFile::create(o, force)?)
        }
    };
    let total = match &src {
        Src::File(_, len, true) => Some(*len),
        _ => None,
    };
    let label = if encrypt { "encrypting" } else { "decrypting" };
    let bar = Progress::new(label, total, show_progress);
    let prog = |n: u64| bar.add(n);
    let r = process(pool, op, &mut src, out.as_ref(), encrypt, &prog).map_err(ctx);
    bar.finish();
    let (bytes_in, bytes_out, operation) = r?;
    if let Some(o) = out {
        o.commit()?;
    }
    Ok(Report {
        input: in_name,
        output: out_name,
        bytes_in,
        bytes_out,
        seconds: t0.elapsed().as_secs_f64(),
        operation,
    })
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

fn reader(src: &mut Src) -> &mut dyn Read {
    match src {
        Src::Stdin(s) => s,
        Src::File(f, ..) => f,
    }
}

fn with_writer<R>(
    out: Option<&AtomicFile>,
    f: impl FnOnce(&mut dyn Write) -> Result<R>,
) -> Result<R> {
    match out {
        Some(o) => {
            let mut w = io::BufWriter::with_capacity(1 << 20, o.file());
            let r = f(&mut w)?;
            w.flush().map_err(|e| Error::io("writing output", e))?;
            Ok(r)
        }
        None => {
            let mut lock = io::stdout().lock();
            f(&mut lock)
        }
    }
}

fn read_header(src: &mut Src) -> Result<[u8; HEADER_SIZE]> {
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

fn process(
    pool: &Pool,
    op: &Operation,
    src: &mut Src,
    out: Option<&AtomicFile>,
    encrypt: bool,
    prog: &(dyn Fn(u64) + Sync),
) -> Result<(u64, u64, String)> {
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
            let hb = h.to_bytes();
            let k = h.derive_key(passphrase)?;
            let mut c = hb.to_vec();
            c.extend_from_slice(context);
            (Some(hb), h.suite, k, c)
        }
    };
    let hlen = header.map_or(0, |h| h.len()) as u64;
    let op_name = format!("{} {dir}", suite.name());
    let pw = |e: Error| match (e, header.is_some()) {
        (Error::WrongKey, true) => Error::WrongPassphrase,
        (e, _) => e,
    };
    if encrypt {
        let keys = ChunkKeys::for_encryption(suite, &input_key, &context)?;
        let pt = match (&*src, out) {
            (Src::File(f, len, true), Some(o)) => {
                if let Some(h) = header {
                    use std::os::unix::fs::FileExt;
                    o.file()
                        .write_all_at(&h, 0)
                        .map_err(|e| Error::io("writing output", e))?;
                }
                cobblestone::encrypt_file(pool, &keys, f, *len, o.file(), hlen, prog)?;
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
            (Src::File(f, len, true), Some(o)) => {
                let ct_len = len.checked_sub(hlen).ok_or(Error::Truncated(
                    "shorter than the 72-byte minimum (truncated, or not a Cobblestone message)",
                ))?;
                cobblestone::decrypt_file(
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
                .map_err(pw)?
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

/// The demo's file round trip: `size` bytes of built-in data encrypted to a
/// file in a temporary directory and decrypted back, on all cores; returns
/// the two reports (the data is compared). The directory is made in
/// [`crate::bench::default_dir`] (`/dev/shm` when present): the demo shows
/// the engine's speed, not the disk's (on a disk the output's `fsync`
/// dominates).
pub fn demo_round_trip(size: usize) -> Result<(Report, Report)> {
    let base = crate::bench::default_dir();
    let dir = tempfile::Builder::new()
        .prefix("aesflow-demo-")
        .tempdir_in(&base)
        .map_err(|e| {
            Error::io(
                format!("creating a temporary directory in {}", base.display()),
                e,
            )
        })?;
    let input = dir.path().join("demo.bin");
    let data: Vec<u8> = (0..size)
        .map(|i| (i % 251) as u8 ^ (i >> 12) as u8)
        .collect();
    std::fs::write(&input, &data).map_err(|e| Error::io("writing demo data", e))?;
    let op = Operation::Cobblestone {
        suite: Suite::Cobblestone256,
        context: b"aesflow demo".to_vec(),
        key: KeyMaterial::Key(Zeroizing::new(vec![0x5c; 32])),
    };
    let pool = Pool::global();
    let enc = dir.path().join("demo.bin.cob");
    let back = dir.path().join("demo.out");
    let j1 = Job {
        input: Some(input),
        output: Some(enc.clone()),
    };
    let r1 = run_job(pool, &op, &j1, true, false, false)?;
    let j2 = Job {
        input: Some(enc),
        output: Some(back.clone()),
    };
    let r2 = run_job(pool, &op, &j2, false, false, false)?;
    let got = std::fs::read(&back).map_err(|e| Error::io("reading demo output", e))?;
    if got != data {
        return Err(Error::InvalidInput("demo round trip: data differs".into()));
    }
    Ok((r1, r2))
}
