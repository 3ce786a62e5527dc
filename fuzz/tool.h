/*
 * tool.h — what the tool's command files share.
 */
#ifndef HF_TOOL_H
#define HF_TOOL_H

#include "hf.h"
#include "run.h"

#include <stdarg.h>
#include <stdbool.h>

/* Prints "heisenfuzz: <message> (see 'heisenfuzz --help')"; returns 2. */
int hf_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The named target, or NULL after printing an error. */
const hf_target *hf_tool_target(const char *name);

/* What `replay` prints of the last run: a summary line and the timeline
 * (when `timeline`), then "verdict: ..." and "trace-hash: ...". */
void hf_tool_print_run(const hf_target *t, size_t size, const hf_result *r, bool timeline);

/* Monotonic wall-clock seconds: for the tool's own timing, never inside a run. */
double hf_wall_seconds(void);

/* The directory of this program (out/, beside the fuzzer binaries). */
int hf_exe_dir(char *dir, size_t size);

int hf_cmd_bench(int argc, char **argv);
int hf_bench_search(int argc, char **argv);
int hf_bench_species(int argc, char **argv);
int hf_cmd_explore(int argc, char **argv);
int hf_cmd_minimize(int argc, char **argv);
int hf_cmd_chart(int argc, char **argv);
int hf_cmd_build_pthread(int argc, char **argv);

#endif
