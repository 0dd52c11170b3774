#!/bin/bash
# Re-creates atareao/dialogos' zenity example 10: a folder, with --text, --width and --height
# (which a file selection ignores) and a web address for a title. Our own text.
folder=$(zenity --file-selection --title=https://www.atareao.es --height=200 --width=100 --text='Selecciona un directorio:' --directory)
if [ $? -eq 0 ]; then
    echo "Has elegido este directorio: $folder"
else
    echo "No has elegido ningún directorio"
fi
