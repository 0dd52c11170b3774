#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmarks for the library index (issue 2). Prints figures and ratios measured in one run.

  bench/run-index-benchmark [--files 60000] [--exiftool-files N] [--runs 15]

1. Cold index of a generated library (Tests/Generator/make-test-library), files/s, next to `exiftool -fast2 -r` on the same tree.
2. Unchanged rescan of the same library: its time as a fraction of the cold one.
3. `photopick ls --album Recents --limit 50` and `photopick albums` on 1k, 60k and 1M-asset indexes
   (the 1M index is synthesised by inserting rows for a real tree of empty folders), with `--cached`
   and without (then unchanged folders are passed by their time), interleaved, median of --runs
   each; peak RSS of each.
4. With --large-folder: a cold index of one folder of 100k files and of 200k (hard links to the
   generated photos under new names), and the ratio (linear: 2).
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
    """An index of `count` assets for a tree of empty folders, written straight into SQLite, for
    either schema (folders.listed_mtime_ns exists from schema 3 on: side-by-side.py measures
    builds from before it too)."""
    os.makedirs(root, exist_ok=True)
    shutil.rmtree(data_home, ignore_errors=True)
    subprocess.run([photopick, "index", "--library", root], env=environment(data_home), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    [database] = [os.path.join(data_home, "photopick", f) for f in os.listdir(os.path.join(data_home, "photopick"))
                  if f.endswith(".sqlite")]
    db = sqlite3.connect(database)
    listed = "listed_mtime_ns" in [row[1] for row in db.execute("PRAGMA table_info(folders)")]
    root_id = db.execute("SELECT id FROM roots").fetchone()[0]
    folders = []
    old = time.time() - 60
    for index in range(200):
        path = "%s/folder-%03d" % (root, index)
        os.makedirs(path, exist_ok=True)
        os.utime(path, (old, old))
        if listed:
            db.execute("INSERT INTO folders(root_id, path, relative, listed_mtime_ns) VALUES (?, ?, ?, ?)",
                       (root_id, path.encode(), ("folder-%03d" % index).encode(), os.stat(path).st_mtime_ns))
        else:
            db.execute("INSERT INTO folders(root_id, path, relative) VALUES (?, ?, ?)",
                       (root_id, path.encode(), ("folder-%03d" % index).encode()))
        folders.append(db.execute("SELECT last_insert_rowid()").fetchone()[0])
    os.utime(root, (old, old))
    if listed:
        db.execute("UPDATE folders SET listed_mtime_ns = ? WHERE path = ?", (os.stat(root).st_mtime_ns, root.encode()))
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
        FROM n""", (count, folders[0], root))
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    # Left as Photopick leaves its index: opened and closed once by it. An index changed behind
    # its back has every page checked at its next opening (IndexSeal: 0.6 s at 1M rows), and the
    # picker benchmark, which ends with exit(), would pay that in every run.
    subprocess.run([photopick, "albums", "--cached", "--library", root], env=environment(data_home), check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=60000)
    parser.add_argument("--exiftool-files", type=int, default=0,
                        help="run exiftool on a generated tree of this many files instead of the full one (0: same tree)")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--work", default="/tmp/photopick-bench")
    parser.add_argument("--skip-exiftool", action="store_true")
    parser.add_argument("--large-folder", action="store_true", help="also index one folder of 100k and of 200k files")
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
    commands = {
        "ls --cached --album Recents --limit 50": ["ls", "--cached", "--album", "Recents", "--limit", "50"],
        "ls --album Recents --limit 50": ["ls", "--album", "Recents", "--limit", "50"],
        "albums": ["albums"],
    }
    times = {(command, name): [] for command in commands for name in cases}
    rss = {(command, name): [] for command in commands for name in cases}
    for _ in range(args.runs):
        for command, argv in commands.items():
            for name, (root, home) in cases.items():  # interleaved: noise hits all sizes alike
                seconds, peak, status = run([photopick] + argv + ["--library", root], environment(home))
                assert status == 0, (command, name, status)
                times[command, name].append(seconds)
                rss[command, name].append(peak)
    for command in commands:
        base = statistics.median(times[command, "1k"])
        results[command] = {
            name: {"median_ms": round(statistics.median(times[command, name]) * 1000, 2),
                   "ratio_to_1k": round(statistics.median(times[command, name]) / base, 3),
                   "peak_rss_mib": round(max(rss[command, name]), 1)} for name in cases}
    results["ls peak RSS 1M minus 1k (MiB)"] = round(max(rss["ls --cached --album Recents --limit 50", "1M"])
                                                     - max(rss["ls --cached --album Recents --limit 50", "1k"]), 1)

    if args.large_folder:
        photos = sorted(os.path.join(folder, name) for folder, _, names in os.walk(big) for name in names
                        if name.lower().endswith(".jpg") and not os.path.islink(os.path.join(folder, name)))
        large = {}
        for count in (100_000, 200_000):
            flat = os.path.join(args.work, "one-folder-%dk" % (count // 1000))
            os.makedirs(flat, exist_ok=True)
            for index in range(count):
                target = os.path.join(flat, "IMG_%06d.jpg" % index)
                if not os.path.exists(target):
                    os.link(photos[index % len(photos)], target)
            home = os.path.join(args.work, "data-one-folder")
            shutil.rmtree(home, ignore_errors=True)
            seconds, peak, status = run([photopick, "index", "--library", flat], environment(home))
            assert status == 0, status
            large[count] = seconds
        results["one folder cold index"] = {"100k_seconds": round(large[100_000], 1), "200k_seconds": round(large[200_000], 1),
                                            "ratio": round(large[200_000] / large[100_000], 2), "target": "<= 2.2"}

    json.dump(results, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
