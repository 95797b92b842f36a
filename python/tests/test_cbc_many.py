"""``cbc_encrypt_many_into``: many CBC streams into the caller's buffers.

Checked against pyca/cryptography's CBC on random streams (key sizes,
lengths around the engine's segments, buffer types), in place and with
every other way an input can share memory with an output; pyca-like
errors (sizes, read-only outputs, outputs that share memory), raised
before anything is written.
"""

import numpy as np
import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

import aesflow


def cbc(key, iv, data):
    return Cipher(algorithms.AES(bytes(key)), modes.CBC(bytes(iv))).encryptor().update(bytes(data))


def random_streams(rng, n, lens=None):
    keys = [rng.randbytes(rng.choice([16, 24, 32])) for _ in range(n)]
    ivs = [rng.randbytes(16) for _ in range(n)]
    lens = lens or [16 * rng.randrange(0, 6000) for _ in range(n)]
    bufs = [rng.randbytes(m) for m in lens]
    return keys, ivs, bufs


def test_into_matches_pyca(rng):
    lens = [0, 16, 4080, 4096, 16 * 1024 + 16, 64 * 1024, 5 * 16 * 1024 + 48, (1 << 20) + 32]
    lens += [16 * rng.randrange(0, 8000) for _ in range(60)]
    keys, ivs, bufs = random_streams(rng, len(lens), lens)
    kinds = [bytearray, lambda n: memoryview(bytearray(n)), lambda n: np.zeros(n, dtype=np.uint8)]
    outs = [kinds[i % 3](len(b)) for i, b in enumerate(bufs)]
    assert aesflow.cbc_encrypt_many_into(keys, ivs, bufs, outs) == sum(lens)
    for k, iv, b, o in zip(keys, ivs, bufs, outs):
        assert bytes(o) == cbc(k, iv, b)
    # The same as cbc_encrypt_many, and the outputs can be reused.
    keys2, ivs2, _ = random_streams(rng, len(lens), lens)
    aesflow.cbc_encrypt_many_into(keys2, ivs2, bufs, outs)
    assert [bytes(o) for o in outs] == aesflow.cbc_encrypt_many(keys2, ivs2, bufs)
    assert aesflow.cbc_encrypt_many_into([], [], [], []) == 0


def test_long_streams_at_one_offset(rng):
    """Streams of 1 MiB that begin at the same offset in their pages (the
    case the rounds are shifted for), from one buffer."""
    n, per = 40, (1 << 20) + 16 * rng.randrange(0, 64)
    keys, ivs, _ = random_streams(rng, n, [0] * n)
    big = bytearray(rng.randbytes(n * per))
    bufs = [memoryview(big)[i * per : (i + 1) * per] for i in range(n)]
    out = bytearray(n * per)
    outs = [memoryview(out)[i * per : (i + 1) * per] for i in range(n)]
    aesflow.cbc_encrypt_many_into(keys, ivs, bufs, outs)
    for k, iv, b, o in zip(keys, ivs, bufs, outs):
        assert bytes(o) == cbc(k, iv, b)


def test_longer_outputs_keep_their_tail(rng):
    keys, ivs, bufs = random_streams(rng, 5)
    outs = [bytearray(b"\xee" * (len(b) + 7)) for b in bufs]
    aesflow.cbc_encrypt_many_into(keys, ivs, bufs, outs)
    for k, iv, b, o in zip(keys, ivs, bufs, outs):
        assert o == cbc(k, iv, b) + b"\xee" * 7


def test_in_place(rng):
    keys, ivs, bufs = random_streams(rng, 30)
    data = [bytearray(b) for b in bufs]
    aesflow.cbc_encrypt_many_into(keys, ivs, data, data)
    for k, iv, b, d in zip(keys, ivs, bufs, data):
        assert d == cbc(k, iv, b)


# Where input `what` of stream 0 lies, relative to the outputs (one
# buffer holds every output, 96 KiB apart; the streams are 80 KiB, several
# rounds of the engine, so a key read again in a later round would see
# what an earlier one wrote).
CASES = [
    ("buffer", "own, shifted by 48"),
    ("buffer", "own, shifted back by 32"),
    ("buffer", "another stream's output"),
    ("buffer", "across two outputs"),
    ("key", "inside another stream's output"),
    ("key", "inside its own output"),
    ("iv", "inside its own output"),
    ("iv", "inside another stream's output"),
]


@pytest.mark.parametrize("what,where", CASES)
def test_aliasing(rng, what, where):
    """An input that shares memory with an output (other than a buffer that
    is its own output exactly, in place) reads as if it were separate: the
    result is pyca's on a snapshot of the inputs taken before the call."""
    n, per, gap = 4, 80 * 1024, 96 * 1024
    mem = bytearray(rng.randbytes(n * gap + 8192))
    base = 1024
    outs = [memoryview(mem)[base + i * gap : base + i * gap + per] for i in range(n)]
    keys, ivs, bufs = random_streams(rng, n, [per] * n)
    start = {
        "own, shifted by 48": base + 48,
        "own, shifted back by 32": base - 32,
        "another stream's output": base + gap,
        "across two outputs": base + gap + per - 1024,
        "inside another stream's output": base + 2 * gap + 100,
        "inside its own output": base + 300,
    }[where]
    size = {"buffer": per, "key": 32, "iv": 16}[what]
    view = memoryview(mem)[start : start + size]
    {"buffer": bufs, "key": keys, "iv": ivs}[what][0] = view
    snapshot = [[bytes(x) for x in xs] for xs in (keys, ivs, bufs)]
    aesflow.cbc_encrypt_many_into(keys, ivs, bufs, outs)
    want = [cbc(k, iv, b) for k, iv, b in zip(*snapshot)]
    del view, keys, ivs, bufs
    assert [bytes(o) for o in outs] == want


def test_errors_write_nothing(rng):
    keys, ivs, bufs = random_streams(rng, 3, [32, 64, 48])
    outs = [bytearray(b"\xaa" * len(b)) for b in bufs]

    def untouched():
        return all(o == b"\xaa" * len(o) for o in outs)

    with pytest.raises(ValueError, match="same length"):
        aesflow.cbc_encrypt_many_into(keys, ivs, bufs, outs[:2])
    with pytest.raises(ValueError, match="same length"):
        aesflow.cbc_encrypt_many_into(keys, ivs[:2], bufs, outs)
    short = outs[:2] + [bytearray(47)]
    with pytest.raises(ValueError, match=r"outputs\[2\] must be at least 48 bytes"):
        aesflow.cbc_encrypt_many_into(keys, ivs, bufs, short)
    with pytest.raises(TypeError, match="writable"):
        aesflow.cbc_encrypt_many_into(keys, ivs, bufs, outs[:2] + [bytes(48)])
    with pytest.raises(TypeError):
        aesflow.cbc_encrypt_many_into(keys, ivs, bufs, outs[:2] + [np.zeros(12, dtype=np.uint32)])
    shared = bytearray(200)
    overlapping = [memoryview(shared)[0:32], memoryview(shared)[40:104], memoryview(shared)[100:148]]
    with pytest.raises(ValueError, match=r"outputs\[1\] and outputs\[2\] share memory"):
        aesflow.cbc_encrypt_many_into(keys, ivs, bufs, overlapping)
    assert shared == bytearray(200)
    with pytest.raises(ValueError, match="multiple of 16"):
        aesflow.cbc_encrypt_many_into(keys, ivs, bufs[:2] + [b"x" * 17], outs)
    with pytest.raises(ValueError, match="16, 24 or 32"):
        aesflow.cbc_encrypt_many_into(keys[:2] + [bytes(15)], ivs, bufs, outs)
    assert untouched()
    # Beside a stream of several rounds (whose key is expanded once for
    # all of them).
    long_bufs = [rng.randbytes(32), rng.randbytes(1 << 20)]
    long_outs = [bytearray(b"\xaa" * len(b)) for b in long_bufs]
    with pytest.raises(ValueError, match="16, 24 or 32"):
        aesflow.cbc_encrypt_many_into([bytes(15), keys[0]], ivs[:2], long_bufs, long_outs)
    assert all(o == b"\xaa" * len(o) for o in long_outs)
    # The same output object twice, for two non-empty streams, shares memory.
    with pytest.raises(ValueError, match="share memory"):
        aesflow.cbc_encrypt_many_into(keys[:2], ivs[:2], bufs[:2], [outs[1], outs[1]])
    assert untouched()
