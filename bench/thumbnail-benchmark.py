#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Thumbnail benchmark (issue 3). Prints figures and ratios measured in one run, at 256 px.

  bench/run-thumbnail-benchmark [--files 2000] [--big 20]

Sets: 2,000 JPEGs from a 60k generated library, and 20 JPEGs of 12 megapixels (made by
ImageMagick). For each: Photopick cold (empty cache), disk-cache hit, memory (LRU) hit, next to
vipsthumbnail and gdk-pixbuf-thumbnailer over the same files, each using both cores (two processes
side by side for the peers, two workers for Photopick). Counts decodes on the main thread.
The machine is shared and noisy: compare the ratios, not the seconds.
"""
import argparse, json, os, shutil, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
sys.path.insert(0, here)


def build():
    subprocess.run(["swift", "build", "-c", "release", "--product", "thumbnail-benchmark", "--quiet"], cwd=top, check=True)
    return os.path.join(subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=top, capture_output=True,
                                       text=True, check=True).stdout.strip(), "thumbnail-benchmark")


def drop_caches():
    subprocess.run(["sync"])
    try:
        open("/proc/sys/vm/drop_caches", "w").write("3\n")
        return True
    except OSError:
        return False


def timed(argv_list):
    """Runs the commands side by side; returns the wall time until all finished."""
    start = time.perf_counter()
    processes = [subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for argv in argv_list]
    for process in processes:
        process.wait()
    return time.perf_counter() - start


def halves(files):
    return [files[0::2], files[1::2]]


def peers(files, work):
    results = {}
    out = os.path.join(work, "vips-out")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    dropped = drop_caches()
    results["vipsthumbnail"] = timed([["vipsthumbnail", "--size", "256", "-o", out + "/%s.png"] + half for half in halves(files)])
    out = os.path.join(work, "pixbuf-out")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    scripts = []
    for number, half in enumerate(halves(files)):
        # One gdk-pixbuf-thumbnailer process per file, as the GNOME thumbnail factory runs it.
        script = os.path.join(work, "pixbuf-%d.sh" % number)
        with open(script, "w") as handle:
            for index, path in enumerate(half):
                handle.write("gdk-pixbuf-thumbnailer -s 256 '%s' '%s/%d-%d.png'\n" % (path.replace("'", "'\\''"), out, number, index))
        scripts.append(["sh", script])
    drop_caches()
    results["gdk-pixbuf-thumbnailer"] = timed(scripts)
    return results, dropped


def ours(driver, files, work):
    cache = os.path.join(work, "cache")
    shutil.rmtree(cache, ignore_errors=True)
    drop_caches()
    run = subprocess.run([driver, cache, "large"], input=b"\0".join(f.encode() for f in files), capture_output=True, check=True)
    return json.loads(run.stdout)


def measure(name, files, driver, work):
    n = len(files)
    mine = ours(driver, files, work)
    others, dropped = peers(files, work)
    rate = lambda seconds: round(n / seconds, 1)
    result = {
        "files": n,
        "page cache dropped before each cold pass": dropped,
        "photopick cold per s": rate(mine["cold_seconds"]),
        "photopick disk hit per s": rate(mine["disk_seconds"]),
        "photopick memory hit per s": rate(mine["memory_seconds"]),
        "vipsthumbnail per s": rate(others["vipsthumbnail"]),
        "gdk-pixbuf-thumbnailer per s": rate(others["gdk-pixbuf-thumbnailer"]),
        "cold vs vipsthumbnail": round(others["vipsthumbnail"] / mine["cold_seconds"], 2),
        "cold vs gdk-pixbuf-thumbnailer": round(others["gdk-pixbuf-thumbnailer"] / mine["cold_seconds"], 2),
        "disk hit vs cold decode": round(mine["cold_seconds"] / mine["disk_seconds"], 1),
        "memory hit vs cold decode": round(mine["cold_seconds"] / mine["memory_seconds"], 1),
        "failures": mine["failures"],
        "main thread decodes": mine["main_thread_decodes"],
    }
    return name, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--big", type=int, default=20)
    parser.add_argument("--library", type=int, default=60000)
    parser.add_argument("--work", default="/tmp/photopick-bench")
    args = parser.parse_args()
    driver = build()
    os.makedirs(args.work, exist_ok=True)
    # The library the index benchmark makes (same path), or a new one.
    spec = __import__("importlib.util").util.spec_from_file_location("index_benchmark", os.path.join(here, "index-benchmark.py"))
    module = __import__("importlib.util").util.module_from_spec(spec)
    spec.loader.exec_module(module)
    root = os.path.join(args.work, "library-%d" % args.library)
    module.library(root, args.library)
    manifest = json.load(open(root + ".manifest.json"))
    photos = sorted(os.path.join(root, f["path"]) for f in manifest["files"]
                    if f["kind"] == "photo" and "path_b64" not in f)[: args.files]
    big_folder = os.path.join(args.work, "big-jpegs-12mp")
    if len([f for f in os.listdir(big_folder) if f.endswith(".jpg")] if os.path.isdir(big_folder) else []) < args.big:
        os.makedirs(big_folder, exist_ok=True)
        for index in range(args.big):
            # Plasma with fine grain, so that each file is the size a 12 MP camera writes (3-4 MB):
            # a smooth plasma alone compresses to 1.2 MB and decodes unrealistically fast.
            subprocess.run(["/usr/bin/convert", "-size", "4000x3000", "-seed", str(index), "plasma:fractal", "-blur", "0x1",
                            "-attenuate", "0.25", "+noise", "Gaussian", "-quality", "90",
                            os.path.join(big_folder, "big-%02d.jpg" % index)], check=True)
    big = sorted(os.path.join(big_folder, f) for f in os.listdir(big_folder) if f.endswith(".jpg"))[: args.big]
    results = dict([measure("2000 small JPEGs (60k library)", photos, driver, args.work),
                    measure("20 JPEGs of 12 megapixels", big, driver, args.work)])
    results["targets"] = {"cold vs vipsthumbnail": ">= 1.5", "disk hit vs cold decode": ">= 20", "main thread decodes": 0}
    json.dump(results, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
