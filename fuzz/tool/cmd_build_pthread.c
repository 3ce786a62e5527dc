/*
 * cmd_build_pthread.c — `heisenfuzz build-pthread PROG.c... [-o PATH]
 * [--afl | --test TEST.c] [-- CFLAGS]`: an unmodified pthread program with a
 * main becomes a fuzzer of its schedules, or, with --test, a regression test
 * of one schedule (TEST.c's main, written by minimize --emit-test, linked
 * with the program and the runtime, no engine).
 *
 * The program is compiled as usual but with load/store tracing (every
 * shared access a preemption point), emulated thread-locals and the atomics
 * headers (pthread_atomics.h, and a stdatomic.h that wraps the compiler's);
 * then, in its objects only, the references to pthread_create,
 * main, printf, ... are renamed to the pthread layer's (OUT/lib/
 * pthread.syms), so libFuzzer's own threads keep the real pthreads.  The
 * objects are merged into one with their writable data gathered
 * (pthread.ld), so each run starts from the first values of the globals,
 * and linked with OUT/lib/libhf_pthread_ENGINE.a, which build.sh wrote
 * with the same optimisation and sanitizer as this tool.
 *
 * With --afl the fuzzer is AFL++'s, and PATH_mutator.so beside it is the
 * program's decision mutator library, for AFL_CUSTOM_MUTATOR_LIBRARY
 * (fuzz/engine/mutator_afl.c): without it AFL++ mutates the decision
 * bytes blindly.
 *
 * C++ sources (.cc, .cpp, .cxx, .c++, .C) compile with clang++, and the
 * program then links with clang++; what of libstdc++'s threads the
 * renaming reaches is in schedule/pthread_cxx.c.
 *
 * Bad input (a missing file, a file that is neither C nor C++, a file that
 * does not compile, no main) gets one line naming the problem and exit
 * status 2.  PATH is
 * written whole or not at all (a temporary file, then rename).
 */
#define _DEFAULT_SOURCE   /* PATH_MAX */
#include "commands.h"
#include "pthread_build.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { MAX_SOURCES = 64, MAX_FLAGS = 64 };

typedef struct options {
    const char *sources[MAX_SOURCES];
    int source_count;
    const char *output;
    bool afl;
    const char *test;          /* --test: this file's main instead of an engine */
    bool verbose;
    const char *cflags[MAX_FLAGS];
    int cflag_count;
    bool cxx;                  /* a source is C++: the program links with clang++ */
} options;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("heisenfuzz: build-pthread: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

static int parse(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) { i++; break; }
        if (!strcmp(a, "-o")) {
            if (++i >= argc) return hf_command_usage_error("build-pthread", "build-pthread: -o needs a path");
            o->output = argv[i];
        } else if (!strcmp(a, "--afl")) {
            o->afl = true;
        } else if (!strcmp(a, "--test")) {
            if (++i >= argc)
                return hf_command_usage_error("build-pthread", "build-pthread: --test needs a C file (a test "
                                                               "minimize --emit-test wrote)");
            o->test = argv[i];
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            o->verbose = true;
        } else if (a[0] == '-') {
            return hf_command_usage_error("build-pthread",
                                          "build-pthread: unknown option '%s' (compiler flags go after --)", a);
        } else {
            if (o->source_count == MAX_SOURCES) return fail("more than %d source files", MAX_SOURCES);
            o->sources[o->source_count++] = a;
        }
    }
    for (; i < argc; i++) {
        if (o->cflag_count == MAX_FLAGS) return fail("more than %d compiler flags", MAX_FLAGS);
        o->cflags[o->cflag_count++] = argv[i];
    }
    if (o->source_count == 0)
        return hf_command_usage_error("build-pthread", "build-pthread needs at least one C or C++ source file");
    if (o->test && o->afl)
        return hf_command_usage_error("build-pthread", "build-pthread: --test builds no fuzzer, so it takes no --afl");
    if (o->test && !hf_pthread_build_has_suffix(o->test, ".c")) return fail("%s: not a C source file (a name ending in .c)", o->test);
    if (o->test && access(o->test, R_OK) != 0) return fail("%s: %s", o->test, strerror(errno));
    for (int s = 0; s < o->source_count; s++) {
        const char *src = o->sources[s];
        if (hf_pthread_build_is_cxx(src)) o->cxx = true;
        else if (!hf_pthread_build_has_suffix(src, ".c"))
            return fail("%s: not a C or C++ source file (a name ending in .c, .cc, .cpp, .cxx, .c++ or .C)", src);
        if (access(src, R_OK) != 0) return fail("%s: %s", src, strerror(errno));
    }
    return 0;
}

/* Compiles the sources with `kit`, renames their references and merges
 * them into `merged` (in tmp, its objects named after `tag`).  Returns 0,
 * or the failure status after a message. */
static int compile_program(const options *o, hf_pthread_kit *kit, const char *tmp, const char *tag, char *merged,
                           size_t merged_size) {
    char log[PATH_MAX], objects[MAX_SOURCES][PATH_MAX];
    snprintf(log, sizeof log, "%s/compile.log", tmp);
    for (int s = 0; s < o->source_count; s++) {
        char *args[HF_PTHREAD_BUILD_MAX_ARGS];
        bool source_cxx = hf_pthread_build_is_cxx(o->sources[s]);
        int n = hf_pthread_build_compile_args(kit, source_cxx, args);
        for (int f = 0; f < o->cflag_count && n < HF_PTHREAD_BUILD_MAX_ARGS - 5; f++) args[n++] = (char *)o->cflags[f];
        snprintf(objects[s], sizeof objects[s], "%s/%s%d.o", tmp, tag, s);
        args[n++] = "-c";
        args[n++] = (char *)o->sources[s];
        args[n++] = "-o";
        args[n++] = objects[s];
        args[n] = NULL;
        int status = hf_pthread_build_run(args, kit->env, log, o->verbose);
        if (status != 0) {
            char message[1024];
            hf_pthread_build_first_error(log, message, sizeof message);
            if (status < 0) return fail("cannot run %s", args[0]);
            return fail("%s does not compile: %s", o->sources[s], message);
        }
        if (hf_pthread_build_rename(kit, objects[s], log) != 0) return fail("objcopy failed on %s", objects[s]);
    }
    snprintf(merged, merged_size, "%s/%sprogram.o", tmp, tag);
    char *inputs[MAX_SOURCES];
    for (int s = 0; s < o->source_count; s++) inputs[s] = objects[s];
    if (hf_pthread_build_merge(kit, inputs, o->source_count, merged, log) != 0) {
        char message[1024];
        hf_pthread_build_first_error(log, message, sizeof message);
        return fail("merging the objects failed: %s", message);
    }
    return 0;
}

/* Links the merged program (and a test's object, or NULL) with `kit` into
 * `temporary`.  Returns 0, or the failure status after a message. */
static int link_program(const options *o, hf_pthread_kit *kit, const char *tmp, const char *merged,
                        const char *test_object, const char *temporary) {
    char *args[HF_PTHREAD_BUILD_MAX_ARGS];
    int n = hf_pthread_build_link_args(kit, o->cxx, test_object != NULL, args);
    for (int f = 0; f < o->cflag_count && n < HF_PTHREAD_BUILD_MAX_ARGS - 16; f++) args[n++] = (char *)o->cflags[f];
    args[n++] = "-o";
    args[n++] = (char *)temporary;
    args[n++] = (char *)merged;
    if (test_object) args[n++] = (char *)test_object;
    hf_pthread_build_link_tail(kit, test_object != NULL, args, n);
    char link_log[PATH_MAX];
    snprintf(link_log, sizeof link_log, "%s/link.log", tmp);
    if (hf_pthread_build_run(args, kit->env, link_log, o->verbose) != 0) {
        char message[1024];
        hf_pthread_build_first_error(link_log, message, sizeof message);
        unlink(temporary);
        return fail("linking %s failed: %s", kit->library ? "the mutator library" : "the program", message);
    }
    return 0;
}

static int build(const options *o, hf_pthread_kit *kit, const char *tmp) {
    char log[PATH_MAX], merged[PATH_MAX];
    snprintf(log, sizeof log, "%s/compile.log", tmp);
    int status = compile_program(o, kit, tmp, "", merged, sizeof merged);
    if (status) return status;
    char nm_log[PATH_MAX];
    snprintf(nm_log, sizeof nm_log, "%s/nm.log", tmp);
    if (!hf_pthread_build_defines_main(kit, merged, nm_log))
        return fail("%s: no main function (build-pthread needs a program with a main)",
                    o->source_count == 1 ? o->sources[0] : "the sources");

    /* A test's main is the user's own code, not the program's: compiled
     * plainly against the runtime's headers, with no renaming. */
    char test_object[PATH_MAX];
    snprintf(test_object, sizeof test_object, "%s/test.o", tmp);
    if (o->test) {
        char include[PATH_MAX + 32];
        snprintf(include, sizeof include, "-I%s/include/heisenfuzz", kit->lib);
        char *args[HF_PTHREAD_BUILD_MAX_ARGS];
        int t = hf_pthread_build_plain_args(kit, false, args);
        args[t++] = include;
        for (int f = 0; f < o->cflag_count && t < HF_PTHREAD_BUILD_MAX_ARGS - 5; f++) args[t++] = (char *)o->cflags[f];
        args[t++] = "-c";
        args[t++] = (char *)o->test;
        args[t++] = "-o";
        args[t++] = test_object;
        args[t] = NULL;
        status = hf_pthread_build_run(args, NULL, log, o->verbose);
        if (status != 0) {
            char message[1024];
            hf_pthread_build_first_error(log, message, sizeof message);
            return status < 0 ? fail("cannot run %s", kit->cc) : fail("%s does not compile: %s", o->test, message);
        }
    }

    char output[PATH_MAX], temporary[PATH_MAX + 16];
    if (o->output) snprintf(output, sizeof output, "%s", o->output);
    else if (o->test) snprintf(output, sizeof output, "%.*s", (int)(strlen(o->test) - 2), o->test);
    else {
        const char *base = strrchr(o->sources[0], '/');
        base = base ? base + 1 : o->sources[0];
        const char *dot = strrchr(base, '.');
        snprintf(output, sizeof output, "%.*s_%s", (int)(dot - base), base, o->afl ? "afl" : "fuzzer");
    }
    snprintf(temporary, sizeof temporary, "%s.tmp%d", output, (int)getpid());
    status = link_program(o, kit, tmp, merged, o->test ? test_object : NULL, temporary);
    if (status) return status;

    /* AFL++'s fuzzer comes with its mutator library, PATH_mutator.so: the
     * program built again to be loaded into afl-fuzz.  The library is
     * written first; when it cannot be, the fuzzer is not written either. */
    char library[PATH_MAX + 16], library_temporary[PATH_MAX + 32];
    snprintf(library, sizeof library, "%s_mutator.so", output);
    snprintf(library_temporary, sizeof library_temporary, "%s.tmp%d", library, (int)getpid());
    if (o->afl) {
        char error[PATH_MAX + 128], library_merged[PATH_MAX];
        status = hf_pthread_build_as_mutator_library(kit, error, sizeof error) != 0 ? fail("%s", error) : 0;
        if (!status) status = compile_program(o, kit, tmp, "pic", library_merged, sizeof library_merged);
        if (!status) status = link_program(o, kit, tmp, library_merged, NULL, library_temporary);
        if (!status && rename(library_temporary, library) != 0)
            status = fail("cannot write %s: %s", library, strerror(errno));
        if (status) {
            unlink(temporary);
            unlink(library_temporary);
            return status;
        }
    }
    if (rename(temporary, output) != 0) {
        int e = errno;
        unlink(temporary);
        return fail("cannot write %s: %s", output, strerror(e));
    }
    if (o->test) printf("heisenfuzz: built %s (the test %s, no engine)\n", output, o->test);
    else if (o->afl) printf("heisenfuzz: built %s (afl) and its mutator library %s\n", output, library);
    else printf("heisenfuzz: built %s (libfuzzer)\n", output);
    return 0;
}

int hf_cmd_build_pthread(int argc, char **argv) {
    options o;
    int status = parse(argc, argv, &o);
    if (status) return status;
    hf_pthread_kit kit;
    char error[PATH_MAX + 128];
    if (hf_pthread_build_load(&kit, o.afl, o.verbose, error, sizeof error) != 0) return fail("%s", error);
    char tmp[PATH_MAX];
    if (hf_pthread_build_temp_dir(tmp, sizeof tmp, "build") != 0)
        return fail("cannot create a temporary directory: %s", strerror(errno));
    status = build(&o, &kit, tmp);
    hf_pthread_build_remove_dir(tmp);
    return status;
}
