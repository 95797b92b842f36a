"""Cobblestone: streaming interop with pyca/cryptography both ways, with
the aesflow command both ways, update_into, files and every error path."""

import os
import subprocess

import pytest
from conftest import as_buffer

import aesflow
from aesflow import AlreadyFinalized, InvalidTag

pyca_cob = pytest.importorskip(
    "cryptography.cobblestone", reason="this pyca/cryptography has no cryptography.cobblestone"
)

SUITES = {
    256: (aesflow.Cobblestone256Encryptor, aesflow.Cobblestone256Decryptor,
          pyca_cob.Cobblestone256Encryptor, pyca_cob.Cobblestone256Decryptor, 32),
    128: (aesflow.Cobblestone128Encryptor, aesflow.Cobblestone128Decryptor,
          pyca_cob.Cobblestone128Encryptor, pyca_cob.Cobblestone128Decryptor, 16),
}
C, E = 16384, 16400


def feed(obj, data, rng, sizes=None):
    """update() with random splits (or the given sizes), then finalize()."""
    out, i = [], 0
    while i < len(data):
        n = rng.choice([1, 15, 56, C - 1, C, C + 1, E, E + 1, 3 * C + 7, 100_000, 1 << 20])
        out.append(obj.update(data[i : i + n]))
        i += n
    out.append(obj.finalize())
    return b"".join(out)


LENGTHS = [0, 1, C - 1, C, C + 1, 2 * C, 5 * C + 3, (1 << 20) + 11]


@pytest.mark.parametrize("bits", [256, 128])
def test_aesflow_to_pyca(rng, bits):
    Enc, Dec, PEnc, PDec, kl = SUITES[bits]
    key = Enc.generate_key()
    assert len(key) == kl
    for n in LENGTHS + [rng.randrange(200_000)]:
        data = rng.randbytes(n)
        ctx = rng.randbytes(rng.randrange(40))
        ct = feed(Enc(key, ctx), data, rng)
        assert len(ct) == 56 + (n // C + 1) * 16 + n
        assert feed(PDec(key, ctx), ct, rng) == data
        assert feed(Dec(key, ctx), ct, rng) == data


@pytest.mark.parametrize("bits", [256, 128])
def test_pyca_to_aesflow(rng, bits):
    Enc, Dec, PEnc, PDec, kl = SUITES[bits]
    key = PEnc.generate_key()
    for n in LENGTHS + [rng.randrange(200_000)]:
        data = rng.randbytes(n)
        ct = feed(PEnc(key, b"ctx"), data, rng)
        assert feed(Dec(key, b"ctx"), ct, rng) == data


def test_same_output_sizes_as_pyca(rng):
    """Every update releases exactly what pyca's releases."""
    key = bytes(32)
    for _ in range(3):
        ours, theirs = aesflow.Cobblestone256Encryptor(key, b""), pyca_cob.Cobblestone256Encryptor(key, b"")
        for _ in range(20):
            d = rng.randbytes(rng.choice([0, 1, 100, C - 1, C, C + 5, 40000]))
            assert len(ours.update(d)) == len(theirs.update(d))
        assert len(ours.finalize()) == len(theirs.finalize())


def test_update_into_and_buffers(rng):
    key = bytes(range(32))
    data = rng.randbytes(3 * C + 100)
    e = aesflow.Cobblestone256Encryptor(key, b"c")
    with pytest.raises(ValueError, match="buffer must be at least 56 bytes"):
        e.update_into(b"x" * 100, bytearray(10))
    out = bytearray(len(data) + 200)
    n = e.update_into(as_buffer(data, "numpy_u8"), out)
    assert n == 56 + 3 * E
    ct = bytes(out[:n]) + e.finalize()
    d = aesflow.Cobblestone256Decryptor(key, b"c")
    back = bytearray(len(ct))
    k = d.update_into(memoryview(ct), back)
    assert bytes(back[:k]) + d.finalize() == data
    p = pyca_cob.Cobblestone256Decryptor(key, b"c")
    assert p.update(ct) + p.finalize() == data


@pytest.mark.parametrize("bits", [256, 128])
def test_errors(rng, bits):
    Enc, Dec, _, _, kl = SUITES[bits]
    key = Enc.generate_key()
    data = rng.randbytes(2 * C + 500)
    ct = feed(Enc(key, b"ctx"), data, rng)

    def dec(k=key, ctx=b"ctx", c=ct):
        d = Dec(k, ctx)
        return d.update(c) + d.finalize()

    assert dec() == data
    with pytest.raises(InvalidTag):
        dec(k=Enc.generate_key())
    with pytest.raises(InvalidTag):
        dec(ctx=b"other")
    for cut in [0, 10, 55, 56, 71, 72 + C, 56 + E, 56 + 2 * E, len(ct) - 1]:
        with pytest.raises(InvalidTag):
            dec(c=ct[:cut])
    with pytest.raises(InvalidTag):
        dec(c=ct + b"\x00")
    for pos in [0, 30, 60, 56 + E - 1, 56 + E + 3, len(ct) - 1]:
        bad = bytearray(ct)
        bad[pos] ^= 1
        with pytest.raises(InvalidTag):
            dec(c=bytes(bad))
    # Reordered chunks.
    swapped = ct[:56] + ct[56 + E : 56 + 2 * E] + ct[56 : 56 + E] + ct[56 + 2 * E :]
    with pytest.raises(InvalidTag):
        dec(c=swapped)
    # No plaintext of a failing update is released, and the object is done.
    bad = bytearray(ct)
    bad[56 + E + 5] ^= 1
    d = Dec(key, b"ctx")
    first = d.update(bytes(bad[: 56 + E]))
    assert first == data[:C]
    with pytest.raises(InvalidTag):
        d.update(bytes(bad[56 + E :]))
    with pytest.raises(AlreadyFinalized):
        d.update(b"")
    with pytest.raises(AlreadyFinalized):
        d.finalize()
    # Finalized objects.
    e = Enc(key, b"")
    e.finalize()
    with pytest.raises(AlreadyFinalized):
        e.update(b"x")
    with pytest.raises(AlreadyFinalized):
        e.finalize()
    # Bad arguments.
    for k in [b"", bytes(kl - 1), bytes(kl + 1), bytes(24)]:
        with pytest.raises(ValueError, match=f"key must be {kl} bytes"):
            Enc(k, b"")
        with pytest.raises(ValueError, match=f"key must be {kl} bytes"):
            Dec(k, b"")
    with pytest.raises(TypeError):
        Enc("k" * kl, b"")
    with pytest.raises(TypeError):
        Enc(key, "ctx")
    with pytest.raises(TypeError):
        Enc(key, b"").update("text")


def test_empty_finalize_only():
    key = bytes(32)
    e = aesflow.Cobblestone256Encryptor(key, b"")
    ct = e.finalize()
    assert len(ct) == 72
    p = pyca_cob.Cobblestone256Decryptor(key, b"")
    assert p.update(ct) + p.finalize() == b""


# ---- files and the aesflow command ---------------------------------------


def test_files_roundtrip_and_pyca(rng, tmp_path):
    key = os.urandom(32)
    data = rng.randbytes(5 * C + 77)
    src, enc, back = tmp_path / "a.bin", tmp_path / "a.bin.cob", tmp_path / "a.out"
    src.write_bytes(data)
    assert aesflow.encrypt_file(src, enc, key, b"ctx") == len(data) + 56 + 6 * 16
    ct = enc.read_bytes()
    p = pyca_cob.Cobblestone256Decryptor(key, b"ctx")
    assert p.update(ct) + p.finalize() == data
    assert aesflow.decrypt_file(str(enc), str(back), key, b"ctx") == len(data)
    assert back.read_bytes() == data
    # 16-byte keys are Cobblestone-128.
    aesflow.encrypt_file(src, tmp_path / "b.cob", key[:16])
    p = pyca_cob.Cobblestone128Decryptor(key[:16], b"")
    assert p.update((tmp_path / "b.cob").read_bytes()) + p.finalize() == data


def test_files_atomic_rules(rng, tmp_path):
    key = os.urandom(32)
    src, enc, out = tmp_path / "a", tmp_path / "a.cob", tmp_path / "out"
    src.write_bytes(rng.randbytes(3 * C))
    aesflow.encrypt_file(src, enc, key)
    before = enc.read_bytes()
    with pytest.raises(FileExistsError):
        aesflow.encrypt_file(src, enc, key)
    assert enc.read_bytes() == before
    aesflow.encrypt_file(src, enc, key, force=True)
    assert enc.read_bytes() != before  # a new salt
    with pytest.raises(ValueError, match="same file"):
        aesflow.encrypt_file(src, src, key, force=True)
    with pytest.raises(FileNotFoundError):
        aesflow.encrypt_file(tmp_path / "missing", out, key)
    with pytest.raises(ValueError, match="32 bytes"):
        aesflow.encrypt_file(src, out, bytes(20))
    # Failed decryptions leave no output and no temporary file.
    with pytest.raises(InvalidTag):
        aesflow.decrypt_file(enc, out, os.urandom(32))
    bad = bytearray(enc.read_bytes())
    bad[-3] ^= 1
    (tmp_path / "bad.cob").write_bytes(bad)
    with pytest.raises(InvalidTag):
        aesflow.decrypt_file(tmp_path / "bad.cob", out, key)
    (tmp_path / "short.cob").write_bytes(bytes(bad[:60]))
    with pytest.raises(InvalidTag):
        aesflow.decrypt_file(tmp_path / "short.cob", out, key)
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "a.cob", "bad.cob", "short.cob"]


def test_cli_interop(rng, tmp_path, aesflow_bin):
    key = os.urandom(32)
    kf = tmp_path / "k"
    kf.write_text(key.hex())
    data = rng.randbytes(7 * C + 5)
    src = tmp_path / "x"
    src.write_bytes(data)
    # CLI -> Python (file function and streaming class).
    subprocess.run([aesflow_bin, "encrypt", "-k", str(kf), "--context", "ctx", str(src), "-o", str(tmp_path / "cli.cob")], check=True)
    aesflow.decrypt_file(tmp_path / "cli.cob", tmp_path / "py.out", key, b"ctx")
    assert (tmp_path / "py.out").read_bytes() == data
    d = aesflow.Cobblestone256Decryptor(key, b"ctx")
    assert d.update((tmp_path / "cli.cob").read_bytes()) + d.finalize() == data
    # Python -> CLI.
    e = aesflow.Cobblestone256Encryptor(key, b"ctx")
    (tmp_path / "py.cob").write_bytes(feed(e, data, rng))
    subprocess.run([aesflow_bin, "decrypt", "-k", str(kf), "--context", "ctx", str(tmp_path / "py.cob"), "-o", str(tmp_path / "cli.out")], check=True)
    assert (tmp_path / "cli.out").read_bytes() == data
    # Cobblestone-128 through the CLI.
    kf.write_text(key[:16].hex())
    aesflow.encrypt_file(src, tmp_path / "p128.cob", key[:16])
    subprocess.run([aesflow_bin, "decrypt", "--suite", "128", "-k", str(kf), str(tmp_path / "p128.cob"), "-o", str(tmp_path / "c128.out")], check=True)
    assert (tmp_path / "c128.out").read_bytes() == data
