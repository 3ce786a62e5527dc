/*
 * cmd_cc.c — `heisenfuzz cc ARGS...` and `heisenfuzz c++ ARGS...`: a
 * compiler driver for a project's own build (`make CC="heisenfuzz cc"`),
 * whose program comes out as the fuzzer build-pthread would have made of
 * the same sources.  The steps are build-pthread's (pthread_build.c); what
 * is here is how a compiler's command line maps onto them:
 *
 *   -c          each source compiled with the layer's flags and the user's
 *               (their -O dropped: the program runs at -O0, its accesses
 *               being its preemption points), then renamed (pthread.syms),
 *               so objects, and archives `ar` makes of them, are ready
 *   link        sources compiled as for -c; then the objects, the archives
 *               named by path and the -lNAME found as libNAME.a in a -L
 *               directory of the command line (the project's own) merged
 *               with `ld -r` and pthread.ld, as build-pthread merges;
 *               other -l and shared libraries go to the final link, with
 *               the layer's archive
 *   -E, -M, -MM, -S, -fsyntax-only
 *               the compiler, with the layer's flags (its macros and
 *               headers are what -c sees), output as the compiler writes it
 *   no input    (--version, -v, -dumpversion, -print-...) the plain compiler
 *
 * A command line whose output or first input is named conftest* (autoconf's
 * test programs), or any with HEISENFUZZ_CC_PLAIN=1, runs the plain
 * compiler: configure runs what it links, and a fuzzer run with no
 * arguments starts fuzzing.  HEISENFUZZ_CC_ENGINE=afl builds for AFL++:
 * the fuzzer and, beside it, the program's decision mutator library
 * (OUTPUT_mutator.so), as build-pthread --afl makes them; each object then
 * carries the second compile the library needs inside it (below).
 *
 * A compiler's failure is its own diagnostics and its exit status (a build
 * system shows them, and make stops on the status); what fails in the
 * wrapper's own steps (no main, the layer missing, an option it refuses) is
 * one line and exit 2.  The files the wrapper writes (an object, the
 * fuzzer) are written whole or not at all: a temporary, then rename.
 */
#define _DEFAULT_SOURCE   /* strdup */
#include "commands.h"
#include "pthread_build.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum input_kind { SOURCE, OBJECT, ARCHIVE, LIBRARY, OTHER } input_kind;

typedef struct input {
    const char *arg;            /* as given: a path, or -lNAME */
    input_kind kind;
    const char *archive;        /* LIBRARY found as a project's archive (libNAME.a), else NULL */
} input;

typedef enum mode { LINK, COMPILE, PASS_THROUGH } mode;

typedef struct invocation {
    const char *who;            /* "cc" or "c++", for messages */
    bool cxx_driver;            /* c++: every source is C++, and the program links as C++ */
    mode mode;
    const char *output;         /* -o, or NULL */
    char **flags;               /* the user's options, -o, -c and -O... taken out */
    int flag_count;
    char **link_flags;          /* the same, less those only a compile reads */
    int link_flag_count;
    input *inputs;
    int input_count;
    const char **dirs;          /* -L directories, in order */
    int dir_count;
    bool dependencies;          /* -MD or -MMD: the compile also writes a .d file */
    bool dependency_target;     /* -MT or -MQ given */
    bool dependency_file;       /* -MF given */
    bool shared;                /* -shared: a library, which no fuzzer can be */
    bool verbose;               /* -v: show the commands too */
} invocation;

static const char *who_name = "cc";

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "heisenfuzz: %s: ", who_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

static input_kind kind_of(const char *path) {
    static const char *const sources[] = {".c", ".i", ".s", ".S"};
    if (hf_pthread_build_is_cxx(path)) return SOURCE;
    for (size_t k = 0; k < sizeof sources / sizeof *sources; k++)
        if (hf_pthread_build_has_suffix(path, sources[k])) return SOURCE;
    if (hf_pthread_build_has_suffix(path, ".o")) return OBJECT;
    if (hf_pthread_build_has_suffix(path, ".a")) return ARCHIVE;
    return OTHER;   /* a shared library, a linker script: the final link's */
}

/* Options whose value is the next argument when not joined to them. */
static bool takes_value(const char *a) {
    static const char *const with_value[] = {
        "-o", "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-idirafter", "-iquote", "-iprefix",
        "-iwithprefix", "-isysroot", "-MF", "-MT", "-MQ", "-x", "-L", "-l", "-Xlinker", "-Xassembler",
        "-Xpreprocessor", "-Xclang", "-arch", "-target", "--param", "-u", "-T", "-z", "-e", "--sysroot"};
    for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
        if (!strcmp(a, with_value[k])) return true;
    return false;
}

/* Options only a compile (or the preprocessor) reads: kept off the link,
 * where clang would warn they are unused (an error under -Werror). */
static bool compile_only(const char *a) {
    static const char *const prefixes[] = {"-I", "-D", "-U", "-include", "-imacros", "-isystem", "-idirafter",
                                           "-iquote", "-M", "-std=", "-W", "-x"};
    if (!strncmp(a, "-Wl,", 4)) return false;
    for (size_t k = 0; k < sizeof prefixes / sizeof *prefixes; k++)
        if (!strncmp(a, prefixes[k], strlen(prefixes[k]))) return true;
    return false;
}

/* -O, -O0..-O3, -Os, -Oz, -Og, -Ofast: the program is compiled at -O0
 * whatever the build asks (pthread.cflags; fuzz/README.md says why). */
static bool is_optimisation(const char *a) { return a[0] == '-' && a[1] == 'O'; }

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool environment_says(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* Finds -lNAME as the project's static archive: libNAME.a in a -L directory
 * of the command line, unless libNAME.so comes first there (the linker
 * would take that).  The system's directories are not searched: their
 * libraries are not the program's, and link as usual. */
static const char *project_archive(const invocation *v, const char *name) {
    for (int d = 0; d < v->dir_count; d++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/lib%s.so", v->dirs[d], name);
        if (access(path, F_OK) == 0) return NULL;
        snprintf(path, sizeof path, "%s/lib%s.a", v->dirs[d], name);
        if (access(path, R_OK) == 0) return strdup(path);
    }
    return NULL;
}

/* Sorts argv[1..] into flags and inputs.  Returns 0, or 2 after a line. */
static int parse(int argc, char **argv, invocation *v) {
    size_t room = (size_t)argc + 1;
    v->flags = calloc(room, sizeof *v->flags);
    v->link_flags = calloc(room, sizeof *v->link_flags);
    v->inputs = calloc(room, sizeof *v->inputs);
    v->dirs = calloc(room, sizeof *v->dirs);
    if (!v->flags || !v->link_flags || !v->inputs || !v->dirs) return fail("out of memory");
    bool compile = false, pass = false;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (a[0] != '-' || !strcmp(a, "-")) {
            v->inputs[v->input_count++] = (input){a, !strcmp(a, "-") ? OTHER : kind_of(a), NULL};
            continue;
        }
        const char *value = NULL;
        bool separate = takes_value(a) && i + 1 < argc;
        if (separate) value = argv[i + 1];
        if (!strcmp(a, "-o")) {
            if (!value) return fail("-o needs a path");
            v->output = value;
            i++;
            continue;
        }
        if (!strcmp(a, "-c")) { compile = true; continue; }
        if (is_optimisation(a)) continue;
        if (!strncmp(a, "-l", 2)) {
            const char *name = a[2] ? a + 2 : value;
            if (!name) return fail("-l needs a library name");
            char *arg = malloc(strlen(name) + 3);
            if (!arg) return fail("out of memory");
            sprintf(arg, "-l%s", name);
            v->inputs[v->input_count++] = (input){arg, LIBRARY, NULL};
            if (!a[2]) i++;
            continue;
        }
        if (!strncmp(a, "-L", 2)) {
            const char *dir = a[2] ? a + 2 : value;
            if (dir) v->dirs[v->dir_count++] = dir;
        }
        if (!strcmp(a, "-E") || !strcmp(a, "-S") || !strcmp(a, "-M") || !strcmp(a, "-MM") ||
            !strcmp(a, "-fsyntax-only"))
            pass = true;
        if (!strcmp(a, "-MD") || !strcmp(a, "-MMD")) v->dependencies = true;
        if (!strcmp(a, "-MT") || !strcmp(a, "-MQ")) v->dependency_target = true;
        if (!strcmp(a, "-MF")) v->dependency_file = true;
        if (!strcmp(a, "-shared")) v->shared = true;
        if (!strcmp(a, "-v")) v->verbose = true;
        v->flags[v->flag_count++] = a;
        if (!compile_only(a)) v->link_flags[v->link_flag_count++] = a;
        if (separate) {
            v->flags[v->flag_count++] = argv[++i];
            if (!compile_only(a)) v->link_flags[v->link_flag_count++] = argv[i];
        }
    }
    v->mode = pass ? PASS_THROUGH : compile ? COMPILE : LINK;
    return 0;
}

/* The plain compiler with the arguments as given: configure's test
 * programs, and what has no input (--version, -v). */
static int plain(const invocation *v, char **argv) {
    argv[0] = v->cxx_driver ? "clang++" : "clang";
    fflush(NULL);
    execvp(argv[0], argv);
    return fail("cannot run %s: %s", argv[0], strerror(errno));
}

/* -E, -M, -MM, -S, -fsyntax-only: the compiler with the layer's flags and
 * the user's arguments in their order (less -O), writing what it writes. */
static int pass_through(hf_pthread_kit *kit, const invocation *v, int argc, char **argv) {
    bool cxx = v->cxx_driver;
    for (int i = 0; i < v->input_count; i++)
        if (v->inputs[i].kind == SOURCE && hf_pthread_build_is_cxx(v->inputs[i].arg)) cxx = true;
    char **args = calloc((size_t)argc + HF_PTHREAD_BUILD_PREFIX + 1, sizeof *args);
    if (!args) return fail("out of memory");
    int n = hf_pthread_build_compile_args(kit, cxx, args);
    for (int i = 1; i < argc; i++)
        if (!is_optimisation(argv[i])) args[n++] = argv[i];
    args[n] = NULL;
    int status = hf_pthread_build_run(args, kit->env, NULL, v->verbose);
    const char *driver = args[0];
    free(args);
    return status < 0 ? fail("cannot run %s", driver) : status;
}

static int embed_library_object(const hf_pthread_kit *kit, const invocation *v, const char *source,
                                const char *object, const char *target);

/* Compiles one source into `object` (renamed, written whole); `target` is
 * the name the dependency file gives it.  Returns the compiler's status, or
 * 2 after a line. */
static int compile_one(hf_pthread_kit *kit, const invocation *v, const char *source, const char *object,
                       const char *target) {
    /* What is not a regular file (configure's -o /dev/null) is written in
     * place: no rename over it, and nothing in it to rename. */
    struct stat st;
    bool in_place = stat(object, &st) == 0 && !S_ISREG(st.st_mode);
    char temporary[PATH_MAX + 32], depfile[PATH_MAX + 8];
    snprintf(temporary, sizeof temporary, "%s.tmp%d.o", object, (int)getpid());
    const char *written = in_place ? object : temporary;
    char **args = calloc((size_t)v->flag_count + HF_PTHREAD_BUILD_PREFIX + 16, sizeof *args);
    if (!args) return fail("out of memory");
    /* Assembly has no accesses to trace and takes no C header: the
     * recorded flags alone (zstd's huf_decompress_amd64.S). */
    bool assembly = hf_pthread_build_has_suffix(source, ".s") || hf_pthread_build_has_suffix(source, ".S");
    int n = assembly ? hf_pthread_build_plain_args(kit, v->cxx_driver, args)
                     : hf_pthread_build_compile_args(kit, v->cxx_driver || hf_pthread_build_is_cxx(source), args);
    for (int f = 0; f < v->flag_count; f++) args[n++] = v->flags[f];
    /* The dependency file names the object make asked for, not the
     * temporary, and sits where the compiler would put it (OBJECT less
     * its suffix, .d). */
    if (v->dependencies && !v->dependency_target) {
        args[n++] = "-MT";
        args[n++] = (char *)target;
    }
    if (v->dependencies && !v->dependency_file) {
        const char *dot = strrchr(base_name(target), '.');
        int stem = dot ? (int)(dot - target) : (int)strlen(target);
        snprintf(depfile, sizeof depfile, "%.*s.d", stem, target);
        args[n++] = "-MF";
        args[n++] = depfile;
    }
    args[n++] = "-c";
    args[n++] = (char *)source;
    args[n++] = "-o";
    args[n++] = (char *)written;
    args[n] = NULL;
    int status = hf_pthread_build_run(args, kit->env, NULL, v->verbose);
    const char *driver = args[0];
    free(args);
    if (status != 0) {
        if (!in_place) unlink(temporary);
        return status < 0 ? fail("cannot run %s", driver) : status;
    }
    if (in_place) return 0;
    if (hf_pthread_build_rename(kit, temporary, NULL) != 0) {
        unlink(temporary);
        return fail("objcopy could not rename the symbols of %s", object);
    }
    if (kit->afl && !kit->library && (status = embed_library_object(kit, v, source, temporary, target)) != 0) {
        unlink(temporary);
        return status;
    }
    if (rename(temporary, object) != 0) {
        int e = errno;
        unlink(temporary);
        return fail("cannot write %s: %s", object, strerror(e));
    }
    return 0;
}

/* ---- AFL++'s mutator library ------------------------------------------------
 *
 * Under AFL++ the fuzzer comes with the program's decision mutator library,
 * which afl-fuzz loads and which runs the program itself: the sources
 * compiled a second time, position-independent, with plain clang
 * (hf_pthread_build_as_mutator_library).  A project's link sees objects and
 * archives, not sources, so every object carries that second compile inside
 * it, as a section the loader never maps, named LIBRARY_SECTION and a hash
 * of the object's path: `ar` keeps it with the object, `ld -r` keeps each
 * object's apart, and the link takes them out again (link_library).  An
 * object compiled otherwise has none: the library's link then says so
 * when it is main's, or names the symbols the library lacks. */
#define LIBRARY_SECTION ".hf_mutator_library."

typedef char path_buffer[PATH_MAX];

/* FNV-1a of the object's absolute path: one section name per object. */
static uint64_t object_key(const char *target) {
    char where[PATH_MAX];
    if (target[0] == '/' || !getcwd(where, sizeof where)) where[0] = '\0';
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *part = where; part; part = part == where ? target : NULL)
        for (const unsigned char *c = (const unsigned char *)part; *c; c++) h = (h ^ *c) * 0x100000001b3ull;
    return h;
}

/* The final link of `merged` with `kit` (the fuzzer's, or its mutator
 * library's), the user's link flags and the libraries the project does not
 * build, into `output`, written whole.  Returns 0, the linker's status, or
 * 2 after a line. */
static int link_output(hf_pthread_kit *kit, const invocation *v, bool cxx, const char *merged, const char *output) {
    char temporary[PATH_MAX + 16];
    snprintf(temporary, sizeof temporary, "%s.tmp%d", output, (int)getpid());
    char **args = calloc((size_t)(v->link_flag_count + v->input_count) + HF_PTHREAD_BUILD_PREFIX + HF_PTHREAD_BUILD_TAIL + 8, sizeof *args);
    if (!args) return fail("out of memory");
    int n = hf_pthread_build_link_args(kit, cxx, false, args);
    for (int f = 0; f < v->link_flag_count; f++) args[n++] = v->link_flags[f];
    args[n++] = "-o";
    args[n++] = temporary;
    args[n++] = (char *)merged;
    for (int i = 0; i < v->input_count; i++)
        if (v->inputs[i].kind == OTHER || (v->inputs[i].kind == LIBRARY && !v->inputs[i].archive))
            args[n++] = (char *)v->inputs[i].arg;
    hf_pthread_build_link_tail(kit, false, args, n);
    int status = hf_pthread_build_run(args, kit->env, NULL, v->verbose);
    free(args);
    if (status != 0) {
        unlink(temporary);
        return status < 0 ? fail("cannot run the linker") : status;
    }
    if (rename(temporary, output) != 0) {
        int e = errno;
        unlink(temporary);
        return fail("cannot write %s: %s", output, strerror(e));
    }
    return 0;
}

/* The kit of the program's mutator library, made from AFL++'s `kit`.
 * Returns 0, or 2 after a line. */
static int library_kit(const hf_pthread_kit *kit, hf_pthread_kit *library) {
    *library = *kit;
    char error[PATH_MAX + 128];
    return hf_pthread_build_as_mutator_library(library, error, sizeof error) != 0 ? fail("%s", error) : 0;
}

static int embed_library_object(const hf_pthread_kit *kit, const invocation *v, const char *source,
                                const char *object, const char *target) {
    hf_pthread_kit library;
    int status = library_kit(kit, &library);
    if (status) return status;
    /* The same flags less those that write a dependency file: the first
     * compile wrote it. */
    invocation second = *v;
    second.dependencies = false;
    char **flags = calloc((size_t)v->flag_count + 1, sizeof *flags);
    if (!flags) return fail("out of memory");
    second.flags = flags;
    second.flag_count = 0;
    for (int f = 0; f < v->flag_count; f++) {
        const char *a = v->flags[f];
        if (!strcmp(a, "-MD") || !strcmp(a, "-MMD") || !strcmp(a, "-MP")) continue;
        if (!strcmp(a, "-MF") || !strcmp(a, "-MT") || !strcmp(a, "-MQ")) { f++; continue; }
        if (!strncmp(a, "-MF", 3) || !strncmp(a, "-MT", 3) || !strncmp(a, "-MQ", 3)) continue;
        flags[second.flag_count++] = v->flags[f];
    }
    char pic[PATH_MAX + 48];
    snprintf(pic, sizeof pic, "%s.pic.o", object);
    status = compile_one(&library, &second, source, pic, target);
    free(flags);
    if (status) return status;
    char section[64], add[sizeof section + PATH_MAX + 64], section_flags[sizeof section + 32];
    snprintf(section, sizeof section, LIBRARY_SECTION "%016llx", (unsigned long long)object_key(target));
    snprintf(add, sizeof add, "%s=%s", section, pic);
    snprintf(section_flags, sizeof section_flags, "%s=contents,readonly", section);
    char *args[] = {"objcopy", "--add-section", add, "--set-section-flags", section_flags, (char *)object, NULL};
    status = hf_pthread_build_run(args, NULL, NULL, v->verbose);
    unlink(pic);
    return status != 0 ? fail("objcopy could not add the mutator library's compile to %s", target) : 0;
}

/* The names of the library sections in `merged`, into names[] (at most
 * `room`); returns their count, or -1 when objdump failed. */
static int library_sections(const hf_pthread_kit *kit, const char *merged, const char *log, char (*names)[64],
                            int room) {
    char *args[] = {"objdump", "-h", (char *)merged, NULL};
    if (hf_pthread_build_run(args, NULL, log, kit->verbose) != 0) return -1;
    FILE *f = fopen(log, "r");
    if (!f) return -1;
    int count = 0;
    char line[1024], name[256];
    while (fgets(line, sizeof line, f))
        if (sscanf(line, " %*d %255s", name) == 1 && !strncmp(name, LIBRARY_SECTION, strlen(LIBRARY_SECTION)) &&
            strlen(name) < 64 && count < room)
            snprintf(names[count++], 64, "%s", name);
    fclose(f);
    return count;
}

/* Takes the library's objects out of `merged` (which then has none) and
 * links them into `library` (written whole).  Returns 0, or 2 after a line. */
static int link_library(const hf_pthread_kit *kit, const invocation *v, const char *tmp, const char *merged, bool cxx,
                        const char *library) {
    hf_pthread_kit lib;
    int status = library_kit(kit, &lib);
    if (status) return status;
    enum { MAX_OBJECTS = 4096 };
    static char names[MAX_OBJECTS][64];
    static path_buffer pics[MAX_OBJECTS];
    char log[PATH_MAX];
    snprintf(log, sizeof log, "%.*s/library.log", PATH_MAX - 16, tmp);
    int count = library_sections(&lib, merged, log, names, MAX_OBJECTS);
    if (count < 0) return fail("objdump could not list the sections of what links into %s", library);
    if (count == 0)
        return fail("no object of the program carries the mutator library's compile (build them all with "
                    "HEISENFUZZ_CC_ENGINE=afl)");
    char **args = calloc((size_t)(2 * count) + 4, sizeof *args);   /* objcopy's */
    if (!args) return fail("out of memory");
    /* Out of the merged object, then off it: the fuzzer needs none. */
    int n = 0;
    args[n++] = "objcopy";
    static char dumps[MAX_OBJECTS][64 + PATH_MAX + 16];
    for (int k = 0; k < count; k++) {
        snprintf(pics[k], sizeof pics[k], "%.*s/library%d.o", PATH_MAX - 32, tmp, k);
        snprintf(dumps[k], sizeof dumps[k], "%s=%s", names[k], pics[k]);
        args[n++] = "--dump-section";
        args[n++] = dumps[k];
    }
    args[n++] = (char *)merged;
    args[n] = NULL;
    status = hf_pthread_build_run(args, NULL, log, v->verbose);
    n = 0;
    args[n++] = "objcopy";
    for (int k = 0; k < count; k++) {
        args[n++] = "--remove-section";
        args[n++] = names[k];
    }
    args[n++] = (char *)merged;
    args[n] = NULL;
    if (status == 0) status = hf_pthread_build_run(args, NULL, log, v->verbose);
    char library_merged[PATH_MAX];
    snprintf(library_merged, sizeof library_merged, "%.*s/library.o", PATH_MAX - 16, tmp);
    for (int k = 0; k < count; k++) args[k] = pics[k];   /* now the objects to merge */
    if (status == 0) status = hf_pthread_build_merge(&lib, args, count, library_merged, log);
    free(args);
    if (status != 0) {
        char message[1024];
        hf_pthread_build_first_error(log, message, sizeof message);
        return fail("taking the mutator library's objects out of %s failed: %s", merged, message);
    }
    if (!hf_pthread_build_defines_main(&lib, library_merged, log))
        return fail("the mutator library's objects have no main: the object with it was not compiled with "
                    "HEISENFUZZ_CC_ENGINE=afl");
    return link_output(&lib, v, cxx, library_merged, library);
}

/* -c: each source into -o, or into its name with .o in the current
 * directory, as a compiler does. */
static int compile_all(hf_pthread_kit *kit, const invocation *v) {
    int sources = 0;
    for (int i = 0; i < v->input_count; i++) sources += v->inputs[i].kind == SOURCE;
    if (sources == 0) return fail("-c needs a C or C++ source file");
    if (v->output && sources > 1) return fail("-o with -c names one object, but %d sources are given", sources);
    for (int i = 0; i < v->input_count; i++) {
        if (v->inputs[i].kind != SOURCE) continue;
        char object[PATH_MAX];
        if (v->output) snprintf(object, sizeof object, "%s", v->output);
        else {
            const char *base = base_name(v->inputs[i].arg), *dot = strrchr(base, '.');
            snprintf(object, sizeof object, "%.*s.o", (int)(dot - base), base);
        }
        int status = compile_one(kit, v, v->inputs[i].arg, object, object);
        if (status) return status;
    }
    return 0;
}

static int link_merged(hf_pthread_kit *kit, invocation *v, const char *tmp, char **merge, path_buffer *objects);

static int link_program(hf_pthread_kit *kit, invocation *v, const char *tmp) {
    char **merge = calloc((size_t)v->input_count + 1, sizeof *merge);
    path_buffer *objects = calloc((size_t)v->input_count + 1, sizeof *objects);
    int status = merge && objects ? link_merged(kit, v, tmp, merge, objects) : fail("out of memory");
    free(merge);
    free(objects);
    return status;
}

/* The link; `merge` and `objects` (the sources' objects) have a place per
 * input. */
static int link_merged(hf_pthread_kit *kit, invocation *v, const char *tmp, char **merge, path_buffer *objects) {
    if (v->shared) return fail("-shared: a fuzzer is a program, not a library (build the program with its main)");
    const char *output = v->output ? v->output : "a.out";
    bool cxx = v->cxx_driver;
    /* The program: its objects (the sources compiled here first) and its
     * archives, in the order given, as ld -r resolves them. */
    int merging = 0;
    for (int i = 0; i < v->input_count; i++) {
        input *in = &v->inputs[i];
        if (in->kind == SOURCE) {
            if (hf_pthread_build_is_cxx(in->arg)) cxx = true;
            snprintf(objects[i], sizeof objects[i], "%.*s/%d.o", PATH_MAX - 16, tmp, i);
            int status = compile_one(kit, v, in->arg, objects[i], objects[i]);
            if (status) return status;
            merge[merging++] = objects[i];
        } else if (in->kind == OBJECT || in->kind == ARCHIVE) {
            merge[merging++] = (char *)in->arg;
        } else if (in->kind == LIBRARY && (in->archive = project_archive(v, in->arg + 2))) {
            merge[merging++] = (char *)in->archive;
        }
    }
    if (merging == 0) return fail("no objects to link into %s", output);
    char merged[PATH_MAX], log[PATH_MAX];
    snprintf(merged, sizeof merged, "%.*s/program.o", PATH_MAX - 16, tmp);
    snprintf(log, sizeof log, "%.*s/tool.log", PATH_MAX - 16, tmp);
    if (hf_pthread_build_merge(kit, merge, merging, merged, log) != 0) {
        char message[1024];
        hf_pthread_build_first_error(log, message, sizeof message);
        return fail("merging the objects of %s failed: %s", output, message);
    }
    /* Objects a plain compiler made call the real pthread_create: renamed
     * here too (a second renaming changes nothing). */
    if (hf_pthread_build_rename(kit, merged, log) != 0) return fail("objcopy could not rename the symbols of %s", output);
    char nm_log[PATH_MAX];
    snprintf(nm_log, sizeof nm_log, "%.*s/nm.log", PATH_MAX - 16, tmp);
    if (!hf_pthread_build_defines_main(kit, merged, nm_log))
        return fail("no main function in what links into %s (a fuzzer needs the program's main)", output);

    /* AFL++'s fuzzer comes with its mutator library, written first: when
     * it cannot be, neither is the fuzzer. */
    if (kit->afl) {
        char library[PATH_MAX + 16];
        snprintf(library, sizeof library, "%s_mutator.so", output);
        int status = link_library(kit, v, tmp, merged, cxx, library);
        if (status) return status;
    }
    return link_output(kit, v, cxx, merged, output);
}

static bool names_conftest(const invocation *v) {
    if (v->output && !strncmp(base_name(v->output), "conftest", 8)) return true;
    return v->input_count > 0 && !strncmp(base_name(v->inputs[0].arg), "conftest", 8);
}

static int wrap(int argc, char **argv, bool cxx_driver) {
    assert(argc >= 1 && argv[0]);
    who_name = cxx_driver ? "c++" : "cc";
    /* Static: what it points to stays reachable until exit (the tool ends
     * after one command), which a leak checker does not report. */
    static invocation v;
    v = (invocation){.who = who_name, .cxx_driver = cxx_driver};
    int status = parse(argc, argv, &v);
    if (status) return status;
    if (v.input_count == 0 || environment_says("HEISENFUZZ_CC_PLAIN") || names_conftest(&v)) return plain(&v, argv);
    const char *engine = getenv("HEISENFUZZ_CC_ENGINE");
    bool afl = engine && !strcmp(engine, "afl");
    if (engine && *engine && !afl && strcmp(engine, "libfuzzer"))
        return fail("HEISENFUZZ_CC_ENGINE is '%s', not libfuzzer or afl", engine);
    hf_pthread_kit kit;
    char error[PATH_MAX + 128];
    if (hf_pthread_build_load(&kit, afl, v.verbose, error, sizeof error) != 0) return fail("%s", error);
    if (v.mode == PASS_THROUGH) return pass_through(&kit, &v, argc, argv);
    if (v.mode == COMPILE) return compile_all(&kit, &v);
    char tmp[PATH_MAX];
    if (hf_pthread_build_temp_dir(tmp, sizeof tmp, "cc") != 0) return fail("cannot create a temporary directory: %s", strerror(errno));
    status = link_program(&kit, &v, tmp);
    hf_pthread_build_remove_dir(tmp);
    return status;
}

int hf_cmd_cc(int argc, char **argv) { return wrap(argc, argv, false); }

int hf_cmd_cxx(int argc, char **argv) { return wrap(argc, argv, true); }
