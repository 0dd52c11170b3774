#!/usr/bin/env python3
# Re-creates kivy/plyer's Linux file chooser with no arguments: zenity by the absolute path
# shutil.which gives, no title, no filter; the answer split on "|". Our own text.
import shutil
import subprocess

zenity = shutil.which("zenity")
done = subprocess.run([zenity, "--file-selection"], stdout=subprocess.PIPE, text=True)
print(done.stdout.strip().split("|") if done.returncode == 0 else None)
