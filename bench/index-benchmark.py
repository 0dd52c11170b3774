#!/usr/bin/env python3
"""Benchmarks for the library index (issue 2). Prints figures and ratios measured in one run.

  bench/run-index-benchmark [--files 60000] [--exiftool-files N] [--runs 15]

1. Cold index of a generated library (Tests/Generator/make-test-library), files/s, next to `exiftool -fast2 -r` on the same tree.
2. Unchanged rescan of the same library: its time as a fraction of the cold one.
3. `photopick ls --album Recents --limit 50` on 1k, 60k and 1M-asset indexes (the 1M index is
   synthesised by inserting rows), interleaved, median of --runs each; peak RSS of each.
The machine is shared and noisy: compare the ratios, not the seconds.
"""
import argparse, json, os, resource, shutil, sqlite3, statistics, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
# The project's generator, as the tests use it (PHOTOPICK_MAKE_LIBRARY names another one).
make_library = os.environ.get("PHOTOPICK_MAKE_LIBRARY", os.path.join(top, "Tests/Generator/make-test-library"))


def run(argv, env=None, quiet=True):
    """Runs argv, returns (seconds, peak RSS in MiB, exit status)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL if quiet else None,
                               stderr=subprocess.DEVNULL if quiet else None)
    _, status, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def library(path, n):
    """A generated tree of n files, made once and reused across runs (the stamp names its generator)."""
    stamp = path + ".summary.json"
    if os.path.exists(stamp):
        made = json.load(open(stamp))
        if made.get("n") == n and made.get("made_by") == make_library:
            return made
    out = subprocess.run([make_library, "--out", path, "-n", str(n), "--force"], check=True, capture_output=True)
    summary = json.loads(out.stdout)
    summary["made_by"] = make_library
    json.dump(summary, open(stamp, "w"))
    return summary


def environment(data_home):
    env = dict(os.environ, XDG_DATA_HOME=data_home, TZ="UTC")
    return env


def synthesise(photopick, root, data_home, count):
    """An index of `count` assets for an empty root, written straight into SQLite."""
    os.makedirs(root, exist_ok=True)
    shutil.rmtree(data_home, ignore_errors=True)
    subprocess.run([photopick, "index", "--library", root], env=environment(data_home), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    [database] = [os.path.join(data_home, "photopick", f) for f in os.listdir(os.path.join(data_home, "photopick"))
                  if f.endswith(".sqlite")]
    db = sqlite3.connect(database)
    root_id = db.execute("SELECT id FROM roots").fetchone()[0]
    folders = []
    for index in range(200):
        path = ("%s/folder-%03d" % (root, index)).encode()
        db.execute("INSERT INTO folders(root_id, path, relative) VALUES (?, ?, ?)",
                   (root_id, path, ("folder-%03d" % index).encode()))
        folders.append(db.execute("SELECT last_insert_rowid()").fetchone()[0])
    first_folder = folders[0]
    # Photos over ten years; 5 % favourites, 3 % videos, 8 % screenshots, roughly as generated libraries.
    db.execute("""
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO assets(folder_id, name, path, size, mtime_ns, inode, kind, mime, width, height, orientation,
                           captured_at, date_source, traits, album_bits, stem)
        SELECT ? + (i % 200), CAST('IMG_' || i || '.jpg' AS BLOB),
               CAST(? || '/folder-' || printf('%03d', i % 200) || '/IMG_' || i || '.jpg' AS BLOB),
               100000 + i, 1420070400000000000 + i * 300000000000, i, 1, 'image/jpeg', 320, 240, 1,
               1420070400000 + ((i * 7919) % 315360000) * 1000, 1,
               1 | (CASE WHEN i % 20 = 0 THEN 2 ELSE 0 END) | (CASE WHEN i % 33 = 0 THEN 4 ELSE 0 END)
                 | (CASE WHEN i % 12 = 0 THEN 8 ELSE 0 END),
               1 | (CASE WHEN i % 20 = 0 THEN 2 ELSE 0 END) | (CASE WHEN i % 33 = 0 THEN 4 ELSE 0 END)
                 | (CASE WHEN i % 12 = 0 THEN 8 ELSE 0 END),
               CAST('IMG_' || i AS BLOB)
        FROM n""", (count, first_folder, root))
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=60000)
    parser.add_argument("--exiftool-files", type=int, default=0,
                        help="run exiftool on a generated tree of this many files instead of the full one (0: same tree)")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--work", default="/tmp/photopick-bench")
    parser.add_argument("--skip-exiftool", action="store_true")
    args = parser.parse_args()

    subprocess.run(["swift", "build", "-c", "release", "--product", "photopick", "--quiet"], cwd=top, check=True)
    photopick = os.path.join(subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=top,
                                            capture_output=True, text=True, check=True).stdout.strip(), "photopick")
    os.makedirs(args.work, exist_ok=True)
    results = {}

    big = os.path.join(args.work, "library-%d" % args.files)
    summary = library(big, args.files)
    data = os.path.join(args.work, "data-big")
    # Cold index: empty index, and the library's files dropped from the page cache where we may.
    shutil.rmtree(data, ignore_errors=True)
    subprocess.run(["sync"])
    try:
        open("/proc/sys/vm/drop_caches", "w").write("3\n")
        cache = "page cache dropped"
    except OSError:
        cache = "page cache warm (cannot drop it)"
    cold, cold_rss, status = run([photopick, "index", "--library", big], environment(data))
    assert status == 0, status
    rescan, _, status = run([photopick, "index", "--library", big], environment(data))
    assert status == 0
    files = summary["files_written"]
    results["cold index"] = {"files": files, "seconds": round(cold, 2), "files_per_second": round(files / cold),
                             "peak_rss_mib": round(cold_rss), "cache": cache}
    results["unchanged rescan"] = {"seconds": round(rescan, 3), "fraction_of_cold": round(rescan / cold, 4),
                                   "target": "<= 0.05"}

    if not args.skip_exiftool:
        tree, tree_files = big, files
        if args.exiftool_files:
            tree = os.path.join(args.work, "library-%d" % args.exiftool_files)
            tree_files = library(tree, args.exiftool_files)["files_written"]
        # -i SYMLINKS: exiftool follows links by default, and the library holds link loops.
        exif, _, _ = run(["exiftool", "-fast2", "-r", "-i", "SYMLINKS", "-q", "-q", "-n", "-DateTimeOriginal", "-OffsetTimeOriginal",
                          "-SubSecTimeOriginal", "-Orientation", "-Make", "-Model", "-LensModel", "-Rating",
                          "-ImageWidth", "-ImageHeight", "-Duration", tree])
        results["exiftool -fast2 -r"] = {"files": tree_files, "seconds": round(exif, 2),
                                         "files_per_second": round(tree_files / exif)}
        results["cold index vs exiftool"] = {"ratio": round((files / cold) / (tree_files / exif), 1), "target": ">= 3"}

    # ls --limit 50 at 1k, 60k, 1M.
    small = os.path.join(args.work, "library-1000")
    library(small, 1000)
    data_small = os.path.join(args.work, "data-1k")
    shutil.rmtree(data_small, ignore_errors=True)
    run([photopick, "index", "--library", small], environment(data_small))
    million_root = os.path.join(args.work, "synthetic-1m")
    data_million = os.path.join(args.work, "data-1m")
    synthesise(photopick, million_root, data_million, 1_000_000)
    cases = {"1k": (small, data_small), "%dk" % (args.files // 1000): (big, data), "1M": (million_root, data_million)}
    times = {name: [] for name in cases}
    rss = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, (root, home) in cases.items():  # interleaved: noise hits all sizes alike
            seconds, peak, status = run([photopick, "ls", "--cached", "--album", "Recents", "--limit", "50",
                                         "--library", root], environment(home))
            assert status == 0, (name, status)
            times[name].append(seconds)
            rss[name].append(peak)
    base = statistics.median(times["1k"])
    results["ls --album Recents --limit 50"] = {
        name: {"median_ms": round(statistics.median(t) * 1000, 2), "ratio_to_1k": round(statistics.median(t) / base, 3),
               "peak_rss_mib": round(max(rss[name]), 1)} for name, t in times.items()}
    results["ls peak RSS 1M minus 1k (MiB)"] = round(max(rss["1M"]) - max(rss["1k"]), 1)
    json.dump(results, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
