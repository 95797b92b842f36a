"""cbc_encrypt_many and cbc_encrypt_many_into as the streams grow in number
and in length.

    target/pyvenv/bin/python python/benchmarks/cbc_many.py [--shapes 64x16K,1024x16K,64x1M] [--reps 3] [--cpu-time]

For every shape (streams x bytes per stream) encrypts that many random
buffers under distinct AES-128 keys and IVs with
``aesflow.cbc_encrypt_many_into`` (into preallocated ``bytearray`` outputs,
reused from call to call) and ``aesflow.cbc_encrypt_many`` (a new ``bytes``
per stream and call, so its figure includes the allocation and first touch
of the outputs), and prints the best throughput of --reps runs of about
0.3 s (GB/s = 10^9 plaintext bytes per second), with the peer in the same
run: pyca/cryptography's CBC, one stream at a time, each with
``update_into`` into the same kind of preallocated outputs (its buffers
must be 15 bytes longer). The ``_into`` figure should stay flat as the
streams grow. --cpu-time times by the calling thread's on-CPU time
(``time.thread_time``), which measures the work itself on a shared machine;
only meaningful with AESFLOW_THREADS=1 (then every call runs on the caller).
"""

import argparse
import os
import time


def parse_size(s):
    units = {"K": 1 << 10, "M": 1 << 20}
    s = s.strip().upper()
    return int(s[:-1]) * units[s[-1]] if s[-1] in units else int(s)


def rate(fn, size, seconds=0.3, clock=time.perf_counter):
    n, t0 = 0, clock()
    while True:
        fn()
        n += 1
        dt = clock() - t0
        if dt >= seconds:
            return n * size / dt / 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default="64x16K,1024x16K,64x1M")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cpu-time", action="store_true")
    a = ap.parse_args()

    import aesflow
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    def pyca(keys, ivs, bufs, outs):
        for k, iv, b, o in zip(keys, ivs, bufs, outs):
            Cipher(algorithms.AES(k), modes.CBC(iv)).encryptor().update_into(b, o)

    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    if a.cpu_time and aesflow.threads() != 1:
        ap.error("--cpu-time needs AESFLOW_THREADS=1")
    clock = time.thread_time if a.cpu_time else time.perf_counter
    print(
        f"aesflow {aesflow.threads()} thread(s), backend {aesflow.multistream_backend()}; "
        f"load average {load:.2f}; timed by the {'on-CPU time' if a.cpu_time else 'wall clock'}"
    )
    print()
    print(
        "| streams x bytes | aesflow `_into` GB/s | aesflow (new bytes) GB/s | pyca `update_into` GB/s "
        "(one stream at a time) | `_into` / pyca |"
    )
    print("|---|---|---|---|---|")
    for shape in a.shapes.split(","):
        n, per = shape.lower().split("x")
        n, per = int(n), parse_size(per)
        keys = [os.urandom(16) for _ in range(n)]
        ivs = [os.urandom(16) for _ in range(n)]
        bufs = [os.urandom(per) for _ in range(n)]
        outs = [bytearray(per) for _ in range(n)]
        pyca_outs = [bytearray(per + 15) for _ in range(n)]
        pyca(keys, ivs, bufs, pyca_outs)
        assert aesflow.cbc_encrypt_many_into(keys, ivs, bufs, outs) == n * per
        assert outs == [o[:per] for o in pyca_outs] == aesflow.cbc_encrypt_many(keys, ivs, bufs)
        fns = {
            "into": lambda: aesflow.cbc_encrypt_many_into(keys, ivs, bufs, outs),
            "new": lambda: aesflow.cbc_encrypt_many(keys, ivs, bufs),
            "pyca": lambda: pyca(keys, ivs, bufs, pyca_outs),
        }
        best = {k: 0.0 for k in fns}
        for _ in range(a.reps):
            for k, fn in fns.items():
                best[k] = max(best[k], rate(fn, n * per, clock=clock))
        print(
            f"| {shape} | {best['into']:.2f} | {best['new']:.2f} | {best['pyca']:.2f} | "
            f"{best['into'] / best['pyca']:.2f} |"
        )


if __name__ == "__main__":
    main()
