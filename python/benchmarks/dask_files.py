"""One file sealed locally and on a Dask LocalCluster, same run.

    target/pyvenv/bin/python python/benchmarks/dask_files.py [--size 256M]
        [--workers 1,2] [--reps 3] [--dir DIR]

Encrypts one random file of --size bytes (in --dir, default a temporary
directory) to Cobblestone with ``aesflow.encrypt_file`` (this process, all
cores) and with ``aesflow.dask.encrypt_file`` on a ``LocalCluster`` of N
worker processes (one thread each) for every N in --workers, alternating,
and prints the best wall time of --reps runs of each as a Markdown table
(GB/s = 10^9 bytes of plaintext per second, and the ratio to the local
call). The outputs are checked byte-identical (same salt).
"""

import argparse
import logging
import os
import tempfile
import time


def parse_size(s):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    s = s.strip().upper()
    return int(s[:-1]) * units[s[-1]] if s[-1] in units else int(s)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="256M")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", default=None)
    a = ap.parse_args()
    size = parse_size(a.size)

    import distributed

    import aesflow
    import aesflow.dask as ad

    key = bytes(range(32))
    with tempfile.TemporaryDirectory(dir=a.dir) as d:
        src = os.path.join(d, "in.bin")
        with open(src, "wb") as f:
            left = size
            while left:
                n = min(left, 1 << 24)
                f.write(os.urandom(n))
                left -= n
        ref = os.path.join(d, "local.cob")
        aesflow.encrypt_file(src, ref, key, b"")
        with open(ref, "rb") as f:
            salt = f.read(24)

        def local():
            out = os.path.join(d, "l.cob")
            aesflow.encrypt_file(src, out, key, b"", force=True)
            os.unlink(out)

        clusters = {}
        for n in [int(x) for x in a.workers.split(",")]:
            cluster = distributed.LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR
            )
            clusters[n] = (cluster, distributed.Client(cluster))
        try:
            for n, (_, client) in clusters.items():
                out = os.path.join(d, f"dask{n}.cob")
                ad.encrypt_file(src, out, key, client=client, salt=salt)
                with open(out, "rb") as f1, open(ref, "rb") as f2:
                    assert f1.read() == f2.read(), "the cluster's output differs"
                os.unlink(out)

            def on(client):
                def run():
                    out = os.path.join(d, "d.cob")
                    ad.encrypt_file(src, out, key, client=client, force=True)
                    os.unlink(out)

                return run

            runs = {"local `aesflow.encrypt_file`": local}
            for n, (_, client) in clusters.items():
                runs[f"`aesflow.dask.encrypt_file`, LocalCluster of {n} worker(s)"] = on(client)
            best = {k: float("inf") for k in runs}
            for _ in range(a.reps):
                for k, fn in runs.items():
                    t0 = time.perf_counter()
                    fn()
                    best[k] = min(best[k], time.perf_counter() - t0)
        finally:
            for cluster, client in clusters.values():
                client.close()
                cluster.close()

    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    print(f"{size} B file, {os.cpu_count()} logical CPUs, load average {load:.2f}, best of {a.reps}")
    print()
    print("| how | seconds | GB/s | vs local |")
    print("|---|---|---|---|")
    t_local = best["local `aesflow.encrypt_file`"]
    for k, t in best.items():
        print(f"| {k} | {t:.2f} | {size / t / 1e9:.2f} | {t_local / t:.2f}x |")


if __name__ == "__main__":
    main()
