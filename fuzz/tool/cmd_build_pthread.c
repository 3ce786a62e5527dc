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
 * C++ sources (.cc, .cpp, .cxx, .c++, .C) compile with clang++, and the
 * program then links with clang++; what of libstdc++'s threads the
 * renaming reaches is in schedule/pthread_cxx.c.
 *
 * Bad input (a missing file, a file that is neither C nor C++, a file that
 * does not compile, no main) gets one line naming the problem and exit
 * status 2.  PATH is
 * written whole or not at all (a temporary file, then rename).
 */
#define _DEFAULT_SOURCE   /* mkdtemp */
#include "commands.h"
#include "tool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MAX_SOURCES = 64, MAX_FLAGS = 64, MAX_ARGS = 256 };

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

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static bool is_cxx(const char *path) {
    static const char *const cxx[] = {".cc", ".cpp", ".cxx", ".c++", ".C"};
    for (size_t k = 0; k < sizeof cxx / sizeof *cxx; k++)
        if (ends_with(path, cxx[k])) return true;
    return false;
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
    if (o->test && !ends_with(o->test, ".c")) return fail("%s: not a C source file (a name ending in .c)", o->test);
    if (o->test && access(o->test, R_OK) != 0) return fail("%s: %s", o->test, strerror(errno));
    for (int s = 0; s < o->source_count; s++) {
        const char *src = o->sources[s];
        if (is_cxx(src)) o->cxx = true;
        else if (!ends_with(src, ".c"))
            return fail("%s: not a C or C++ source file (a name ending in .c, .cc, .cpp, .cxx, .c++ or .C)", src);
        if (access(src, R_OK) != 0) return fail("%s: %s", src, strerror(errno));
    }
    return 0;
}

/* Runs argv[0] (found on PATH) with `env` (NULL-terminated, or NULL) added
 * to the environment, its stdout and stderr into `log` (NULL: inherited).
 * Returns its exit status, or -1 when it could not run. */
static int run_tool(char *const *args, char *const *env, const char *log, bool verbose) {
    if (verbose) {
        for (int i = 0; args[i]; i++) fprintf(stderr, "%s%s", i ? " " : "+ ", args[i]);
        fputc('\n', stderr);
    }
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (log) {
            int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0) _exit(127);
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        for (int i = 0; env && env[i]; i++) putenv(env[i]);
        execvp(args[0], args);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The first line of `path` that reads like an error (a compiler's, or the
 * linker's "undefined reference"), else its first line.  clang's closing
 * "linker command failed" says nothing the line before it does not. */
static bool reads_like_error(const char *line) {
    return (strstr(line, "error") || strstr(line, "undefined reference") || strstr(line, "multiple definition")) &&
           !strstr(line, "linker command failed");
}

static void first_error(const char *path, char *out, size_t size) {
    snprintf(out, size, "(no message)");
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[1024];
    bool first = true;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (reads_like_error(line)) {
            snprintf(out, size, "%s", line);
            break;
        }
        if (first) snprintf(out, size, "%s", line);
        first = false;
    }
    fclose(f);
}

/* Splits `text` (the flags build.sh recorded) into words appended to args. */
static int add_words(char *text, char **args, int n) {
    for (char *w = strtok(text, " \t\n"); w && n < MAX_ARGS - 1; w = strtok(NULL, " \t\n")) args[n++] = w;
    return n;
}

/* True when `nm` lists hfp_main (the program's main, renamed) as defined. */
static bool defines_main(const char *nm_log) {
    FILE *f = fopen(nm_log, "r");
    if (!f) return false;
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        char addr[64], type[8], name[512];
        if (sscanf(line, "%63s %7s %511s", addr, type, name) == 3 && !strcmp(name, "hfp_main") &&
            (type[0] == 'T' || type[0] == 't'))
            found = true;
    }
    fclose(f);
    return found;
}

static void remove_dir(const char *dir, int objects) {
    char path[PATH_MAX];
    static const char *const names[] = {"program.o", "test.o", "compile.log", "nm.log", "link.log", "tool.log"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        unlink(path);
    }
    for (int s = 0; s < objects; s++) {
        snprintf(path, sizeof path, "%s/%d.o", dir, s);
        unlink(path);
    }
    rmdir(dir);
}

static int build(const options *o, const char *lib, const char *tmp) {
    const char *engine = o->afl ? "afl" : "libfuzzer";
    char archive[PATH_MAX], syms[PATH_MAX], script[PATH_MAX], header[PATH_MAX], flags_path[PATH_MAX];
    char std_dir[PATH_MAX];
    snprintf(archive, sizeof archive, "%s/libhf_pthread_%s.a", lib, engine);
    snprintf(syms, sizeof syms, "%s/pthread.syms", lib);
    snprintf(script, sizeof script, "%s/pthread.ld", lib);
    snprintf(header, sizeof header, "%s/include/pthread_atomics.h", lib);
    snprintf(std_dir, sizeof std_dir, "%s/include/std", lib);
    snprintf(flags_path, sizeof flags_path, "%s/pthread.cflags", lib);
    if (access(archive, R_OK) != 0)
        return fail("no %s (build it with ./build.sh%s)", archive, o->afl ? "; AFL++ needs afl-clang-fast and no sanitizer" : "");
    char recorded[1024] = "";
    FILE *ff = fopen(flags_path, "r");
    if (!ff || !fgets(recorded, sizeof recorded, ff)) {
        if (ff) fclose(ff);
        return fail("cannot read %s (rebuild with ./build.sh)", flags_path);
    }
    fclose(ff);

    /* AFL++ keeps clang's own load/store tracing only in its LLVM-NATIVE
     * mode, where its coverage is clang's trace-pc-guard. */
    const char *cc = o->afl ? "afl-clang-fast" : "clang";
    /* C++ sources compile, and the program links, with the C++ driver (its
     * runtime, libstdc++, linked as it would be without the fuzzer). */
    const char *cxx = o->afl ? "afl-clang-fast++" : "clang++";
    const char *linker = o->cxx ? cxx : cc;
    static char *afl_env[] = {"AFL_LLVM_INSTRUMENT=LLVM-NATIVE", "AFL_QUIET=1", NULL};
    char *const *cc_env = o->afl ? afl_env : NULL;
    /* libFuzzer's -fsanitize=fuzzer-no-link but for stack-depth, whose
     * thread-local would become an emulated one libFuzzer does not define. */
    const char *coverage = o->afl ? "-fsanitize-coverage=trace-pc-guard"
                                  : "-fsanitize-coverage=inline-8bit-counters,indirect-calls,trace-cmp,pc-table";
    char log[PATH_MAX], objects[MAX_SOURCES][PATH_MAX];
    snprintf(log, sizeof log, "%s/compile.log", tmp);
    for (int s = 0; s < o->source_count; s++) {
        char words[1024];
        snprintf(words, sizeof words, "%s", recorded);
        char *args[MAX_ARGS];
        int n = 0;
        bool source_cxx = is_cxx(o->sources[s]);
        args[n++] = (char *)(source_cxx ? cxx : cc);
        n = add_words(words, args, n);
        /* clang 14 defaults to C++14, which has no std::scoped_lock; a -std
         * among CFLAGS comes later and wins. */
        if (source_cxx) args[n++] = "-std=gnu++17";
        /* UBSan's vptr check reads a process-wide cache of the runtime's,
         * inline, with loads the other builds do not make: under UBSan the
         * calm run would see other racing sites, and POS, SURW and the
         * ordering constraints other runs (the rest of UBSan stays on). */
        if (source_cxx) args[n++] = "-fno-sanitize=vptr";
        args[n++] = (char *)coverage;
        args[n++] = "-fsanitize-coverage=trace-loads,trace-stores";
        /* MSan's instrumentation reads its own thread-locals, which cannot
         * be emulated: under MSan a __thread variable is one per process. */
        if (!strstr(recorded, "-fsanitize=memory")) args[n++] = "-femulated-tls";
        args[n++] = "-include";
        args[n++] = header;
        args[n++] = "-isystem";
        args[n++] = std_dir;
        for (int f = 0; f < o->cflag_count && n < MAX_ARGS - 5; f++) args[n++] = (char *)o->cflags[f];
        snprintf(objects[s], sizeof objects[s], "%s/%d.o", tmp, s);
        args[n++] = "-c";
        args[n++] = (char *)o->sources[s];
        args[n++] = "-o";
        args[n++] = objects[s];
        args[n] = NULL;
        int status = run_tool(args, cc_env, log, o->verbose);
        if (status != 0) {
            char message[1024];
            first_error(log, message, sizeof message);
            if (status < 0) return fail("cannot run %s", source_cxx ? cxx : cc);
            return fail("%s does not compile: %s", o->sources[s], message);
        }
        char *rename_args[] = {"objcopy", "--redefine-syms", syms, objects[s], NULL};
        if (run_tool(rename_args, NULL, log, o->verbose) != 0) return fail("objcopy failed on %s", objects[s]);
    }

    char merged[PATH_MAX];
    snprintf(merged, sizeof merged, "%s/program.o", tmp);
    char *ld_args[MAX_SOURCES + 8];
    int n = 0;
    ld_args[n++] = "ld";
    ld_args[n++] = "-r";
    ld_args[n++] = "-T";
    ld_args[n++] = script;
    ld_args[n++] = "-o";
    ld_args[n++] = merged;
    for (int s = 0; s < o->source_count; s++) ld_args[n++] = objects[s];
    ld_args[n] = NULL;
    if (run_tool(ld_args, NULL, log, o->verbose) != 0) {
        char message[1024];
        first_error(log, message, sizeof message);
        return fail("merging the objects failed: %s", message);
    }
    char nm_log[PATH_MAX];
    snprintf(nm_log, sizeof nm_log, "%s/nm.log", tmp);
    char *nm_args[] = {"nm", "--defined-only", merged, NULL};
    if (run_tool(nm_args, NULL, nm_log, o->verbose) != 0 || !defines_main(nm_log))
        return fail("%s: no main function (build-pthread needs a program with a main)",
                    o->source_count == 1 ? o->sources[0] : "the sources");

    /* A test's main is the user's own code, not the program's: compiled
     * plainly against the runtime's headers, with no renaming. */
    char test_object[PATH_MAX];
    snprintf(test_object, sizeof test_object, "%s/test.o", tmp);
    if (o->test) {
        char words[1024], include[PATH_MAX + 32];
        snprintf(words, sizeof words, "%s", recorded);
        snprintf(include, sizeof include, "-I%s/include/heisenfuzz", lib);
        char *args[MAX_ARGS];
        int t = 0;
        args[t++] = (char *)cc;
        t = add_words(words, args, t);
        args[t++] = include;
        for (int f = 0; f < o->cflag_count && t < MAX_ARGS - 5; f++) args[t++] = (char *)o->cflags[f];
        args[t++] = "-c";
        args[t++] = (char *)o->test;
        args[t++] = "-o";
        args[t++] = test_object;
        args[t] = NULL;
        int status = run_tool(args, NULL, log, o->verbose);
        if (status != 0) {
            char message[1024];
            first_error(log, message, sizeof message);
            return status < 0 ? fail("cannot run %s", cc) : fail("%s does not compile: %s", o->test, message);
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
    char words[1024];
    snprintf(words, sizeof words, "%s", recorded);
    char *args[MAX_ARGS];
    n = 0;
    args[n++] = (char *)linker;
    n = add_words(words, args, n);
    /* A test keeps the program's coverage instrumentation, so that its
     * preemption points are the fuzzer's, and libFuzzer's callbacks for it,
     * but not libFuzzer's main. */
    args[n++] = o->test ? "-fsanitize=fuzzer-no-link" : "-fsanitize=fuzzer";
    for (int f = 0; f < o->cflag_count && n < MAX_ARGS - 10; f++) args[n++] = (char *)o->cflags[f];
    args[n++] = "-o";
    args[n++] = temporary;
    args[n++] = merged;
    if (o->test) {
        args[n++] = test_object;
    } else {
        /* The engines' drivers refer to these weakly (and the harness to
         * hf_fuzzer_start), which pulls nothing out of an archive. */
        args[n++] = "-Wl,-u,LLVMFuzzerInitialize";
        args[n++] = "-Wl,-u,hf_fuzzer_start";
        args[n++] = "-Wl,-u,LLVMFuzzerTestOneInput";
    }
    args[n++] = archive;
    args[n++] = "-lm";
    args[n++] = "-lpthread";
    args[n] = NULL;
    char link_log[PATH_MAX];
    snprintf(link_log, sizeof link_log, "%s/link.log", tmp);
    if (run_tool(args, cc_env, link_log, o->verbose) != 0) {
        char message[1024];
        first_error(link_log, message, sizeof message);
        unlink(temporary);
        return fail("linking failed: %s", message);
    }
    if (rename(temporary, output) != 0) {
        int e = errno;
        unlink(temporary);
        return fail("cannot write %s: %s", output, strerror(e));
    }
    if (o->test) printf("heisenfuzz: built %s (the test %s, no engine)\n", output, o->test);
    else printf("heisenfuzz: built %s (%s)\n", output, engine);
    return 0;
}

int hf_cmd_build_pthread(int argc, char **argv) {
    options o;
    int status = parse(argc, argv, &o);
    if (status) return status;
    char exe[PATH_MAX], lib[PATH_MAX + 8];
    if (hf_exe_dir(exe, sizeof exe) != 0) return fail("cannot find the directory of this program");
    snprintf(lib, sizeof lib, "%s/lib", exe);
    const char *base = getenv("TMPDIR");
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s/heisenfuzz-build-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmp)) return fail("cannot create a temporary directory in %s: %s", base ? base : "/tmp", strerror(errno));
    status = build(&o, lib, tmp);
    remove_dir(tmp, o.source_count);
    return status;
}
