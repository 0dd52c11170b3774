#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench/host-stall.py for two installs side by side: the host's longest main-loop stall while
a picker is made and shown, on a first run (cold: empty data and cache folders) and again on the
same folders (warm), the two installs in turn, ROUNDS times (issue 38, point 6).

  xvfb-run -a python3 bench/host-stall-side-by-side.py PREFIX_A PREFIX_B LIBRARY [ROUNDS]

Each PREFIX is a meson install with --libdir lib. Prints each install's median and range of the
longest turn of the host's main loop (the stall itself) and of the longest gap between its
frames while the picker is made and shown (its first 1.5 s), cold and warm, in the 2.5 s after
(a first run's scan goes on there), in the second after it is destroyed, and in the second before
it is made (the host alone: the floor the others are read against), and every run's line. "Most
processor time in a turn" is the main thread's own time on a processor in its busiest turn: what
the host and the picker did there, without the time other threads and processes held the cores.
HOST_STALL_SPARE_CORE=1 (see host-stall.py) is passed on to each run: with `taskset -c 0` in
front, the host's thread and the display server share processor 0 and the picker's threads have 1. GTK draws with cairo (GSK_RENDERER=cairo):
its GL renderer under Xvfb is software, whose frames would make the gaps.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

prefixes = [os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])]
library = os.path.abspath(sys.argv[3])
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 4
probe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "host-stall.py")
kinds = ("cold", "warm", "cold, after", "warm, after", "cold, destroyed", "warm, destroyed", "cold, before", "warm, before")
results = {(prefix, kind): [] for prefix in prefixes for kind in kinds}


def run(prefix, home):
    environment = dict(os.environ, GSK_RENDERER="cairo", LD_LIBRARY_PATH=os.path.join(prefix, "lib"),
                       GI_TYPELIB_PATH=os.path.join(prefix, "lib", "girepository-1.0"),
                       XDG_DATA_HOME=os.path.join(home, "data"), XDG_CACHE_HOME=os.path.join(home, "cache"),
                       XDG_CONFIG_HOME=os.path.join(home, "config"), HOME=home)
    out = subprocess.run([sys.executable, probe, library, "4"], env=environment, capture_output=True, text=True, timeout=120).stdout
    figures = []
    for phase in ("made and shown", "after", "destroyed", "before"):
        found = re.search(phase + r": \d+ frames, longest gap (\d+) ms.*longest turn of the main loop (\d+) ms"
                                  r".*most processor time in a turn (\d+) ms", out)
        figures.append((int(found.group(1)), int(found.group(2)), int(found.group(3))) if found else None)
    return tuple(figures)


with tempfile.TemporaryDirectory() as work:
    for round in range(rounds):
        order = prefixes if round % 2 == 0 else list(reversed(prefixes))
        for prefix in order:
            home = os.path.join(work, "home")
            shutil.rmtree(home, ignore_errors=True)
            os.makedirs(home)
            (cold, cold_after, cold_gone, cold_before), (warm, warm_after, warm_gone, warm_before) = run(prefix, home), run(prefix, home)
            for kind, value in zip(kinds, (cold, warm, cold_after, warm_after, cold_gone, warm_gone, cold_before, warm_before)):
                results[(prefix, kind)].append(value)
            print("round %d %s (longest gap, longest turn, most processor time in a turn): cold %s ms (then %s, destroyed %s), warm %s ms (then %s, destroyed %s)"
                  % (round + 1, prefix, cold, cold_after, cold_gone, warm, warm_after, warm_gone), flush=True)
for kind in kinds:
    for prefix in prefixes:
        pairs = [value for value in results[(prefix, kind)] if value is not None]
        for index, figure in ((0, "longest gap between frames"), (1, "longest turn of the main loop"),
                              (2, "most processor time in a turn")):
            values = [pair[index] for pair in pairs]
            if values:
                print("%s %s, %s: median %.0f ms (%d-%d), %d runs"
                      % (kind, prefix, figure, statistics.median(values), min(values), max(values), len(values)))
