#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A host's main loop while a picker is made and shown (issue 38, point 6).

A window animates a spinner all the time (a frame every 16-17 ms, as a person sees it move);
after a second a PhotopickPicker of LIBRARY is made and added to it. Prints the longest gap
between the window's frames before, while the picker is made and shown (the first 1.5 s), and
after, and in the second after it is destroyed, with how many gaps were over 25 ms, and each of
them as it happens (on the clock of PHOTOPICK_TRACE_STARTUP's lines: milliseconds since the
process started).

  GSK_RENDERER=cairo LD_LIBRARY_PATH=PREFIX/lib GI_TYPELIB_PATH=PREFIX/lib/girepository-1.0 \\
      xvfb-run -a python3 bench/host-stall.py LIBRARY [SECONDS]

Use GSK_RENDERER=cairo under Xvfb: GTK's GL renderer is software there (llvmpipe), and its
frames, not the picker, make the gaps. Warm: run once first (the index and the thumbnails made);
cold: empty XDG_DATA_HOME and XDG_CACHE_HOME. PHOTOPICK_TRACE_STARTUP=1 prints the picker's own
steps, HOST_STALL_PHASES=1 each phase of the window's frames while the picker is made and shown and
once it is destroyed. Measured on 2026-12-04 (5,000 photos, 4 rounds interleaved, cairo): warm 161-204 ms at
c7b4362, 86-103 ms at cd9c6bb; cold 121-178 ms and 141-160 ms. bench/host-stall-side-by-side.py,
release builds, 3e433e9 against 845fc18, 5 rounds: made and shown, cold 142 ms -> 36 ms (medians),
warm 82 -> 44 ms; destroyed, cold 67 -> 33 ms, warm 42 -> 38 ms; during the scan 18 ms both; 40
real photos, cold 41 -> 25 ms, warm 43 -> 33 ms. What is left (e9ad71e, warm): the view's step,
19 ms, and the frame that lays it out, about 20 ms; the album's step, 13 ms; the first frame of
50 cells; on destroy, GTK unmapping 250 cells (27 ms), then the view's teardown (12 ms).
2026-12-05, 8ef114c against 7e1b2e9 (release, 6 rounds, the host's window with a label since: a
window without text had the picker's first label load the fonts): warm 48 -> 29 ms, cold 43 ->
34 ms; destroyed 54 -> 52 ms cold, 34 -> 32 ms warm. What is left, warm: the frame that first
lays the picker out (about 13 ms) and the host's own turn that makes it (the tree, 7-9 ms).
Since 0f693df it also prints the main loop's longest turn (from one poll's return to the next:
the stall itself; a gap between frames may hold two turns). b722393 against 0f693df, 8 rounds,
medians of the longest turn: shown cold 51 -> 40 ms, warm 30 -> 32 ms; destroyed cold 43 -> 25
ms, warm 42 -> 20 ms. What is left when shown, warm (HOST_STALL_PHASES=1 prints each frame's
phases): frames whose paint takes 14-25 ms while the first screen's thumbnails arrive, under the
cairo renderer (not the conversion of RGB textures: B8G8R8A8 ones painted no faster), and the
first frame of the tree, 8 ms of layout and 5 of paint. Turns of 17-35 ms also come with no
picker shown on this 2-core machine: medians of 8 rounds or more.
2026-12-05 (second session), medians of 8 rounds, release: 33d4a67 against 1c2167f, shown cold
38 -> 19 ms, warm 24 -> 16 ms (the hearts' blurred icon shadows; a first run's album read on a
worker; cells beyond the screen a part of a row a frame under load); 1c2167f against feb6ee7,
destroyed warm 16 -> 8 ms, cold 18 -> 16 ms (most processor time in that turn 15 -> 6 and 14 ->
10 ms: cells leaving the grid are no longer searched for in its list). The host alone, in the
second before: 13-16 ms, 10-13 of them on a processor (its own first frames and the probe's
Python). Each long turn's processor time is printed beside it: on two cores with a first run's
scan, turns of 20-35 ms held 2-5 ms of the main thread's own work.
HOST_STALL_SPARE_CORE=1 gives the host's main thread processor 0 and puts every other thread of
the process, and the processes they start, on processor 1 (run the X server or the compositor on
0: `taskset -c 0 xvfb-run …`): a machine with a core to spare for the picker's threads, so what is
left of a turn is the main thread's own work and the display server's. Under sway headless
(Wayland), run it as an ordinary user with WAYLAND_DISPLAY and GDK_BACKEND=wayland set.
2026-12-05 (third session), medians of 8 rounds, release, 5dc34ff against 0e5fa75: the picker's
own processor time in the host's busiest turn while it is made and shown, cold 17 -> 10 ms, warm
18 -> 12 ms (its first frame no longer lays out "No Photos Yet"; the style sheets are scoped on
the loading thread; the preview's video player and the camera switcher made when needed). With a
core to spare, under sway: the longest turn shown cold 14 -> 10 ms (at most 20 -> 15), warm 13 ->
9 ms (17 -> 10), during the scan 7-8 ms, destroyed 7-11 ms, the host alone 10 ms: no turn over
16 ms in any phase; under Xvfb shown 11-12 ms (at most 14-20), the host alone 12 ms. On two
shared cores the same runs take 16-26 ms at the median (the host alone 13-18): the main thread
waits for the X server (6 ms of a 19 ms turn) and for the address-space lock the thumbnail
threads hold while they map and unmap their buffers (2.4 ms), not on its own work.
"""
import ctypes
import os
import sys
import threading
import time

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Photopick", "1")
from gi.repository import GLib, Gtk, Photopick  # noqa: E402

library = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 4
Gtk.init()
loop = GLib.MainLoop()
window = Gtk.Window(title="Host stall")
window.set_default_size(960, 720)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
box.append(Gtk.Spinner(spinning=True))
# (Text, as every host has: the first label a process draws loads its fonts, 10-20 ms that
# would count against the picker.)
box.append(Gtk.Label(label="A host's window"))
window.set_child(box)
window.present()
gaps, last, phase = [], [None], ["before"]


def since_start():
    """Seconds since this process started: the clock of PHOTOPICK_TRACE_STARTUP's lines."""
    fields = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
    return time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK")




def tick(widget, clock):
    now = since_start()
    if last[0] is not None:
        gaps.append((now - last[0], phase[0]))
        if now - last[0] > 0.025:
            print("gap of %.0f ms ending at %.0f ms" % ((now - last[0]) * 1000, now * 1000), flush=True)
    last[0] = now
    return True


def make():
    phase[0] = "made and shown"
    if os.environ.get("HOST_STALL_PHASES"):
        made_at[0] = since_start()
    print("picker made at %.0f ms (monotonic %.3f s)" % (since_start() * 1000, time.monotonic()), flush=True)
    picker = Photopick.Picker(library_folders=[library], show_camera=False, vexpand=True)
    box.append(picker)
    GLib.timeout_add(1500, lambda: phase.__setitem__(0, "after") or False)
    GLib.timeout_add(int(seconds * 1000), destroy, picker)
    return False


def destroy(picker):
    phase[0] = "destroyed"
    print("picker destroyed at %.0f ms (monotonic %.3f s)" % (since_start() * 1000, time.monotonic()), flush=True)
    box.remove(picker)
    GLib.timeout_add(1000, finish)
    return False


def finish():
    # (On the trace's clock: this process's start, as since_start() counts.)
    offset = since_start() - time.monotonic()
    for turn, when, end, cpu in turns:
        if turn > 0.016:
            print("turn of %.0f ms (%.0f ms on a processor) ending at %.0f ms (%s)" % (turn * 1000, cpu * 1000, (end + offset) * 1000, when), flush=True)
    for name in ("before", "made and shown", "after", "destroyed"):
        values = sorted(gap for gap, when in gaps if when == name)
        if values:
            busy = sorted(turn for turn, when, _, _ in turns if when == name)
            working = sorted(cpu for _, when, _, cpu in turns if when == name)
            print("%s: %d frames, longest gap %.0f ms, gaps over 25 ms: %d; longest turn of the main loop %.0f ms, turns over 16 ms: %d; "
                  "most processor time in a turn %.0f ms"
                  % (name, len(values), values[-1] * 1000, sum(1 for gap in values if gap > 0.025),
                     busy[-1] * 1000 if busy else 0, sum(1 for turn in busy if turn > 0.016), working[-1] * 1000 if working else 0), flush=True)
    loop.quit()
    return False


# The main loop's turns: from one poll's return to the next poll, the loop does nothing but run
# what was ready (a timeout, an idle, a frame's layout and paint). That time is the stall a
# person sees, measured whatever it falls on; a gap between frames may hold two turns.
glib = ctypes.CDLL("libglib-2.0.so.0")
PollFunc = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint, ctypes.c_int)
glib.g_poll.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int]
glib.g_poll.restype = ctypes.c_int
glib.g_main_context_default.restype = ctypes.c_void_p
glib.g_main_context_set_poll_func.argtypes = [ctypes.c_void_p, PollFunc]
turns, polled = [], [None, 0.0]


# HOST_STALL_SPARE_CORE=1: the host's main thread has processor 0 to itself (with the X
# server, pinned there by the caller), every other thread of the process, and the processes they
# start, processor 1: the machine a host with cores to spare would be, on this one of two. What
# is left of a turn is then the main thread's own work and the X server's.
spare_core = os.environ.get("HOST_STALL_SPARE_CORE") == "1"
pinned = set()
if spare_core:
    os.sched_setaffinity(0, {0})


def pin_others():
    main = threading.get_native_id()
    for name in os.listdir("/proc/self/task"):
        task = int(name)
        if task != main and task not in pinned:
            try:
                os.sched_setaffinity(task, {1})
                pinned.add(task)
            except OSError:
                pass


def poll(fds, count, timeout):
    now, cpu = time.monotonic(), time.thread_time()
    if polled[0] is not None:
        turns.append((now - polled[0], phase[0], now, cpu - polled[1]))
    if spare_core:
        pin_others()
    result = glib.g_poll(fds, count, timeout)
    polled[0], polled[1] = time.monotonic(), time.thread_time()
    return result


poll_function = PollFunc(poll)  # (kept: GLib holds only the pointer)
glib.g_main_context_set_poll_func(glib.g_main_context_default(), poll_function)
window.add_tick_callback(tick)
if os.environ.get("HOST_STALL_PHASES"):
    # Each phase of the window's frames while the picker is made and shown, and after it is
    # destroyed (on the trace's clock): which frame's layout or paint a long turn holds.
    def phases_of_frames(*_):
        clock = window.get_frame_clock()
        for name in ("update", "layout", "paint", "after-paint"):
            clock.connect(name, lambda _clock, name=name: (phase[0] == "made and shown" and since_start() < 1.5 + made_at[0]
                                                           or phase[0] == "destroyed")
                          and print("frame %s at %.1f ms" % (name, since_start() * 1000), flush=True))
    made_at = [99.0]
    window.connect("realize", phases_of_frames) if not window.get_realized() else phases_of_frames()
GLib.timeout_add(1000, make)
loop.run()
