#!/bin/bash
# Re-creates the zenity line of instantOS/instantWALLPAPER's "gui" wallpaper chooser (wall.sh,
# wallutils.sh): an image filter, no title, no folder. Our own text; see SOURCES.md.
if ! chosen=$(zenity --file-selection --file-filter='Image files (png, jpg) | *.png *.jpg'); then
    echo "no wallpaper chosen"
    exit 0
fi
case $(file --mime-type -b "$chosen") in
    image/*) echo "image found"; echo "set $chosen" ;;
    *) echo "not an image"; exit 1 ;;
esac
