#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""First-run benchmark (issue 9): Photopick against the pickers a Linux user already has.

  bench/compare [--runs 5] [--sizes 1000,60000] [--programs photopick,nautilus,gthumb,zenity]
                [--modes cold,warm] [--work DIR] [--quiet 10] [--timeout 120]

Every program opens the same flat folder of generated photos (Tests/Generator/make-test-library
--flat) in a 960x720 window on one virtual display (Xvfb, no window manager), with a throwaway
HOME and XDG folders, its own private session bus and GSettings in a throwaway key file. The window
is grabbed every 50 ms and only its content area counts (each program's header bar and status bar
are cropped away, see CROPS). Per run:

  mapped           first grab of the program's window that is not one flat colour (s after start)
  first_thumbnails first grab whose content area shows a thumbnail of a generated photo: at least
                   THUMB_PIXELS pixels of the photos' green ground (the icons and the Adwaita
                   palette have none of it); none for a program that shows no thumbnails
  settled          the last grab that differed from the one before it, once --quiet seconds passed
                   without a change; a run still changing at --timeout has no settled time
  changes          how many grabs differed from the one before (the first picture counts as one)
  cpu_s            CPU seconds of everything the run started (the program, its children, the
                   session bus and what the bus started for it: utime+stime+cutime+cstime of each live
                   process, sampled every 250 ms; orphans come to this script, a subreaper, and count
                   as zombies) at the first sample after settling; cpu_total_s at the run's end
  peak_rss_mib     the program's own VmHWM
  window_settled   as settled, for the whole window, header bar and all (Photopick's indexing
                   progress is in its header: a person sees it until every file is dated)
  trace            Photopick only (PHOTOPICK_TRACE_STARTUP): when the program said it was at each
                   step of TRACE_MARKS, on its own clock (seconds since its process started)

--remote: the folder is on another machine, reached over SFTP through gvfs (Tests/Remote/sftp-server,
a real sshd on loopback): each program opens its sftp:// URI, and each run's own session bus starts
its own gvfsd, so every run mounts afresh. Nautilus is set to thumbnail remote files too (its
default is local files only). --rate RATE slows the loopback with tc's token bucket, the whole run
inside a network namespace of its own (needs root or user namespaces).

cold: empty thumbnail cache, empty data folder (Photopick: no index). warm: each program's own
caches as its first run left them (Photopick's index complete); the warm-up run is recorded too.
Runs are interleaved (sizes, modes, programs; the program order rotates each round) and medians
reported. The machine is shared and noisy: compare ratios, not seconds.
"""
import argparse, ctypes, datetime, json, os, platform, resource, shutil, signal, statistics, subprocess, sys, time, zlib

import mss
import numpy
from Xlib import X, display as xdisplay

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
make_library = os.environ.get("PHOTOPICK_MAKE_LIBRARY", os.path.join(top, "Tests/Generator/make-test-library"))

WIDTH, HEIGHT = 960, 720
SCREEN = (1280, 1024)
TICK = 0.05
# The content area: what is cropped from the window (top, bottom, left, right, in pixels) so that
# only the view of the folder's files counts, not the header bar (titles, path bars, Photopick's
# indexing progress, Nautilus's loading spinner), sidebars (places, gThumb's folder tree, which
# follows whatever else happens in the library's parent folder) or status bars (file counts). Measured
# on screenshots of these versions at 960x720 without a window manager (client-side decorations,
# no shadows); bench/compare saves them with the area outlined under WORK/frames.
CROPS = {
    "photopick": (52, 0, 0, 0),       # header bar (indexing progress sits in it)
    "photopick-base": (52, 0, 0, 0),  # another build of Photopick (--baseline), side by side
    "nautilus": (47, 46, 246, 0),     # header bar with the path bar; places; the floating status bar (Loading… and a spinner)
    "gthumb": (92, 88, 292, 0),       # header bar and the view's location bar; folder tree; filter row and status bar
    "zenity": (70, 50, 157, 0),       # path bar and column titles; places; Cancel/OK row
    "floor": (47, 0, 0, 0),           # header bar
}
THUMB_PIXELS = 1500
# Photopick's own marks (PHOTOPICK_TRACE_STARTUP), reported beside the frames: what the program
# says it did against what the screen showed (issue 42).
TRACE_MARKS = {
    "presented": "presented",
    "first_frame": "frame 1 drawn",
    "first_screen": "every bound cell has its thumbnail",
    "scanned_shown": "showing the scanned library",
    "every_file_dated": "every file dated",
}
PROGRAMS = ("photopick", "photopick-base", "nautilus", "gthumb", "zenity", "floor")
# "floor" (issue 42): bench/floor-window.c, a bare libadwaita window that reads the first 48 of
# Photopick's own warm thumbnails from the disk and draws once. Warm mode only: the least a warm
# open can do, the reference of Photopick's warm figures (time and memory).
floor = None      # its binary, built into the work folder
baseline = None   # --baseline: the other Photopick binary
remote = False    # --remote: the library is a folder reached over SFTP
servers = set()   # processes that are not a run's (the SFTP server: the other machine), with their children

libc = ctypes.CDLL(None, use_errno=True)
PR_SET_CHILD_SUBREAPER = 36


# ----------------------------------------------------------------------------------- processes

def children_of():
    """{pid: [child pids]} for every process on the machine."""
    tree = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            tree.setdefault(ppid, []).append(int(entry))
    return tree


def descendants(pid, tree=None, skip=()):
    tree = children_of() if tree is None else tree
    found, stack = [], list(tree.get(pid, []))
    while stack:
        child = stack.pop()
        if child in skip:
            continue
        found.append(child)
        stack.extend(tree.get(child, []))
    return found


CLOCK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid):
    """(comm, utime+stime+cutime+cstime in seconds) of a live process, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            text = f.read()
    except OSError:
        return None
    comm = text[text.index("(") + 1:text.rindex(")")]
    fields = text.rsplit(")", 1)[1].split()
    return comm, sum(int(x) for x in fields[11:15]) / CLOCK


def vm_hwm(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def reap():
    """Waits for every exited child (orphans come to us: we are a subreaper)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def end_processes(pids, grace=5):
    """SIGTERM, then SIGKILL after `grace` seconds, whatever is left of pids."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            reap()
            if not [p for p in pids if os.path.exists("/proc/%d" % p)]:
                return
            time.sleep(0.05)


# ------------------------------------------------------------------------------------ the display

class Display:
    def __init__(self):
        read, write = os.pipe()
        self.process = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "%dx%dx24" % SCREEN,
                                         "-nolisten", "tcp", "-noreset"], pass_fds=(write,),
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        number = b""
        while not number.endswith(b"\n"):
            chunk = os.read(read, 16)
            if not chunk:
                raise SystemExit("compare: Xvfb did not start")
            number += chunk
        os.close(read)
        self.name = ":" + number.decode().strip()
        self.x = xdisplay.Display(self.name)
        self.root = self.x.screen().root
        self.grabber = mss.MSS(display=self.name)

    def park_pointer(self):
        """The pointer in the screen's corner, outside every window (no hover highlight)."""
        self.root.warp_pointer(SCREEN[0] - 1, SCREEN[1] - 1)
        self.x.sync()

    def clear(self, timeout=10):
        """Waits for the last run's windows to go, then paints the screen one flat colour: a new
        window shows what was under it until it first draws (X11 windows without a background),
        and the last program's picture there would count as the new one's."""
        deadline = time.monotonic() + timeout
        while self.windows() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.root.change_attributes(background_pixel=self.x.screen().black_pixel)
        self.root.clear_area(0, 0, 0, 0)
        self.x.sync()

    def windows(self):
        """Viewable top-level windows, (area, x, y, width, height), largest first."""
        found = []
        for window in self.root.query_tree().children:
            try:
                attributes = window.get_attributes()
                if attributes.map_state != X.IsViewable or attributes.override_redirect:
                    continue
                g = window.get_geometry()
            except Exception:
                continue
            if g.width > 1 and g.height > 1:
                found.append((g.width * g.height, g.x, g.y, g.width, g.height))
        return sorted(found, reverse=True)

    def resize(self, x, y, width, height):
        """Sizes the largest top-level window to WIDTH x HEIGHT (no window manager: straight to X)."""
        for window in self.root.query_tree().children:
            g = window.get_geometry()
            if (g.x, g.y, g.width, g.height) == (x, y, width, height):
                window.configure(width=WIDTH, height=HEIGHT)
                self.x.sync()
                return

    def grab(self, x, y, width, height):
        shot = self.grabber.grab({"left": x, "top": y, "width": width, "height": height})
        return numpy.frombuffer(shot.bgra, dtype=numpy.uint8).reshape(height, width, 4)

    def close(self):
        try:
            self.grabber.close()
            self.x.close()
        except Exception:
            pass
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()


def thumbnail_pixels(frame):
    """Pixels of the generated photos' green ground (60..135, 140, 50), after scaling and JPEG."""
    b, g, r = (frame[..., i].astype(numpy.int16) for i in range(3))
    mask = (numpy.abs(g - 140) <= 25) & (b <= 90) & (r >= 35) & (r <= 160) & (g - b >= 55)
    return int(mask.sum())


def save_png(frame, path, crop):
    """The whole window, the measured content area outlined in magenta."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image
    rgb = numpy.ascontiguousarray(frame[..., [2, 1, 0]])
    top_, bottom, left, right = crop
    h, w = rgb.shape[:2]
    y0, y1, x0, x1 = top_, h - bottom - 1, left, w - right - 1
    for y in (y0, y1):
        rgb[max(0, y - 1):y + 1, x0:x1 + 1] = (255, 0, 255)
    for x in (x0, x1):
        rgb[y0:y1 + 1, max(0, x - 1):x + 1] = (255, 0, 255)
    matplotlib.image.imsave(path, rgb)


# ------------------------------------------------------------------------------------- programs

def photopick_binary():
    for product in ("photopick", "photopick-worker"):
        subprocess.run(["swift", "build", "-c", "release", "--product", product, "--quiet"], cwd=top, check=True)
    path = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=top, capture_output=True,
                          text=True, check=True).stdout.strip()
    return os.path.join(path, "photopick")


short_runtime_dirs = set()


def prepare_home(home):
    """A throwaway user: XDG folders, GTK settings, GSettings in a key file. Kept caches stay."""
    dirs = {key: os.path.join(home, name) for key, name in (
        ("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache"),
        ("XDG_STATE_HOME", "state"), ("XDG_RUNTIME_DIR", "runtime"))}
    if remote:
        # gvfsd-sftp's ssh keeps its control socket in the runtime folder, and a socket's path has
        # at most 108 bytes: under WORK/home-…/runtime it failed ("Connection failed").
        dirs["XDG_RUNTIME_DIR"] = "/tmp/pcrt-%08x" % zlib.crc32(home.encode())
        short_runtime_dirs.add(dirs["XDG_RUNTIME_DIR"])  # (outside WORK: removed at the end)
    for path in dirs.values():
        os.makedirs(path, mode=0o700, exist_ok=True)
    config = dirs["XDG_CONFIG_HOME"]
    for gtk in ("gtk-3.0", "gtk-4.0"):
        os.makedirs(os.path.join(config, gtk), exist_ok=True)
        with open(os.path.join(config, gtk, "settings.ini"), "w") as f:
            # A blinking text cursor would be a change every half second: off for every program.
            f.write("[Settings]\ngtk-cursor-blink=false\n")
    keyfile = os.path.join(config, "glib-2.0", "settings", "keyfile")
    os.makedirs(os.path.dirname(keyfile), exist_ok=True)
    with open(keyfile, "w") as f:
        f.write("[org/gnome/nautilus/window-state]\ninitial-size=(%d, %d)\nmaximized=false\n\n"
                "[org/gnome/gthumb/browser]\nwindow-width=%d\nwindow-height=%d\nmaximized=false\n\n"
                "[org/gtk/settings/file-chooser]\nwindow-size=(%d, %d)\n"
                % (WIDTH, HEIGHT, WIDTH, HEIGHT, WIDTH, HEIGHT))
        if remote:
            f.write("\n[org/gnome/nautilus/preferences]\nshow-image-thumbnails='always'\n")
    state = os.path.join(dirs["XDG_STATE_HOME"], "photopick", "state.ini")
    os.makedirs(os.path.dirname(state), exist_ok=True)
    with open(state, "w") as f:
        f.write("[picker]\nwindow-width=%d\nwindow-height=%d\n" % (WIDTH, HEIGHT))
    return dirs


def environment(home, display):
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("XDG_", "DBUS_", "GTK_", "GDK_", "GSK_", "GIO_", "GSETTINGS_", "WAYLAND_", "LC_"))}
    env.update(prepare_home(home))
    env.update(HOME=home, DISPLAY=display, GDK_BACKEND="x11", GSK_RENDERER="cairo", TZ="UTC", LANG="C.UTF-8",
               GSETTINGS_BACKEND="keyfile", NO_AT_BRIDGE="1", GTK_A11Y="none")
    return env


def floor_binary(work):
    path = os.path.join(work, "floor-window")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libadwaita-1"], capture_output=True, text=True,
                           check=True).stdout.split()
    subprocess.run(["cc", "-O2", os.path.join(here, "floor-window.c"), "-o", path] + flags, check=True)
    return path


def floor_thumbnails(home):
    """The thumbnail folder of a warm Photopick home with the most thumbnails: the flavor its grid used."""
    root = os.path.join(home, "cache", "thumbnails")
    flavors = [os.path.join(root, f) for f in os.listdir(root)] if os.path.isdir(root) else []
    return max(flavors, key=lambda f: len(os.listdir(f)), default=root)


def argv(program, library, photopick, floor_home=None):
    if program == "floor":
        return [floor, floor_thumbnails(floor_home), str(WIDTH), str(HEIGHT)]
    return {"photopick": [photopick, "--library", library, "--no-camera"],
            "photopick-base": [baseline, "--library", library, "--no-camera"],
            "nautilus": ["nautilus", "--new-window", library],
            "gthumb": ["gthumb", library],
            "zenity": ["zenity", "--file-selection", "--filename=" + library.rstrip("/") + "/"]}[program]


# ----------------------------------------------------------------------------------------- a run

# Services a desktop session has running before anybody opens a picker. On a bus of its own a
# GTK 4 program would otherwise start them itself, synchronously: GtkApplication's
# Inhibit proxy and libadwaita's settings start xdg-desktop-portal (about 0.2 s here, with its
# GTK backend, document portal and permission store), GIO's first use of GVfs starts gvfsd.
SESSION_SERVICES = ("org.freedesktop.portal.Desktop", "org.gtk.vfs.Daemon")


def start_session_services(env):
    for name in SESSION_SERVICES:
        # Returns once the service owns its name (or failed to start: then the program starts it).
        subprocess.run(["dbus-send", "--session", "--print-reply", "--reply-timeout=10000",
                        "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                        "org.freedesktop.DBus.StartServiceByName", "string:" + name, "uint32:0"],
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # The portal starts its backends as they are first asked: ask for what libadwaita reads.
    subprocess.run(["dbus-send", "--session", "--print-reply", "--reply-timeout=10000",
                    "--dest=org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                    "org.freedesktop.portal.Settings.Read", "string:org.freedesktop.appearance",
                    "string:color-scheme"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def drop_page_cache():
    """Every file read from the disk again, as after a reboot (root only)."""
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def run_once(screen, program, library, home, photopick, quiet, timeout, frames_prefix=None, every_change=False,
             floor_home=None, drop_cache=False):
    env = environment(home, screen.name)
    screen.park_pointer()
    reap()
    screen.clear()
    bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
    env["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().decode().strip()
    start_session_services(env)
    # What the session's services used starting up is not the program's.
    before = {p: c for p, c in ((p, process_cpu(p)) for p in descendants(os.getpid(), skip={screen.process.pid} | servers)) if c}
    baseline = sum(c[1] for c in before.values())
    traced = program.startswith("photopick")
    if traced:
        env["PHOTOPICK_TRACE_STARTUP"] = "1"
    log_path = os.path.join(home, "stderr.log")
    log_start = os.path.getsize(log_path) if os.path.exists(log_path) else 0
    command = argv(program, library, photopick, floor_home)
    if drop_cache:
        drop_page_cache()
    started = time.monotonic()
    process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=open(os.path.join(home, "stderr.log"), "ab"),
                               start_new_session=True)
    mine = {bus.pid, process.pid}
    top_, bottom, left, right = CROPS[program]
    previous = whole_previous = None
    mapped = first_thumbnails = last_change = whole_last_change = None
    changes, whole_changes, tick, peak = 0, 0, 0, 0.0
    peaks = {}                 # VmHWM of the program and each process it started (its workers)
    cpu_samples = []           # (seconds, CPU seconds of the live tree)
    window = None
    # Photopick is sized by its state file and the floor by its arguments; the peers once mapped.
    resized = program.startswith("photopick") or program == "floor"
    timeline = []              # (seconds, thumbnail pixels) of every change
    settled_frame = thumbnail_frame = None
    exited = None
    while True:
        tick += 1
        now = time.monotonic() - started
        if tick % max(1, round(0.25 / TICK)) == 0:       # CPU and memory every 250 ms
            tree = children_of()
            live = [c for c in (process_cpu(p) for p in descendants(os.getpid(), tree, skip={screen.process.pid} | servers)) if c]
            cpu_samples.append((now, sum(c[1] for c in live) - baseline))
            peak = max(peak, vm_hwm(process.pid) or 0)
            for pid in [process.pid] + descendants(process.pid, tree):
                peaks[pid] = max(peaks.get(pid, 0), vm_hwm(pid) or 0)
        if process.poll() is not None:
            exited = process.returncode
            break
        windows = screen.windows()
        if windows:
            _, x, y, w, h = windows[0]
            if not resized and (w, h) != (WIDTH, HEIGHT):
                screen.resize(x, y, w, h)
                resized = True
                continue
            window = (x, y, w, h)
            frame = screen.grab(x, y, w, h)
            if mapped is None and (frame[..., :3] != frame[0, 0, :3]).any():
                mapped = now
            if mapped is not None:
                whole = (frame.shape, zlib.crc32(frame.tobytes()))
                if whole != whole_previous:
                    whole_previous = whole
                    whole_changes += 1
                    whole_last_change = now
                content = frame[top_:h - bottom, left:w - right]
                signature = (content.shape, zlib.crc32(content.tobytes()))
                if signature != previous:
                    previous = signature
                    changes += 1
                    last_change = now
                    settled_frame = frame.copy()
                    pixels = thumbnail_pixels(content)
                    timeline.append((round(now, 3), pixels))
                    if every_change and frames_prefix:
                        save_png(frame, "%s-change-%04d-%07.3fs.png" % (frames_prefix, changes, now), CROPS[program])
                    if first_thumbnails is None and pixels >= THUMB_PIXELS:
                        first_thumbnails = now
                        thumbnail_frame = frame.copy()
        # (Photopick's, quiet in the whole window too: its header's progress is what a person
        # sees last. The peers' animated spinners would never let their windows be quiet.)
        if mapped is not None and now - last_change >= quiet and (not traced or now - whole_last_change >= quiet):
            break
        if now >= timeout:
            break
        delay = started + tick * TICK - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    ended = time.monotonic() - started
    pids = descendants(os.getpid(), skip={screen.process.pid} | servers)
    live = [(p, c) for p, c in ((p, process_cpu(p)) for p in pids) if c]
    cpu_total = sum(c[1] for _, c in live) - baseline
    by_command = {}
    for pid, (comm, cpu) in live:
        cpu -= before[pid][1] if pid in before else 0
        by_command[comm] = round(by_command.get(comm, 0) + cpu, 2)
    # CPU until settled: the live tree's count at the first sample after settling, plus what had
    # already exited and been reaped by us by then (nothing is reaped during a run but orphans).
    peak = max(peak, vm_hwm(process.pid) or 0)
    for pid in [process.pid] + descendants(process.pid):
        peaks[pid] = max(peaks.get(pid, 0), vm_hwm(pid) or 0)
    end_processes([process.pid], grace=5)
    end_processes([bus.pid] + descendants(os.getpid(), skip={screen.process.pid} | servers), grace=3)
    reap()
    settled = last_change if (mapped is not None and ended - last_change >= quiet - 1e-6) else None
    window_settled = whole_last_change if (mapped is not None and ended - whole_last_change >= quiet - 1e-6) else None
    trace = read_trace(log_path, log_start) if traced else None
    cpu_at = None
    if last_change is not None:
        after = [cpu for t, cpu in cpu_samples if t >= last_change]
        cpu_at = after[0] if after else cpu_total
    if frames_prefix and settled_frame is not None:
        save_png(settled_frame, frames_prefix + "-settled.png", CROPS[program])
        if thumbnail_frame is not None:
            save_png(thumbnail_frame, frames_prefix + "-first-thumbnails.png", CROPS[program])
    result = {
        "mapped_s": r3(mapped), "first_thumbnails_s": r3(first_thumbnails), "settled_s": r3(settled),
        "last_change_s": r3(last_change), "settled_minus_mapped_s": r3(settled - mapped) if settled is not None else None,
        "changes": changes, "cpu_s": r3(cpu_at), "cpu_total_s": r3(cpu_total), "peak_rss_mib": round(peak, 1),
        # (The sum of each process's own peak: the window and its workers together.)
        "peak_rss_tree_mib": round(sum(peaks.values()), 1), "processes": len(peaks),
        "run_s": r3(ended), "window": window, "timed_out": settled is None and exited is None,
        "changes_at_s_with_thumbnail_pixels": timeline, "cpu_by_command_at_end": by_command,
        "window_settled_s": r3(window_settled), "window_changes": whole_changes,
    }
    if trace is not None:
        result["trace_s"] = trace
    if exited is not None:
        result["exited"] = exited
    return result


def read_trace(path, offset):
    """The first time of each of TRACE_MARKS in this run's part of the program's standard error
    ("startup 812 ms  every file dated"), in seconds."""
    found = {}
    try:
        with open(path, "rb") as log:
            log.seek(offset)
            lines = log.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return found
    for line in lines:
        parts = line.split(" ms  ", 1)
        if len(parts) != 2 or not parts[0].startswith("startup "):
            continue
        for key, step in TRACE_MARKS.items():
            if key not in found and parts[1].strip() == step:
                found[key] = round(int(parts[0][len("startup "):]) / 1000, 3)
    return found


def r3(value):
    return None if value is None else round(value, 3)


# ------------------------------------------------------------------------------------ libraries

def library(work, n):
    """A flat generated folder of n files, made once and reused (the stamp names its generator)."""
    path = os.path.join(work, "library-flat-%d" % n)
    stamp = path + ".summary.json"
    if os.path.exists(stamp):
        made = json.load(open(stamp))
        if made.get("n") == n and made.get("made_by") == make_library:
            return path, made
    began = time.monotonic()
    out = subprocess.run([make_library, "--out", path, "-n", str(n), "--flat", "--force"], check=True,
                         capture_output=True)
    summary = json.loads(out.stdout)
    summary = {"n": n, "files_written": summary["files_written"], "made_by": make_library,
               "seconds": round(time.monotonic() - began, 1)}
    json.dump(summary, open(stamp, "w"))
    return path, summary


def machine():
    model, cores = "", 0
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name") and not model:
            model = line.split(":", 1)[1].strip()
        if line.startswith("processor"):
            cores += 1
    memory = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal"))
    release = dict(l.rstrip().split("=", 1) for l in open("/etc/os-release") if "=" in l)
    return {"cpu": model, "cores": cores, "memory_gib": round(memory / 2**20, 1), "kernel": platform.release(),
            "os": release.get("PRETTY_NAME", "").strip('"'), "load_at_start": os.getloadavg()}


def commit():
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=top, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "Sources", "Package.swift"],
                           cwd=top, capture_output=True, text=True).stdout.strip()
    return {"commit": head, "sources_modified": bool(dirty)}


def versions(programs):
    """Debian package versions of the peers (their --version needs a display)."""
    found = {}
    for program in programs:
        if program == "photopick":
            found[program] = commit()["commit"][:12]
            continue
        if program == "photopick-base":
            found[program] = baseline
            continue
        if program == "floor":
            found[program] = "bench/floor-window.c, libadwaita " + subprocess.run(
                ["pkg-config", "--modversion", "libadwaita-1"], capture_output=True, text=True).stdout.strip()
            continue
        out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", program], capture_output=True, text=True)
        found[program] = out.stdout.strip() or "?"
    found["zenity_toolkit"] = "GTK 3 (Debian 12's zenity 3.44 is GTK 3; its file chooser is GTK 3's)"
    return found


# ---------------------------------------------------------------------------------------- summary

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summarise(runs, programs, sizes, modes):
    rows = []
    for size in sizes:
        for mode in modes:
            base = median(r["settled_s"] for r in runs if r["program"] == "nautilus" and r["size"] == size
                          and r["mode"] == mode and not r.get("warmup"))
            for program in programs:
                mine = [r for r in runs if r["program"] == program and r["size"] == size and r["mode"] == mode
                        and not r.get("warmup")]
                if not mine:
                    continue
                settled = median(r["settled_s"] for r in mine)
                row = {"program": program, "size": size, "mode": mode, "runs": len(mine),
                       "unsettled_runs": sum(r["settled_s"] is None for r in mine)}
                for key in ("settled_s", "mapped_s", "settled_minus_mapped_s", "first_thumbnails_s", "changes",
                            "cpu_s", "cpu_total_s", "peak_rss_mib", "peak_rss_tree_mib", "window_settled_s"):
                    row[key] = r3(median(r.get(key) for r in mine))
                if any("trace_s" in r for r in mine):
                    row["trace_s"] = {key: r3(median(r.get("trace_s", {}).get(key) for r in mine)) for key in TRACE_MARKS}
                row["ratio_to_nautilus"] = round(settled / base, 2) if settled and base else None
                rows.append(row)
            # Against the floor window: the median of each round's own ratio (one run of each a round,
            # side by side), then the ratio of the medians.
            floors = {r["round"]: r for r in runs if r["program"] == "floor" and r["size"] == size
                      and r["mode"] == mode and not r.get("warmup")}
            for row in rows:
                if row["size"] != size or row["mode"] != mode or not floors or row["program"] == "floor":
                    continue
                mine = [r for r in runs if r["program"] == row["program"] and r["size"] == size and r["mode"] == mode
                        and not r.get("warmup") and r["round"] in floors]
                pairs = [(r["settled_s"], floors[r["round"]]["settled_s"]) for r in mine]
                row["ratios_to_floor_by_round"] = [round(a / b, 2) if a and b else None for a, b in pairs]
                row["ratio_to_floor"] = r3(median(row["ratios_to_floor_by_round"]))
                tree = [(r.get("peak_rss_tree_mib"), floors[r["round"]].get("peak_rss_tree_mib")) for r in mine]
                row["rss_ratio_to_floor"] = r3(median(a / b if a and b else None for a, b in tree))
    return rows


def table(rows):
    head = ("program", "size", "mode", "settled s", "mapped s", "thumbs s", "changes", "CPU s", "RSS MiB", "/nautilus",
            "/floor", "tree MiB", "/floor")
    lines = ["%-9s %6s %-4s %9s %8s %8s %7s %7s %7s %9s %6s %8s %6s" % head]
    show = lambda v, f="%.2f": "-" if v is None else f % v
    for r in rows:
        settled = show(r["settled_s"]) + ("*" if r["unsettled_runs"] else "")
        lines.append("%-9s %6s %-4s %9s %8s %8s %7s %7s %7s %9s %6s %8s %6s" % (
            r["program"], r["size"], r["mode"], settled, show(r["mapped_s"]), show(r["first_thumbnails_s"]),
            show(r["changes"], "%g"), show(r["cpu_s"], "%.1f"), show(r["peak_rss_mib"], "%.0f"),
            show(r["ratio_to_nautilus"]), show(r.get("ratio_to_floor")), show(r.get("peak_rss_tree_mib"), "%.0f"),
            show(r.get("rss_ratio_to_floor"))))
    if any(r["unsettled_runs"] for r in rows):
        lines.append("* some runs never settled before the timeout; the median is over the runs that did")
    # What the whole window showed, header included, and what Photopick said of itself.
    lines.append("")
    lines.append("%-9s %6s %-4s %9s %9s %9s %9s %9s %9s" % ("program", "size", "mode", "settled s", "window s",
                                                          "1st frame", "1st scr", "shown", "dated"))
    for r in rows:
        trace = r.get("trace_s") or {}
        lines.append("%-9s %6s %-4s %9s %9s %9s %9s %9s %9s" % (
            r["program"], r["size"], r["mode"], show(r["settled_s"]), show(r.get("window_settled_s")),
            show(trace.get("first_frame")), show(trace.get("first_screen")), show(trace.get("scanned_shown")),
            show(trace.get("every_file_dated"))))
    return "\n".join(lines)


def plot(rows, sizes, modes, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axis = plt.subplots(figsize=(7, 4.5), dpi=110)
    colours = {"photopick": "tab:blue", "photopick-base": "tab:purple", "nautilus": "tab:orange", "gthumb": "tab:green", "zenity": "tab:red", "floor": "tab:gray"}
    for program in PROGRAMS:
        for mode in modes:
            points = [(r["size"], r["settled_s"]) for r in rows if r["program"] == program and r["mode"] == mode
                      and r["settled_s"]]
            if points:
                xs, ys = zip(*sorted(points))
                axis.plot(xs, ys, marker="o", color=colours[program], linestyle="-" if mode == "cold" else "--",
                          label="%s, %s" % (program, mode))
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xticks(sizes)
    axis.set_xticklabels(["%gk" % (s / 1000) for s in sizes])
    axis.set_xlabel("files in the folder")
    axis.set_ylabel("time to a settled first screen (s, median)")
    axis.set_title("First screen, 960x720, Xvfb (cold solid, warm dashed)")
    axis.grid(True, which="both", alpha=0.3)
    axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)


# ------------------------------------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="1000,60000")
    parser.add_argument("--programs", default=",".join(PROGRAMS))
    parser.add_argument("--modes", default="cold,warm")
    parser.add_argument("--work", default="/tmp/photopick-compare")
    parser.add_argument("--quiet", type=float, default=10, help="seconds without a change that end a run")
    parser.add_argument("--timeout", type=float, default=120, help="longest run, seconds")
    parser.add_argument("--photopick", help="a photopick binary to measure instead of building the tree's")
    parser.add_argument("--baseline", metavar="BINARY",
                        help="another photopick binary, measured beside the tree's as program photopick-base")
    parser.add_argument("--real-photos", metavar="DIR",
                        help="measure on this folder of real camera photos (bench/make-real-photos) instead of "
                             "generated libraries; --sizes is then its number of files")
    parser.add_argument("--save-every-change", action="store_true",
                        help="save the window at every change of every run (WORK/frames)")
    parser.add_argument("--remote", action="store_true",
                        help="the library over SFTP through gvfs (a server on loopback); programs photopick and nautilus")
    parser.add_argument("--rate", help="with --remote: slow the loopback to this rate (tc tbf, e.g. 8mbit)")
    parser.add_argument("--grab-interval", type=float, default=0.05,
                        help="seconds between grabs of the window (default 0.05; 0.01 to tell warm opens apart)")
    parser.add_argument("--drop-caches", action="store_true",
                        help="cold runs start with an empty page cache (root): every file is read from the disk")
    parser.add_argument("--out", default=os.path.join(here, "results"), help="where the JSON and the plot go")
    args = parser.parse_args()
    global remote, TICK
    remote = args.remote
    TICK = args.grab_interval
    if args.rate and os.environ.get("PHOTOPICK_COMPARE_NAMESPACE") != "1":
        # The whole run in a network namespace of its own, whose loopback the token bucket slows.
        os.environ["PHOTOPICK_COMPARE_NAMESPACE"] = "1"
        namespace = ["unshare", "-n"] if os.getuid() == 0 else ["unshare", "-rn"]
        os.execvp(namespace[0], namespace + [sys.executable, os.path.abspath(__file__)] + sys.argv[1:])
    if args.rate:
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
        # (A burst below lo's 64 KiB MTU stalls the flow.)
        subprocess.run(["tc", "qdisc", "add", "dev", "lo", "root", "tbf", "rate", args.rate, "burst", "96kb", "latency", "400ms"], check=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    programs = [p for p in args.programs.split(",") if p]
    modes = [m for m in args.modes.split(",") if m]
    global baseline
    if args.baseline:
        baseline = os.path.abspath(args.baseline)
        if "photopick-base" not in programs:
            programs.insert(1, "photopick-base")
    assert set(programs) <= set(PROGRAMS) and set(modes) <= {"cold", "warm"}, (programs, modes)
    if "floor" in programs:
        # It draws Photopick's warm thumbnails: after it in every list, and warm only.
        assert "photopick" in programs and "warm" in modes, "floor needs program photopick and mode warm"
        programs.remove("floor")
        programs.append("floor")
    if args.drop_caches and os.getuid() != 0:
        parser.error("--drop-caches needs root")
    began = time.monotonic()
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    global floor
    if "floor" in programs:
        floor = floor_binary(work)
    photopick, binary_note = None, None
    if "photopick" in programs:
        # A copy: the tree may be rebuilt while we run. A tree that does not build (someone is
        # mid-edit) falls back to the copy the last run made, and says so in the results.
        copy = os.path.join(work, "photopick")
        try:
            built = args.photopick or photopick_binary()
            shutil.copy2(built, copy)
            binary_note = "built from the tree" if not args.photopick else "given: " + args.photopick
            # Its sandboxed workers too, as an install has them (without, it parses and decodes
            # in its own process, which is not what people run).
            worker = os.path.join(os.path.dirname(built), "photopick-worker")
            if os.path.exists(worker):
                shutil.copy2(worker, os.path.join(work, "photopick-worker"))
            else:
                if os.path.exists(os.path.join(work, "photopick-worker")):
                    os.remove(os.path.join(work, "photopick-worker"))
                binary_note += "; no photopick-worker beside it: parsing and decoding in its own process"
        except subprocess.CalledProcessError:
            if not os.path.exists(copy):
                raise
            binary_note = "the tree did not build; the copy from an earlier run, made %s" % time.ctime(os.path.getmtime(copy))
            print("compare: swift build failed; using %s (%s)" % (copy, binary_note), file=sys.stderr)
        photopick = copy
    if args.real_photos:
        real = os.path.abspath(args.real_photos)
        files = sorted(f for f in os.listdir(real) if not f.startswith(".") and f != "manifest.json")
        sizes = [len(files)]
        libraries = {len(files): (real, {"n": len(files), "real_photos": real,
                                         "bytes": sum(os.path.getsize(os.path.join(real, f)) for f in files)})}
    else:
        libraries = {size: library(work, size) for size in sizes}
    rig = None
    if remote:
        # sshd and the agent holding its key; the programs' gvfsd (on each run's own bus) reach it.
        rig = subprocess.Popen([os.path.join(top, "Tests", "Remote", "sftp-server")], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
        servers.add(rig.pid)
        server = json.loads(rig.stdout.readline())
        if "error" in server:
            raise RuntimeError(server["error"])
        os.environ.update(SSH_AUTH_SOCK=server["environment"]["SSH_AUTH_SOCK"], GVFS_DISABLE_FUSE="1")
        libraries = {size: (server["uri"] + path, dict(summary, uri=server["uri"] + path, rate=args.rate))
                     for size, (path, summary) in libraries.items()}
    frames = os.path.join(work, "frames")
    os.makedirs(frames, exist_ok=True)
    date = datetime.date.today().isoformat()
    results = {"benchmark": "bench/compare (issue 9)", "date": date, "command": " ".join(["bench/compare"] + sys.argv[1:]),
               "machine": machine(), "photopick": dict(commit(), binary=binary_note), "versions": versions(programs),
               "baseline": baseline and {"binary": baseline, "worker_beside_it": os.path.exists(
                   os.path.join(os.path.dirname(baseline), "photopick-worker"))},
               "libraries": {str(s): summary for s, (_, summary) in libraries.items()},
               "settings": {"window": [WIDTH, HEIGHT], "grab_interval_s": TICK, "drop_caches_before_cold_runs": args.drop_caches, "quiet_s": args.quiet,
                            "timeout_s": args.timeout, "crops_top_bottom_left_right": CROPS,
                            "thumbnail_pixels": THUMB_PIXELS, "runs": args.runs,
                            "session_services_running_before_each_run": list(SESSION_SERVICES)},
               "runs": []}
    screen = Display()

    def record(program, size, mode, home, warmup=False, round_=None):
        prefix = os.path.join(frames, "%s-%d-%s-%s" % (program, size, mode, "warmup" if warmup else round_))
        result = run_once(screen, program, libraries[size][0], home, photopick, args.quiet, args.timeout,
                          prefix if warmup or round_ == 0 or args.save_every_change else None, args.save_every_change,
                          floor_home=homes.get(("photopick", size)), drop_cache=args.drop_caches and mode == "cold")
        result.update(program=program, size=size, mode=mode, round=round_, warmup=warmup)
        results["runs"].append(result)
        print("%-9s %6d %-4s %s  settled %s  mapped %s  thumbnails %s  changes %d  cpu %s  rss %s" % (
            program, size, mode, "warm-up" if warmup else "run %d" % (round_ + 1), result["settled_s"],
            result["mapped_s"], result["first_thumbnails_s"], result["changes"], result["cpu_s"],
            result["peak_rss_mib"]), file=sys.stderr, flush=True)
        return result

    try:
        homes = {}
        if "warm" in modes:
            for size in sizes:
                for program in programs:
                    home = os.path.join(work, "home-warm-%s-%d" % (program, size))
                    shutil.rmtree(home, ignore_errors=True)
                    homes[(program, size)] = home
                    record(program, size, "warm", home, warmup=True)
                    if program.startswith("photopick"):     # its best conditions: the whole index, not just a first screen
                        subprocess.run([photopick if program == "photopick" else baseline, "index", "--library", libraries[size][0]],
                                       env=environment(home, screen.name), check=True,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if "cold" in modes:
            # One cold run of each program first, not counted: the first measured cold run of a
            # set came slow (1.45, 2.5 and 10.4 s against 1.1-1.4 s for the rest, whichever
            # build ran first; 2026-12-08), the machine still busy with what came before it.
            for size in sizes:
                for program in programs:
                    if program != "floor":
                        home = os.path.join(work, "home-cold")
                        shutil.rmtree(home, ignore_errors=True)
                        record(program, size, "cold", home, warmup=True)
        for round_ in range(args.runs):
            order = programs[round_ % len(programs):] + programs[:round_ % len(programs)]
            for size in sizes:
                for mode in modes:
                    for program in order:
                        if program == "floor" and mode == "cold":
                            continue
                        if mode == "cold":
                            home = os.path.join(work, "home-cold")
                            shutil.rmtree(home, ignore_errors=True)
                        else:
                            home = homes[(program, size)]
                        record(program, size, mode, home, round_=round_)
    finally:
        if rig:
            rig.stdin.close()  # (its end of input stops it, and everything it started)
            rig.wait()
        end_processes(descendants(os.getpid(), skip={screen.process.pid} | servers), grace=3)
        screen.close()
        reap()
        for path in short_runtime_dirs:
            shutil.rmtree(path, ignore_errors=True)
        rows = summarise(results["runs"], programs, sizes, modes)
        results["medians"] = rows
        results["wall_time_s"] = round(time.monotonic() - began, 1)
        os.makedirs(args.out, exist_ok=True)
        stem = os.path.join(args.out, "compare-" + date)
        with open(stem + ".json", "w") as f:
            json.dump(results, f, indent=1)
            f.write("\n")
        if rows:
            plot(rows, sizes, modes, stem + ".png")
        print(table(rows))
        print("wall time %.0f s; %s.json%s" % (results["wall_time_s"], stem, ", .png" if rows else ""))


if __name__ == "__main__":
    main()
