#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Indexing a library on another machine against the same tree on this one (issue 22).

Over a real SFTP server on loopback reached through gvfs (Tests/Remote/sftp-server), unthrottled
and at 8 Mbit/s (tc's token bucket on the loopback of a network namespace made for the run, with the
server, gvfs and Photopick inside it), it times `photopick index` of a tree of generated photos
through its sftp:// URI and from the disk, alternating, each into an index of its own, and reports
files per second and the ratio. From the server's log it reports what was read of each file: bytes
per indexed file, and per JPEG of a folder of real camera photos (bench/make-real-photos) when one is
given. Medians of --runs; the ratios are the figures to compare across machines.

Usage: bench/remote-benchmark.py [--photos 5000] [--runs 3] [--real DIR] [--out FILE.json]
Needs root (or unprivileged user namespaces) for the network namespace, iproute2's tc, and what
Tests/Remote/sftp-server needs.
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (PHOTOPICK names another build, e.g. a debug one for a quick try.)
PHOTOPICK = os.environ.get("PHOTOPICK") or os.path.join(ROOT, ".build", "release", "photopick")
RIG = os.path.join(ROOT, "Tests", "Remote", "sftp-server")


def read_log(path):
    """Bytes the server read of each file it closed, summed per file."""
    result = {}
    try:
        text = open(path, encoding="utf-8", errors="surrogateescape").read()
    except OSError:
        return result
    for match in re.finditer(r'close "(.*)" bytes read (\d+)', text):
        result[match.group(1)] = result.get(match.group(1), 0) + int(match.group(2))
    return result


def index(library, environment, work):
    data = tempfile.mkdtemp(dir=work, prefix="data-")
    env = dict(os.environ, **environment, XDG_DATA_HOME=data, XDG_CACHE_HOME=os.path.join(data, "cache"), TZ="UTC")
    started = time.monotonic()
    done = subprocess.run([PHOTOPICK, "index", "--library", library], env=env, capture_output=True, text=True)
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"photopick index --library {library}: {done.stderr.strip()}")
    counted = subprocess.run([PHOTOPICK, "ls", "--cached", "--library", library], env=env, capture_output=True)
    shutil.rmtree(data, ignore_errors=True)
    return elapsed, counted.stdout.count(b"\n")


def inner(arguments):
    """Inside the network namespace: loopback up, throttled if asked, the server, the runs."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    if arguments.rate:
        # (A burst below lo's 64 KiB MTU stalls the flow; netem is not in every kernel.)
        subprocess.run(["tc", "qdisc", "add", "dev", "lo", "root", "tbf", "rate", arguments.rate, "burst", "96kb",
                        "latency", "400ms"], check=True)
    rig = subprocess.Popen([RIG], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        server = json.loads(rig.stdout.readline())
        if "error" in server:
            raise RuntimeError(server["error"])
        uri = lambda path: server["uri"] + path.replace("%", "%25").replace(" ", "%20").replace("#", "%23")
        result = {"rate": arguments.rate or "unthrottled", "local_seconds": [], "remote_seconds": [], "files": None}
        for run in range(arguments.runs):
            for where in (("local", "remote") if run % 2 == 0 else ("remote", "local")):
                open(server["log"], "w").close()
                library = arguments.tree if where == "local" else uri(arguments.tree)
                seconds, files = index(library, server["environment"], arguments.work)
                result[f"{where}_seconds"].append(seconds)
                result["files"] = files
                if where == "remote":
                    read = read_log(server["log"])
                    result["bytes_per_file"] = sum(read.values()) / max(1, len(read))
        if arguments.real:
            open(server["log"], "w").close()
            index(uri(arguments.real), server["environment"], arguments.work)
            read = sorted(bytes for path, bytes in read_log(server["log"]).items() if path.lower().endswith((".jpg", ".jpeg")))
            sizes = [os.path.getsize(os.path.join(arguments.real, name)) for name in os.listdir(arguments.real)
                     if name.lower().endswith((".jpg", ".jpeg"))]
            result["real_jpegs"] = {"count": len(read), "mean_bytes_read": statistics.mean(read), "median_bytes_read": statistics.median(read),
                                    "max_bytes_read": read[-1], "mean_file_size": statistics.mean(sizes)}
        print(json.dumps(result), flush=True)
    finally:
        rig.stdin.close()
        rig.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--real", help="a folder of real camera photos (bench/make-real-photos)")
    parser.add_argument("--out")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--rate", help=argparse.SUPPRESS)
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.inner:
        return inner(arguments)
    if not os.path.exists(PHOTOPICK):
        subprocess.run(["swift", "build", "-c", "release", "--product", "photopick"], cwd=ROOT, check=True)
        subprocess.run(["swift", "build", "-c", "release", "--product", "photopick-worker"], cwd=ROOT, check=True)
    work = tempfile.mkdtemp(prefix="photopick-remote-bench-")
    try:
        tree = os.path.join(work, "library")
        subprocess.run([os.path.join(ROOT, "Tests", "Generator", "make-test-library"), "--out", tree, "-n", str(arguments.photos),
                        "--seed", "22"], check=True, stdout=subprocess.DEVNULL)
        namespace = ["unshare", "-n"] if os.getuid() == 0 else ["unshare", "-rn"]
        results = []
        for rate in (None, "8mbit"):
            command = namespace + [sys.executable, os.path.abspath(__file__), "--inner", "--tree", tree, "--work", work,
                                   "--runs", str(arguments.runs)] + (["--rate", rate] if rate else []) + (["--real", os.path.abspath(arguments.real)] if arguments.real else [])
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(done.stderr.strip()[-800:])
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        for result in results:
            local, remote = statistics.median(result["local_seconds"]), statistics.median(result["remote_seconds"])
            result["local_files_per_second"] = result["files"] / local
            result["remote_files_per_second"] = result["files"] / remote
            result["remote_over_local_time"] = remote / local
            line = (f"{result['rate']:>11}: {result['files']} files; local {local:.2f} s ({result['local_files_per_second']:.0f}/s), "
                    f"sftp {remote:.2f} s ({result['remote_files_per_second']:.0f}/s), {remote / local:.2f}x; "
                    f"{result['bytes_per_file'] / 1024:.1f} KiB read per file")
            if "real_jpegs" in result:
                real = result["real_jpegs"]
                line += (f"; {real['count']} real JPEGs of {real['mean_file_size'] / 1e6:.1f} MB: {real['median_bytes_read'] / 1024:.0f} KiB "
                         f"median, {real['mean_bytes_read'] / 1024:.0f} mean, {real['max_bytes_read'] / 1024:.0f} max")
            print(line)
        if arguments.out:
            with open(arguments.out, "w") as out:
                json.dump({"photos": arguments.photos, "runs": arguments.runs, "results": results}, out, indent=1)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
