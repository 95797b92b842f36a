//! Cobblestone on files: every worker reads, seals or opens and writes its
//! own steps with positional scatter/gather I/O.

use super::*;

/// Chunks per step of the file path (512 KiB of plaintext): a worker reads
/// a step straight into place, seals or opens it and writes it while it is
/// still in the core's L2 cache.
pub const CHUNKS_PER_STEP: usize = 32;

/// Move all of `slices` with the positional vectored call `call(slices,
/// offset)` (`preadv` scatters into `IoSliceMut`s, `pwritev` gathers from
/// `IoSlice`s): at most 1024 buffers per call (IOV_MAX on Linux), retried
/// on `EINTR`; a call that moves no byte fails with `none` (early end of
/// file, or a full device).
fn all_vectored_at<S: std::ops::Deref<Target = [u8]>>(
    mut slices: Vec<S>,
    mut offset: u64,
    none: io::ErrorKind,
    call: impl Fn(&mut [S], u64) -> rustix::io::Result<usize>,
    advance: impl Fn(&mut &mut [S], usize),
) -> io::Result<()> {
    slices.retain(|s| !s.is_empty());
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        let k = rest.len().min(1024);
        match call(&mut rest[..k], offset) {
            Ok(0) => return Err(none.into()),
            Ok(n) => {
                offset += n as u64;
                advance(&mut rest, n);
            }
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Run `step(buffer, chunks)` for every run of [`CHUNKS_PER_STEP`] chunks
/// of a message of `n_chunks` chunks on the pool's I/O loops
/// ([`Pool::try_for_each_io_loop`]: one more than the cores, so a loop
/// whose write waits for the file's lock leaves its core to another loop's
/// reading and sealing). Each loop claims the next step from a shared
/// counter (a busy core simply takes fewer) and keeps one buffer for all its
/// steps, zeroed when the loop ends. Stops at the first error.
fn run_steps(
    pool: &Pool,
    n_chunks: u64,
    step: impl Fn(&mut Vec<u8>, Range<u64>) -> Result<()> + Sync,
) -> Result<()> {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
    let per = CHUNKS_PER_STEP as u64;
    let steps = n_chunks.div_ceil(per);
    let next = AtomicU64::new(0);
    let failed = AtomicBool::new(false);
    let loops = (pool.io_loops() as u64).min(steps) as usize;
    pool.try_for_each_io_loop(loops, |_| {
        let mut buf = Zeroizing::new(Vec::new());
        while !failed.load(Relaxed) {
            let s = next.fetch_add(1, Relaxed);
            if s >= steps {
                break;
            }
            if let Err(e) = step(&mut buf, s * per..((s + 1) * per).min(n_chunks)) {
                failed.store(true, Relaxed);
                return Err(e);
            }
        }
        Ok(())
    })
}

/// The error of a read that ended early: the input changed under the job.
fn shrank(e: io::Error, early: Error) -> Error {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        early
    } else {
        Error::io("reading input", e)
    }
}

/// Encrypt the first `plain_len` bytes of `input` into `output` at offset
/// `out_offset` (prefix included), every worker reading and writing its own
/// steps with positional I/O. Returns the ciphertext length written.
///
/// Each step of [`CHUNKS_PER_STEP`] chunks is read with one `preadv`
/// straight into its places between the tags of a per-worker buffer,
/// sealed in place and written with one `pwrite`: no allocation or copy
/// per step, and no plaintext is left in memory (the buffer holds only
/// ciphertext after sealing, and is zeroed at the end).
pub fn encrypt_file(
    pool: &Pool,
    keys: &ChunkKeys,
    input: &File,
    plain_len: u64,
    output: &File,
    out_offset: u64,
    progress: ProgressFn<'_>,
) -> Result<u64> {
    let n_chunks = chunk_count(plain_len);
    if n_chunks > MAX_CHUNKS {
        return Err(Error::TooLong);
    }
    output
        .write_all_at(&keys.prefix(), out_offset)
        .map_err(|e| Error::io("writing output", e))?;
    let body = out_offset + PREFIX_SIZE as u64;
    run_steps(pool, n_chunks, |buf, chunks| {
        let (p, c) = chunk_bytes(&chunks, plain_len);
        buf.resize((c.end - c.start) as usize, 0);
        // Scatter the plaintext between the tags' places.
        let bodies = buf
            .chunks_mut(ENC_CHUNK_SIZE)
            .map(|c| {
                let len = c.len() - TAG_SIZE;
                io::IoSliceMut::new(&mut c[..len])
            })
            .collect();
        let read = |s: &mut [_], at| rustix::io::preadv(input, s, at);
        let eof = io::ErrorKind::UnexpectedEof;
        all_vectored_at(bodies, p.start, eof, read, io::IoSliceMut::advance_slices).map_err(
            |e| {
                let early = io::Error::other("the file shrank while being read");
                shrank(e, Error::io("reading input", early))
            },
        )?;
        for (k, c) in chunks.zip(buf.chunks_mut(ENC_CHUNK_SIZE)) {
            let len = c.len() - TAG_SIZE;
            let (b, tag) = c.split_at_mut(len);
            tag.copy_from_slice(&keys.seal_chunk(k, b));
        }
        output
            .write_all_at(buf, body + c.start)
            .map_err(|e| Error::io("writing output", e))?;
        progress(p.end - p.start);
        Ok(())
    })?;
    Ok(ciphertext_len(plain_len))
}

/// Decrypt the Cobblestone message occupying `input[in_offset..in_offset +
/// ct_len]` into `output` (from offset 0), every worker reading, opening
/// and writing its own steps. Checks the commitment first. Returns the
/// plaintext length. On error the output holds garbage and must be
/// discarded (the callers write to a temporary file).
///
/// Each step of [`CHUNKS_PER_STEP`] chunks is read with one `pread` into a
/// per-worker buffer, opened in place, and its plaintext written with one
/// `pwritev` that skips the tags — only after every chunk of the step
/// authenticated.
#[allow(clippy::too_many_arguments)]
pub fn decrypt_file(
    pool: &Pool,
    suite: Suite,
    input_key: &[u8],
    context: &[u8],
    input: &File,
    in_offset: u64,
    ct_len: u64,
    output: &File,
    progress: ProgressFn<'_>,
) -> Result<u64> {
    let plain_len = plaintext_len(ct_len)?;
    let mut prefix = [0u8; PREFIX_SIZE];
    input
        .read_exact_at(&mut prefix, in_offset)
        .map_err(|e| Error::io("reading input", e))?;
    let keys = ChunkKeys::from_prefix(pool, suite, input_key, context, &prefix)?;
    output
        .set_len(plain_len)
        .map_err(|e| Error::io("writing output", e))?;
    let body = in_offset + PREFIX_SIZE as u64;
    run_steps(pool, chunk_count(plain_len), |buf, chunks| {
        let (p, c) = chunk_bytes(&chunks, plain_len);
        buf.resize((c.end - c.start) as usize, 0);
        input
            .read_exact_at(buf, body + c.start)
            .map_err(|e| shrank(e, Error::Truncated("the input shrank while being read")))?;
        // Gather the plaintext around the tags.
        let mut bodies = Vec::with_capacity(CHUNKS_PER_STEP);
        for (k, c) in chunks.zip(buf.chunks_mut(ENC_CHUNK_SIZE)) {
            let len = c.len() - TAG_SIZE;
            let (b, tag) = c.split_at_mut(len);
            keys.open_chunk(k, b, tag)?;
            bodies.push(io::IoSlice::new(b));
        }
        let write = |s: &mut [_], at| rustix::io::pwritev(output, s, at);
        let full = io::ErrorKind::WriteZero;
        all_vectored_at(bodies, p.start, full, write, io::IoSlice::advance_slices)
            .map_err(|e| Error::io("writing output", e))?;
        progress(c.end - c.start);
        Ok(())
    })?;
    Ok(plain_len)
}
