#!/bin/sh
# Re-creates the question of publicsite/GamesRecreation's Unreal asset extractor: the title first,
# no filter, and a check that the answer is an ISO image. (The original asks again for ever on a
# cancel; this one stops.) Our own text.
while true; do
    iso=$(zenity --title='Select an ISO file' --file-selection) || exit 1
    case "$iso" in
        *.iso|*.ISO) break ;;
        *) echo "not an ISO: $iso" ;;
    esac
done
echo "$iso" | rev | cut -c1-4
echo "$iso"
