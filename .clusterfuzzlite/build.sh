#!/bin/bash -eu
# build.sh — ClusterFuzzLite's build entry: the repository's build.sh under
# OSS-Fuzz's variables (see fuzz/oss-fuzz/build.sh).
cd "$SRC/heisenfuzz"
./build.sh
