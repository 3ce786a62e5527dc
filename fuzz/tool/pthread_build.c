/*
 * pthread_build.c — the steps of building a pthread program with the layer
 * (pthread_build.h): how its code is compiled, renamed, merged and linked.
 * The commands decide which steps run on what, and how a failure reads.
 */
#define _DEFAULT_SOURCE   /* mkdtemp, putenv */
#include "pthread_build.h"
#include "tool.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

bool hf_pthread_build_has_suffix(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

bool hf_pthread_build_is_cxx(const char *path) {
    static const char *const cxx[] = {".cc", ".cpp", ".cxx", ".c++", ".C", ".ii"};
    for (size_t k = 0; k < sizeof cxx / sizeof *cxx; k++)
        if (hf_pthread_build_has_suffix(path, cxx[k])) return true;
    return false;
}

int hf_pthread_build_load(hf_pthread_kit *kit, bool afl, bool verbose, char *error, size_t size) {
    assert(kit && error && size > 0);
    memset(kit, 0, sizeof *kit);
    kit->afl = afl;
    kit->verbose = verbose;
    char exe[PATH_MAX];
    if (hf_exe_dir(exe, sizeof exe) != 0) {
        snprintf(error, size, "cannot find the directory of this program");
        return -1;
    }
    snprintf(kit->lib, sizeof kit->lib, "%.*s/lib", PATH_MAX - 8, exe);
    const char *engine = afl ? "afl" : "libfuzzer";
    snprintf(kit->archive, sizeof kit->archive, "%.*s/libhf_pthread_%s.a", PATH_MAX - 32, kit->lib, engine);
    snprintf(kit->mutator_archive, sizeof kit->mutator_archive, "%.*s/libhf_pthread_mutator.a", PATH_MAX - 32, kit->lib);
    snprintf(kit->syms, sizeof kit->syms, "%.*s/pthread.syms", PATH_MAX - 32, kit->lib);
    snprintf(kit->script, sizeof kit->script, "%.*s/pthread.ld", PATH_MAX - 32, kit->lib);
    snprintf(kit->header, sizeof kit->header, "%.*s/include/pthread_atomics.h", PATH_MAX - 32, kit->lib);
    snprintf(kit->std_dir, sizeof kit->std_dir, "%.*s/include/std", PATH_MAX - 32, kit->lib);
    if (access(kit->archive, R_OK) != 0) {
        snprintf(error, size, "no %s (build it with ./build.sh%s)", kit->archive,
                 afl ? "; AFL++ needs afl-clang-fast and no sanitizer" : "");
        return -1;
    }
    char flags_path[PATH_MAX];
    snprintf(flags_path, sizeof flags_path, "%.*s/pthread.cflags", PATH_MAX - 32, kit->lib);
    FILE *f = fopen(flags_path, "r");
    if (!f || !fgets(kit->recorded, sizeof kit->recorded, f)) {
        if (f) fclose(f);
        snprintf(error, size, "cannot read %s (rebuild with ./build.sh)", flags_path);
        return -1;
    }
    fclose(f);
    /* AFL++ keeps clang's own load/store tracing only in its LLVM-NATIVE
     * mode, where its coverage is clang's trace-pc-guard. */
    kit->cc = afl ? "afl-clang-fast" : "clang";
    /* C++ sources compile, and the program links, with the C++ driver (its
     * runtime, libstdc++, linked as it would be without the fuzzer). */
    kit->cxx = afl ? "afl-clang-fast++" : "clang++";
    static char *afl_env[] = {"AFL_LLVM_INSTRUMENT=LLVM-NATIVE", "AFL_QUIET=1", NULL};
    kit->env = afl ? afl_env : NULL;
    return 0;
}

int hf_pthread_build_as_mutator_library(hf_pthread_kit *kit, char *error, size_t size) {
    assert(kit && kit->afl && !kit->library);
    if (access(kit->mutator_archive, R_OK) != 0) {
        snprintf(error, size, "no %s (build it with ./build.sh; AFL++ needs afl-clang-fast and no sanitizer)",
                 kit->mutator_archive);
        return -1;
    }
    kit->library = true;
    kit->cc = "clang";
    kit->cxx = "clang++";
    kit->env = NULL;
    return 0;
}

int hf_pthread_build_run(char *const *args, char *const *env, const char *log, bool verbose) {
    assert(args && args[0]);
    if (verbose) {
        for (int i = 0; args[i]; i++) fprintf(stderr, "%s%s", i ? " " : "+ ", args[i]);
        fputc('\n', stderr);
    }
    fflush(NULL);   /* nothing buffered is written twice by the child */
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

/* clang's closing "linker command failed" says nothing the line before it
 * does not. */
static bool reads_like_error(const char *line) {
    return (strstr(line, "error") || strstr(line, "undefined reference") || strstr(line, "multiple definition")) &&
           !strstr(line, "linker command failed");
}

void hf_pthread_build_first_error(const char *path, char *out, size_t size) {
    assert(out && size > 0);
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

/* Splits the recorded flags into words appended to args (the words live in
 * kit->words until the next call). */
static int add_recorded(hf_pthread_kit *kit, char **args, int n) {
    snprintf(kit->words, sizeof kit->words, "%s", kit->recorded);
    for (char *w = strtok(kit->words, " \t\n"); w && n < HF_PTHREAD_BUILD_PREFIX - 16; w = strtok(NULL, " \t\n")) args[n++] = w;
    return n;
}

int hf_pthread_build_compile_args(hf_pthread_kit *kit, bool cxx, char **args) {
    assert(kit && args);
    int n = hf_pthread_build_plain_args(kit, cxx, args);
    /* clang 14 defaults to C++14, which has no std::scoped_lock; a -std
     * among the user's flags comes later and wins. */
    if (cxx) args[n++] = "-std=gnu++17";
    /* UBSan's vptr check reads a process-wide cache of the runtime's,
     * inline, with loads the other builds do not make: under UBSan the
     * calm run would see other racing sites, and POS, SURW and the
     * ordering constraints other runs (the rest of UBSan stays on). */
    if (cxx) args[n++] = "-fno-sanitize=vptr";
    /* libFuzzer's -fsanitize=fuzzer-no-link but for stack-depth, whose
     * thread-local would become an emulated one libFuzzer does not define. */
    args[n++] = kit->afl ? "-fsanitize-coverage=trace-pc-guard"
                         : "-fsanitize-coverage=inline-8bit-counters,indirect-calls,trace-cmp,pc-table";
    args[n++] = "-fsanitize-coverage=trace-loads,trace-stores";
    /* MSan's instrumentation reads its own thread-locals, which cannot be
     * emulated: under MSan a __thread variable is one per process. */
    if (!strstr(kit->recorded, "-fsanitize=memory")) args[n++] = "-femulated-tls";
    if (kit->library) args[n++] = "-fPIC";
    args[n++] = "-include";
    args[n++] = kit->header;
    args[n++] = "-isystem";
    args[n++] = kit->std_dir;
    assert(n < HF_PTHREAD_BUILD_PREFIX);
    return n;
}

int hf_pthread_build_rename(const hf_pthread_kit *kit, const char *object, const char *log) {
    char *args[] = {"objcopy", "--redefine-syms", (char *)kit->syms, (char *)object, NULL};
    return hf_pthread_build_run(args, NULL, log, kit->verbose);
}

int hf_pthread_build_merge(const hf_pthread_kit *kit, char *const *inputs, int count, const char *merged, const char *log) {
    assert(count >= 0);
    char **args = malloc((size_t)(count + 8) * sizeof *args);   /* a project's link may name many objects */
    if (!args) return -1;
    int n = 0;
    args[n++] = "ld";
    args[n++] = "-r";
    args[n++] = "-T";
    args[n++] = (char *)kit->script;
    args[n++] = "-o";
    args[n++] = (char *)merged;
    for (int i = 0; i < count; i++) args[n++] = inputs[i];
    args[n] = NULL;
    int status = hf_pthread_build_run(args, NULL, log, kit->verbose);
    free(args);
    return status;
}

bool hf_pthread_build_defines_main(const hf_pthread_kit *kit, const char *merged, const char *nm_log) {
    char *args[] = {"nm", "--defined-only", (char *)merged, NULL};
    if (hf_pthread_build_run(args, NULL, nm_log, kit->verbose) != 0) return false;
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

int hf_pthread_build_plain_args(hf_pthread_kit *kit, bool cxx, char **args) {
    assert(kit && args);
    args[0] = (char *)(cxx ? kit->cxx : kit->cc);
    return add_recorded(kit, args, 1);
}

int hf_pthread_build_link_args(hf_pthread_kit *kit, bool cxx, bool test, char **args) {
    int n = hf_pthread_build_plain_args(kit, cxx, args);
    /* A test keeps the program's coverage instrumentation, so that its
     * preemption points are the fuzzer's, and libFuzzer's callbacks for it,
     * but not libFuzzer's main. */
    args[n++] = kit->library ? "-shared" : test ? "-fsanitize=fuzzer-no-link" : "-fsanitize=fuzzer";
    return n;
}

int hf_pthread_build_link_tail(const hf_pthread_kit *kit, bool test, char **args, int n) {
    assert(n >= 0);
    if (kit->library) {
        /* Nothing in the program refers to the entry points afl-fuzz looks
         * up; and a symbol left undefined would show only when afl-fuzz
         * loads the library. */
        args[n++] = "-Wl,-u,afl_custom_init";
        args[n++] = "-Wl,-u,afl_custom_fuzz";
        args[n++] = "-Wl,-u,afl_custom_fuzz_count";
        args[n++] = "-Wl,-u,afl_custom_deinit";
        args[n++] = "-Wl,-z,defs";
    } else if (!test) {
        /* The engines' drivers refer to these weakly (and the harness to
         * hf_fuzzer_start), which pulls nothing out of an archive. */
        args[n++] = "-Wl,-u,LLVMFuzzerInitialize";
        args[n++] = "-Wl,-u,hf_fuzzer_start";
        args[n++] = "-Wl,-u,LLVMFuzzerTestOneInput";
    }
    args[n++] = (char *)(kit->library ? kit->mutator_archive : kit->archive);
    args[n++] = "-lm";
    args[n++] = "-lpthread";
    args[n] = NULL;
    return n;
}

int hf_pthread_build_temp_dir(char *dir, size_t size, const char *name) {
    const char *base = getenv("TMPDIR");
    snprintf(dir, size, "%s/heisenfuzz-%s-XXXXXX", base && *base ? base : "/tmp", name);
    return mkdtemp(dir) ? 0 : -1;
}

void hf_pthread_build_remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (d) {
        char path[PATH_MAX];
        for (struct dirent *e; (e = readdir(d));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(path, sizeof path, "%.*s/%s", PATH_MAX / 2, dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}
