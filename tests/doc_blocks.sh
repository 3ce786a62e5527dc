# doc_blocks.sh — runs the code a README shows, so that what a reader copies
# works (sourced by test_docs.sh and test_install.sh).
#
# A fenced block whose info string is `LANG TAG` (```sh tour, ```c
# tutorial:ledger.c, ```text tutorial-output) is part of a test:
#   doc_block FILE INFO        prints the block's lines
#   doc_run FILE TAG LOG       runs each line of the ```sh TAG block in the
#                              current directory, one `ok`/`not ok` per line;
#                              a line's exit status must be the N of an
#                              "exit N" in its comment, else 0; all output
#                              is appended to LOG
#   doc_expect FILE TAG LOG    every line of the ```text TAG block appears
#                              in LOG, as a fixed string

doc_name() {   # FILE: its folder and name, as the checks name it
    local folder
    folder=$(basename "$(dirname "$1")")
    case $folder in schedule|targets|fuzz|tests) echo "$folder/$(basename "$1")" ;; *) basename "$1" ;; esac
}

doc_block() {   # FILE INFO
    awk -v info="$2" '$0 == "```" info { inside = 1; next } /^```/ { inside = 0 } inside' "$1"
}

doc_run() {   # FILE TAG LOG
    local file=$1 tag=$2 log=$3 line command want status
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        command=${line%%  #*}
        command=${command%"${command##*[![:space:]]}"}
        want=0
        [[ $line =~ \#.*exit\ ([0-9]+) ]] && want=${BASH_REMATCH[1]}
        bash -c "$command" >>"$log" 2>&1 </dev/null
        status=$?
        if [ "$status" -eq "$want" ]; then echo "ok - $(doc_name "$file") $tag: $command (exit $status)"
        else echo "not ok - $(doc_name "$file") $tag: $command (exit $status, expected $want)"; fi
    done < <(doc_block "$file" "sh $tag")
}

doc_expect() {   # FILE TAG LOG
    local file=$1 tag=$2 log=$3 line
    while IFS= read -r line; do
        if grep -qF -- "$line" "$log"; then echo "ok - $(doc_name "$file") $tag shows: $line"
        else echo "not ok - $(doc_name "$file") $tag shows a line the run did not print: $line"; fi
    done < <(doc_block "$file" "text $tag")
}
