#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What linking libphotopick-1 costs a host that never makes a picker (issue 38, point 7).

Builds one small GTK 4 host three ways from PREFIX (a meson install) and starts each in turn,
ROUNDS times interleaved: `gtk_init ()`, a window made, then it exits. Prints each one's median
and range of wall time and peak RSS, and the medians' ratios to the unlinked host.

- unlinked: the host alone.
- linked: linked to libphotopick-1 (it calls photopick_picker_new () only when asked), as a
  host that offers a picker is.
- implementation: the host linked to libphotopick-implementation.so too, which loads the Swift
  runtime at start: what linking libphotopick-1 cost before it loaded its implementation on
  first use (it was that library with the shell inside).

  xvfb-run -a python3 bench/host-startup.py PREFIX [ROUNDS]

PREFIX/lib holds libphotopick-1.so (meson setup --libdir lib). Measured on 2026-12-04 at
a6a0562 (debug build, 30 rounds, Xvfb): unlinked 98.7 ms / 85.3 MB; linked +0.5 ms / +0.0 MB;
implementation +9.4 ms / +14.9 MB. Timed whole-process 15 pairs each, CPU time linked/unlinked
1.004, implementation/unlinked 1.176.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

prefix = os.path.abspath(sys.argv[1])
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 30
lib = os.path.join(prefix, "lib")
source = r"""
#include <gtk/gtk.h>
#include <string.h>
#ifdef LINKED
#include <photopick-1/photopick.h>
#endif
int
main (int argc, char **argv)
{
  GtkWidget *window;

  gtk_init ();
  window = gtk_window_new ();
#ifdef LINKED
  if (argc > 1 && strcmp (argv[1], "pick") == 0)
    gtk_window_set_child (GTK_WINDOW (window), photopick_picker_new ());
#endif
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
"""


def flags(*packages):
    environment = dict(os.environ, PKG_CONFIG_PATH=os.path.join(lib, "pkgconfig"))
    return subprocess.check_output(["pkg-config", "--cflags", "--libs", *packages], env=environment, text=True).split()


with tempfile.TemporaryDirectory() as work:
    path = os.path.join(work, "host.c")
    with open(path, "w") as file:
        file.write(source)
    hosts = {
        "unlinked": [path] + flags("gtk4"),
        "linked": ["-DLINKED", path] + flags("photopick-1"),
        "implementation": ["-DLINKED", path] + flags("photopick-1")
        + ["-Wl,--no-as-needed", os.path.join(lib, "photopick-1", "libphotopick-implementation.so"),
           "-Wl,-rpath," + os.path.join(lib, "photopick-1")],
    }
    for name, arguments in hosts.items():
        subprocess.check_call(["cc", "-o", os.path.join(work, name), *arguments, "-Wl,-rpath," + lib])
    environment = dict(os.environ, GDK_BACKEND="x11")
    times = {name: [] for name in hosts}
    memory = {name: [] for name in hosts}
    for round in range(rounds + 1):
        for name in hosts:
            started = time.perf_counter()
            process = subprocess.Popen([os.path.join(work, name)], env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(process.pid, 0)
            elapsed = time.perf_counter() - started
            if status != 0:
                sys.exit("%s ended with status %d" % (name, status))
            if round > 0:  # (the first round warms the page cache)
                times[name].append(elapsed * 1000)
                memory[name].append(usage.ru_maxrss / 1024)
    base_time, base_memory = statistics.median(times["unlinked"]), statistics.median(memory["unlinked"])
    print("%-15s %22s %22s %14s" % ("host", "wall ms median (range)", "peak RSS MB (range)", "vs unlinked"))
    for name in hosts:
        t, m = times[name], memory[name]
        print("%-15s %8.1f (%5.1f-%5.1f) %9.1f (%5.1f-%5.1f)   %+.1f ms %+.1f MB" % (
            name, statistics.median(t), min(t), max(t), statistics.median(m), min(m), max(m),
            statistics.median(t) - base_time, statistics.median(m) - base_memory))
