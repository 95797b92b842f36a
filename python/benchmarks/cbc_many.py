"""cbc_encrypt_many as the streams grow in number and in length.

    target/pyvenv/bin/python python/benchmarks/cbc_many.py [--shapes 64x16K,1024x16K,64x1M] [--reps 3]

For every shape (streams x bytes per stream) encrypts that many random
buffers under distinct AES-128 keys and IVs with ``aesflow.cbc_encrypt_many``
and prints the best throughput of --reps runs of about 0.3 s (GB/s = 10^9
plaintext bytes per second), with pyca/cryptography's one-stream-at-a-time
CBC over the same buffers in the same run as the peer. The multi-stream
engine should keep its throughput as the streams grow.
"""

import argparse
import os
import time


def parse_size(s):
    units = {"K": 1 << 10, "M": 1 << 20}
    s = s.strip().upper()
    return int(s[:-1]) * units[s[-1]] if s[-1] in units else int(s)


def rate(fn, size, seconds=0.3):
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n * size / dt / 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default="64x16K,1024x16K,64x1M")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()

    import aesflow
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    def pyca(keys, ivs, bufs):
        return [Cipher(algorithms.AES(k), modes.CBC(iv)).encryptor().update(b) for k, iv, b in zip(keys, ivs, bufs)]

    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    print(f"aesflow {aesflow.threads()} thread(s), backend {aesflow.multistream_backend()}; load average {load:.2f}")
    print()
    print("| streams x bytes | aesflow GB/s | pyca GB/s (one stream at a time) | aesflow / pyca |")
    print("|---|---|---|---|")
    for shape in a.shapes.split(","):
        n, per = shape.lower().split("x")
        n, per = int(n), parse_size(per)
        keys = [os.urandom(16) for _ in range(n)]
        ivs = [os.urandom(16) for _ in range(n)]
        bufs = [os.urandom(per) for _ in range(n)]
        assert aesflow.cbc_encrypt_many(keys, ivs, bufs) == pyca(keys, ivs, bufs)
        best = {"aesflow": 0.0, "pyca": 0.0}
        for _ in range(a.reps):
            best["aesflow"] = max(best["aesflow"], rate(lambda: aesflow.cbc_encrypt_many(keys, ivs, bufs), n * per))
            best["pyca"] = max(best["pyca"], rate(lambda: pyca(keys, ivs, bufs), n * per))
        print(f"| {shape} | {best['aesflow']:.2f} | {best['pyca']:.2f} | {best['aesflow'] / best['pyca']:.2f} |")


if __name__ == "__main__":
    main()
