/*
 * targets.h — every target linked into this binary, by name.  There is no
 * list to edit: HF_DEFINE_TARGET (hf.h) enters a target in section
 * hf_targets, and the linker gathers whatever the binary links — the
 * in-tree targets in the tool, a user's own in their fuzzer.
 */
#ifndef HF_TARGETS_H
#define HF_TARGETS_H

#include "hf.h"

/* The targets, sorted by name, NULL-terminated (empty when none is linked).
 * Two targets of the same name stop the program with a message. */
const hf_target *const *hf_target_list(void);

size_t hf_target_count(void);

const hf_target *hf_target_find(const char *name);

/* Makes hf_target_find know one more target, outside the registry: a
 * fuzzer's own (a pthread program's, fuzz/engine/pthread_driver.c). */
void hf_target_add(const hf_target *t);
/* That target, or NULL. */
const hf_target *hf_target_added(void);

/* The target a fuzzer binary runs: the one HEISENFUZZ_TARGET names, else
 * the one hf_target_add made known, else the only one linked in, else the
 * pthread program linked in (an AFL++ mutator library build-pthread --afl
 * wrote holds one and no target), else the one the program is named after
 * (PROGRAM's base name less a _bytes_fuzzer, _fuzzer, _afl_mutator.so, _afl or
 * _replay ending).  NULL, with
 * a one-line reason in `error`, when none of these picks one. */
const hf_target *hf_target_for_program(const char *program, char *error, size_t error_size);

/* The name a discovery log (and so its chart and report) gives the target
 * that the fuzzer PROGRAM runs: the target's own, but for a pthread program
 * (every one is "pthread_program") the program's, PROGRAM's base name less
 * one of the endings above (lost_update_fuzzer: lost_update), as one word of
 * at most size - 1 printable bytes. */
void hf_target_log_name(const hf_target *t, const char *program, char *name, size_t size);

/* Targets come in families: NAME, the fixed variant, and NAME_buggy. */
bool hf_target_is_buggy(const hf_target *t);

/* Writes the family name (the target's name without "_buggy") to `out`. */
void hf_target_family(const hf_target *t, char *out, size_t size);

/* The pthread layer's target (schedule/pthread_thread.c): the program a
 * fuzzer built by `heisenfuzz build-pthread` holds.  It has no fixed twin;
 * its regression tests are built with the program (regress.h). */
extern const hf_target hf_pthread_program_target;
bool hf_target_is_pthread_program(const hf_target *t);
/* Whether this binary or library holds a program (its main, renamed). */
bool hf_pthread_program_linked(void);

/* What the program's main runs with from the next run on, each run the
 * same (schedule/pthread_libc.c): argv is "program" and `args` (copied),
 * stdin the `size` bytes of `data` (copied; none: empty).  Until set,
 * no arguments and an empty stdin. */
void hf_program_set_args(int count, char *const *args);
void hf_program_set_stdin(const void *data, size_t size);
/* Whether the program's writes and syncs of files are fault decisions
 * (schedule/pthread_files.c); until set, they are not. */
void hf_program_set_file_faults(bool on);
/* Whether a machine crash, which loses the files' unsynced writes and
 * starts the program again, may strike at its calls that change files (a
 * decision; schedule/pthread_files.c); until set, it may not. */
void hf_program_set_crashes(bool on);

#endif
