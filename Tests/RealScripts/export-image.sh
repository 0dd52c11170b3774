#!/bin/bash
# Re-creates anekos/chrysoberyl's export: save, with --confirm-overwrite and a proposed name,
# a filter with no "|". Our own text.
set -e
target=$(zenity --file-selection --filename="${FILES:-$PWD}/export.png" --confirm-overwrite --save --file-filter 'All files (*.*)')
printf '@file copy %q %q\n' "$(dirname "$target")" "$(basename "$target")"
