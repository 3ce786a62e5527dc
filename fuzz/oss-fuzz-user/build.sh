#!/bin/bash -eu
# build.sh — OSS-Fuzz's build entry of a user's project (the worked
# example: wallet.c).  heisenfuzz is installed first, compiled with
# OSS-Fuzz's $CC and $CFLAGS (sanitizer and coverage included), then each
# target file is compiled and linked with $LIB_FUZZING_ENGINE into $OUT.
# A fuzzer runs the target it is named after (NAME_fuzzer), so one file
# defining NAME and NAME_buggy ships NAME alone.
hf_prefix="$WORK/heisenfuzz"
"$SRC/heisenfuzz/build.sh" --install "$hf_prefix"
export PKG_CONFIG_PATH="$hf_prefix/lib/pkgconfig"

cd "$SRC/wallet"
# shellcheck disable=SC2046
$CC $CFLAGS $(pkg-config --cflags heisenfuzz-oss-fuzz) -c wallet.c -o "$WORK/wallet.o"
# shellcheck disable=SC2046
$CXX $CXXFLAGS "$WORK/wallet.o" $(pkg-config --libs heisenfuzz-oss-fuzz) $LIB_FUZZING_ENGINE -o "$OUT/wallet_fuzzer"
