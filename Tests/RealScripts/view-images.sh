#!/bin/bash
# Re-creates the open dialog of anekos/chrysoberyl, an image viewer: several files, a separator
# given as backslash-n (zenity reads the escape), five filters of archives, PDFs and images, the
# last without "|"; the answer split on white space. Our own text.
for it in $(zenity --file-selection --multiple --separator='\n' \
        --file-filter 'Supported files | *.zip *.rar *.pdf *.png *.gif *.jpg *.jpeg *.bmp' \
        --file-filter 'PDF | *.pdf' --file-filter 'Archive | *.zip *.rar' \
        --file-filter 'Image | **.png *.gif *.jpg *.jpeg *.bmp' --file-filter 'All files (*.*)'); do
    printf '@push %q\n' "$it"
done
