//! Cobblestone on files: every worker reads, seals or opens and writes its
//! own steps with positional scatter/gather I/O.

use super::*;

/// Chunks per step of the file path (512 KiB of plaintext): a worker reads
/// a step straight into place, seals or opens it and writes it while it is
/// still in the core's L2 cache.
pub const CHUNKS_PER_STEP: usize = 32;

/// Read exactly the total length of `bufs` at `offset` (scatter: one
/// `preadv` call for many buffers). Early end of file is `UnexpectedEof`.
fn read_exact_vectored_at(file: &File, bufs: &mut [&mut [u8]], mut offset: u64) -> io::Result<()> {
    let mut slices: Vec<io::IoSliceMut<'_>> = bufs
        .iter_mut()
        .filter(|b| !b.is_empty())
        .map(|b| io::IoSliceMut::new(b))
        .collect();
    let mut rest: &mut [io::IoSliceMut<'_>] = &mut slices;
    // At most 1024 buffers per call (IOV_MAX on Linux).
    while !rest.is_empty() {
        let k = rest.len().min(1024);
        match rustix::io::preadv(file, &mut rest[..k], offset) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                offset += n as u64;
                io::IoSliceMut::advance_slices(&mut rest, n);
            }
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Write all of `bufs` at `offset` (gather: one `pwritev` call for many
/// buffers).
fn write_all_vectored_at(file: &File, bufs: &[&[u8]], mut offset: u64) -> io::Result<()> {
    let mut slices: Vec<io::IoSlice<'_>> = bufs
        .iter()
        .filter(|b| !b.is_empty())
        .map(|b| io::IoSlice::new(b))
        .collect();
    let mut rest: &mut [io::IoSlice<'_>] = &mut slices;
    while !rest.is_empty() {
        let k = rest.len().min(1024);
        match rustix::io::pwritev(file, &rest[..k], offset) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                offset += n as u64;
                io::IoSlice::advance_slices(&mut rest, n);
            }
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Run `step(buffer, s)` for every step `s in 0..steps` on the pool's I/O
/// loops ([`Pool::try_for_each_io_loop`]: one more than the cores, so a
/// loop whose write waits for the file's lock leaves its core to another
/// loop's reading and sealing). Each loop claims the next step from a
/// shared counter (a busy core simply takes fewer) and keeps one buffer for
/// all its steps, zeroed when the loop ends. Stops at the first error.
fn run_steps(
    pool: &Pool,
    steps: u64,
    step: impl Fn(&mut Vec<u8>, u64) -> Result<()> + Sync,
) -> Result<()> {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
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
            if let Err(e) = step(&mut buf, s) {
                failed.store(true, Relaxed);
                return Err(e);
            }
        }
        Ok(())
    })
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
    let ct_len = ciphertext_len(plain_len);
    output
        .write_all_at(&keys.prefix(), out_offset)
        .map_err(|e| Error::io("writing output", e))?;
    let per = CHUNKS_PER_STEP as u64;
    let body = out_offset + PREFIX_SIZE as u64;
    run_steps(pool, n_chunks.div_ceil(per), |buf, s| {
        let k0 = s * per;
        let kn = (k0 + per).min(n_chunks);
        let p0 = k0 * CHUNK_SIZE as u64;
        let p1 = (kn * CHUNK_SIZE as u64).min(plain_len);
        let c0 = k0 * ENC_CHUNK_SIZE as u64;
        let c1 = (kn * ENC_CHUNK_SIZE as u64).min(ct_len - PREFIX_SIZE as u64);
        buf.resize((c1 - c0) as usize, 0);
        {
            let mut bodies: Vec<&mut [u8]> = buf
                .chunks_mut(ENC_CHUNK_SIZE)
                .map(|c| {
                    let len = c.len() - TAG_SIZE;
                    &mut c[..len]
                })
                .collect();
            read_exact_vectored_at(input, &mut bodies, p0).map_err(|e| {
                if e.kind() == io::ErrorKind::UnexpectedEof {
                    Error::io(
                        "reading input",
                        io::Error::other("the file shrank while being read"),
                    )
                } else {
                    Error::io("reading input", e)
                }
            })?;
        }
        for (j, c) in buf.chunks_mut(ENC_CHUNK_SIZE).enumerate() {
            let len = c.len() - TAG_SIZE;
            let (b, tag) = c.split_at_mut(len);
            tag.copy_from_slice(&keys.seal_chunk(k0 + j as u64, b));
        }
        output
            .write_all_at(buf, body + c0)
            .map_err(|e| Error::io("writing output", e))?;
        progress(p1 - p0);
        Ok(())
    })?;
    Ok(ct_len)
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
    let keys = ChunkKeys::from_prefix(suite, input_key, context, &prefix)?;
    output
        .set_len(plain_len)
        .map_err(|e| Error::io("writing output", e))?;
    let n_chunks = chunk_count(plain_len);
    let per = CHUNKS_PER_STEP as u64;
    let body = in_offset + PREFIX_SIZE as u64;
    run_steps(pool, n_chunks.div_ceil(per), |buf, s| {
        let k0 = s * per;
        let kn = (k0 + per).min(n_chunks);
        let c0 = k0 * ENC_CHUNK_SIZE as u64;
        let c1 = (kn * ENC_CHUNK_SIZE as u64).min(ct_len - PREFIX_SIZE as u64);
        buf.resize((c1 - c0) as usize, 0);
        input.read_exact_at(buf, body + c0).map_err(|e| {
            if e.kind() == io::ErrorKind::UnexpectedEof {
                Error::Truncated("the input shrank while being read")
            } else {
                Error::io("reading input", e)
            }
        })?;
        let mut bodies: Vec<&[u8]> = Vec::with_capacity(CHUNKS_PER_STEP);
        for (j, c) in buf.chunks_mut(ENC_CHUNK_SIZE).enumerate() {
            let len = c.len() - TAG_SIZE;
            let (b, tag) = c.split_at_mut(len);
            keys.open_chunk(k0 + j as u64, b, tag)?;
            bodies.push(b);
        }
        write_all_vectored_at(output, &bodies, k0 * CHUNK_SIZE as u64)
            .map_err(|e| Error::io("writing output", e))?;
        progress(c1 - c0);
        Ok(())
    })?;
    Ok(plain_len)
}
