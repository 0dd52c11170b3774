#!/usr/bin/env python3
# Re-creates maikelwever/crossfiledialog's open_file on zenity: two filters (one with two "|"),
# a title, and a literal "~/" as the folder. Our own text.
import subprocess

done = subprocess.run(["zenity", "--file-selection", "--file-filter=PDF-Files | *.pdf",
                       "--file-filter=Python Project | *.py | *.md", "--title=Choose a file", "--filename=~/"],
                      stdout=subprocess.PIPE, text=True)
print(done.stdout.strip())
