"""pyca/cryptography's AESGCM and Cobblestone test cases, run twice: once
against ``cryptography`` and once against ``aesflow``, the only difference
being where the names come from (the ``api`` fixture). A case that passes
for pyca and fails for aesflow is a place where aesflow is not a drop-in.

The cases follow pyca's own tests (``tests/hazmat/primitives/test_aead.py``
and the Cobblestone tests): NIST SP 800-38D vectors (the repository's
``vectors/GCM``, the files pyca loads), argument types, nonce and key
lengths, sizes of 2**31 bytes and more, buffer formats and contiguity,
``generate_key``, ``None`` associated data, ``*_into`` buffer sizes, and the
Cobblestone objects' context, finalization and authentication rules.
"""

import binascii
import gzip
import mmap
import os
import types
from array import array
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
GCM_VECTORS = REPO / "vectors" / "GCM"


def _pyca():
    import cryptography.cobblestone as cob
    from cryptography.exceptions import AlreadyFinalized, InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return types.SimpleNamespace(
        AESGCM=AESGCM,
        InvalidTag=InvalidTag,
        AlreadyFinalized=AlreadyFinalized,
        Enc256=cob.Cobblestone256Encryptor,
        Dec256=cob.Cobblestone256Decryptor,
        Enc128=cob.Cobblestone128Encryptor,
        Dec128=cob.Cobblestone128Decryptor,
    )


def _aesflow():
    import aesflow as cob
    from aesflow import AESGCM, AlreadyFinalized, InvalidTag

    return types.SimpleNamespace(
        AESGCM=AESGCM,
        InvalidTag=InvalidTag,
        AlreadyFinalized=AlreadyFinalized,
        Enc256=cob.Cobblestone256Encryptor,
        Dec256=cob.Cobblestone256Decryptor,
        Enc128=cob.Cobblestone128Encryptor,
        Dec128=cob.Cobblestone128Decryptor,
    )


@pytest.fixture(params=["cryptography", "aesflow"])
def api(request):
    return _pyca() if request.param == "cryptography" else _aesflow()


def load_nist(name):
    """The records of a CAVP ``.rsp`` file as dicts (``FAIL`` -> fail)."""
    out, cur = [], {}
    with gzip.open(GCM_VECTORS / name, "rt") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("["):
                continue
            if line == "FAIL":
                cur["fail"] = True
                continue
            k, _, v = line.partition("=")
            k = k.strip().lower()
            if k == "count" and cur:
                out.append(cur)
                cur = {}
            cur[k] = v.strip()
    if cur:
        out.append(cur)
    return out


def gcm_vectors():
    files = [
        "gcmDecrypt128.rsp.gz",
        "gcmDecrypt192.rsp.gz",
        "gcmDecrypt256.rsp.gz",
        "gcmEncryptExtIV128.rsp.gz",
        "gcmEncryptExtIV192.rsp.gz",
        "gcmEncryptExtIV256.rsp.gz",
    ]
    vs = [v for f in files for v in load_nist(f)]
    # pyca's selection: 16-byte tags and nonces of at least 8 bytes.
    return [v for v in vs if len(v["tag"]) == 32 and len(v["iv"]) >= 16]


class FakeData(bytes):
    """A short buffer whose ``len()`` lies (the buffer protocol decides)."""

    def __len__(self):
        return 2**32 + 1


# ---- AESGCM ---------------------------------------------------------------


def test_vectors(api):
    vectors = gcm_vectors()
    assert len(vectors) > 4000
    for v in vectors:
        nonce = binascii.unhexlify(v["iv"])
        key = binascii.unhexlify(v["key"])
        aad = binascii.unhexlify(v["aad"])
        ct = binascii.unhexlify(v["ct"])
        pt = binascii.unhexlify(v.get("pt", ""))
        tag = binascii.unhexlify(v["tag"])
        g = api.AESGCM(key)
        if v.get("fail"):
            with pytest.raises(api.InvalidTag):
                g.decrypt(nonce, ct + tag, aad)
        else:
            out = g.encrypt(nonce, pt, aad)
            assert out[:-16] == ct and out[-16:] == tag
            assert g.decrypt(nonce, ct + tag, aad) == pt


def test_data_too_large(api):
    g = api.AESGCM(api.AESGCM.generate_key(128))
    nonce = b"0" * 12
    # A lying len() changes nothing: the buffer is what counts.
    assert len(g.encrypt(nonce, FakeData(), b"")) == 16
    big = mmap.mmap(-1, 2**31)  # untouched pages: no memory is used
    try:
        for call in [
            lambda: g.encrypt(nonce, big, None),
            lambda: g.encrypt(nonce, b"", big),
            lambda: g.decrypt(nonce, b"x" * 17, big),
            lambda: g.encrypt_into(nonce, big, None, bytearray(16)),
            lambda: g.decrypt_into(nonce, b"x" * 17, big, bytearray(1)),
        ]:
            with pytest.raises(OverflowError):
                call()
    finally:
        big.close()


@pytest.mark.parametrize(
    ("nonce", "data", "associated_data"),
    [
        [object(), b"data", b""],
        [b"0" * 12, object(), b""],
        [b"0" * 12, b"data", object()],
        ["0" * 12, b"data", b""],
        [b"0" * 12, "data", b""],
        [b"0" * 12, b"data", "aad"],
        [b"0" * 12, None, b""],
    ],
)
def test_params_not_bytes(api, nonce, data, associated_data):
    g = api.AESGCM(api.AESGCM.generate_key(128))
    with pytest.raises(TypeError):
        g.encrypt(nonce, data, associated_data)
    with pytest.raises(TypeError):
        g.decrypt(nonce, data, associated_data)


@pytest.mark.parametrize("length", [0, 7, 129])
def test_invalid_nonce_length(api, length):
    g = api.AESGCM(api.AESGCM.generate_key(128))
    with pytest.raises(ValueError):
        g.encrypt(b"\x00" * length, b"hi", None)
    with pytest.raises(ValueError):
        g.decrypt(b"\x00" * length, b"\x00" * 32, None)


@pytest.mark.parametrize("length", [8, 12, 16, 128])
def test_valid_nonce_length(api, length):
    key = bytes(range(32))
    assert api.AESGCM(key).encrypt(b"\x07" * length, b"hi", b"ad") == _pyca().AESGCM(key).encrypt(
        b"\x07" * length, b"hi", b"ad"
    )


def test_bad_key(api):
    with pytest.raises(TypeError):
        api.AESGCM(object())
    with pytest.raises(TypeError):
        api.AESGCM("0" * 32)
    for n in [0, 15, 31, 33, 64]:
        with pytest.raises(ValueError):
            api.AESGCM(b"0" * n)


def test_bad_generate_key(api):
    with pytest.raises(TypeError):
        api.AESGCM.generate_key(object())
    with pytest.raises(TypeError):
        api.AESGCM.generate_key("128")
    for bits in [0, 129, 512, True]:
        with pytest.raises(ValueError):
            api.AESGCM.generate_key(bits)
    for bits in [-1, -128, 2**64, 2**70]:
        with pytest.raises(OverflowError):
            api.AESGCM.generate_key(bits)


def test_generate_key(api):
    for bits in [128, 192, 256]:
        k = api.AESGCM.generate_key(bits)
        assert isinstance(k, bytes) and len(k) == bits // 8


def test_associated_data_none_equal_to_empty_bytestring(api):
    g = api.AESGCM(api.AESGCM.generate_key(128))
    nonce = os.urandom(12)
    ct1 = g.encrypt(nonce, b"some_data", None)
    ct2 = g.encrypt(nonce, b"some_data", b"")
    assert ct1 == ct2
    assert g.decrypt(nonce, ct1, None) == g.decrypt(nonce, ct2, b"") == b"some_data"


def test_associated_data_required(api):
    g = api.AESGCM(api.AESGCM.generate_key(128))
    with pytest.raises(TypeError):
        g.encrypt(b"0" * 12, b"x")
    assert g.encrypt(nonce=b"0" * 12, data=b"x", associated_data=None)


def test_decrypt_data_too_short(api):
    g = api.AESGCM(api.AESGCM.generate_key(128))
    for n in [0, 1, 15]:
        with pytest.raises(api.InvalidTag):
            g.decrypt(b"0" * 12, b"0" * n, None)


def test_buffer_protocol(api):
    key = api.AESGCM.generate_key(128)
    g = api.AESGCM(key)
    pt, ad, nonce = b"encrypt me", b"additional", os.urandom(12)
    ct = g.encrypt(nonce, pt, ad)
    assert g.decrypt(nonce, ct, ad) == pt
    g2 = api.AESGCM(bytearray(key))
    for wrap in [bytearray, memoryview, lambda b: np.frombuffer(b, np.uint8), lambda b: array("B", b)]:
        assert g2.encrypt(wrap(nonce), wrap(pt), wrap(ad)) == ct
        assert g2.decrypt(wrap(nonce), wrap(ct), wrap(ad)) == pt
    # 'c' items and multi-dimensional C-contiguous arrays are bytes too.
    assert g2.encrypt(nonce, memoryview(pt).cast("c"), ad) == ct
    square = np.arange(16, dtype=np.uint8).reshape(4, 4)
    assert g2.encrypt(nonce, square, None) == g2.encrypt(nonce, square.tobytes(), None)


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.zeros(8, dtype=np.uint16),
        lambda: np.zeros(8, dtype=np.int8),
        lambda: np.zeros(8, dtype=np.float64),
        lambda: np.zeros(8, dtype=np.bool_),
        lambda: np.zeros(8, dtype="S1"),
        lambda: memoryview(bytearray(16)).cast("b"),
        lambda: memoryview(bytearray(16)).cast("H"),
        lambda: array("b", b"abc"),
        lambda: array("I", [1, 2]),
    ],
)
def test_non_byte_formats_refused(api, make):
    g = api.AESGCM(api.AESGCM.generate_key(128))
    with pytest.raises(TypeError):
        g.encrypt(b"0" * 12, make(), None)
    with pytest.raises(TypeError):
        g.encrypt(b"0" * 12, b"x", make())
    with pytest.raises(TypeError):
        g.encrypt_into(b"0" * 12, b"", None, make())
    with pytest.raises(TypeError):
        api.AESGCM(make())


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.zeros(32, dtype=np.uint8)[::2],
        lambda: memoryview(bytearray(32))[::2],
        lambda: np.asfortranarray(np.zeros((4, 4), dtype=np.uint8)),
        lambda: np.zeros((4, 3), dtype=np.uint8).T,
    ],
)
def test_non_contiguous_refused(api, make):
    g = api.AESGCM(api.AESGCM.generate_key(128))
    with pytest.raises(BufferError):
        g.encrypt(b"0" * 12, make(), None)
    with pytest.raises(BufferError):
        g.encrypt(b"0" * 12, b"", make())
    with pytest.raises(BufferError):
        g.encrypt_into(b"0" * 12, b"", None, make())


def test_into_sizes_and_writability(api):
    g = api.AESGCM(api.AESGCM.generate_key(128))
    nonce = b"0" * 12
    for n in [18, 20, 0]:
        with pytest.raises(ValueError):
            g.encrypt_into(nonce, b"abc", None, bytearray(n))
    assert g.encrypt_into(nonce, b"abc", None, bytearray(19)) == 19
    assert g.encrypt_into(nonce, b"abc", None, np.zeros(19, dtype=np.uint8)) == 19
    for ro in [b"x" * 19, memoryview(b"x" * 19)]:
        with pytest.raises(TypeError):
            g.encrypt_into(nonce, b"abc", None, ro)
    ct = g.encrypt(nonce, b"hello", None)
    out = bytearray(5)
    assert g.decrypt_into(nonce, ct, None, out) == 5 and out == b"hello"
    for n in [4, 6]:
        with pytest.raises(ValueError):
            g.decrypt_into(nonce, ct, None, bytearray(n))
    bad = bytearray(ct)
    bad[0] ^= 1
    with pytest.raises(api.InvalidTag):
        g.decrypt_into(nonce, bytes(bad), None, bytearray(5))


def test_exceptions_are_pycas(api):
    from cryptography import exceptions

    assert issubclass(api.InvalidTag, exceptions.InvalidTag)
    assert issubclass(api.AlreadyFinalized, exceptions.AlreadyFinalized)
    g = api.AESGCM(bytes(16))
    with pytest.raises(exceptions.InvalidTag):
        g.decrypt(bytes(12), bytes(32), None)


# ---- Cobblestone ----------------------------------------------------------


@pytest.mark.parametrize("bits", [256, 128])
def test_cobblestone_roundtrip_and_interop(api, bits):
    enc, dec = (api.Enc256, api.Dec256) if bits == 256 else (api.Enc128, api.Dec128)
    other = _pyca() if api.AESGCM.__module__.startswith("aesflow") else _aesflow()
    odec = other.Dec256 if bits == 256 else other.Dec128
    key = enc.generate_key()
    assert len(key) == bits // 8
    for n in [0, 1, 16383, 16384, 16385, 3 * 16384 + 7]:
        data = os.urandom(n)
        e = enc(key, b"ctx")
        ct = e.update(data[: n // 2]) + e.update(data[n // 2 :]) + e.finalize()
        d = dec(key, b"ctx")
        assert d.update(ct) + d.finalize() == data
        d = odec(key, b"ctx")
        assert d.update(ct) + d.finalize() == data


def test_cobblestone_context_required(api):
    key = api.Enc256.generate_key()
    for cls in [api.Enc256, api.Dec256]:
        with pytest.raises(TypeError):
            cls(key)
        with pytest.raises(TypeError):
            cls(key, None)
        with pytest.raises(TypeError):
            cls(key, "ctx")
        cls(key, context=b"")


def test_cobblestone_bad_key(api):
    for cls, n in [(api.Enc256, 32), (api.Dec256, 32), (api.Enc128, 16), (api.Dec128, 16)]:
        for m in [0, n - 1, n + 1, 48]:
            with pytest.raises(ValueError):
                cls(b"k" * m, b"")
        with pytest.raises(TypeError):
            cls(object(), b"")


def test_cobblestone_already_finalized(api):
    key = api.Enc256.generate_key()
    e = api.Enc256(key, b"c")
    e.update(b"a" * 100)
    ct = e.finalize()
    for call in [lambda: e.update(b"a"), e.finalize, lambda: e.update_into(b"", bytearray(100))]:
        with pytest.raises(api.AlreadyFinalized):
            call()
    d = api.Dec256(key, b"c")
    with pytest.raises(api.InvalidTag):
        d.update(b"\0" * 200)
    with pytest.raises(api.AlreadyFinalized):
        d.update(b"\0")
    d = api.Dec256(key, b"c")
    with pytest.raises(api.InvalidTag):
        d.finalize()
    with pytest.raises(api.AlreadyFinalized):
        d.update(ct)


def test_cobblestone_wrong_context_and_tamper(api):
    key = api.Enc256.generate_key()
    e = api.Enc256(key, b"right")
    ct = e.update(os.urandom(40000)) + e.finalize()
    with pytest.raises(api.InvalidTag):
        d = api.Dec256(key, b"wrong")
        d.update(ct) + d.finalize()
    for cut in [ct[:-1], ct[:56 + 16400], ct + b"\0"]:
        with pytest.raises(api.InvalidTag):
            d = api.Dec256(key, b"right")
            d.update(cut) + d.finalize()


def test_cobblestone_update_into(api):
    key = api.Enc256.generate_key()
    e = api.Enc256(key, b"c")
    assert e.update(b"a" * 100) and True
    with pytest.raises(ValueError):
        e.update_into(b"a" * 20000, bytearray(16399))
    e = api.Enc256(key, b"c")
    buf = bytearray(56 + 16400)
    assert e.update_into(b"a" * 20000, buf) == 56 + 16400
    with pytest.raises(TypeError):
        e.update(np.zeros(4, dtype=np.uint16))
    with pytest.raises(BufferError):
        e.update(np.zeros(8, dtype=np.uint8)[::2])
