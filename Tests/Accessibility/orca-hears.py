#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What Orca 43 (Debian 12's screen reader) says while the picker is driven by keys, headless.

    orca-hears.py [--keys "space Right space Left"] [--expect TEXT]... [--keep FILE] [--verbose]
                  PICKER [ARGUMENT]...

Starts, all private to this run: Xvfb (no window manager), a session bus whose one service is
the accessibility bus (org.a11y.Bus), Orca with speech on but no speech server (nothing is
voiced and no speech-dispatcher runs; Orca still logs each utterance as "SPEECH OUTPUT: '...'"
in its debug file), then the picker (PICKER and its arguments). Once Orca has read the focused
cell it presses the keys with xdotool, one at a time, waiting after each until Orca is idle, and
prints one line per utterance: "<step>\t<what Orca said>", the step being "start", "focus" or
"<n>:<key>"; "# nothing said for ..." where Orca reacted and said nothing.
Exit status: 0 when each --expect text was said (in order, after the first key), 1 when not,
2 when the run itself failed. Everything it starts ends with it, on SIGTERM too: every process
carries a mark in its environment, and this process is their subreaper.
"""
import argparse, os, re, shutil, signal, subprocess, sys, tempfile, time, uuid

parser = argparse.ArgumentParser()
parser.add_argument("--keys", default="space Right space Left")
parser.add_argument("--expect", action="append", default=[],
                    help="a text Orca must say after the first key (repeat: in this order)")
parser.add_argument("--keep", help="copy Orca's debug log to this file")
parser.add_argument("--verbose", action="store_true")
parser.add_argument("picker", nargs=argparse.REMAINDER, help="the picker and its arguments")
args = parser.parse_args()
if args.picker[:1] == ["--"]:
    args.picker = args.picker[1:]
if not args.picker:
    parser.error("no picker to run")

# Orphans (the processes the buses start) become this process's children, so that they are reaped.
import ctypes
ctypes.CDLL("libc.so.6", use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER

MARK = "ORCA_HEARS_MARK"
mark = uuid.uuid4().hex
top = tempfile.mkdtemp(prefix="orca-hears-")
children = []
start = time.time()


def log(message):
    if args.verbose:
        print("[%5.1fs] %s" % (time.time() - start, message), file=sys.stderr, flush=True)


def folder(*parts, mode=0o755):
    path = os.path.join(top, *parts)
    os.makedirs(path, mode=mode, exist_ok=True)
    os.chmod(path, mode)
    return path


def spawn(argv, env, **options):
    process = subprocess.Popen(argv, env=env, start_new_session=True, **options)
    children.append(process)
    return process


def marked_pids():
    """Every process whose environment holds this run's mark (bus-activated ones too)."""
    needle = ("%s=%s" % (MARK, mark)).encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % entry, "rb") as handle:
                if needle in handle.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            pass
    return found


def clean_up():
    for process in reversed(children):
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.time() + 3
    while time.time() < deadline and (marked_pids() or any(p.poll() is None for p in children)):
        time.sleep(0.1)
    for pid in marked_pids():
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for process in children:
        if process.poll() is None:
            process.kill()
        process.wait()
    while True:  # reap the orphans that came to this process
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                break
        except ChildProcessError:
            break
    shutil.rmtree(top, ignore_errors=True)


class Speech:
    """Follows Orca's debug file: the utterances, in order."""

    pattern = re.compile(r" - SPEECH OUTPUT: '(.*)'\s*(?:voice=\w+)?\s*(?:\{.*\})?\s*$")
    # Orca reacted (to a focus or state change) but found nothing to say.
    silent = re.compile(r" - SPEECH GENERATOR: Results for (.*) are pauses only")
    # Orca's point of focus moved to a grid cell.
    on_cell = re.compile(r" - ORCA: Changing locusOfFocus from .* to \[table cell \| ")

    def __init__(self, path):
        self.path, self.offset, self.said, self.partial = path, 0, [], b""
        self.step, self.steps, self.changed, self.notes = "start", [], time.time(), []
        self.cells = 0  # how often Orca's focus went to a cell

    def poll(self):
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                chunk = handle.read()
        except FileNotFoundError:
            return
        self.offset += len(chunk)
        if chunk:
            self.changed = time.time()
        lines = (self.partial + chunk).split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            line = line.decode("utf-8", "replace")
            self.cells += bool(self.on_cell.search(line))
            match = self.pattern.search(line)
            if match:
                self.said.append(match.group(1).strip())
                self.steps.append(self.step)
                log("%s said: %s" % (self.step, self.said[-1]))
            quiet = self.silent.search(line)
            if quiet:
                self.notes.append((len(self.said), self.step, "# nothing said for " + quiet.group(1)))

    def wait_for_cell(self, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            self.poll()
            if self.cells:
                return True
            time.sleep(0.05)
        return False

    def wait_for(self, test, since, timeout):
        """The first utterance from index `since` on that passes `test`, or None."""
        deadline = time.time() + timeout
        while True:
            self.poll()
            for index in range(since, len(self.said)):
                if test(self.said[index]):
                    return index
            if time.time() > deadline:
                return None
            time.sleep(0.05)

    def settle(self, quiet=0.8, timeout=8):
        """Until Orca has logged nothing for `quiet` seconds (it is idle), at most `timeout`."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            self.poll()
            if time.time() - self.changed >= quiet:
                return True
            time.sleep(0.05)
        return False


status = 2
speech = None
signal.signal(signal.SIGTERM, lambda *_: sys.exit(2))  # ends through the clean-up below
try:
    home, data = folder("home"), folder("data")
    env = {
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", MARK: mark,
        "HOME": home, "XDG_DATA_HOME": data, "XDG_CACHE_HOME": folder("cache"),
        "XDG_CONFIG_HOME": folder("config"), "XDG_RUNTIME_DIR": folder("runtime", mode=0o700),
        "GSETTINGS_BACKEND": "memory", "GSK_RENDERER": "cairo", "GTK_A11Y": "atspi",
    }

    # The display.
    reader, writer = os.pipe()
    spawn(["Xvfb", "-displayfd", str(writer), "-nolisten", "tcp", "-screen", "0", "1280x1024x24"],
          env, pass_fds=[writer], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(writer)
    display = b""
    while not display.endswith(b"\n"):
        chunk = os.read(reader, 16)
        if not chunk:
            raise RuntimeError("Xvfb did not start")
        display += chunk
    os.close(reader)
    env["DISPLAY"] = ":" + display.decode().strip()

    # The session bus: its one service is the accessibility bus.
    services = folder("services")
    shutil.copy("/usr/share/dbus-1/services/org.a11y.Bus.service", services)
    config = os.path.join(top, "session.conf")
    with open(config, "w") as handle:
        handle.write("""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=%s</listen>
  <servicedir>%s</servicedir>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
""" % (folder("bus"), services))
    bus = spawn(["dbus-daemon", "--config-file", config, "--nofork", "--print-address=1"], env,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    env["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().decode().strip()
    if not env["DBUS_SESSION_BUS_ADDRESS"].startswith("unix:"):
        raise RuntimeError("the session bus did not start")
    # Start the accessibility bus now: GTK 4 asks for it once, at start.
    subprocess.run(["gdbus", "call", "--session", "--dest", "org.a11y.Bus", "--object-path", "/org/a11y/bus",
                    "--method", "org.a11y.Bus.GetAddress"], env=env, check=True, timeout=20,
                   stdout=subprocess.DEVNULL)
    log("display %s, buses up" % env["DISPLAY"])

    # Orca: speech on, but no speech server (orca-customizations.py is Orca's own hook, run at
    # start). Its debug file has every utterance.
    prefs = folder("data", "orca")
    with open(os.path.join(prefs, "orca-customizations.py"), "w") as handle:
        handle.write("import orca.settings\n"
                     "orca.settings.speechServerFactory = None  # nothing voiced, no speech-dispatcher\n"
                     "orca.settings.speechFactoryModules = []\n"
                     "import orca.debug\n"
                     "if orca.debug.debugFile:  # line by line, so that it can be followed\n"
                     "    orca.debug.debugFile.reconfigure(line_buffering=True)\n")
    debug_file = os.path.join(top, "orca-debug.out")
    speech = Speech(debug_file)
    spawn(["orca", "--debug-file", debug_file, "-d", "braille", "-d", "sound"], env,
          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if speech.wait_for(lambda text: "Screen reader on" in text, 0, 30) is None:
        raise RuntimeError("Orca did not start (no 'Screen reader on')")
    log("orca ready")

    picker = spawn(args.picker, env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    window = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--pid", str(picker.pid)],
                            env=env, capture_output=True, text=True, timeout=30).stdout.split()[-1]
    root = subprocess.run(["xdotool", "search", "--maxdepth", "0", "--name", ""], env=env,
                          capture_output=True, text=True, timeout=30).stdout.split()[0]
    # Orca follows an app from its window's activation on: with no window manager, move the
    # X focus away (to the root window) and back until Orca reads the focused cell.
    speech.step = "focus"
    for attempt in range(8):
        subprocess.run(["xdotool", "windowfocus", "--sync", root], env=env, check=True, timeout=30)
        subprocess.run(["xdotool", "windowfocus", "--sync", window], env=env, check=True, timeout=30)
        if speech.wait_for_cell(4):
            break
        log("Orca not on a cell yet, focusing again")
    else:
        raise RuntimeError("Orca never got to a cell after the window got focus")
    speech.settle()
    begin = len(speech.said)
    for number, key in enumerate(args.keys.split(), 1):
        speech.step = "%d:%s" % (number, key)
        subprocess.run(["xdotool", "key", key], env=env, check=True, timeout=30)
        time.sleep(0.3)
        if not speech.settle():
            log("Orca still busy 8 s after %s" % key)
    heard, missing = speech.said[begin:], []
    for text in args.expect:
        found = next((i for i, said in enumerate(heard) if text in said), None)
        if found is None:
            missing.append(text)
        else:
            heard = heard[found + 1:]
    for text in missing:
        print("MISSING: Orca did not say %r (in order)" % text, file=sys.stderr)
    status = 1 if missing else 0
except Exception as error:
    print("PROBLEM: %s: %s" % (type(error).__name__, error), file=sys.stderr)
finally:
    if speech is not None:
        time.sleep(0.3)
        speech.poll()
        notes = list(speech.notes)
        for index, (step, text) in enumerate(zip(speech.steps, speech.said)):
            while notes and notes[0][0] <= index:
                print("%s\t%s" % notes.pop(0)[1:])
            print("%s\t%s" % (step, text))
        for note in notes:
            print("%s\t%s" % note[1:])
        if args.keep:
            shutil.copy(speech.path, args.keep)
    clean_up()
    print("TIME: %.1fs" % (time.time() - start), file=sys.stderr)
sys.exit(status)
