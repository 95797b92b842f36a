"""Cobblestone files sealed and opened on a ``dask.distributed`` cluster.

A Cobblestone message is ``prefix (56 bytes) || chunk_0 || chunk_1 || ...``
with fixed chunk sizes (16384 plaintext bytes, 16400 encrypted, except the
shorter last chunk). Chunk ``i`` therefore sits at plaintext offset
``16384*i`` and ciphertext offset ``56 + 16400*i``, and is sealed with a
nonce derived from ``i`` alone: any worker can seal or open any range of
chunks on its own, knowing only the key, the context and the salt. This is
the chunked, many-channel transfer of *Vectorized AES Core for
High-Throughput Secure Environments* (its second application) put on a
cluster.

How a file is processed:

1. The driver (this process) sizes the job, removes the temporaries of
   earlier drivers that are gone (see *Temporary files*), creates its own
   temporary file beside the destination at its final length, and splits
   the chunks into ranges.
2. Each range is a task: the worker reads its own range of the input and
   writes its sealed (or opened) chunks at their own offsets of the
   temporary file, on all of its cores, with the GIL released.
3. The driver collects the tasks as they finish. Only when every range
   succeeded does it write the 56-byte prefix (encryption), sync the file
   and rename it into place. At the first failed range (an authentication
   failure, an I/O error, a lost worker: ``distributed.KilledWorker``) the
   job's other tasks are cancelled, the temporary file is removed and that
   range's own error is raised; with ``timeout=`` a job still unfinished
   after that many seconds is cancelled the same way and raises
   :class:`TimeoutError`. No output is left either way.

**Temporary files.** The driver's temporary file is named
``.aesflow-dask-tmp-<host>-<pid>-<16 hex digits>`` and the driver holds an
exclusive ``flock`` on it while the job runs. A driver killed before it
could clean up leaves the file behind; the next job writing into that
directory removes it once its owner is gone: on the same host, when
process ``<pid>`` no longer exists; from another host, when the lock can be
taken (the owner's lock dies with it). The ``aesflow`` command does the
same in a directory it writes into (one implementation, in the
``aesflow-output`` crate, serves both). Only names of exactly that form are
touched.

The result is byte-identical to ``aesflow encrypt`` / :func:`aesflow.encrypt_file`
with the same salt (pass ``salt=`` to choose it; by default it is random),
and decrypts with :func:`aesflow.decrypt_file`, ``aesflow decrypt``, or
pyca/cryptography's ``cryptography.cobblestone``.

**Paths.** Workers open the paths they are given. On a ``LocalCluster``
that is the local file system; on a cluster of several machines the input
and the destination's directory must be on a file system every worker
mounts at the same path (NFS, Lustre, CephFS, GPFS, ...), and that file
system must support writes at offsets by several clients to one file (all
of those do; object stores do not).

**Keys.** The key is sent to the workers with the tasks. On a real cluster
use Dask's TLS security (``distributed.security.Security``) so that it
does not cross the network in the clear.
"""

from __future__ import annotations

import errno
import fcntl
import hmac
import os
import stat
import time
from typing import Iterable, List, Optional, Sequence, Tuple, Union

from . import _aesflow
from .exceptions import InvalidTag

PathLike = Union[str, "os.PathLike[str]"]

CHUNK_SIZE = _aesflow.CHUNK_SIZE
ENC_CHUNK_SIZE = _aesflow.ENC_CHUNK_SIZE
PREFIX_SIZE = _aesflow.PREFIX_SIZE
SALT_SIZE = _aesflow.SALT_SIZE

#: Chunks per task by default: 1024 chunks = 16 MiB of plaintext.
DEFAULT_CHUNKS_PER_TASK = 1024

__all__ = [
    "remove_stale",
    "encrypt_file",
    "decrypt_file",
    "encrypt_files",
    "decrypt_files",
    "DEFAULT_CHUNKS_PER_TASK",
]


def _umask() -> int:
    """The process umask, without changing it (Linux: /proc/self/status)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


#: The prefix of the driver's temporary files.
TEMP_PREFIX: str = _aesflow.DASK_TEMP_PREFIX


def remove_stale(directory: PathLike) -> List[str]:
    """Remove the temporary files that drivers which are gone left in
    ``directory`` (see *Temporary files* above); returns their paths. Run
    by every job before it creates its own temporary file. The same code
    (``aesflow-output``) serves the ``aesflow`` command, which also removes
    these files, and the command's own temporaries, when it writes into
    that directory."""
    return [os.fspath(p) for p in _aesflow.remove_stale(os.fspath(directory))]


class _ForcedFailure(RuntimeError):
    """Raised by a range task when the caller asked for a failure (tests)."""


def _seal_range(src, dst, key, context, salt, plain_len, first, count, fail=False):
    n = _aesflow.seal_file_range(src, dst, key, context, salt, plain_len, first, count)
    if fail:
        raise _ForcedFailure(f"forced failure in chunk range {first}+{count}")
    return n


def _open_range(src, dst, key, context, ct_len, first, count, fail=False):
    n = _aesflow.open_file_range(src, dst, key, context, ct_len, first, count)
    if fail:
        raise _ForcedFailure(f"forced failure in chunk range {first}+{count}")
    return n


def _client(client):
    if client is not None:
        return client
    from distributed import get_client

    return get_client()


def _ranges(total: int, per: int) -> List[Tuple[int, int]]:
    if per < 1:
        raise ValueError("chunks_per_task must be at least 1")
    return [(f, min(per, total - f)) for f in range(0, total, per)]


class _Job:
    """One file: its temporary output, its range tasks, and the commit."""

    def __init__(self, src, dst, encrypt: bool, force: bool):
        self.src = os.fspath(src)
        self.dst = os.fspath(dst)
        self.encrypt = encrypt
        self.force = force
        self.tmp: Optional[str] = None
        self.fd: Optional[int] = None
        self.futures: list = []
        self.sizes: dict = {}
        self.failed = False
        self.prefix = b""
        try:
            st = os.stat(self.src)
        except FileNotFoundError:
            raise FileNotFoundError(errno.ENOENT, "no such file", self.src) from None
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "the input is a directory, not a file", self.src)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{self.src}: not a regular file (a job splits a file by offsets)")
        if not force and os.path.lexists(self.dst):
            raise FileExistsError(f"{self.dst} already exists (use force=True to overwrite it)")
        if os.path.isdir(self.dst):
            raise IsADirectoryError(f"{self.dst} is a directory")
        if os.path.exists(self.dst) and os.path.samefile(self.src, self.dst):
            raise ValueError(f"{self.dst}: input and output are the same file")

    def create_tmp(self, length: int) -> None:
        d = os.path.dirname(os.path.abspath(self.dst))
        remove_stale(d)
        while True:
            name = _aesflow.dask_temp_name()
            path = os.path.join(d, name)
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
                break
            except FileExistsError:
                continue
        self.tmp, self.fd = path, fd
        # Held until the job ends: a later job on another host sees the
        # file as live while this lock exists.
        fcntl.flock(fd, fcntl.LOCK_EX)
        # The command's modes: 0o666 for a ciphertext, the input's mode
        # for a plaintext, less the umask.
        mode = 0o666 if self.encrypt else os.stat(self.src).st_mode & 0o777
        os.fchmod(fd, mode & ~_umask())
        os.ftruncate(fd, length)

    def _close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def discard(self) -> None:
        if self.tmp is not None:
            try:
                os.unlink(self.tmp)
            except FileNotFoundError:
                pass
            self.tmp = None
        self._close()

    def commit(self) -> None:
        assert self.tmp is not None and self.fd is not None
        if self.prefix:
            os.pwrite(self.fd, self.prefix, 0)
        os.fsync(self.fd)
        if self.force:
            os.replace(self.tmp, self.dst)
        else:
            # link() refuses an existing name: no overwrite even if the
            # destination appeared while the job ran.
            os.link(self.tmp, self.dst)
            os.unlink(self.tmp)
        self.tmp = None
        self._close()
        dfd = os.open(os.path.dirname(os.path.abspath(self.dst)), os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _submit_ranges(client, job: _Job, plain_len, out_len, per, fail_range, task, args):
    """Create the job's temporary output (``out_len`` bytes) and submit
    ``task(src, tmp, *args, first, count, fail)`` for every range of ``per``
    chunks of a ``plain_len``-byte message (``fail``: the range the tests
    make fail)."""
    job.create_tmp(out_len)
    src = os.path.abspath(job.src)
    for i, (first, count) in enumerate(_ranges(plain_len // CHUNK_SIZE + 1, per)):
        job.futures.append(
            client.submit(task, src, job.tmp, *args, first, count, i == fail_range, pure=False)
        )


def _submit_encrypt(client, job: _Job, key, context, salt, per, fail_range):
    plain_len = os.stat(job.src).st_size
    if salt is None:
        salt = os.urandom(SALT_SIZE)
    job.prefix = _aesflow.cobblestone_prefix(key, context, salt)
    out_len = _aesflow.cobblestone_ciphertext_len(plain_len)
    args = (bytes(key), bytes(context), bytes(salt), plain_len)
    _submit_ranges(client, job, plain_len, out_len, per, fail_range, _seal_range, args)


def _submit_decrypt(client, job: _Job, key, context, per, fail_range):
    ct_len = os.stat(job.src).st_size
    plain_len = _aesflow.cobblestone_plaintext_len(ct_len)
    with open(job.src, "rb") as f:
        head = f.read(PREFIX_SIZE)
    # Check the key commitment here, before any task: a wrong key or context
    # fails fast, without a cluster round trip.
    if not hmac.compare_digest(_aesflow.cobblestone_prefix(key, context, head[:SALT_SIZE]), head):
        raise InvalidTag(
            "wrong key or context (the key commitment does not match), or the header is corrupted"
        )
    args = (bytes(key), bytes(context), ct_len)
    _submit_ranges(client, job, plain_len, plain_len, per, fail_range, _open_range, args)


def _run(client, jobs: Sequence[_Job], submit, timeout: Optional[float] = None) -> List[int]:
    """Submit every job's ranges and collect them as they finish; commit a
    job when all its ranges succeeded; at a job's first failed range cancel
    its other ranges, discard its output and keep that range's error. A
    finished range's result is taken at once and its future released, so
    that a worker lost later does not make the scheduler run it again
    (into a file that may be gone). Raises the first error, or
    :class:`TimeoutError` after ``timeout`` seconds."""
    from distributed import wait

    if timeout is not None and timeout <= 0:
        raise ValueError("timeout must be a positive number of seconds")
    deadline = None if timeout is None else time.monotonic() + timeout
    errors: List[BaseException] = []
    try:
        for job in jobs:
            submit(job)
        owner = {f.key: job for job in jobs for f in job.futures}
        pending = {f for job in jobs for f in job.futures}
        while pending:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError(
                    f"the job did not finish within {timeout} s "
                    f"({len(pending)} of {len(owner)} chunk-range tasks left; "
                    "are the workers alive?); its output was removed"
                )
            try:
                done, _ = wait(list(pending), timeout=left, return_when="FIRST_COMPLETED")
            except TimeoutError:
                continue
            except Exception as e:  # dask's own timeout class in some versions
                if "timeout" in type(e).__name__.lower():
                    continue
                raise
            for f in done:
                pending.discard(f)
                job = owner[f.key]
                if job.failed:
                    continue
                if f.status == "finished":
                    job.sizes[f.key] = f.result()
                    f.release()
                    if len(job.sizes) == len(job.futures):
                        job.commit()
                    continue
                # The range's own error (or KilledWorker for a lost worker).
                job.failed = True
                err = f.exception() if f.status == "error" else None
                errors.append(
                    err if err is not None else RuntimeError(f"{job.src}: a chunk-range task was {f.status}")
                )
                for g in job.futures:
                    if g.key not in job.sizes:
                        g.cancel()
                        pending.discard(g)
                job.discard()
        if errors:
            raise errors[0]
        return [sum(job.sizes.values()) for job in jobs]
    finally:
        for job in jobs:
            for f in job.futures:
                if f.key not in job.sizes:
                    f.cancel()
            job.discard()


def encrypt_file(
    src: PathLike,
    dst: PathLike,
    key: bytes,
    client=None,
    context: bytes = b"",
    *,
    salt: Optional[bytes] = None,
    chunks_per_task: int = DEFAULT_CHUNKS_PER_TASK,
    force: bool = False,
    timeout: Optional[float] = None,
    _fail_range: Optional[int] = None,
) -> int:
    """Encrypt the file ``src`` to ``dst`` as Cobblestone (-256 for a 32-byte
    key, -128 for a 16-byte key) on the workers of ``client`` (default: the
    current ``distributed`` client).

    ``salt`` (24 bytes) is random unless given; with the same salt the
    output is byte-identical to ``aesflow encrypt``. ``dst`` appears only
    when every range succeeded; an existing ``dst`` is refused unless
    ``force``. ``timeout``: seconds after which an unfinished job is
    cancelled (its output removed) and :class:`TimeoutError` raised; by
    default it waits as long as the cluster takes (with no worker left,
    forever). A failed range raises its own error (``KilledWorker`` for a
    lost worker). Returns the plaintext bytes encrypted.
    """
    client = _client(client)
    job = _Job(src, dst, True, force)
    ctx = bytes(context)
    return _run(
        client, [job],
        lambda j: _submit_encrypt(client, j, key, ctx, salt, chunks_per_task, _fail_range),
        timeout,
    )[0]


def decrypt_file(
    src: PathLike,
    dst: PathLike,
    key: bytes,
    client=None,
    context: bytes = b"",
    *,
    chunks_per_task: int = DEFAULT_CHUNKS_PER_TASK,
    force: bool = False,
    timeout: Optional[float] = None,
    _fail_range: Optional[int] = None,
) -> int:
    """Decrypt the Cobblestone file ``src`` to ``dst`` on the workers of
    ``client``. ``dst`` appears only if every chunk authenticated; otherwise
    :class:`aesflow.InvalidTag` (or the I/O error) is raised and nothing is
    left. ``timeout`` and failures as in :func:`encrypt_file`. Returns the
    plaintext bytes written."""
    client = _client(client)
    job = _Job(src, dst, False, force)
    ctx = bytes(context)
    return _run(
        client, [job],
        lambda j: _submit_decrypt(client, j, key, ctx, chunks_per_task, _fail_range),
        timeout,
    )[0]


def _many(client, paths, outputs, suffix, encrypt, force, submit, timeout=None) -> List[str]:
    """Name the outputs (``path + suffix``, or ``path`` less ``suffix`` when
    decrypting, unless ``outputs`` names them) and run every file's ranges
    at once."""
    client = _client(client)
    paths = [os.fspath(p) for p in paths]
    if outputs is not None:
        outs = [os.fspath(o) for o in outputs]
        if len(outs) != len(paths):
            raise ValueError("outputs must have one path per input")
    elif encrypt:
        outs = [p + suffix for p in paths]
    else:
        bad = [p for p in paths if not p.endswith(suffix)]
        if bad:
            raise ValueError(f"{bad[0]}: cannot name the output (no {suffix} suffix); pass outputs=")
        outs = [p[: -len(suffix)] for p in paths]
    if len(set(outs)) != len(outs):
        raise ValueError("two inputs would write the same output")
    jobs = [_Job(s, d, encrypt, force) for s, d in zip(paths, outs)]
    _run(client, jobs, lambda j: submit(client, j), timeout)
    return outs


def encrypt_files(
    paths: Iterable[PathLike],
    key: bytes,
    client=None,
    context: bytes = b"",
    *,
    outputs: Optional[Sequence[PathLike]] = None,
    suffix: str = ".cob",
    chunks_per_task: int = DEFAULT_CHUNKS_PER_TASK,
    force: bool = False,
    timeout: Optional[float] = None,
) -> List[str]:
    """Encrypt many files at once: every range of every file is a task, so
    small and large files share the cluster. Outputs are ``path + suffix``
    unless ``outputs`` names them. Each file is committed on its own when
    all of its ranges succeeded; if any file failed, the others are still
    written and the first error is raised. Returns the output paths."""
    ctx = bytes(context)
    return _many(
        client, paths, outputs, suffix, True, force,
        lambda c, j: _submit_encrypt(c, j, key, ctx, None, chunks_per_task, None),
        timeout,
    )


def decrypt_files(
    paths: Iterable[PathLike],
    key: bytes,
    client=None,
    context: bytes = b"",
    *,
    outputs: Optional[Sequence[PathLike]] = None,
    suffix: str = ".cob",
    chunks_per_task: int = DEFAULT_CHUNKS_PER_TASK,
    force: bool = False,
    timeout: Optional[float] = None,
) -> List[str]:
    """Decrypt many Cobblestone files at once (outputs: the paths without
    ``suffix`` unless ``outputs`` names them). Returns the output paths."""
    ctx = bytes(context)
    return _many(
        client, paths, outputs, suffix, False, force,
        lambda c, j: _submit_decrypt(c, j, key, ctx, chunks_per_task, None),
        timeout,
    )
