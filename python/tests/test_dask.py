"""aesflow.dask on a LocalCluster of 2 worker processes, with a file of
more than 64 MiB: byte-identical to the single-machine encryption for the
same salt, decryptable by pyca and by the aesflow command, and a failure in
any one range leaves no output file (and no temporary file)."""

import os
import subprocess

import pytest

import aesflow
import aesflow.dask as ad
from aesflow import InvalidTag

distributed = pytest.importorskip("distributed")

SIZE = (64 << 20) + 12_345  # > 64 MiB, last chunk partial


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
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
