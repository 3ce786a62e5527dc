/*
 * tool.h — what the tool's command files share.
 */
#ifndef HF_TOOL_H
#define HF_TOOL_H

#include "hf.h"
#include "run.h"

#include <stdarg.h>
#include <stdbool.h>

/* Called by hf_tool_main: the command line hf_tool_run_in_fuzzer re-runs,
 * and whether it runs inside a fuzzer binary. */
void hf_tool_remember_args(int argc, char **argv, bool in_fuzzer);

/* Is this the tool inside a fuzzer binary (rather than the heisenfuzz
 * program)? */
bool hf_tool_in_fuzzer(void);

/* Does a TARGET argument name a fuzzer binary (FUZZER or FUZZER:NAME, a
 * path with a '/') rather than a target linked into this program? */
bool hf_tool_names_fuzzer(const char *arg);

/* The target a TARGET argument names, or NULL after printing an error.
 * A target linked in is named by its name.  A user's target lives in their
 * fuzzer binary: FUZZER (its own target) or FUZZER:NAME (one of several).
 * The heisenfuzz program then does not return: it runs the same command
 * line inside FUZZER (exec with HEISENFUZZ_TOOL=1), where the argument
 * names a target linked in. */
const hf_target *hf_tool_target(const char *name);

/* Runs the current command line inside FUZZER (see hf_tool_target); returns
 * only on failure, 2, after printing why. */
int hf_tool_run_in_fuzzer(const char *fuzzer);

/* What `replay` prints of the last run: a summary line and the timeline
 * (when `timeline`), then "verdict: ..." and "trace-hash: ...". */
void hf_tool_print_run(const hf_target *t, size_t size, const hf_result *r, bool timeline);
/* Runs that may crash the tool's process.  A pthread program is unmodified
 * code, and a schedule may make it crash (a signal, a sanitizer's report):
 * the tool runs it in a child process (contain.h) when it must go on after
 * the run, and a crash is then the run's failure, of outcome program:
 * "crash (Segmentation fault)", as a replay's verdict names it. */
bool hf_tool_contains(const hf_target *t);
/* Fills r as that failure, named by `what`, for a run that crashed. */
void hf_tool_crash_result(hf_result *r, const char *what);
/* Whether a failure is such a crash. */
bool hf_tool_is_crash(hf_outcome outcome, const char *message);
/* Runs data[0..size) as a schedule of t into r, in a child with `contain`;
 * false when a contained run was lost (stderr says how). */
bool hf_tool_run(const hf_target *t, const uint8_t *data, size_t size, bool contain, hf_result *r);
/* A replay's report of a run that crashed: the timeline up to the crash,
 * then "verdict: fail crash (WHAT)". */
void hf_tool_print_crash(const char *what);
/* Runs data[0..size) and prints it as hf_tool_print_run does, in a child
 * with `contain`, where a crash is reported by hf_tool_print_crash.  True
 * when the run failed (a lost contained run counts as failed). */
bool hf_tool_replay(const hf_target *t, const uint8_t *data, size_t size, bool contain, bool timeline);
/* The name a target's files and lines go by: its own, or for a pthread
 * program the program's (lost_update_fuzzer: lost_update). */
const char *hf_tool_target_name(const hf_target *t);

/* A schedule file may need more than its bytes to replay: a pthread
 * program's arguments and stdin, in FILE.args beside it (invocation.h).
 * The fuzzer that holds such a target sets these hooks; elsewhere they do
 * nothing.  hf_tool_input(path): before running the bytes of `path`, makes
 * what it needs current; returns 0, or 2 after a one-line message.
 * hf_tool_output(path): after writing a schedule made from the current
 * input to `path`, keeps what it needs beside it.  hf_tool_input_extra():
 * whether the current input needs more than its bytes. */
void hf_tool_set_file_hooks(int (*input)(const char *path), void (*output)(const char *path), bool (*extra)(void));
int hf_tool_input(const char *path);
void hf_tool_output(const char *path);
bool hf_tool_input_extra(void);

/* Monotonic wall-clock seconds: for the tool's own timing, never inside a run. */
double hf_wall_seconds(void);

/* The directory of this program (out/, beside the fuzzer binaries). */
int hf_exe_dir(char *dir, size_t size);

/* The path of `relative` (dict/NAME.dict, targets/NAME/seeds) in the source
 * tree of an in-tree build in `bin_dir`: out/ or one level deeper (out/asan,
 * out/O0, a --out of one's own), so the tree is looked for one, then two,
 * levels up.  True when it exists; else `path` is the last place looked. */
bool hf_tree_path(const char *bin_dir, const char *relative, char *path, size_t size);

/* The AFL_* settings of an AFL++ campaign, in one place for `fuzz --engine
 * afl`, `bench --search` and the tests (`fuzz --afl-env` prints them), so
 * that a benchmark or a test measures the campaign a user gets.  With
 * `mutator` (a custom mutator library's path) the library runs alone.
 * Fills out[0..count) and returns count (at most HF_AFL_ENV_MAX). */
enum { HF_AFL_ENV_MAX = 8 };
typedef struct hf_env_var {
    const char *name, *value;
} hf_env_var;
size_t hf_afl_environment(const char *mutator, hf_env_var out[HF_AFL_ENV_MAX]);

#endif
