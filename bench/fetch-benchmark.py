#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""From a pick to a complete local copy of a photo on another machine, against `gio copy` of the
same file (issue 22).

Over a real SFTP server on loopback reached through gvfs (Tests/Remote/sftp-server --throttled:
the server, gvfs and its ssh in a network namespace of their own, whose loopback carries --rate),
it opens the picker on a virtual display on a folder holding one camera-sized photo (--megabytes),
waits until its cell has shown it (the thumbnail's download is over), slows the link, presses Space
and times the press to the moment the fetch store holds the complete copy (PHOTOPICK_TRACE_FETCH's
"fetched" line). Then `gio copy` of the same URI to a local file, on the same link, through the same
gvfs mount. The two alternate, --runs times each (every picker starts with an empty cache of
fetched copies); it prints the medians and the ratio, and writes them as JSON with --out.

Usage: bench/fetch-benchmark.py [--megabytes 5] [--rate 8mbit] [--runs 5] [--out FILE.json]
Needs Xvfb, xdotool, /usr/bin/python3 with Pillow, and what Tests/Remote/sftp-server needs
(root, or unprivileged user namespaces, for the network namespace).
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PHOTOPICK = os.environ.get("PHOTOPICK") or os.path.join(ROOT, ".build", "release", "photopick")
RIG = os.path.join(ROOT, "Tests", "Remote", "sftp-server")


class Rig:
    def __init__(self):
        self.process = subprocess.Popen([RIG, "--throttled"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.info = json.loads(self.process.stdout.readline())
        if "error" in self.info:
            raise RuntimeError(self.info["error"])

    def command(self, text):
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().strip()
        if not answer.startswith("ok"):
            raise RuntimeError(f"{text}: {answer}")

    def bytes_read(self, path):
        total = 0
        try:
            for line in open(self.info["log"], encoding="utf-8", errors="replace"):
                # (sftp-server's lines begin with its own prefix, and end with "\r\n".)
                marker = f'close "{path}" bytes read '
                if marker in line:
                    total += int(line.split(marker, 1)[1].split()[0])
        except OSError:
            pass
        return total

    def close(self):
        try:
            self.command("quit")
        except Exception:
            pass
        self.process.wait()


def make_photo(folder, megabytes):
    """A noisy camera-sized JPEG of about `megabytes` MB (noise does not compress: its size is its pixels')."""
    script = f"""
from PIL import Image
import sys
width = int(({megabytes} * 1_000_000 / 0.95 * 4 / 3) ** 0.5)  # (about 0.95 bytes a pixel at this noise)
grey = Image.effect_noise((width, width * 3 // 4), 60)
Image.merge("RGB", (grey, grey.point(lambda v: v // 2), grey.point(lambda v: v // 3))).save(sys.argv[1], quality=95)
"""
    path = os.path.join(folder, "IMG_0001.JPG")
    subprocess.run(["/usr/bin/python3", "-c", script, path], check=True)
    return path


def time_pick(rig, uri, photo, environment, work, rate):
    """Seconds from Space on the photo's cell to its complete local copy in the store."""
    home = tempfile.mkdtemp(dir=work, prefix="home-")
    env = dict(environment, XDG_DATA_HOME=os.path.join(home, "data"), XDG_CACHE_HOME=os.path.join(home, "cache"),
               XDG_CONFIG_HOME=os.path.join(home, "config"), XDG_STATE_HOME=os.path.join(home, "state"),
               PHOTOPICK_TRACE_FETCH="1")
    errors_path = os.path.join(home, "stderr")
    size = os.path.getsize(photo)
    rig.command("rate off")
    read_before = rig.bytes_read(photo)
    with open(errors_path, "w") as errors:
        picker = subprocess.Popen([PHOTOPICK, "--library", os.path.dirname(uri)], env=env, stdout=subprocess.DEVNULL, stderr=errors)
    try:
        subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name", "Pick Photos"], env=env,
                       capture_output=True, timeout=60)
        deadline = time.monotonic() + 60
        while rig.bytes_read(photo) - read_before < size:  # the cell's thumbnail downloaded it
            if time.monotonic() > deadline:
                raise RuntimeError("the picker did not show the photo: " + open(errors_path, errors="replace").read()[-800:])
            time.sleep(0.05)
        time.sleep(0.5)
        rig.command(f"rate {rate}")
        pressed = time.monotonic()
        subprocess.run(["xdotool", "key", "space"], env=env, check=True)
        deadline = pressed + 300
        while True:
            text = open(errors_path, errors="replace").read()
            if " fetched " in text:
                return time.monotonic() - pressed
            if " failed " in text or time.monotonic() > deadline:
                raise RuntimeError("the fetch did not complete: " + text[-500:])
            time.sleep(0.01)
    finally:
        picker.kill()
        picker.wait()
        shutil.rmtree(home, ignore_errors=True)


def time_gio(rig, uri, environment, work, rate):
    target = os.path.join(work, "gio-copy.JPG")
    rig.command(f"rate {rate}")
    started = time.monotonic()
    subprocess.run(["gio", "copy", uri, target], env=environment, check=True)
    elapsed = time.monotonic() - started
    os.remove(target)
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=float, default=5)
    parser.add_argument("--rate", default="8mbit")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out")
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="photopick-fetch-bench-")
    display = ":%d" % (90 + os.getpid() % 500)
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1280x900x24", "-nolisten", "tcp"], stderr=subprocess.DEVNULL)
    rig = Rig()
    try:
        photos = os.path.join(work, "photos")
        os.mkdir(photos)
        photo = make_photo(photos, arguments.megabytes)
        uri = rig.info["uri"] + photo
        environment = dict(os.environ, **rig.info["environment"], DISPLAY=display, GSK_RENDERER="cairo")
        subprocess.run(["gio", "mount", rig.info["uri"] + "/"], env=environment, check=True)
        picks, copies = [], []
        for run in range(arguments.runs):
            picks.append(time_pick(rig, uri, photo, environment, work, arguments.rate))
            copies.append(time_gio(rig, uri, environment, work, arguments.rate))
            print(f"run {run + 1}: pick to local copy {picks[-1]:.2f} s, gio copy {copies[-1]:.2f} s", flush=True)
        result = {
            "photo_bytes": os.path.getsize(photo), "rate": arguments.rate, "runs": arguments.runs,
            "pick_to_local_s": {"median": statistics.median(picks), "all": picks},
            "gio_copy_s": {"median": statistics.median(copies), "all": copies},
            "ratio_pick_over_gio": statistics.median(p / c for p, c in zip(picks, copies)),
        }
        print(json.dumps(result, indent=1))
        if arguments.out:
            with open(arguments.out, "w") as out:
                json.dump(result, out, indent=1)
    finally:
        rig.close()
        xvfb.kill()
        xvfb.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
