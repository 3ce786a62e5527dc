/*
 * commands.h — the tool's command line, and the commands it dispatches to:
 * each command lives in the file of its concern (chart.c, cmd_minimize.c,
 * bench_search.c, ...) and heisenfuzz.c's table names them.  Declared here,
 * below both, so that neither the commands nor the table include the other.
 */
#ifndef HF_COMMANDS_H
#define HF_COMMANDS_H

#include "options.h"

/* The command line: `heisenfuzz COMMAND ARGS...` (argv[0] the program).
 * Returns the exit status.  hf_tool_main_in_fuzzer is the same, run inside
 * a fuzzer binary that was handed HEISENFUZZ_TOOL (harness.c). */
int hf_tool_main(int argc, char **argv);
int hf_tool_main_in_fuzzer(int argc, char **argv);

/* The commands, and the tables of their options (options.h). */
int hf_cmd_bench(int argc, char **argv);
int hf_bench_search(int argc, char **argv);
int hf_bench_species(int argc, char **argv);
int hf_bench_plateau(int argc, char **argv);
int hf_cmd_explore(int argc, char **argv);
int hf_cmd_fuzz(int argc, char **argv);
int hf_cmd_minimize(int argc, char **argv);
int hf_cmd_chart(int argc, char **argv);
int hf_cmd_report(int argc, char **argv);
int hf_cmd_build_pthread(int argc, char **argv);
int hf_cmd_cc(int argc, char **argv);    /* heisenfuzz cc */
int hf_cmd_cxx(int argc, char **argv);   /* heisenfuzz c++ */

extern const hf_command_spec hf_bench_spec, hf_bench_search_spec, hf_bench_species_spec, hf_bench_plateau_spec,
    hf_explore_spec, hf_fuzz_spec, hf_minimize_spec, hf_chart_spec, hf_report_spec;

/* Every command's tables (bench has four), NULL-terminated: for the tests. */
const hf_command_spec *const *hf_tool_command_specs(void);

#endif
