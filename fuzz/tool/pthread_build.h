/*
 * pthread_build.h — the steps that make a pthread program's code into a
 * fuzzer of its schedules, shared by `heisenfuzz build-pthread` (which runs
 * them all on a list of sources) and `heisenfuzz cc` / `c++` (which runs
 * them one compiler invocation at a time, for a project's own build).
 *
 * The layer's files are those build.sh's pthread_lib() wrote beside the
 * tool (OUT/lib): the engine's archive, pthread.syms, pthread.ld, the
 * atomics header and the flags the program is compiled with.
 */
#ifndef HF_PTHREAD_BUILD_H
#define HF_PTHREAD_BUILD_H

#include <limits.h>   /* PATH_MAX: its includer defines _DEFAULT_SOURCE */
#include <stdbool.h>
#include <stddef.h>

/* The commands' argument arrays: hf_pthread_build_compile_args and
 * hf_pthread_build_link_args write at most HF_PTHREAD_BUILD_PREFIX words,
 * hf_pthread_build_link_tail HF_PTHREAD_BUILD_TAIL. */
enum { HF_PTHREAD_BUILD_MAX_ARGS = 512, HF_PTHREAD_BUILD_PREFIX = 64, HF_PTHREAD_BUILD_TAIL = 10 };

typedef struct hf_pthread_kit {
    bool afl;                   /* AFL++'s compilers and archive, else libFuzzer's */
    bool library;               /* AFL++'s mutator library (hf_pthread_build_as_mutator_library) */
    bool verbose;               /* show each command on stderr */
    char lib[PATH_MAX];
    char archive[PATH_MAX], mutator_archive[PATH_MAX], syms[PATH_MAX], script[PATH_MAX], header[PATH_MAX], std_dir[PATH_MAX];
    char recorded[1024];        /* pthread.cflags: the runtime's sanitizer and -O0 */
    const char *cc, *cxx;       /* the drivers: clang, clang++ (afl-clang-fast[++]) */
    char *const *env;           /* added to the compilers' environment (AFL++'s mode), or NULL */
    char words[1024];           /* recorded, split into words by hf_pthread_build_* (one user at a time) */
} hf_pthread_kit;

/* Whether `s` ends in `suffix`. */
bool hf_pthread_build_has_suffix(const char *s, const char *suffix);
/* Whether a source file is C++ by its suffix (.cc, .cpp, .cxx, .c++, .C,
 * and .ii, preprocessed C++): it compiles with clang++, and the program
 * then links with clang++. */
bool hf_pthread_build_is_cxx(const char *path);

/* Fills *kit for the layer beside this program (its directory's lib/).
 * Returns 0, or -1 with a one-line reason in `error`. */
int hf_pthread_build_load(hf_pthread_kit *kit, bool afl, bool verbose, char *error, size_t size);

/* Turns an AFL++ kit (loaded with afl) into the kit of the program's own
 * decision mutator library (fuzz/engine/mutator_afl.c), which afl-fuzz
 * loads and which runs the program itself: the sources compile again,
 * position-independent, with plain clang and clang's own trace-pc-guard
 * (AFL++'s pass would want AFL++'s runtime), and link -shared with
 * OUT/lib/libhf_pthread_mutator.a.  Returns 0, or -1 with a reason in
 * `error` when that archive is missing. */
int hf_pthread_build_as_mutator_library(hf_pthread_kit *kit, char *error, size_t size);

/* Runs args[0] (found on PATH) with kit->env-like `env` (NULL-terminated,
 * or NULL) added, its stdout and stderr into `log` (NULL: inherited).
 * Returns its exit status, or -1 when it could not run or was killed. */
int hf_pthread_build_run(char *const *args, char *const *env, const char *log, bool verbose);

/* The first line of the log that reads like an error, else its first. */
void hf_pthread_build_first_error(const char *log, char *out, size_t size);

/* Starts a compile command in args: the driver (C++'s when `cxx`), the
 * recorded flags and the layer's (tracing, emulated TLS, the atomics
 * headers).  The caller appends its flags, -c SOURCE -o OBJECT and NULL.
 * Returns the number of words written. */
int hf_pthread_build_compile_args(hf_pthread_kit *kit, bool cxx, char **args);

/* Renames, in the object, the program's references to the layer's
 * (pthread.syms).  Renaming twice changes nothing: no new name is an old
 * one.  Returns 0 or the tool's failure status. */
int hf_pthread_build_rename(const hf_pthread_kit *kit, const char *object, const char *log);

/* `ld -r` of the inputs (objects, archives, ld options) into `merged`, with
 * the writable data gathered (pthread.ld).  Returns ld's exit status. */
int hf_pthread_build_merge(const hf_pthread_kit *kit, char *const *inputs, int count, const char *merged, const char *log);

/* True when the merged object defines the program's main (renamed). */
bool hf_pthread_build_defines_main(const hf_pthread_kit *kit, const char *merged, const char *nm_log);

/* Starts a command with the driver (C++'s when `cxx`) and the recorded
 * flags alone: what a regression test's own main is compiled with. */
int hf_pthread_build_plain_args(hf_pthread_kit *kit, bool cxx, char **args);

/* Starts the link command of a fuzzer (or, with `test`, of a regression
 * test: the program's coverage callbacks but no engine's main; or, with a
 * mutator library's kit, of that shared library): the linker
 * (C++'s when `cxx`), the recorded flags.  The caller appends its flags, -o
 * OUTPUT and the merged object, then hf_pthread_build_link_tail.  Returns the count. */
int hf_pthread_build_link_args(hf_pthread_kit *kit, bool cxx, bool test, char **args);

/* Appends what every fuzzer links after the program: the entry points the
 * engines refer to weakly (a mutator library's: afl-fuzz's), the layer's
 * archive, -lm -lpthread; and NULL. */
int hf_pthread_build_link_tail(const hf_pthread_kit *kit, bool test, char **args, int n);

/* A temporary directory under $TMPDIR (or /tmp) into `dir`; 0 or -1. */
int hf_pthread_build_temp_dir(char *dir, size_t size, const char *name);

/* Removes the directory and the files in it (it holds no directories). */
void hf_pthread_build_remove_dir(const char *dir);

#endif
