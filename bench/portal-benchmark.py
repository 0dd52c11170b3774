#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The portal backend's benchmark (issue 39), side by side in one run, interleaved:

  bench/portal-benchmark [--photopick BIN] [--library DIR] [--runs 5] [--quiet 5] [--timeout 120]

1. open: from an app's OpenFile call (through Debian's xdg-desktop-portal 1.16, on a private
   bus, under Xvfb) to the first settled screen of its window, on the same folder of photos:
   Photopick's backend against xdg-desktop-portal-gtk's chooser (GTK 3's file chooser, which
   shows no thumbnails; opened on the folder with its startup-mode 'cwd'). cold: the backend is
   not running (the portal is), as after its idle exit; the index and the thumbnails are as an
   earlier question left them. warm: the backend answered a question before. The window is
   watched with bench/compare.py's grabs: mapped, first thumbnails, settled (no change for
   --quiet seconds); the content area only.
2. claim: from StartServiceByName to its reply (the bus name claimed) for Photopick's backend and
   GTK's, on an idle bus; and the backend's own trace of when it claimed the name after exec.
3. portal start: the portal's StartServiceByName to its reply under GNOME, with GTK's backend
   alone, with Photopick installed beside it (its .portal file as the package has it), and
   enabled (its private portals folder: Photopick for FileChooser, GTK's for the rest: two
   backends to start instead of one).

The machine is shared and noisy: read the ratios.
"""
import argparse, json, os, re, shutil, signal, statistics, subprocess, sys, tempfile, time, zlib

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import compare as C  # noqa: E402

top = os.path.dirname(here)
client = os.path.join(top, "Tests/Portal/portal-client")
GTK_CROP = C.CROPS["zenity"]          # GTK 3's chooser, as zenity shows it
PHOTOPICK_CROP = C.CROPS["photopick"]
IMAGES = "{'multiple': <true>, 'filters': <[('Images', [(uint32 1, 'image/*')])]>}"


def portals_folder(work, kind):
    folder = os.path.join(work, "portals-" + kind)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    gtk = open("/usr/share/xdg-desktop-portal/portals/gtk.portal").read()
    ours = open(os.path.join(top, "data/portal/photopick.portal")).read()
    if kind == "gtk":
        open(os.path.join(folder, "gtk.portal"), "w").write(gtk)
    elif kind in ("photopick", "installed"):  # as installed (UseIn=photopick); the tests' desktop is named so
        open(os.path.join(folder, "gtk.portal"), "w").write(gtk)
        open(os.path.join(folder, "photopick.portal"), "w").write(ours)
    else:                          # "enabled": what `photopick portal enable` writes under GNOME
        open(os.path.join(folder, "gtk.portal"), "w").write(gtk.replace("org.freedesktop.impl.portal.FileChooser;", ""))
        open(os.path.join(folder, "photopick.portal"), "w").write(re.sub(r"UseIn=.*", "UseIn=gnome;photopick;", ours))
    return folder


def services_folder(work, photopick, log):
    folder = os.path.join(work, "services")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for name in ("org.freedesktop.portal.Desktop", "org.freedesktop.impl.portal.desktop.gtk"):
        shutil.copy("/usr/share/dbus-1/services/%s.service" % name, folder)
    with open(os.path.join(folder, "org.freedesktop.impl.portal.desktop.photopick.service"), "w") as f:
        f.write("[D-BUS Service]\nName=org.freedesktop.impl.portal.desktop.photopick\n"
                "Exec=/bin/sh -c 'PHOTOPICK_TRACE_STARTUP=1 exec \"%s\" portal serve 2>>\"%s\"'\n" % (photopick, log))
    return folder


class Bus:
    def __init__(self, env, services, cwd):
        config = os.path.join(os.path.dirname(services), "bus.conf")
        with open(config, "w") as f:
            f.write('<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" '
                    '"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd"><busconfig><type>session</type>'
                    '<listen>unix:tmpdir=/tmp</listen><servicedir>%s</servicedir><policy context="default">'
                    '<allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/>'
                    '</policy></busconfig>' % services)
        # (Started from the folder: the GTK backend it starts opens its chooser there.)
        self.process = subprocess.Popen(["dbus-daemon", "--config-file", config, "--nofork", "--print-address=1"], env=env, cwd=cwd,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        self.env = dict(env, DBUS_SESSION_BUS_ADDRESS=self.process.stdout.readline().decode().strip())

    def call(self, *arguments, timeout=30):
        return subprocess.run(["dbus-send", "--session", "--print-reply", "--reply-timeout=%d" % (timeout * 1000)] + list(arguments),
                              env=self.env, capture_output=True, text=True)

    def start(self, name):
        """StartServiceByName's round trip, seconds (the name is claimed when it returns)."""
        began = time.monotonic()
        self.call("--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.StartServiceByName",
                  "string:" + name, "uint32:0")
        return time.monotonic() - began

    def stop_name(self, name):
        reply = self.call("--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID", "string:" + name)
        found = re.search(r"uint32 (\d+)", reply.stdout)
        if found:
            C.end_processes([int(found.group(1))], grace=3)
        for _ in range(100):
            if "true" not in self.call("--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:" + name).stdout:
                return
            time.sleep(0.05)

    def close(self):
        C.end_processes([self.process.pid] + C.descendants(self.process.pid), grace=3)
        # (What the bus started outlives it: stop those by the bus's address in their environment.)
        address = self.env["DBUS_SESSION_BUS_ADDRESS"]
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    if address.encode() in open("/proc/%s/environ" % entry, "rb").read():
                        os.kill(int(entry), signal.SIGKILL)
                except (OSError, ProcessLookupError):
                    pass
        C.reap()


def watch(screen, crop, started, quiet, timeout):
    """mapped, first thumbnails and settled seconds of the largest window, from `started`."""
    top_, bottom, left, right = crop
    previous = mapped = first = last = None
    watch.frame = None
    tick = 0
    while True:
        tick += 1
        now = time.monotonic() - started
        windows = screen.windows()
        if windows:
            _, x, y, w, h = windows[0]
            frame = screen.grab(x, y, w, h)
            if mapped is None and (frame[..., :3] != frame[0, 0, :3]).any():
                mapped = now
            if mapped is not None:
                content = frame[top_:h - bottom, left:w - right]
                signature = (content.shape, zlib.crc32(content.tobytes()))
                if signature != previous:
                    previous, last = signature, now
                    watch.frame = frame.copy()
                    if first is None and C.thumbnail_pixels(content) >= C.THUMB_PIXELS:
                        first = now
        if mapped is not None and now - last >= quiet:
            return mapped, first, last
        if now >= timeout:
            return mapped, first, None
        delay = started + tick * C.TICK - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def ask(screen, bus, crop, quiet, timeout, picture=None):
    """One OpenFile through the portal, measured; the app then goes away (its window closes).
    `picture`: where to save the settled window (its content area outlined)."""
    screen.park_pointer()
    screen.clear()
    started = time.monotonic()
    app = subprocess.Popen([sys.executable if False else "/usr/bin/python3", client, "open", "OpenFile", "b%d" % int(started * 1000) , IMAGES,
                            "--title", "Benchmark"], env=bus.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    mapped, first, settled = watch(screen, crop, started, quiet, timeout)
    if picture and watch.frame is not None:
        C.save_png(watch.frame, picture, crop)
    C.end_processes([app.pid], grace=3)
    return {"mapped_s": C.r3(mapped), "first_thumbnails_s": C.r3(first), "settled_s": C.r3(settled)}


def median(values):
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 3) if values else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photopick", required=True, help="the photopick binary (a release build, its photopick-worker beside it)")
    parser.add_argument("--library", required=True, help="a folder of photos (Tests/Generator/make-test-library --flat -n 60000)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quiet", type=float, default=5)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--work", default=None)
    parser.add_argument("--out", default=os.path.join(here, "results"))
    args = parser.parse_args()
    C.libc.prctl(C.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    work = args.work or tempfile.mkdtemp(prefix="portal-bench-")
    library = os.path.abspath(args.library)
    screen = C.Display()
    log = os.path.join(work, "backend.log")
    services = services_folder(work, os.path.abspath(args.photopick), log)
    results = {"open": [], "claim": [], "portal_start": []}
    home = os.path.join(work, "home")
    base = C.environment(home, screen.name)
    os.makedirs(os.path.join(base["XDG_CONFIG_HOME"]), exist_ok=True)
    with open(os.path.join(base["XDG_CONFIG_HOME"], "user-dirs.dirs"), "w") as f:
        f.write('XDG_PICTURES_DIR="%s"\n' % library)
    keyfile = os.path.join(base["XDG_CONFIG_HOME"], "glib-2.0", "settings", "keyfile")
    text = open(keyfile).read().replace("[org/gtk/settings/file-chooser]\n", "[org/gtk/settings/file-chooser]\nstartup-mode='cwd'\n")
    open(keyfile, "w").write(text)
    setups = {"photopick": dict(base, XDG_CURRENT_DESKTOP="photopick", XDG_DESKTOP_PORTAL_DIR=portals_folder(work, "photopick")),
              "gtk": dict(base, XDG_CURRENT_DESKTOP="gnome", XDG_DESKTOP_PORTAL_DIR=portals_folder(work, "gtk"))}
    crops = {"photopick": PHOTOPICK_CROP, "gtk": GTK_CROP}
    try:
        # The first question ever: Photopick indexes the folder and makes its thumbnails (recorded apart).
        bus = Bus(setups["photopick"], services, library)
        bus.start("org.freedesktop.portal.Desktop")
        first = ask(screen, bus, PHOTOPICK_CROP, args.quiet, args.timeout)
        results["first_question_photopick"] = first
        print("first question (index and thumbnails made):", first, flush=True)
        bus.close()
        for round_ in range(args.runs):
            order = ["photopick", "gtk"] if round_ % 2 == 0 else ["gtk", "photopick"]
            for program in order:
                bus = Bus(setups[program], services, library)
                bus.start("org.freedesktop.portal.Desktop")
                # cold: the portal runs, its FileChooser backend does not (as after its idle exit).
                bus.stop_name("org.freedesktop.impl.portal.desktop." + program)
                pictures = [os.path.join(work, "%s-%s.png" % (program, mode)) if round_ == 0 else None for mode in ("cold", "warm")]
                cold = ask(screen, bus, crops[program], args.quiet, args.timeout, pictures[0])
                warm = ask(screen, bus, crops[program], args.quiet, args.timeout, pictures[1])
                bus.close()
                for mode, result in (("cold", cold), ("warm", warm)):
                    results["open"].append(dict(result, program=program, mode=mode, round=round_))
                    print("open %-9s %-4s %s" % (program, mode, result), flush=True)
            # The name claimed, each backend alone on an idle bus.
            for program in order:
                bus = Bus(setups[program], services, library)
                seconds = bus.start("org.freedesktop.impl.portal.desktop." + program)
                bus.close()
                results["claim"].append({"program": program, "start_service_s": round(seconds, 3), "round": round_})
            # The portal's own start, with Photopick enabled and without.
            for kind in (["installed", "enabled", "gtk"] if round_ % 2 == 0 else ["gtk", "enabled", "installed"]):
                env = dict(base, XDG_CURRENT_DESKTOP="gnome", XDG_DESKTOP_PORTAL_DIR=portals_folder(work, kind))
                bus = Bus(env, services, library)
                seconds = bus.start("org.freedesktop.portal.Desktop")
                bus.close()
                results["portal_start"].append({"with": kind, "start_service_s": round(seconds, 3), "round": round_})
        traced = [int(m.group(1)) for m in re.finditer(r"startup (\d+) ms  portal: \S+ claimed", open(log).read())]
        summary = {
            "open": {"%s %s" % (p, m): {key: median(r[key] for r in results["open"] if r["program"] == p and r["mode"] == m)
                                       for key in ("mapped_s", "first_thumbnails_s", "settled_s")}
                     for p in ("photopick", "gtk") for m in ("cold", "warm")},
            "claim_s": {p: median(r["start_service_s"] for r in results["claim"] if r["program"] == p) for p in ("photopick", "gtk")},
            "claimed_after_exec_ms (backend's trace)": {"median": median(traced), "max": max(traced) if traced else None, "n": len(traced)},
            "portal_start_s": {k: median(r["start_service_s"] for r in results["portal_start"] if r["with"] == k) for k in ("installed", "enabled", "gtk")},
        }
        for mode in ("cold", "warm"):
            ours, theirs = summary["open"]["photopick " + mode]["settled_s"], summary["open"]["gtk " + mode]["settled_s"]
            summary["open"]["settled ratio %s (photopick / gtk)" % mode] = round(ours / theirs, 2) if ours and theirs else None
        starts = summary["portal_start_s"]
        for kind in ("installed", "enabled"):
            summary["portal_start ratio (%s / gtk)" % kind] = round(starts[kind] / starts["gtk"], 2) if starts[kind] and starts["gtk"] else None
        results["summary"] = summary
        results["library"] = {"path": library, "files": len(os.listdir(library))}
        print(json.dumps(summary, indent=1))
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, "portal-%s.json" % time.strftime("%Y%m%d-%H%M%S"))
        json.dump(results, open(path, "w"), indent=1)
        print("written:", path)
    finally:
        screen.close()
        C.reap()


if __name__ == "__main__":
    main()
