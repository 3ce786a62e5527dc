#!/bin/bash
# test_layout.sh — fuzz/'s folders stay layered as fuzz/README.md
# ("Layout") says: a file includes headers of its own folder and of the
# folders before it in build.sh's list (--print-sources, INCLUDE), never of
# one after it, and no header name is in two folders (the build puts every
# folder on the include path).  Every folder on that list has a README.
set -uo pipefail
cd "$(dirname "$0")/.."
folders=$(./build.sh --print-sources | sed -n 's/^INCLUDE=//p' | tr ' ' '\n' | grep '^fuzz/')
[ -n "$folders" ] || { echo "not ok - build.sh --print-sources lists no fuzz/ folder"; exit 0; }

rank() { grep -n -x "$1" <<<"$folders" | cut -d: -f1; }
where=$(for d in $folders; do for h in "$d"/*.h; do [ -e "$h" ] && echo "$(basename "$h") $d"; done; done)

twice=$(awk '{print $1}' <<<"$where" | sort | uniq -d | tr '\n' ' ')
if [ -z "$twice" ]; then echo "ok - no header name is in two folders of fuzz/"
else echo "not ok - headers in two folders: $twice"; fi

for d in $folders; do
    [ -f "$d/README.md" ] && echo "ok - $d/ has a README" || echo "not ok - $d/ has no README.md"
    bad=""
    for f in "$d"/*.[ch]; do
        for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
            home=$(awk -v h="$h" '$1 == h {print $2; exit}' <<<"$where")
            [ -n "$home" ] || continue            # the runtime's, or the system's
            [ "$(rank "$home")" -le "$(rank "$d")" ] || bad="$bad $(basename "$f")->$home/$h"
        done
    done
    if [ -z "$bad" ]; then echo "ok - $d/ includes only its own folder's headers and those before it"
    else echo "not ok - $d/ includes headers of folders after it:$bad"; fi
done
