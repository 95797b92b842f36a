//! Sealing and opening runs of consecutive Cobblestone chunks between
//! caller-owned slices, in parallel on a pool: the building block of the
//! streaming classes (no copy of the input beyond the one into the output)
//! and of the Dask path (a worker seals or opens a chunk range of a file at
//! its own offset).

use aesflow_engine::Pool;
use aesflow_engine::cobblestone::{
    CHUNK_SIZE, CHUNKS_PER_TASK, ChunkKeys, ENC_CHUNK_SIZE, TAG_SIZE,
};
use zeroize::Zeroize;

/// The ciphertext length of `plain` bytes as consecutive chunks: full chunks
/// and, if `with_final`, a last shorter one (possibly empty).
pub fn sealed_len(plain: usize, with_final: bool) -> usize {
    let full = plain / CHUNK_SIZE;
    full * ENC_CHUNK_SIZE
        + if with_final {
            plain % CHUNK_SIZE + TAG_SIZE
        } else {
            0
        }
}

/// Seal `plain` as chunks `first, first + 1, …` into `out` (exactly
/// [`sealed_len`] bytes). Without `with_final`, `plain` must be whole chunks.
pub fn seal(
    pool: &Pool,
    keys: &ChunkKeys,
    first: u64,
    plain: &[u8],
    out: &mut [u8],
    with_final: bool,
) {
    assert!(with_final || plain.len().is_multiple_of(CHUNK_SIZE));
    assert_eq!(out.len(), sealed_len(plain.len(), with_final));
    let group = ENC_CHUNK_SIZE * CHUNKS_PER_TASK;
    let seal_group = |g: usize, dst: &mut [u8]| {
        for (j, c) in dst.chunks_mut(ENC_CHUNK_SIZE).enumerate() {
            let k = g * CHUNKS_PER_TASK + j;
            let len = c.len() - TAG_SIZE;
            let (body, tag) = c.split_at_mut(len);
            body.copy_from_slice(&plain[k * CHUNK_SIZE..k * CHUNK_SIZE + len]);
            tag.copy_from_slice(&keys.seal_chunk(first + k as u64, body));
        }
    };
    if out.len() <= group {
        seal_group(0, out);
        return;
    }
    let mut groups: Vec<(usize, &mut [u8])> = out.chunks_mut(group).enumerate().collect();
    pool.for_each_mut(&mut groups, |(g, dst)| seal_group(*g, dst));
}

/// The plaintext length of `enc` bytes of consecutive chunks, or `None` if
/// impossible (a partial chunk without `with_final`, or a last chunk
/// shorter than its tag).
pub fn opened_len(enc: usize, with_final: bool) -> Option<usize> {
    let full = enc / ENC_CHUNK_SIZE;
    let rest = enc % ENC_CHUNK_SIZE;
    match (with_final, rest) {
        (false, 0) => Some(full * CHUNK_SIZE),
        (false, _) => None,
        (true, r) if r < TAG_SIZE => None,
        (true, r) => Some(full * CHUNK_SIZE + r - TAG_SIZE),
    }
}

/// Open `enc` (chunks `first, first + 1, …`) into `out` (exactly
/// [`opened_len`] bytes). On failure `out` is zeroed and the lowest failing
/// chunk index returned: no plaintext of the run is released.
pub fn open(
    pool: &Pool,
    keys: &ChunkKeys,
    first: u64,
    enc: &[u8],
    out: &mut [u8],
    with_final: bool,
) -> Result<(), u64> {
    let n_full = enc.len() / ENC_CHUNK_SIZE;
    let n = n_full + usize::from(with_final);
    assert_eq!(Some(out.len()), opened_len(enc.len(), with_final));
    let open_group = |g: usize, dst: &mut [u8]| -> Result<(), u64> {
        let k0 = g * CHUNKS_PER_TASK;
        let kn = (k0 + CHUNKS_PER_TASK).min(n);
        let mut off = 0;
        for k in k0..kn {
            let c0 = k * ENC_CHUNK_SIZE;
            let c = &enc[c0..(c0 + ENC_CHUNK_SIZE).min(enc.len())];
            let len = c.len() - TAG_SIZE;
            let body = &mut dst[off..off + len];
            body.copy_from_slice(&c[..len]);
            keys.open_chunk(first + k as u64, body, &c[len..])
                .map_err(|_| first + k as u64)?;
            off += len;
        }
        Ok(())
    };
    let groups_n = n.div_ceil(CHUNKS_PER_TASK);
    let r = if groups_n <= 1 {
        open_group(0, out)
    } else {
        let mut groups: Vec<(usize, &mut [u8], Result<(), u64>)> = out
            .chunks_mut(CHUNK_SIZE * CHUNKS_PER_TASK)
            .enumerate()
            .map(|(g, d)| (g, d, Ok(())))
            .collect();
        while groups.len() < groups_n {
            // A final empty chunk right after a full group.
            groups.push((groups.len(), &mut [], Ok(())));
        }
        pool.for_each_mut(&mut groups, |(g, dst, r)| *r = open_group(*g, dst));
        groups
            .into_iter()
            .map(|(_, _, r)| r)
            .find(Result::is_err)
            .unwrap_or(Ok(()))
    };
    if r.is_err() {
        out.zeroize();
    }
    r
}
