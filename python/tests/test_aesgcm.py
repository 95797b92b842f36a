"""AESGCM against pyca/cryptography: random sizes, nonces, AAD and buffer
types in both directions; every error path."""

import pytest
from conftest import BUFFER_TYPES, as_buffer, sizes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM as PycaGCM

import aesflow
from aesflow import AESGCM, InvalidTag


@pytest.mark.parametrize("bits", [128, 192, 256])
def test_differential_random(rng, bits):
    key = AESGCM.generate_key(bits)
    ours, theirs = AESGCM(key), PycaGCM(key)
    # 9 MiB + 13: a new output large enough for huge pages (`MADV_HUGEPAGE`).
    for n in sizes(rng, top=300_000) + [(1 << 20) + 13, 3 << 20, (9 << 20) + 13]:
        data = rng.randbytes(n)
        nonce = rng.randbytes(rng.choice([12, 12, 8, 16, 60, 128]))
        aad = rng.choice([None, b"", rng.randbytes(rng.randrange(100))])
        ct = ours.encrypt(nonce, data, aad)
        assert ct == theirs.encrypt(nonce, data, aad), (n, len(nonce))
        assert ours.decrypt(nonce, ct, aad) == data
        assert theirs.decrypt(nonce, ct, aad) == data


@pytest.mark.parametrize("kind", BUFFER_TYPES)
def test_buffer_types(rng, kind):
    key = AESGCM.generate_key(256)
    ours, theirs = AESGCM(as_buffer(key, kind)), PycaGCM(key)
    for n in [0, 4, 16, 1000, 65536, (1 << 20) + 4]:
        data = rng.randbytes(n)
        buf = as_buffer(data, kind)
        if buf is None:
            continue
        nonce, aad = rng.randbytes(12), rng.randbytes(20)
        ct = ours.encrypt(as_buffer(nonce, kind), buf, as_buffer(aad, kind))
        assert ct == theirs.encrypt(nonce, data, aad)
        cb = as_buffer(ct, kind)
        assert ours.decrypt(nonce, cb, aad) == data


def test_into_variants(rng):
    key = AESGCM.generate_key(128)
    ours, theirs = AESGCM(key), PycaGCM(key)
    for n in [0, 1, 100, 70000, (1 << 20) + 1]:
        data, nonce = rng.randbytes(n), rng.randbytes(12)
        out = bytearray(n + 16)
        assert ours.encrypt_into(nonce, data, b"a", out) == n + 16
        assert bytes(out) == theirs.encrypt(nonce, data, b"a")
        back = bytearray(n)
        assert ours.decrypt_into(nonce, out, b"a", back) == n
        assert bytes(back) == data
        # In place: the input is a view of the output buffer.
        inplace = bytearray(data) + bytearray(16)
        ours.encrypt_into(nonce, memoryview(inplace)[:n], b"a", inplace)
        assert bytes(inplace) == bytes(out)


def test_into_errors():
    a = AESGCM(bytes(16))
    with pytest.raises(ValueError, match="buffer must be 21 bytes"):
        a.encrypt_into(bytes(12), b"hello", None, bytearray(20))
    with pytest.raises(ValueError, match="buffer must be 21 bytes"):
        a.encrypt_into(bytes(12), b"hello", None, bytearray(22))
    with pytest.raises(TypeError, match="writable"):
        a.encrypt_into(bytes(12), b"hello", None, bytes(21))
    ct = a.encrypt(bytes(12), b"hello", None)
    with pytest.raises(ValueError, match="buffer must be 5 bytes"):
        a.decrypt_into(bytes(12), ct, None, bytearray(6))
    bad = bytearray(ct)
    bad[0] ^= 1
    out = bytearray(b"\xff" * 5)
    with pytest.raises(InvalidTag):
        a.decrypt_into(bytes(12), bad, None, out)
    assert out == bytearray(5), "a failed open must not leave plaintext in the buffer"


def test_invalid_tag():
    key = AESGCM.generate_key(256)
    a = AESGCM(key)
    nonce = bytes(12)
    ct = a.encrypt(nonce, b"secret message", b"aad")
    for mutate in range(len(ct)):
        bad = bytearray(ct)
        bad[mutate] ^= 0x80
        with pytest.raises(InvalidTag):
            a.decrypt(nonce, bytes(bad), b"aad")
    with pytest.raises(InvalidTag):
        a.decrypt(nonce, ct, b"other aad")
    with pytest.raises(InvalidTag):
        a.decrypt(nonce, ct, None)
    with pytest.raises(InvalidTag):
        a.decrypt(b"\x01" * 12, ct, b"aad")
    with pytest.raises(InvalidTag):
        AESGCM(AESGCM.generate_key(256)).decrypt(nonce, ct, b"aad")
    for short in [b"", b"x" * 15]:
        with pytest.raises(InvalidTag):
            a.decrypt(nonce, short, None)
    # A large message (the multi-core path) tampered at the end.
    big = a.encrypt(nonce, bytes(3 << 20), None)
    bad = bytearray(big)
    bad[-20] ^= 1
    with pytest.raises(InvalidTag):
        a.decrypt(nonce, bad, None)
    assert issubclass(InvalidTag, Exception)
    assert aesflow.InvalidTag is InvalidTag


def test_errors_like_pyca():
    for bad in [b"", b"x" * 10, b"x" * 33, b"x" * 64]:
        with pytest.raises(ValueError, match="AESGCM key must be 128, 192, or 256 bits"):
            AESGCM(bad)
    for bad in ["x" * 16, None, 16, 1.5]:
        with pytest.raises(TypeError):
            AESGCM(bad)
    for bits in [0, 64, 100, 512, True]:
        with pytest.raises(ValueError, match="bit_length must be 128, 192, or 256"):
            AESGCM.generate_key(bits)
    with pytest.raises(TypeError):
        AESGCM.generate_key("128")
    for bits in [-1, -128, 1 << 64]:
        with pytest.raises(OverflowError):
            AESGCM.generate_key(bits)
    a = AESGCM(bytes(32))
    for n in [0, 7, 129, 1000]:
        with pytest.raises(ValueError, match="Nonce must be between 8 and 128 bytes"):
            a.encrypt(bytes(n), b"x", None)
        with pytest.raises(ValueError, match="Nonce must be between 8 and 128 bytes"):
            a.decrypt(bytes(n), bytes(32), None)
    with pytest.raises(TypeError):
        a.encrypt(bytes(12), "text", None)
    with pytest.raises(TypeError):
        a.encrypt(bytes(12), b"x", "aad")
    with pytest.raises(TypeError):
        a.encrypt(bytes(12), None, None)
    with pytest.raises(TypeError):
        a.encrypt(bytes(12), b"x")  # associated_data is required, as in pyca
    # Keyword arguments as in pyca.
    assert a.encrypt(nonce=bytes(12), data=b"x", associated_data=None) == PycaGCM(bytes(32)).encrypt(
        bytes(12), b"x", None
    )


def test_non_contiguous_rejected():
    np = pytest.importorskip("numpy")
    a = AESGCM(bytes(16))
    arr = np.arange(100, dtype=np.uint8)[::2]
    with pytest.raises(BufferError, match="contiguous"):
        a.encrypt(bytes(12), arr, None)


def test_generate_key():
    for bits in [128, 192, 256]:
        k = AESGCM.generate_key(bits)
        assert isinstance(k, bytes) and len(k) == bits // 8
    assert AESGCM.generate_key(256) != AESGCM.generate_key(256)
