#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Picker benchmark (issue 4). Run through bench/run-picker-benchmark (it starts Xvfb).

Process start to the first frame whose visible cells all show thumbnails, warm index and warm
thumbnail cache, for 1k, 60k and 1M assets (the 1M index is synthetic rows; the files of its first
screens are real); the same with a cold thumbnail cache at 60k; the timeline's months query and a
press on its middle month at 60k and 1M; the longest gap between frames
while scrolling through 60k at a steady speed, split into GTK's time and ours; peak RSS.
Measurements are interleaved and the medians reported: compare the ratios, not the seconds.
"""
import argparse, importlib.util, json, os, shutil, statistics, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)


def load_index_benchmark():
    spec = importlib.util.spec_from_file_location("index_benchmark", os.path.join(here, "index-benchmark.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def binary(name):
    subprocess.run(["swift", "build", "-c", "release", "--product", name, "--quiet"], cwd=top, check=True)
    path = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=top, capture_output=True, text=True,
                          check=True).stdout.strip()
    return os.path.join(path, name)


def run(argv, env):
    """(seconds until the process printed its line and ended, peak RSS in MiB, the JSON line)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    line = process.stdout.readline()
    elapsed = time.perf_counter() - start
    _, status, usage = os.wait4(process.pid, 0)
    return elapsed, usage.ru_maxrss / 1024, json.loads(line or b"{}")


def environment(data, cache):
    return dict(os.environ, XDG_DATA_HOME=data, XDG_CACHE_HOME=cache, GSK_RENDERER="cairo", TZ="UTC")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--work", default="/tmp/photopick-bench")
    parser.add_argument("--scroll-seconds", type=float, default=10)
    parser.add_argument("--speed", type=float, default=3000, help="pixels per second")
    args = parser.parse_args()
    index = load_index_benchmark()
    photopick, driver = binary("photopick"), binary("picker-benchmark")
    work = args.work
    cases = {}
    for name, size in (("1k", 1000), ("60k", 60000)):
        root = os.path.join(work, "library-%d" % size)
        index.library(root, size)
        data, cache = os.path.join(work, "picker-data-" + name), os.path.join(work, "picker-cache-" + name)
        if not os.path.isdir(data):
            subprocess.run([photopick, "index", "--library", root], env=environment(data, cache), check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cases[name] = (root, data, cache)
    # 1M: synthetic rows; the newest few hundred get real files so that the first screens have pictures.
    root = os.path.join(work, "picker-synthetic-1m")
    data, cache = os.path.join(work, "picker-data-1m"), os.path.join(work, "picker-cache-1m")
    if not os.path.isdir(data):
        index.synthesise(photopick, root, data, 1_000_000)
        sample = os.path.join(work, "library-1000")
        photos = sorted(os.path.join(d, f) for d, _, fs in os.walk(sample) for f in fs if f.endswith(".JPG"))
        newest = sorted(range(1, 1_000_001), key=lambda i: -((i * 7919) % 315360000))[:600]
        for n, i in enumerate(newest):
            path = os.path.join(root, "folder-%03d" % (i % 200), "IMG_%d.jpg" % i)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if not os.path.exists(path):
                shutil.copyfile(photos[n % len(photos)], path)
    cases["1M"] = (root, data, cache)

    # Warm every thumbnail cache once, then measure warm starts interleaved.
    for name, (root, data, cache) in cases.items():
        run([driver, "first-frame", root], environment(data, cache))
    warm = {name: [] for name in cases}
    rss = {name: [] for name in cases}
    cold = []
    for _ in range(args.runs):
        for name, (root, data, cache) in cases.items():
            seconds, peak, line = run([driver, "first-frame", root], environment(data, cache))
            assert line.get("first_frame"), (name, line)
            warm[name].append(seconds)
            rss[name].append(peak)
        root, data, cache = cases["60k"]
        cold_cache = os.path.join(work, "picker-cache-cold")
        shutil.rmtree(cold_cache, ignore_errors=True)
        seconds, _, line = run([driver, "first-frame", root], environment(data, cold_cache))
        cold.append(seconds)
    base = statistics.median(warm["1k"])
    results = {"first frame with thumbnails (warm)": {
        name: {"median_ms": round(statistics.median(t) * 1000, 1), "ratio_to_1k": round(statistics.median(t) / base, 3),
               "peak_rss_mib": round(max(rss[name]), 1)} for name, t in warm.items()}}
    results["first frame with thumbnails, cold thumbnail cache, 60k (median ms)"] = round(statistics.median(cold) * 1000, 1)
    results["peak RSS 1M minus 1k (MiB)"] = round(max(rss["1M"]) - max(rss["1k"]), 1)
    # The timeline (issue 41): when its months are known, the months query on its own, and a
    # press on the middle month until that month is painted in the first row.
    for name in ("60k", "1M"):
        root, data, cache = cases[name]
        months = [run([driver, "months", root], environment(data, cache))[2] for _ in range(3)]
        jumps = [run([driver, "jump", root], environment(data, cache))[2] for _ in range(3)]
        results["timeline, %s" % name] = {
            "months": months[0].get("months"),
            "months known after the first frame (median s)": round(statistics.median(m["known_after_first_frame_s"] for m in months), 3),
            "ids query (median ms)": round(statistics.median(m["ids_ms"] for m in months), 1),
            "ids and months query (median ms)": round(statistics.median(m["ids_and_months_ms"] for m in months), 1),
            "press to the month painted (median frames, ms)": [statistics.median(j["frames"] for j in jumps),
                                                               round(statistics.median(j["ms"] for j in jumps), 1)]}
    root, data, cache = cases["60k"]
    _, _, scroll = run([driver, "scroll", root, str(args.scroll_seconds), str(args.speed)], environment(data, cache))
    results["scrolling 60k at %d px/s for %g s" % (args.speed, args.scroll_seconds)] = scroll
    results["targets"] = {"1M vs 1k": "<= 1.2", "RSS difference": "< 48 MiB", "frame gap caused by our code": "<= 50 ms"}
    json.dump(results, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
