#!/bin/bash
# test_cc.sh — `heisenfuzz cc` and `c++` as a project's compiler: a small
# project of its own (two C files, a header, a static library made with
# ar, a Makefile, outside the repository) built with `make CC="heisenfuzz
# cc"` becomes the fuzzer build-pthread would make of it.
#
#   - the buggy counter (a read-modify-write two threads race on, main
#     aborts on the lost update) is found by a seeded, bounded libFuzzer
#     run, and the crash replays as a failure; the fixed twin (a mutex,
#     -DFIXED) passes 5,000 executions
#   - determinism: the crash replays with the same trace hash in the fuzzer
#     make built and in build-pthread's of the same sources
#   - make's dependency files name the objects; -E and --version pass
#     through; configure's conftest builds with the plain compiler and runs,
#     and a configure-style script's checks pass
#   - a compile error is the compiler's diagnostics and status (no object
#     left); no main is one line and exit 2; a bad HEISENFUZZ_CC_ENGINE too
#   - a one-file C++ program (std::thread) through `heisenfuzz c++`
#   - HEISENFUZZ_CC_ENGINE=afl: the same make gives the fuzzer and its
#     mutator library, with which afl-fuzz finds the lost update; an
#     object compiled for libFuzzer is one line and exit 2
# Prints "ok - ..." / "not ok - ..." lines.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=$(cd "${HF_OUT:-out}" && pwd)
hf="$OUT/heisenfuzz"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check() {   # check CONDITION-STATUS MESSAGE
    if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi
}

# ---- the project ------------------------------------------------------------

mkdir -p "$work/project"
cd "$work/project" || exit 1
cat >counter.h <<'C'
void counter_add(int n);
int counter_get(void);
C
cat >counter.c <<'C'
#include "counter.h"
#include <pthread.h>
static int value;
#ifdef FIXED
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#endif
void counter_add(int n) {
#ifdef FIXED
    pthread_mutex_lock(&lock);
#endif
    int seen = value;   /* read, then write: another thread's add between them is lost */
    value = seen + n;
#ifdef FIXED
    pthread_mutex_unlock(&lock);
#endif
}
int counter_get(void) { return value; }
C
cat >main.c <<'C'
#include "counter.h"
#include <pthread.h>
#include <stdlib.h>
static void *work(void *arg) {
    (void)arg;
    counter_add(1);
    counter_add(1);
    return 0;
}
int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, work, 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    if (counter_get() != 4) abort();
    return 0;
}
C
cat >Makefile <<'MAKE'
CFLAGS = -O2 -g -Wall
prog: main.o libcounter.a
	$(CC) $(CFLAGS) -o $@ main.o -L. -lcounter -pthread
libcounter.a: counter.o
	ar rcs $@ $^
%.o: %.c
	$(CC) $(CFLAGS) $(CPPFLAGS) -MMD -c $< -o $@
-include *.d
MAKE
mkdir -p ../fixed && cp counter.h counter.c main.c Makefile ../fixed/

make CC="$hf cc" >make.log 2>&1
status=$?
[ $status -eq 0 ] && [ -x prog ] && [ -f libcounter.a ]
check $? "make CC=\"heisenfuzz cc\" builds the project (an archive made with ar, -L. -lcounter): status $status"
# make's rule is one logical line, continued with backslashes where long.
tr -d '\\\n' <main.d 2>/dev/null | grep -q '^main.o:.*counter.h'
check $? "-MMD's dependency file names the object make asked for: $(head -c 60 main.d 2>/dev/null)"
nm main.o 2>/dev/null | grep ' T hfp_main$' >/dev/null && nm main.o | grep ' U hfp_pthread_create$' >/dev/null
check $? "a compiled object has the program's main and pthread_create renamed to the layer's"

mkdir -p corpus
timeout 120 ./prog -seed=1 -runs=20000 -artifact_prefix="$work/project/" corpus >fuzz.log 2>&1
crash=$(ls "$work"/project/crash-* 2>/dev/null | head -1)
[ -n "$crash" ]
check $? "the fuzzer make built finds the lost update (-seed=1 -runs=20000)"
./prog --replay "$crash" >replay.log 2>&1
status=$?
[ $status -ne 0 ] && grep -q '^verdict: fail' replay.log
check $? "its crash replays as a failure: $(grep -m1 '^verdict:' replay.log)"
"$hf" replay ./prog "$crash" >tool_replay.log 2>&1
[ $? -eq 1 ] && grep -q '^verdict: fail' tool_replay.log
check $? "heisenfuzz replay ./prog replays it too (exit 1)"

"$hf" build-pthread main.c counter.c -o bp_prog -- -g >bp.log 2>&1
./bp_prog --replay "$crash" >bp_replay.log 2>&1
hash=$(grep -m1 '^trace-hash:' replay.log)
[ -n "$hash" ] && [ "$hash" = "$(grep -m1 '^trace-hash:' bp_replay.log)" ]
check $? "determinism: the same crash gives the same trace hash in build-pthread's fuzzer of the sources ($hash)"

cd "$work/fixed" || exit 1
make CC="$hf cc" CPPFLAGS=-DFIXED >make.log 2>&1
mkdir -p corpus
timeout 120 ./prog -seed=1 -runs=5000 -artifact_prefix="$work/fixed/" corpus >fuzz.log 2>&1
status=$?
[ $status -eq 0 ] && ! ls "$work"/fixed/crash-* >/dev/null 2>&1
check $? "the fixed twin (a mutex) passes 5,000 executions (status $status)"
[ -n "$crash" ] && ./prog --replay "$crash" 2>&1 | grep '^verdict: ok' >/dev/null
check $? "and the buggy one's crash"

# ---- the rest of a compiler's command line ----------------------------------

cd "$work" || exit 1
"$hf" cc -E project/counter.c >preprocessed.i 2>&1 && grep -q 'counter_add' preprocessed.i
check $? "-E prints the preprocessed source"
"$hf" cc --version >version.txt 2>&1 && grep -q 'clang version' version.txt
check $? "--version is clang's"
printf 'int main(void) { return 0; }\n' >conftest.c
"$hf" cc -O2 conftest.c -o conftest >/dev/null 2>&1 && ./conftest
check $? "configure's conftest builds with the plain compiler and runs to its end"
# What autoconf's first checks do, in its file names: link conftest.c to
# a.out and to conftest, run both; -c and -E it.
mkdir -p configured && cd configured || exit 1
cat >configure <<'SH'
#!/bin/sh
printf '#include <pthread.h>\nint main(void) { return 0; }\n' >conftest.c
$CC conftest.c && ./a.out && $CC -o conftest conftest.c -lpthread && ./conftest &&
    $CC -c conftest.c && [ -f conftest.o ] && $CC -E conftest.c >/dev/null && echo "CC = $CC" >config.mk
SH
chmod +x configure
CC="$hf cc" timeout 60 ./configure >configure.log 2>&1 && grep -q "heisenfuzz cc" config.mk
check $? "a configure-style script (a.out, conftest, run) passes with CC=\"heisenfuzz cc\""
cd "$work" || exit 1
# AFL++: the same make, with HEISENFUZZ_CC_ENGINE=afl, gives the fuzzer and
# its mutator library beside it; each object carries the library's compile,
# which the link takes out of the fuzzer.
if command -v afl-fuzz >/dev/null && [ -f "$OUT/lib/libhf_pthread_afl.a" ] && [ -f "$OUT/lib/libhf_pthread_mutator.a" ]; then
    mkdir -p "$work/afl" && cp "$work"/fixed/{counter.h,counter.c,main.c,Makefile} "$work/afl/"
    cd "$work/afl" || exit 1
    HEISENFUZZ_CC_ENGINE=afl make CC="$hf cc" >make.log 2>&1
    status=$?
    [ $status -eq 0 ] && [ -x prog ] && [ -f prog_mutator.so ] && objdump -h counter.o | grep -q hf_mutator_library &&
        ! objdump -h prog | grep -q hf_mutator_library && [ -z "$(ls ./*.pic* 2>/dev/null)" ] && [ "$(ls ./*.d | wc -l)" -eq 2 ]
    check $? "HEISENFUZZ_CC_ENGINE=afl make: prog and its mutator library prog_mutator.so (objects carry its compile, the fuzzer does not; status $status)"
    mkdir -p in && printf '\0' >in/calm
    env -u ASAN_OPTIONS -u UBSAN_OPTIONS -u MSAN_OPTIONS AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
        AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_BENCH_UNTIL_CRASH=1 AFL_CUSTOM_MUTATOR_ONLY=1 \
        AFL_CUSTOM_MUTATOR_LIBRARY="$work/afl/prog_mutator.so" \
        timeout 200 afl-fuzz -i in -o out -s 1 -t 1000 -E 2000 -V 120 -- ./prog >afl.log 2>&1
    crash=$(ls out/default/crashes/id:* 2>/dev/null | head -1)
    got=$([ -n "$crash" ] && ./prog --replay "$crash" 2>/dev/null | grep '^verdict:')
    [ "$got" = "verdict: fail abort() in main" ]
    check $? "afl-fuzz with that library (-s 1) finds the lost update within 2,000 executions and it replays (${crash##*/}: $got)"
    # main.o built for libFuzzer carries no library compile.
    "$hf" cc -c main.c -o libfuzzer_main.o 2>/dev/null
    err=$(HEISENFUZZ_CC_ENGINE=afl "$hf" cc libfuzzer_main.o -L. -lcounter -o never 2>&1)
    status=$?
    [ $status -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ ! -e never ] && [ ! -e never_mutator.so ]
    check $? "an object compiled for libFuzzer, linked for AFL++: one line, exit $status: $err"
    cd "$work/project" || exit 1
fi

help=$("$hf" cc --help)
[[ "$help" == "usage: heisenfuzz cc"* && "$help" == *HEISENFUZZ_CC_ENGINE=afl* && "$help" == *HEISENFUZZ_CC_PLAIN* ]]
check $? "cc --help says how it works: engine and configure by the environment"
"$hf" c++ --help | grep '^usage: heisenfuzz c++' >/dev/null
check $? "c++ --help"

# Assembly takes no C header and has no accesses to trace (zstd's
# huf_decompress_amd64.S): compiled with the recorded flags alone, and linked.
printf '#define VALUE 7\n.globl asm_value\n.text\nasm_value:\n    movl $VALUE, %%eax\n    ret\n.section .note.GNU-stack,"",@progbits\n' >value.S
printf 'int asm_value(void);\nint main(void) { return asm_value() == 7 ? 0 : 1; }\n' >uses_asm.c
"$hf" cc -c value.S -o value.o 2>asm.log && "$hf" cc uses_asm.c value.o -o uses_asm 2>>asm.log &&
    ./uses_asm --replay /dev/null 2>/dev/null | grep -q '^verdict: ok'
check $? "an assembly source (.S) compiles and links into the fuzzer: $(head -1 asm.log)"

printf 'int main(void) { return undeclared; }\n' >broken.c
"$hf" cc -c broken.c -o broken.o 2>err.log
status=$?
[ $status -eq 1 ] && grep -q "broken.c:1:.*error: use of undeclared identifier" err.log && [ ! -e broken.o ] &&
    [ -z "$(ls broken.o.tmp* 2>/dev/null)" ]
check $? "a compile error: the compiler's diagnostics and its status ($status), no object left"
printf 'int helper(void) { return 1; }\n' >nomain.c
err=$("$hf" cc nomain.c -o nomain 2>&1)
status=$?
[ $status -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"no main function"* ]] &&
    [ ! -e nomain ]
check $? "no main: exit $status, one line: $err"
err=$(HEISENFUZZ_CC_ENGINE=gcc "$hf" cc -c project/counter.c -o never.o 2>&1)
[ $? -eq 2 ] && [[ "$err" == *"not libfuzzer or afl"* ]] && [ ! -e never.o ]
check $? "an unknown HEISENFUZZ_CC_ENGINE: one line, exit 2"

# ---- C++ --------------------------------------------------------------------

cat >race.cpp <<'CPP'
#include <cstdlib>
#include <thread>
static int hits;
static void bump() { int seen = hits; hits = seen + 1; }
int main() {
    std::thread a(bump), b(bump);
    a.join();
    b.join();
    if (hits != 2) std::abort();
}
CPP
"$hf" c++ -O2 race.cpp -o race >cxx.log 2>&1
status=$?
mkdir -p cxx_corpus
[ $status -eq 0 ] && (timeout 120 ./race -seed=1 -runs=20000 -artifact_prefix="$work/cxx-" cxx_corpus >cxx_fuzz.log 2>&1)
ls "$work"/cxx-crash-* >/dev/null 2>&1
check $? "heisenfuzz c++ race.cpp: its fuzzer finds the lost update of std::thread (build status $status)"
