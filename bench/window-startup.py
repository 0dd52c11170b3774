#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The photopick window's start, two builds side by side (issue 38, point 14: the window made as
a host of the widget, through its public API, instead of reaching into it).

Starts `photopick --library LIBRARY --no-camera --timeout 3` of each build in turn, ROUNDS times
interleaved (A, B, A, B …), with PHOTOPICK_TRACE_STARTUP=1, and reads from the trace, in
milliseconds since the process started: when GTK has started and the window is made (activate:
what comes before is GTK's and libadwaita's start, the index opened, the scan started), when the
window was mapped, and when its first and
third frames were drawn (warm, the first holds every thumbnail in sight: the window reads them
from the disk cache before it maps). The index and the thumbnail cache
are made once, by a first run of each build that is not counted, and shared (warm); with --cold
each run gets an empty thumbnail cache (the index stays). Prints each figure's median and range
per build and the ratio of B's median to A's.

  xvfb-run -a -s '-screen 0 1100x800x24' /usr/bin/python3 bench/window-startup.py \\
      PHOTOPICK_A PHOTOPICK_B LIBRARY [ROUNDS] [--cold]

PHOTOPICK_A/B are photopick binaries with their photopick-worker beside them (release builds of
two commits). The machine is shared and noisy: compare the ratios, not the milliseconds.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

arguments = [a for a in sys.argv[1:] if not a.startswith("--")]
cold = "--cold" in sys.argv
builds = {"A": os.path.abspath(arguments[0]), "B": os.path.abspath(arguments[1])}
library = os.path.abspath(arguments[2])
rounds = int(arguments[3]) if len(arguments) > 3 else 10

work = tempfile.mkdtemp(prefix="window-startup-")
marks = {"activate": re.compile(r"startup (\d+) ms  activate$"),
         "mapped": re.compile(r"startup (\d+) ms  mapped$"),
         "first frame": re.compile(r"startup (\d+) ms  frame 0 drawn$"),
         "third frame": re.compile(r"startup (\d+) ms  frame 2 drawn$")}


def run(build, cache):
    environment = dict(os.environ, PHOTOPICK_TRACE_STARTUP="1", XDG_DATA_HOME=os.path.join(work, "data"),
                       XDG_CACHE_HOME=cache, XDG_STATE_HOME=os.path.join(work, "state-" + build),
                       XDG_CONFIG_HOME=os.path.join(work, "config"))
    result = subprocess.run([builds[build], "--library", library, "--no-camera", "--timeout", "3"],
                            env=environment, capture_output=True, text=True, timeout=60)
    found = {}
    for line in result.stderr.splitlines():
        for name, pattern in marks.items():
            match = pattern.search(line)
            if match and name not in found:
                found[name] = int(match.group(1))
    return found


try:
    warm_cache = os.path.join(work, "cache")
    for build in builds:
        run(build, warm_cache)  # the index and the thumbnails, once
    figures = {build: {name: [] for name in marks} for build in builds}
    for round_number in range(rounds):
        for build in (builds if round_number % 2 == 0 else reversed(list(builds))):
            cache = warm_cache
            if cold:
                cache = os.path.join(work, "cold-cache")
                shutil.rmtree(cache, ignore_errors=True)
            found = run(build, cache)
            for name in marks:
                if name in found:
                    figures[build][name].append(found[name])
    print(f"library {library}, {rounds} rounds, {'cold' if cold else 'warm'} thumbnail cache")
    for name in marks:
        medians = {}
        for build in builds:
            values = figures[build][name]
            if not values:
                print(f"  {name:12} {build}: never")
                continue
            medians[build] = statistics.median(values)
            print(f"  {name:12} {build}: median {medians[build]:6.0f} ms  ({min(values)}-{max(values)}, {len(values)} runs)")
        if len(medians) == 2:
            print(f"  {name:12} B/A {medians['B'] / medians['A']:.3f}")
finally:
    shutil.rmtree(work, ignore_errors=True)
