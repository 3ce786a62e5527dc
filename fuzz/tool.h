/*
 * tool.h — what the tool's command files share.
 */
#ifndef HF_TOOL_H
#define HF_TOOL_H

#include "hf.h"

#include <stdarg.h>

/* Prints "heisenfuzz: <message> (see 'heisenfuzz --help')"; returns 2. */
int hf_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The named target, or NULL after printing an error. */
const hf_target *hf_tool_target(const char *name);

/* Monotonic wall-clock seconds: for the tool's own timing, never inside a run. */
double hf_wall_seconds(void);

int hf_cmd_bench(int argc, char **argv);
int hf_cmd_explore(int argc, char **argv);

#endif
