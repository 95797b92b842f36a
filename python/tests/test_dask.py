"""aesflow.dask on a LocalCluster of 2 worker processes, with a file of
more than 64 MiB: byte-identical to the single-machine encryption for the
same salt, decryptable by pyca and by the aesflow command, and a failure in
any one range leaves no output file (and no temporary file)."""

import os
import subprocess
import sys

import pytest

import aesflow
import aesflow.dask as ad
from aesflow import InvalidTag

distributed = pytest.importorskip("distributed")

# The tasks some tests substitute are functions of this module: send them by
# value (the workers need not import the tests).
import cloudpickle  # noqa: E402

cloudpickle.register_pickle_by_value(sys.modules[__name__])

SIZE = (64 << 20) + 12_345  # > 64 MiB, last chunk partial


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    c = distributed.Client(cluster)
    assert len(c.scheduler_info()["workers"]) == 2
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    d = tmp_path_factory.mktemp("dask")
    p = d / "big.bin"
    with open(p, "wb") as f:
        for _ in range(SIZE >> 20):
            f.write(os.urandom(1 << 20))
        f.write(os.urandom(SIZE % (1 << 20)))
    return p


def leftovers(d):
    return [p.name for p in d.iterdir() if p.name.startswith(".aesflow-")]


KEY = bytes(range(32))


def test_encrypt_identical_and_interop(client, big, aesflow_bin):
    d = big.parent
    kf = d / "key"
    kf.write_text(KEY.hex())
    # Single machine: the aesflow command.
    single = d / "single.cob"
    subprocess.run([aesflow_bin, "encrypt", "-k", str(kf), "--context", "dask", str(big), "-o", str(single)], check=True)
    salt = single.read_bytes()[:24]
    # The cluster, same salt: byte-identical.
    out = d / "cluster.cob"
    n = ad.encrypt_file(big, out, KEY, client=client, context=b"dask", salt=salt)
    assert n == SIZE
    assert out.read_bytes() == single.read_bytes()
    assert leftovers(d) == []
    # A random salt: still decryptable by every implementation.
    out2 = d / "cluster2.cob"
    ad.encrypt_file(big, out2, KEY, client=client, context=b"dask", chunks_per_task=700)
    data = big.read_bytes()
    pyca_cob = pytest.importorskip("cryptography.cobblestone")
    dec = pyca_cob.Cobblestone256Decryptor(KEY, b"dask")
    ct = out2.read_bytes()
    got = b"".join(dec.update(ct[i : i + (1 << 20)]) for i in range(0, len(ct), 1 << 20)) + dec.finalize()
    assert got == data
    subprocess.run([aesflow_bin, "decrypt", "-k", str(kf), "--context", "dask", str(out2), "-o", str(d / "cli.out")], check=True)
    assert (d / "cli.out").read_bytes() == data
    # And back through the cluster.
    back = d / "back.bin"
    assert ad.decrypt_file(out2, back, KEY, client=client, context=b"dask") == SIZE
    assert back.read_bytes() == data
    # The command's file modes.
    assert out.stat().st_mode & 0o777 == single.stat().st_mode & 0o777
    assert back.stat().st_mode & 0o777 == (d / "cli.out").stat().st_mode & 0o777
    for p in [single, out, out2, d / "cli.out", back]:
        p.unlink()


def test_single_machine_python_identical(client, big):
    d = big.parent
    single = d / "py.cob"
    aesflow.encrypt_file(big, single, KEY)
    out = d / "cl.cob"
    ad.encrypt_file(big, out, KEY, client=client, salt=single.read_bytes()[:24], chunks_per_task=333)
    assert out.read_bytes() == single.read_bytes()
    single.unlink()
    out.unlink()


@pytest.mark.parametrize("fail_range", [0, 2, 4])
def test_encrypt_failure_leaves_nothing(client, big, fail_range):
    d = big.parent
    out = d / "fail.cob"
    with pytest.raises(RuntimeError, match="forced failure"):
        ad.encrypt_file(big, out, KEY, client=client, _fail_range=fail_range)
    assert not out.exists()
    assert leftovers(d) == []


def test_decrypt_failures_leave_nothing(client, big):
    d = big.parent
    enc = d / "x.cob"
    ad.encrypt_file(big, enc, KEY, client=client)
    out = d / "x.out"
    with pytest.raises(RuntimeError, match="forced failure"):
        ad.decrypt_file(enc, out, KEY, client=client, _fail_range=3)
    assert not out.exists()
    with pytest.raises(InvalidTag):
        ad.decrypt_file(enc, out, os.urandom(32), client=client)
    with pytest.raises(InvalidTag):
        ad.decrypt_file(enc, out, KEY, client=client, context=b"other")
    # A flipped byte deep in one range: that range's task fails with
    # InvalidTag, the others succeed, and nothing is written.
    with open(enc, "r+b") as f:
        f.seek(40 << 20)
        b = f.read(1)
        f.seek(40 << 20)
        f.write(bytes([b[0] ^ 1]))
    with pytest.raises(InvalidTag):
        ad.decrypt_file(enc, out, KEY, client=client)
    assert not out.exists()
    # Truncated.
    with open(enc, "r+b") as f:
        f.truncate(os.path.getsize(enc) - 5)
    with pytest.raises(InvalidTag):
        ad.decrypt_file(enc, out, KEY, client=client)
    assert not out.exists()
    assert leftovers(d) == []
    enc.unlink()


def test_output_rules(client, big):
    d = big.parent
    out = d / "exists.cob"
    out.write_bytes(b"keep me")
    with pytest.raises(FileExistsError):
        ad.encrypt_file(big, out, KEY, client=client)
    assert out.read_bytes() == b"keep me"
    with pytest.raises(ValueError, match="same file"):
        ad.encrypt_file(big, big, KEY, client=client, force=True)
    with pytest.raises(ValueError, match="32 bytes"):
        ad.encrypt_file(big, d / "k.cob", bytes(7), client=client)
    out.unlink()
    assert leftovers(d) == []


def test_many_files(client, tmp_path):
    paths = []
    for i, n in enumerate([0, 1, 16384, 16385, 3_000_000]):
        p = tmp_path / f"f{i}"
        p.write_bytes(os.urandom(n))
        paths.append(p)
    outs = ad.encrypt_files(paths, KEY, client=client, context=b"m", chunks_per_task=50)
    assert outs == [str(p) + ".cob" for p in paths]
    for p, o in zip(paths, outs):
        dec = aesflow.Cobblestone256Decryptor(KEY, b"m")
        assert dec.update(open(o, "rb").read()) + dec.finalize() == p.read_bytes()
    backs = [tmp_path / f"b{i}" for i in range(len(paths))]
    ad.decrypt_files(outs, KEY, client=client, context=b"m", outputs=backs)
    for p, b in zip(paths, backs):
        assert b.read_bytes() == p.read_bytes()


def test_directory_source_refused(client, tmp_path):
    with pytest.raises(IsADirectoryError, match="directory"):
        ad.encrypt_file(tmp_path, tmp_path / "out.cob", KEY, client=client)
    with pytest.raises(IsADirectoryError, match="directory"):
        ad.decrypt_file(tmp_path, tmp_path / "out", KEY, client=client)
    assert leftovers(tmp_path) == [] and not (tmp_path / "out.cob").exists()


def _stuck(*_args):
    """A range task that outlives the job's timeout (briefly: a cancelled
    task that already runs keeps its worker until it returns)."""
    import time

    time.sleep(5)


def test_timeout_removes_output(client, tmp_path, monkeypatch):
    src = tmp_path / "in.bin"
    src.write_bytes(os.urandom(100_000))
    # Every range task hangs: the job gives up after the timeout.
    monkeypatch.setattr(ad, "_seal_range", _stuck)
    with pytest.raises(TimeoutError, match="did not finish within"):
        ad.encrypt_file(src, tmp_path / "out.cob", KEY, client=client, timeout=1.5, chunks_per_task=2)
    assert leftovers(tmp_path) == [] and not (tmp_path / "out.cob").exists()
    with pytest.raises(ValueError):
        ad.encrypt_file(src, tmp_path / "o2.cob", KEY, client=client, timeout=0)


def _die_on_range(src, dst, key, context, salt, plain_len, first, count, fail=False):
    """A range task whose worker process dies (the first range), while the
    others succeed."""
    if first == 0:
        import time

        time.sleep(0.5)
        os._exit(1)
    return aesflow._aesflow.seal_file_range(src, dst, key, context, salt, plain_len, first, count)


def test_lost_worker_raises_killed_worker(tmp_path, monkeypatch):
    """With ``allowed-failures=0`` a worker that dies surfaces as
    ``KilledWorker`` (the real error), not as an error about the temporary
    file, and leaves nothing behind."""
    import dask

    src = tmp_path / "in.bin"
    src.write_bytes(os.urandom(8 * 16384 + 5))
    monkeypatch.setattr(ad, "_seal_range", _die_on_range)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        )
        try:
            with distributed.Client(cluster) as c:
                with pytest.raises(distributed.KilledWorker):
                    ad.encrypt_file(src, tmp_path / "out.cob", KEY, client=c, chunks_per_task=1, timeout=120)
        finally:
            cluster.close()
    assert leftovers(tmp_path) == [] and not (tmp_path / "out.cob").exists()


def _host():
    """This host's label in temporary names (between the prefix and the pid)."""
    name = ad._aesflow.dask_temp_name()
    assert name.startswith(ad.TEMP_PREFIX)
    return name[len(ad.TEMP_PREFIX) :].rsplit("-", 2)[0]


def test_cli_removes_stale_dask_temporaries(tmp_path, aesflow_bin):
    """The ``aesflow`` command removes a dead driver's temporary from the
    directory it writes into (the same code as ``remove_stale``), and keeps
    a live one's."""
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f"{ad.TEMP_PREFIX}{_host()}-{dead.pid}-0123456789abcdef"
    live = tmp_path / f"{ad.TEMP_PREFIX}{_host()}-{os.getpid()}-0123456789abcdef"
    for p in (stale, live):
        p.write_bytes(b"x")
    kf = tmp_path / "key"
    kf.write_bytes(bytes(32))
    src = tmp_path / "plain"
    src.write_bytes(b"hello")
    subprocess.run([aesflow_bin, "encrypt", "-k", str(kf), str(src), "-o", str(tmp_path / "out.cob")], check=True)
    assert not stale.exists() and live.exists()


def test_stale_temporaries_removed(client, tmp_path, big):
    """A driver killed mid-job leaves its temporary; the next job in that
    directory removes it (its process is gone), but not a live one's."""
    host = _host()
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f".aesflow-dask-tmp-{host}-{dead.pid}-0123456789abcdef"
    stale.write_bytes(b"x" * 1000)
    live = tmp_path / f".aesflow-dask-tmp-{host}-{os.getppid()}-0123456789abcdef"
    live.write_bytes(b"y")
    other = tmp_path / ".aesflow-dask-tmp-notours"
    other.write_bytes(b"z")
    # Another host's file: removed only once nobody holds its lock.
    import fcntl

    remote = tmp_path / ".aesflow-dask-tmp-otherhost.example-12-00112233aabbccdd"
    remote.write_bytes(b"r")
    held = os.open(remote, os.O_WRONLY)
    fcntl.flock(held, fcntl.LOCK_EX)
    src = tmp_path / "small.bin"
    src.write_bytes(b"hello")
    ad.encrypt_file(src, tmp_path / "small.cob", KEY, client=client)
    assert not stale.exists()
    assert live.exists() and other.exists() and remote.exists()
    os.close(held)
    assert ad.remove_stale(tmp_path) == [str(remote)]
    assert live.exists() and other.exists()


def test_killed_driver_leaves_temporary_that_next_run_removes(client, tmp_path, big):
    """A real driver process SIGKILLed while its job runs."""
    import signal
    import sys
    import time

    addr = client.scheduler.address
    script = (
        "import sys, aesflow.dask as ad, distributed\n"
        f"c = distributed.Client({addr!r})\n"
        f"ad.encrypt_file({str(big)!r}, {str(tmp_path / 'killed.cob')!r}, bytes(range(32)), client=c, chunks_per_task=16)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not leftovers(tmp_path):
        time.sleep(0.05)
    assert leftovers(tmp_path), "the driver never created its temporary file"
    p.send_signal(signal.SIGKILL)
    p.wait()
    time.sleep(0.5)  # its tasks may still be writing; they never create files
    left = leftovers(tmp_path)
    assert left and not (tmp_path / "killed.cob").exists()
    src = tmp_path / "small.bin"
    src.write_bytes(b"hello")
    ad.encrypt_file(src, tmp_path / "small.cob", KEY, client=client)
    assert leftovers(tmp_path) == []
