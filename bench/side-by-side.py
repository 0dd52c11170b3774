#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Two builds measured side by side, interleaved run by run (the figures of issues 2-4, before/after).

  xvfb-run -a -s '-screen 0 1100x800x24' python3 bench/side-by-side.py \\
      --build old=/work/bin-bench/old --build new=/work/bin-bench/new --out bench/results/side-by-side.json

Each build is a folder holding the release binaries photopick, thumbnail-benchmark and
picker-benchmark of one commit (`swift build -c release --product ...` in a worktree of that
commit, then copied out of .build/release) and, optionally, commit.txt naming the commit. Unlike
index-, thumbnail- and picker-benchmark.py, which build and measure their own tree, this builds
nothing: it runs the given binaries, alternating the builds within every round (first, second,
first, second ...), so that the noise of a shared machine falls on both alike. The libraries are
generated once with Tests/Generator/make-test-library (--seed 1) under --work and reused.

Sections (--sections, comma-separated; all by default):
  index       cold `photopick index` of the 60k library (empty XDG_DATA_HOME, page cache dropped
              before each where we may), then an unchanged rescan; wall time, peak RSS, and the
              command's own final line (a build that reports "every file dated after X s" gives X)
  listing     unchanged rescan, `ls --cached --album Recents --limit 50`, the same without --cached,
              and `albums`, at 1k and 60k, --listing-runs rounds
  thumbnails  thumbnail-benchmark (cold with the page cache dropped, disk-cache hit, memory hit) on
              2,000 small JPEGs of the 60k library and 20 JPEGs of 12 MP (and with --real-photos
              DIR, 40 real camera JPEGs), vipsthumbnail once per round as a reference for the
              machine's noise; a build's thumbnail-benchmark decodes in the photopick beside it
              when it has decode workers (issue 20), as the window does
  picker      picker-benchmark first-frame with a warm thumbnail cache at 1k, 60k and 1M (synthetic
              rows), with a cold thumbnail cache at 60k, and scroll through 60k; needs a display
  first-paint-12mp  picker-benchmark first-frame on a folder of the 20 JPEGs of 12 MP (indexed once
              per build), empty thumbnail cache and page cache dropped each time: the first paint of
              big photos, --first-paint-runs rounds
  large-folder  cold index of one flat folder of 100k and of 200k files (--large-folder-builds only)
Results go to --out as JSON after every section (every run, medians, ratios to the first build).
The machine is shared and noisy: compare the ratios, not the seconds.

  python3 bench/side-by-side.py --merge OUT PASS.json PASS.json ... --baseline old

puts several passes (e.g. one with each build first in every pair, to see and cancel the effect of
the order) into OUT: each pass as it was, and the runs of all passes pooled, their medians and
the ratio of each build's median to the baseline's, next to each pass's own ratio.
"""
import argparse, importlib.util, json, os, platform, re, shutil, sqlite3, statistics, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
make_library = os.path.join(top, "Tests/Generator/make-test-library")


def log(*parts):
    print(time.strftime("%H:%M:%S"), *parts, file=sys.stderr, flush=True)


def drop_caches():
    subprocess.run(["sync"])
    try:
        open("/proc/sys/vm/drop_caches", "w").write("3\n")
        return True
    except OSError:
        return False


def run(argv, env=None, first_line=False):
    """(wall seconds, peak RSS MiB, exit status, stdout). With first_line: the time until the first
    line of stdout (the picker driver's measure), then waits for the process."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if first_line:
        out = process.stdout.readline()
        elapsed = time.perf_counter() - start
        out += process.stdout.read()
    else:
        out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    if not first_line:
        elapsed = time.perf_counter() - start
    return elapsed, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), out.decode(errors="replace")


def environment(data, cache=None, gui=False):
    env = dict(os.environ, XDG_DATA_HOME=data, TZ="UTC")
    if cache:
        env["XDG_CACHE_HOME"] = cache
    if gui:
        env["GSK_RENDERER"] = "cairo"
    return env


def library(work, n):
    root = os.path.join(work, "library-%d" % n)
    if not os.path.exists(root + ".summary.json"):
        out = subprocess.run([make_library, "--out", root, "-n", str(n), "--seed", "1", "--force"], check=True,
                             capture_output=True)
        open(root + ".summary.json", "wb").write(out.stdout)
    return root


indexed = re.compile(r"Indexed ([\d,]+) files in ([\d.]+) s .*?(?:every file dated after ([\d.]+) s)?\s*$")


def index_line(out):
    lines = [line for line in out.splitlines() if line.startswith("Indexed ")]
    if not lines:
        return {}
    match = indexed.match(lines[-1])
    result = {"line": lines[-1]}
    if match:
        result["files"] = int(match.group(1).replace(",", ""))
        result["reported_s"] = float(match.group(2))
        if match.group(3):
            result["every_file_dated_after_s"] = float(match.group(3))
    return result


def synthesise(photopick, root, data_home, count):
    """bench/index-benchmark.py's synthetic index (one definition, loaded from there)."""
    spec = importlib.util.spec_from_file_location("index_benchmark", os.path.join(here, "index-benchmark.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.synthesise(photopick, root, data_home, count)


def median(values):
    return statistics.median(values) if values else None


def summarise(per_build, key, scale=1.0, digits=3):
    """{build: median} and each build's ratio to the first build."""
    medians = {build: median([sample[key] for sample in samples if sample.get(key) is not None])
               for build, samples in per_build.items()}
    first = next(iter(medians.values()))
    out = {"median": {b: (round(m * scale, digits) if m is not None else None) for b, m in medians.items()}}
    out["ratio_to_" + next(iter(medians))] = {b: (round(m / first, 3) if m and first else None)
                                              for b, m in medians.items()}
    return out


def machine():
    info = open("/proc/cpuinfo").read()
    model = re.search(r"model name\s*:\s*(.*)", info)
    memory = re.search(r"MemTotal:\s*(\d+) kB", open("/proc/meminfo").read())
    return {"cpu": model.group(1) if model else platform.processor(), "logical_cpus": os.cpu_count(),
            "memory_gib": round(int(memory.group(1)) / 1024 / 1024, 1) if memory else None,
            "kernel": platform.release(), "os": open("/etc/debian_version").read().strip() if os.path.exists("/etc/debian_version") else None}


def loadavg():
    return open("/proc/loadavg").read().split()[:3]


def merge(out, passes, baseline):
    loaded = [json.load(open(p)) for p in passes]
    labels = list(loaded[0]["builds"])
    others = [label for label in labels if label != baseline]

    def pooled(values_per_pass, digits=4):
        """values_per_pass: [{label: [values]}] -> medians, ratios to the baseline, per-pass ratios."""
        values = {label: [v for per in values_per_pass for v in per.get(label, []) if v is not None] for label in labels}
        medians = {label: (round(median(values[label]), digits) if values[label] else None) for label in labels}
        entry = {"n": {label: len(values[label]) for label in labels}, "median": medians}
        if medians[baseline]:
            entry["ratio_to_" + baseline] = {label: round(medians[label] / medians[baseline], 3) for label in others if medians[label]}
            per_pass = []
            for per in values_per_pass:
                if per.get(baseline) and all(per.get(label) for label in others):
                    per_pass.append({label: round(median(per[label]) / median(per[baseline]), 3) for label in others})
                else:
                    per_pass.append(None)
            entry["ratio_per_pass"] = per_pass
        return entry

    combined = {}
    runs = [p.get("cold index 60k", {}).get("runs", {}) for p in loaded]
    if any(runs):
        combined["cold index 60k"] = {key: pooled([{label: [s[key] for s in r.get(label, [])] for label in labels} for r in runs])
                                      for key in ("cold_s", "every_file_dated_after_s", "rescan_s", "cold_peak_rss_mib")}
    cases = [p.get("listing", {}).get("cases", {}) for p in loaded]
    names = [name for name in (cases[0] if cases else {})]
    for c in cases[1:]:
        names += [name for name in c if name not in names]
    if names:
        combined["listing (ms)"] = {name: pooled([c.get(name, {}).get("runs_ms", {}) for c in cases], digits=2) for name in names}
    picker = [p.get("picker", {}).get("runs", {}) for p in loaded]
    if any(picker):
        keys = [k for k in next(r for r in picker if r)[baseline][0] if k not in ("round", "scroll")]
        combined["picker"] = {key: pooled([{label: [s.get(key) for s in r.get(label, [])] for label in labels} for r in picker])
                              for key in keys}
        paired = {}
        for key in ("warm_first_frame_1k_s", "warm_first_frame_60k_s", "warm_first_frame_1M_s", "cold_thumbnail_cache_first_frame_60k_s",
                    "scroll_our_wall_median_ms", "scroll_our_cpu_median_ms", "scroll_our_wall_p99_ms", "scroll_our_cpu_p99_ms"):
            for label in others:
                ratios = [n[key] / o[key] for r in picker if r for o, n in zip(r[baseline], r[label]) if o.get(key) and n.get(key)]
                paired["%s %s/%s" % (key, label, baseline)] = round(median(ratios), 3) if ratios else None
        combined["picker: median of the per-round ratios"] = paired
    paint = [p.get("first paint 12 MP", {}).get("runs", {}) for p in loaded]
    if any(paint):
        combined["first paint 12 MP (cold thumbnail cache)"] = pooled([{label: [s["first_frame_s"] for s in r.get(label, [])] for label in labels}
                                                                       for r in paint if r])
    result = {"what": "bench/side-by-side.py --merge: %d passes of the builds interleaved run by run; 'combined' pools the runs of all passes" % len(loaded),
              "machine": loaded[0]["machine"], "builds": loaded[0]["builds"], "baseline": baseline,
              "combined": combined,
              "passes": [dict(p, file=os.path.basename(path), order=list(p["builds"])) for p, path in zip(loaded, passes)]}
    with open(out, "w") as handle:
        json.dump(result, handle, indent=1)
        handle.write("\n")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--merge":
        merger = argparse.ArgumentParser()
        merger.add_argument("--merge", required=True)
        merger.add_argument("--baseline", required=True)
        merger.add_argument("passes", nargs="+")
        margs = merger.parse_args()
        merge(margs.merge, margs.passes, margs.baseline)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", action="append", required=True, help="LABEL=DIR (twice or more; the first is the baseline)")
    parser.add_argument("--work", default="/tmp/photopick-side-by-side")
    parser.add_argument("--note", action="append", default=[], help="a sentence for the JSON's notes (the machine's state, say); repeatable")
    parser.add_argument("--out", required=True)
    parser.add_argument("--sections", default="index,listing,thumbnails,picker,first-paint-12mp,large-folder")
    parser.add_argument("--index-runs", type=int, default=4)
    parser.add_argument("--listing-runs", type=int, default=9)
    parser.add_argument("--thumbnail-runs", type=int, default=4)
    parser.add_argument("--real-photos", default="", help="a folder of real camera JPEGs: a third thumbnail set, its first 40")
    parser.add_argument("--picker-runs", type=int, default=5)
    parser.add_argument("--scroll-seconds", type=float, default=10)
    parser.add_argument("--speed", type=float, default=3000)
    parser.add_argument("--first-paint-runs", type=int, default=9)
    parser.add_argument("--large-folder-builds", default="", help="labels (comma-separated) to run the large folder for")
    parser.add_argument("--large-folders", default="", help="100k=DIR,200k=DIR: existing flat folders to index")
    parser.add_argument("--large-runs", type=int, default=1)
    args = parser.parse_args()

    builds = {}
    for spec in args.build:
        label, folder = spec.split("=", 1)
        builds[label] = folder
    sections = args.sections.split(",")
    work = args.work
    os.makedirs(work, exist_ok=True)
    commits = {}
    for label, folder in builds.items():
        stamp = os.path.join(folder, "commit.txt")
        commits[label] = open(stamp).read().strip() if os.path.exists(stamp) else None
    results = {"what": "bench/side-by-side.py: builds interleaved run by run (" + ", ".join(builds) + " alternate within every round)",
               "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": machine(),
               "builds": {label: {"binaries": folder, "commit": commits[label]} for label, folder in builds.items()},
               "command": sys.argv, "notes": args.note}

    def save():
        with open(args.out, "w") as handle:
            json.dump(results, handle, indent=1)
            handle.write("\n")

    def binary(label, name):
        return os.path.join(builds[label], name)

    big = library(work, 60000)
    small = library(work, 1000)
    sizes = {"1k": small, "60k": big}
    homes = {(label, size): os.path.join(work, "data-%s-%s" % (label, size)) for label in builds for size in sizes}

    def ensure_index(label, size):
        home = homes[label, size]
        if not os.path.isdir(home):
            _, _, status, _ = run([binary(label, "photopick"), "index", "--library", sizes[size]], environment(home))
            assert status == 0

    if "index" in sections:
        log("index: cold 60k index and unchanged rescan")
        section = {"load_before": loadavg(), "runs": {label: [] for label in builds}}
        results["cold index 60k"] = section
        for round_ in range(args.index_runs):
            for label in builds:
                home = homes[label, "60k"]
                shutil.rmtree(home, ignore_errors=True)
                dropped = drop_caches()
                cold, rss, status, out = run([binary(label, "photopick"), "index", "--library", big], environment(home))
                assert status == 0, (label, status)
                rescan, rescan_rss, status, rescan_out = run([binary(label, "photopick"), "index", "--library", big], environment(home))
                assert status == 0
                sample = {"round": round_, "cold_s": round(cold, 3), "cold_peak_rss_mib": round(rss, 1),
                          "page_cache_dropped": dropped, "rescan_s": round(rescan, 4), "rescan_peak_rss_mib": round(rescan_rss, 1)}
                line = index_line(out)
                sample["cold_line"] = line.get("line")
                sample["cold_reported_s"] = line.get("reported_s")
                sample["every_file_dated_after_s"] = line.get("every_file_dated_after_s")
                sample["files"] = line.get("files")
                sample["rescan_line"] = index_line(rescan_out).get("line")
                section["runs"][label].append(sample)
                log(label, sample["cold_s"], sample["every_file_dated_after_s"], sample["rescan_s"])
        section["load_after"] = loadavg()
        section["cold_s"] = summarise(section["runs"], "cold_s")
        section["every_file_dated_after_s"] = summarise(section["runs"], "every_file_dated_after_s")
        section["rescan_s"] = summarise(section["runs"], "rescan_s", digits=4)
        section["cold_peak_rss_mib"] = summarise(section["runs"], "cold_peak_rss_mib", digits=1)
        save()

    if "listing" in sections:
        log("listing: rescan, ls, albums at 1k and 60k")
        for label in builds:
            for size in sizes:
                ensure_index(label, size)
        commands = {
            "index (unchanged rescan)": ["index"],
            "ls --cached --album Recents --limit 50": ["ls", "--cached", "--album", "Recents", "--limit", "50"],
            "ls --album Recents --limit 50": ["ls", "--album", "Recents", "--limit", "50"],
            "albums": ["albums"],
        }
        section = {"load_before": loadavg(), "runs_per_case": args.listing_runs, "cases": {}}
        results["listing"] = section
        samples = {(command, size, label): [] for command in commands for size in sizes for label in builds}
        for _ in range(args.listing_runs):
            for command, argv in commands.items():
                for size, root in sizes.items():
                    for label in builds:
                        seconds, rss, status, _ = run([binary(label, "photopick")] + argv + ["--library", root],
                                                      environment(homes[label, size]))
                        assert status == 0, (label, command, size, status)
                        samples[command, size, label].append({"s": seconds, "rss": rss})
        for command in commands:
            for size in sizes:
                per = {label: samples[command, size, label] for label in builds}
                case = summarise(per, "s", scale=1000, digits=2)
                section["cases"]["%s @ %s" % (command, size)] = {
                    "median_ms": case["median"], "ratio_to_first": list(case.values())[1],
                    "peak_rss_mib": {label: round(max(s["rss"] for s in per[label]), 1) for label in builds},
                    "runs_ms": {label: [round(s["s"] * 1000, 2) for s in per[label]] for label in builds}}
        section["load_after"] = loadavg()
        save()

    if "thumbnails" in sections:
        log("thumbnails")
        manifest = json.load(open(big + ".manifest.json"))
        photos = sorted(os.path.join(big, f["path"]) for f in manifest["files"]
                        if f["kind"] == "photo" and "path_b64" not in f)[:2000]
        big_folder = os.path.join(work, "big-jpegs-12mp")
        if len([f for f in os.listdir(big_folder) if f.endswith(".jpg")] if os.path.isdir(big_folder) else []) < 20:
            os.makedirs(big_folder, exist_ok=True)
            for index in range(20):
                subprocess.run(["/usr/bin/convert", "-size", "4000x3000", "-seed", str(index), "plasma:fractal", "-blur", "0x1",
                                "-attenuate", "0.25", "+noise", "Gaussian", "-quality", "90",
                                os.path.join(big_folder, "big-%02d.jpg" % index)], check=True)
        twelve = sorted(os.path.join(big_folder, f) for f in os.listdir(big_folder) if f.endswith(".jpg"))[:20]
        sets = {"2000 small JPEGs (60k library)": photos, "20 JPEGs of 12 megapixels": twelve}
        if args.real_photos:
            # Real camera photos (bench/make-real-photos): its 40 originals, byte for byte, as its
            # manifest lists them (0.2-8 MB, 4-24 MP, 13 of them progressive). Until 2026-12-06 this
            # took the first 40 names, 37 of them re-encodings of three of the photos (baseline).
            manifest = os.path.join(args.real_photos, "manifest.json")
            if os.path.exists(manifest):
                listed = json.load(open(manifest))["files"]
                real = [os.path.join(args.real_photos, f["file"]) for f in listed if f.get("kind") == "original"]
            else:
                real = sorted(os.path.join(args.real_photos, f) for f in os.listdir(args.real_photos) if f.lower().endswith(".jpg"))
            sets["%d real camera JPEGs" % min(len(real), 40)] = real[:40]
        section = {"load_before": loadavg(), "sets": {}}
        results["thumbnails"] = section
        for name in sets:
            section["sets"][name] = {"runs": {label: [] for label in builds}, "vipsthumbnail_s": []}
        for round_ in range(args.thumbnail_runs):
            for name, files in sets.items():
                for label in builds:
                    cache = os.path.join(work, "thumb-cache")
                    shutil.rmtree(cache, ignore_errors=True)
                    drop_caches()
                    out = subprocess.run([binary(label, "thumbnail-benchmark"), cache, "large"],
                                         input=b"\0".join(f.encode() for f in files), capture_output=True, check=True)
                    sample = json.loads(out.stdout)
                    n = len(files)
                    sample.update({"round": round_, "cold_per_s": n / sample["cold_seconds"],
                                   "disk_hit_per_s": n / sample["disk_seconds"], "memory_hit_per_s": n / sample["memory_seconds"]})
                    section["sets"][name]["runs"][label].append(sample)
                    # (worker_start_seconds: builds with decode workers start them before the cold
                    # pass and time it apart, as the window starts them when it maps.)
                    log(label, name, round(sample["cold_per_s"], 1), round(sample["disk_hit_per_s"], 1),
                        "workers started in %.3f s" % sample["worker_start_seconds"] if "worker_start_seconds" in sample else "")
                # The machine's noise: a peer on the same files, once per round.
                out_dir = os.path.join(work, "vips-out")
                shutil.rmtree(out_dir, ignore_errors=True)
                os.makedirs(out_dir)
                drop_caches()
                start = time.perf_counter()
                procs = [subprocess.Popen(["vipsthumbnail", "--size", "256", "-o", out_dir + "/%s.png"] + half,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for half in (files[0::2], files[1::2])]
                for p in procs:
                    p.wait()
                section["sets"][name]["vipsthumbnail_s"].append(round(time.perf_counter() - start, 3))
        for name, files in sets.items():
            entry = section["sets"][name]
            for key in ("cold_per_s", "disk_hit_per_s", "memory_hit_per_s"):
                entry[key] = summarise(entry["runs"], key, digits=1)
            entry["vipsthumbnail_per_s_median"] = round(len(files) / median(entry["vipsthumbnail_s"]), 1)
            entry["cold_vs_vipsthumbnail"] = {label: round(entry["cold_per_s"]["median"][label] / entry["vipsthumbnail_per_s_median"], 2)
                                              for label in builds}
            entry["main_thread_decodes"] = {label: sum(s["main_thread_decodes"] for s in entry["runs"][label]) for label in builds}
            entry["failures"] = {label: sum(s["failures"] for s in entry["runs"][label]) for label in builds}
        section["load_after"] = loadavg()
        save()

    if "picker" in sections:
        log("picker")
        for label in builds:
            for size in sizes:
                ensure_index(label, size)
        sample_photos = sorted(os.path.join(d, f) for d, _, fs in os.walk(small) for f in fs if f.endswith(".JPG"))
        newest = sorted(range(1, 1_000_001), key=lambda i: -((i * 7919) % 315360000))[:600]
        cases = {}
        for label in builds:
            root = os.path.join(work, "picker-synthetic-1m-" + label)
            home = os.path.join(work, "picker-data-1m-" + label)
            if not os.path.isdir(home):
                synthesise(binary(label, "photopick"), root, home, 1_000_000)
                for n, i in enumerate(newest):
                    path = os.path.join(root, "folder-%03d" % (i % 200), "IMG_%d.jpg" % i)
                    if not os.path.exists(path):
                        shutil.copyfile(sample_photos[n % len(sample_photos)], path)
            cases[label] = {"1k": (small, homes[label, "1k"]), "60k": (big, homes[label, "60k"]), "1M": (root, home)}
        caches = {(label, size): os.path.join(work, "picker-cache-%s-%s" % (label, size)) for label in builds for size in ("1k", "60k", "1M")}
        for label in builds:  # warm every thumbnail cache once
            for size, (root, home) in cases[label].items():
                run([binary(label, "picker-benchmark"), "first-frame", root], environment(home, caches[label, size], gui=True), first_line=True)
        section = {"load_before": loadavg(), "runs": {label: [] for label in builds}}
        results["picker"] = section
        for round_ in range(args.picker_runs):
            for label in builds:
                sample = {"round": round_}
                for size, (root, home) in cases[label].items():
                    seconds, rss, _, out = run([binary(label, "picker-benchmark"), "first-frame", root],
                                               environment(home, caches[label, size], gui=True), first_line=True)
                    assert '"first_frame": true' in out, (label, size, out)
                    sample["warm_first_frame_%s_s" % size] = round(seconds, 4)
                    sample["peak_rss_%s_mib" % size] = round(rss, 1)
                root, home = cases[label]["60k"]
                cold_cache = os.path.join(work, "picker-cache-cold")
                shutil.rmtree(cold_cache, ignore_errors=True)
                seconds, _, _, out = run([binary(label, "picker-benchmark"), "first-frame", root],
                                         environment(home, cold_cache, gui=True), first_line=True)
                sample["cold_thumbnail_cache_first_frame_60k_s"] = round(seconds, 4)
                _, _, _, out = run([binary(label, "picker-benchmark"), "scroll", root, str(args.scroll_seconds), str(args.speed)],
                                   environment(home, caches[label, "60k"], gui=True), first_line=True)
                scroll = json.loads(out.splitlines()[0])
                sample["scroll"] = scroll
                for key in ("median_gap_ms", "p99_gap_ms", "longest_gap_ms", "frames"):
                    sample["scroll_" + key] = scroll.get(key)
                for kind in ("wall", "cpu"):
                    for stat in ("median", "p99", "max"):
                        sample["scroll_our_%s_%s_ms" % (kind, stat)] = scroll.get("our_%s_time_per_frame_ms" % kind, {}).get(stat)
                section["runs"][label].append(sample)
                log(label, {k: v for k, v in sample.items() if k.startswith("warm") or k.startswith("scroll_our_wall")})
        keys = ["warm_first_frame_1k_s", "warm_first_frame_60k_s", "warm_first_frame_1M_s", "cold_thumbnail_cache_first_frame_60k_s",
                "scroll_median_gap_ms", "scroll_p99_gap_ms", "scroll_longest_gap_ms", "scroll_frames"] + \
               ["scroll_our_%s_%s_ms" % (kind, stat) for kind in ("wall", "cpu") for stat in ("median", "p99", "max")]
        section["medians"] = {key: summarise(section["runs"], key, digits=4) for key in keys}
        section["1M vs 1k (warm)"] = {label: round(median([s["warm_first_frame_1M_s"] for s in section["runs"][label]])
                                                   / median([s["warm_first_frame_1k_s"] for s in section["runs"][label]]), 3)
                                      for label in builds}
        section["peak RSS 1M minus 1k (MiB)"] = {label: round(max(s["peak_rss_1M_mib"] for s in section["runs"][label])
                                                              - max(s["peak_rss_1k_mib"] for s in section["runs"][label]), 1)
                                                 for label in builds}
        section["load_after"] = loadavg()
        save()

    if "first-paint-12mp" in sections:
        log("first paint of 12 MP photos")
        folder = os.path.join(work, "big-jpegs-12mp")
        assert os.path.isdir(folder), "run the thumbnails section first (it makes the 12 MP JPEGs)"
        section = {"load_before": loadavg(), "folder": folder, "runs": {label: [] for label in builds}}
        results["first paint 12 MP"] = section
        for label in builds:
            home = os.path.join(work, "data-%s-12mp" % label)
            if not os.path.isdir(home):
                _, _, status, _ = run([binary(label, "photopick"), "index", "--library", folder], environment(home))
                assert status == 0
        for round_ in range(args.first_paint_runs):
            for label in builds:
                cache = os.path.join(work, "picker-cache-cold-12mp")
                shutil.rmtree(cache, ignore_errors=True)
                drop_caches()
                seconds, rss, _, out = run([binary(label, "picker-benchmark"), "first-frame", folder],
                                           environment(os.path.join(work, "data-%s-12mp" % label), cache, gui=True), first_line=True)
                assert '"first_frame": true' in out, (label, out)
                section["runs"][label].append({"round": round_, "first_frame_s": round(seconds, 4), "peak_rss_mib": round(rss, 1)})
                log(label, "12 MP first frame", round(seconds, 3))
        section["first_frame_s"] = summarise(section["runs"], "first_frame_s", digits=4)
        section["load_after"] = loadavg()
        save()

    if "large-folder" in sections and args.large_folder_builds:
        log("large folder")
        folders = dict(item.split("=", 1) for item in args.large_folders.split(","))
        section = {"load_before": loadavg(), "folders": folders, "runs": {}}
        results["one folder cold index"] = section
        for label in args.large_folder_builds.split(","):
            section["runs"][label] = {size: [] for size in folders}
        for _ in range(args.large_runs):
            for label in args.large_folder_builds.split(","):
                for size, folder in folders.items():
                    home = os.path.join(work, "data-large-folder")
                    shutil.rmtree(home, ignore_errors=True)
                    dropped = drop_caches()
                    seconds, rss, status, out = run([binary(label, "photopick"), "index", "--library", folder], environment(home))
                    assert status == 0, (label, size, status)
                    line = index_line(out)
                    section["runs"][label][size].append({"s": round(seconds, 2), "peak_rss_mib": round(rss, 1), "page_cache_dropped": dropped,
                                                         "line": line.get("line"), "every_file_dated_after_s": line.get("every_file_dated_after_s")})
                    log(label, size, round(seconds, 1), line.get("every_file_dated_after_s"))
                    shutil.rmtree(home, ignore_errors=True)
        sizes_ = list(folders)
        if len(sizes_) == 2:
            section["ratio %s/%s" % (sizes_[1], sizes_[0])] = {
                label: round(median([r["s"] for r in runs[sizes_[1]]]) / median([r["s"] for r in runs[sizes_[0]]]), 2)
                for label, runs in section["runs"].items()}
            section["target"] = "<= 2.2"
        section["load_after"] = loadavg()
        save()

    results["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    save()
    log("done:", args.out)


if __name__ == "__main__":
    main()
