"""Raw modes against pyca/cryptography (every mode, key size, padding,
random sizes, buffer types) and against the openssl binary; error paths;
the multi-stream engine."""

import subprocess

import pytest
from conftest import BUFFER_TYPES, as_buffer, sizes
from cryptography.hazmat.primitives import padding as pad
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

try:  # CFB and OFB moved to the "decrepit" module in pyca 47+.
    from cryptography.hazmat.decrepit.ciphers.modes import CFB, OFB
except ImportError:  # pragma: no cover - older pyca
    CFB, OFB = modes.CFB, modes.OFB

import aesflow

MODES = ["ecb", "cbc", "ctr", "cfb", "ofb"]


def pyca(mode, key, iv, data, padding, encrypt):
    m = {
        "ecb": lambda: modes.ECB(),
        "cbc": lambda: modes.CBC(iv),
        "ctr": lambda: modes.CTR(iv),
        "cfb": lambda: CFB(iv),
        "ofb": lambda: OFB(iv),
    }[mode]()
    c = Cipher(algorithms.AES(key), m)
    padded = padding and mode in ("ecb", "cbc")
    if encrypt:
        if padded:
            p = pad.PKCS7(128).padder()
            data = p.update(data) + p.finalize()
        e = c.encryptor()
        return e.update(data) + e.finalize()
    d = c.decryptor()
    out = d.update(data) + d.finalize()
    if padded:
        u = pad.PKCS7(128).unpadder()
        out = u.update(out) + u.finalize()
    return out


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("key_len", [16, 24, 32])
def test_differential(rng, mode, key_len):
    for n in sizes(rng, n=8, top=150_000) + [(1 << 20) + 5]:
        key, iv = rng.randbytes(key_len), rng.randbytes(16)
        data = rng.randbytes(n)
        for padding in (True, False):
            if not padding and mode in ("ecb", "cbc"):
                data = data[: n // 16 * 16]
            ct = aesflow.encrypt(mode, key, iv, data, padding=padding)
            assert ct == pyca(mode, key, iv, data, padding, True), (mode, n, padding)
            assert aesflow.decrypt(mode, key, iv, ct, padding=padding) == data


def test_ctr_counter_wraps_128_bits(rng):
    key = rng.randbytes(16)
    iv = b"\xff" * 16
    data = rng.randbytes(100_000)
    assert aesflow.encrypt("ctr", key, iv, data) == pyca("ctr", key, iv, data, False, True)


@pytest.mark.parametrize("kind", BUFFER_TYPES)
@pytest.mark.parametrize("mode", MODES)
def test_buffer_types(rng, kind, mode):
    key, iv = rng.randbytes(32), rng.randbytes(16)
    data = rng.randbytes(4096 + 32)
    buf = as_buffer(data, kind)
    ct = aesflow.encrypt(mode, key, iv, buf)
    assert ct == pyca(mode, key, iv, data, True, True)
    cb = as_buffer(ct, kind)
    if cb is not None:
        assert aesflow.decrypt(mode, key, iv, cb) == data


@pytest.mark.parametrize("mode", MODES)
def test_into(rng, mode):
    key, iv = rng.randbytes(16), rng.randbytes(16)
    for n in [0, 5, 16, 1000, 300_001]:
        data = rng.randbytes(n)
        want = aesflow.encrypt(mode, key, iv, data)
        out = bytearray(len(want) + 7)
        assert aesflow.encrypt_into(mode, key, iv, data, out) == len(want)
        assert bytes(out[: len(want)]) == want
        back = bytearray(len(want))
        k = aesflow.decrypt_into(mode, key, iv, want, back)
        assert bytes(back[:k]) == data
        # In place, the input a view of the output.
        buf = bytearray(want)
        k = aesflow.decrypt_into(mode, key, iv, buf, buf)
        assert bytes(buf[:k]) == data
        if want:
            with pytest.raises(ValueError, match="buffer must be at least"):
                aesflow.encrypt_into(mode, key, iv, data, bytearray(len(want) - 1))


def test_errors():
    key, iv = bytes(16), bytes(16)
    with pytest.raises(ValueError, match="unknown mode"):
        aesflow.encrypt("xts", key, iv, b"x")
    for k in [b"", bytes(15), bytes(17), bytes(64)]:
        with pytest.raises(ValueError, match="key must be 16, 24 or 32 bytes"):
            aesflow.encrypt("cbc", k, iv, b"x")
    for m in ["cbc", "ctr", "cfb", "ofb"]:
        with pytest.raises(ValueError, match="iv must be 16 bytes"):
            aesflow.encrypt(m, key, bytes(8), b"x")
        with pytest.raises(ValueError, match="needs a 16-byte iv"):
            aesflow.encrypt(m, key, None, b"x")
    assert aesflow.encrypt("ecb", key, None, b"x") == aesflow.encrypt("ecb", key, iv, b"x")
    for m in ["ecb", "cbc"]:
        with pytest.raises(ValueError, match="multiple of 16"):
            aesflow.encrypt(m, key, iv, b"x" * 17, padding=False)
        with pytest.raises(ValueError, match="multiple of 16"):
            aesflow.decrypt(m, key, iv, b"x" * 17)
        with pytest.raises(ValueError, match="multiple of 16"):
            aesflow.decrypt(m, key, iv, b"")
        ct = aesflow.encrypt(m, key, iv, b"hello")
        with pytest.raises(ValueError, match="bad padding"):
            aesflow.decrypt(m, bytes(range(16)), iv, ct)
    with pytest.raises(TypeError):
        aesflow.encrypt("cbc", key, iv, "text")
    with pytest.raises(TypeError):
        aesflow.encrypt("cbc", "k" * 16, iv, b"x")


@pytest.mark.parametrize("mode", MODES)
def test_openssl_enc(rng, openssl_bin, mode, tmp_path):
    for key_len in (16, 32):
        key, iv = rng.randbytes(key_len), rng.randbytes(16)
        data = rng.randbytes(rng.randrange(1, 100_000))
        p = tmp_path / "in"
        p.write_bytes(data)
        args = [openssl_bin, "enc", f"-aes-{key_len * 8}-{mode}", "-K", key.hex(), "-in", str(p)]
        if mode != "ecb":
            args += ["-iv", iv.hex()]
        want = subprocess.run(args, check=True, capture_output=True).stdout
        assert aesflow.encrypt(mode, key, iv, data) == want


def test_cbc_encrypt_many(rng):
    n = 37
    keys = [rng.randbytes(rng.choice([16, 24, 32])) for _ in range(n)]
    ivs = [rng.randbytes(16) for _ in range(n)]
    bufs = [rng.randbytes(16 * rng.randrange(0, 3000)) for _ in range(n)]
    bufs[3] = bytearray(bufs[3])
    bufs[4] = memoryview(bufs[4])
    out = aesflow.cbc_encrypt_many(keys, ivs, bufs)
    assert len(out) == n
    for k, iv, b, o in zip(keys, ivs, bufs, out):
        assert o == pyca("cbc", k, iv, bytes(b), False, True)
    assert aesflow.cbc_encrypt_many([], [], []) == []


def test_cbc_encrypt_many_long_streams(rng):
    """Streams longer than one round's segment (4-64 KiB, by the engine's
    lanes; long streams' rounds shifted from one another) and more bytes
    than one batch: every chaining value is carried from segment to
    segment."""
    lens = [0, 16, (1 << 20) + 32]
    for seg in [4096, 16 * 1024, 32 * 1024, 64 * 1024]:
        lens += [seg - 16, seg, seg + 16, 5 * seg + 48]
    lens += [16 * rng.randrange(0, 20_000) for _ in range(120)]
    keys = [rng.randbytes(rng.choice([16, 24, 32])) for _ in lens]
    ivs = [rng.randbytes(16) for _ in lens]
    bufs = [rng.randbytes(n) for n in lens]
    out = aesflow.cbc_encrypt_many(keys, ivs, bufs)
    for k, iv, b, o in zip(keys, ivs, bufs, out):
        assert o == pyca("cbc", k, iv, b, False, True)


def test_cbc_encrypt_many_errors():
    with pytest.raises(ValueError, match="same length"):
        aesflow.cbc_encrypt_many([bytes(16)], [], [b""])
    with pytest.raises(ValueError, match="multiple of 16|whole blocks|not a multiple"):
        aesflow.cbc_encrypt_many([bytes(16)], [bytes(16)], [b"x" * 17])
    with pytest.raises(ValueError):
        aesflow.cbc_encrypt_many([bytes(15)], [bytes(16)], [b""])
    with pytest.raises(ValueError, match="16 bytes"):
        aesflow.cbc_encrypt_many([bytes(16)], [bytes(15)], [b""])
