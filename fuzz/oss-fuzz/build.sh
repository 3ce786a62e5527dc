#!/bin/bash -eu
# build.sh — OSS-Fuzz's build entry for heisenfuzz.  The repository's own
# build.sh sees OSS-Fuzz's variables ($CC, $CFLAGS, $LIB_FUZZING_ENGINE,
# $OUT...) and builds into $OUT the fixed targets' fuzzers and the fuzzers
# of the runtime's own surfaces (fuzz/self/), with their seeds,
# dictionaries and options.  The *_buggy demo targets are not shipped.
cd "$SRC/heisenfuzz"
./build.sh
