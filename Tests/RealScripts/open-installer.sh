#!/bin/bash
# Re-creates WineZGUI's "open a setup installer" line: a filter of two patterns with no name,
# given before --file-selection, by the absolute path `which zenity` gives. Our own text.
zenity_path=$(command -v zenity)
installer=$("$zenity_path" --file-filter='*.exe *.msi' --file-selection --title='Select a File') || exit 1
cd "$(dirname "$installer")" || exit 1
echo "wine $(basename "$installer")"
