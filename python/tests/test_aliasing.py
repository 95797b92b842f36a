"""Every way a caller can make the inputs of an ``*_into`` call share
memory with its output: the nonce, the associated data, the data (and for
the raw modes and Cobblestone the data) at offsets before, across the start
of, inside, across the end of, and after the output window, and the whole
buffer. The result must be that of separate buffers, the same as
pyca/cryptography's (which is checked too, on the same aliasing).
"""

import itertools

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM as PycaGCM

import aesflow

KEY = bytes(range(32))

# Offsets of an input relative to the output's start, in the test's units:
# far before, overlapping the start, at the start, inside, overlapping the
# end, just after.
OFFSETS = [-40, -5, 0, 3, 20, 33]


def _snapshot(buf, off, n):
    return bytes(buf[off : off + n])


def _window(buf, off, n):
    return memoryview(buf)[off : off + n]


def gcm_cases():
    # (data length, aad length): a short text, one past the fused kernels'
    # 8-block batches, and one that is sealed on all cores (1 MiB and more).
    for (dlen, alen), (nonce_off, aad_off, data_off) in itertools.product(
        [(30, 12), (200, 70), ((1 << 20) + 5, 40)],
        itertools.product([None, -12, 0, 10], [None, -5, 0, 3, 20], [None, -40, 0, 5]),
    ):
        yield dlen, alen, nonce_off, aad_off, data_off


@pytest.mark.parametrize("dlen,alen,nonce_off,aad_off,data_off", list(gcm_cases()))
@pytest.mark.parametrize("impl", ["aesflow", "cryptography"])
def test_gcm_encrypt_into_aliasing(impl, dlen, alen, nonce_off, aad_off, data_off):
    """``None``: that input is a separate buffer; an offset: it is a window
    of the one buffer that holds the output at offset 64."""
    g = aesflow.AESGCM(KEY) if impl == "aesflow" else PycaGCM(KEY)
    base = 64
    buf = bytearray((i * 37 + 11) & 0xFF for i in range(base + dlen + 16 + 300))
    out_len = dlen + 16

    def arg(off, n, fill):
        if off is None:
            return bytes(fill * n)
        return _window(buf, base + off, n)

    nonce = arg(nonce_off, 12, b"\x07")
    aad = arg(aad_off, alen, b"\x05")
    data = arg(data_off, dlen, b"\x03")
    expect = PycaGCM(KEY).encrypt(bytes(nonce), bytes(data), bytes(aad))
    out = _window(buf, base, out_len)
    assert g.encrypt_into(nonce, data, aad, out) == out_len
    del nonce, aad, data, out
    got = bytes(buf[base : base + out_len])
    if impl == "cryptography" and got != expect:
        pytest.xfail("pyca/cryptography overwrites unread data when the data starts before the output")
    assert got == expect


@pytest.mark.parametrize("nonce_off,aad_off", list(itertools.product([None, -12, 0, 10], [None, -5, 0, 3, 20])))
@pytest.mark.parametrize("data_off", [None, -16, 0, 7])
@pytest.mark.parametrize("dlen", [100, (1 << 20) + 3])
@pytest.mark.parametrize("impl", ["aesflow", "cryptography"])
def test_gcm_decrypt_into_aliasing(impl, dlen, nonce_off, aad_off, data_off):
    g = aesflow.AESGCM(KEY) if impl == "aesflow" else PycaGCM(KEY)
    alen, base = 40, 64
    nonce0, aad0 = b"\x07" * 12, bytes(range(alen))
    pt0 = bytes((i * 7) & 0xFF for i in range(dlen))
    buf = bytearray(base + dlen + 300)
    # Place the inputs (nonce, aad, ct||tag) where the case says, then
    # decrypt into the window at `base`; the aliasing inputs' bytes are the
    # values the call sees.
    nonce = nonce0 if nonce_off is None else _window(buf, base + nonce_off, 12)
    aad = aad0 if aad_off is None else _window(buf, base + aad_off, alen)
    if nonce_off is not None:
        buf[base + nonce_off : base + nonce_off + 12] = nonce0
    if aad_off is not None:
        buf[base + aad_off : base + aad_off + alen] = aad0
    n_now, a_now = bytes(nonce), bytes(aad)  # later writes may overlap each other
    sealed = PycaGCM(KEY).encrypt(n_now, pt0, a_now)
    if data_off is None:
        data = sealed
    else:
        buf[base + data_off : base + data_off + len(sealed)] = sealed
        data = _window(buf, base + data_off, len(sealed))
    # What the call reads, after every placement.
    n_in, a_in, d_in = bytes(nonce), bytes(aad), bytes(data)
    try:
        expect = PycaGCM(KEY).decrypt(n_in, d_in, a_in)
    except Exception as e:  # the placements clobbered each other
        expect = type(e).__name__
    out = _window(buf, base, dlen)
    try:
        assert g.decrypt_into(nonce, data, aad, out) == dlen
        got = bytes(out)
    except Exception as e:
        got = "InvalidTag" if "InvalidTag" in type(e).__name__ else type(e).__name__
    if impl == "cryptography" and got != expect:
        pytest.xfail("pyca/cryptography overwrites unread data when the data starts before the output")
    assert got == expect


@pytest.mark.parametrize("data_off", OFFSETS)
@pytest.mark.parametrize("mode", ["cbc", "ctr", "ecb", "cfb", "ofb"])
def test_raw_into_aliasing(mode, data_off):
    key, iv = bytes(range(16)), bytes(range(16, 32))
    base, n = 64, 96
    buf = bytearray((i * 13 + 1) & 0xFF for i in range(base + n + 200))
    data = _window(buf, base + data_off, n)
    d_in = bytes(data)
    expect = aesflow.encrypt(mode, key, iv, d_in)
    out = _window(buf, base, len(expect))
    assert aesflow.encrypt_into(mode, key, iv, data, out) == len(expect)
    del data, out
    assert bytes(buf[base : base + len(expect)]) == expect


@pytest.mark.parametrize("data_off", OFFSETS + [-20000, 100])
def test_cobblestone_update_into_aliasing(data_off):
    key = bytes(range(32))
    n = 20000
    base = 30000
    buf = bytearray((i * 7 + 3) & 0xFF for i in range(base + 56 + 16400 + 30000))
    d_in = bytes(buf[base + data_off : base + data_off + n])
    ref = aesflow.Cobblestone256Encryptor(key, b"")
    expect = ref.update(d_in)
    e = aesflow.Cobblestone256Encryptor(key, b"")
    # The prefix is random per object: compare everything but it.
    out = _window(buf, base, len(expect))
    assert e.update_into(_window(buf, base + data_off, n), out) == len(expect)
    del out
    got = bytes(buf[base : base + len(expect)])
    assert len(got) == 56 + 16400
    # Decrypting what was written gives the data that was read.
    d = aesflow.Cobblestone256Decryptor(key, b"")
    rest = e.finalize()
    assert d.update(got + rest) + d.finalize() == d_in
