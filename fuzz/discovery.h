/*
 * discovery.h — the discovery log: what one fuzzer process has discovered,
 * appended as whole lines while it fuzzes, so that `heisenfuzz chart` can
 * draw the discovery curve and name the plateau.
 *
 * A harness records every execution (the behaviours it showed: its set of
 * behaviour features; its logical time; whether it failed); the log writes a line now and then, a status
 * line goes to stderr, and nothing inside a run is touched: the wall clock
 * read here is the fuzzer's, outside every run.
 *
 * The log is text, one record per line, fields separated by one space:
 *
 *   start INSTANCE UNIX_S PID TARGET ENGINE
 *   seen INSTANCE BEHAVIOUR COUNT
 *   stats INSTANCE WALL_S EXECUTIONS LOGICAL_S BEHAVIOURS F1 F2 GOOD_TURING CHAO1 CRASHES
 *
 *   INSTANCE     12 hex digits naming this process's stretch of the log
 *   UNIX_S       when it began, seconds since 1970 (3 decimals)
 *   BEHAVIOUR    16 hex digits: a behaviour feature (behaviour.h)
 *   COUNT        1, 2 or 3: this process has now seen BEHAVIOUR in that
 *                many runs (3: three or more); each is written once, so
 *                logs of several processes merge into exact f1 and f2
 *   WALL_S       seconds since this process began (3 decimals)
 *   EXECUTIONS   runs of the target so far
 *   LOGICAL_S    logical seconds all those runs simulated (9 decimals, exact)
 *   BEHAVIOURS   distinct behaviours so far; F1, F2 those seen in exactly
 *                one run, two runs (incidence counts: each run is a sample
 *                that shows a set of them)
 *   GOOD_TURING  F1/EXECUTIONS (%.6e);  CHAO1  the Chao1 estimate (%.3f)
 *   CRASHES      failed runs so far
 *
 * The seen lines a stats line accounts for come before it.  A line is
 * written when executions grew by a sixteenth, when a period of wall time
 * passed (1 s, growing to 60 s with the campaign's age), when a run failed
 * (before the harness aborts) and at exit.  Lines are appended (O_APPEND,
 * under flock) in write()s that never cross a 4 KiB boundary of the file,
 * the page boundary where Linux may cut a write short when it kills the
 * writer; a page's unused tail becomes a comment line of spaces.  So
 * parallel processes may share one file, and a killed process leaves only
 * whole lines: it loses what happened since its last line.  Readers skip
 * blank lines and lines that begin with '#'.
 */
#ifndef HF_DISCOVERY_H
#define HF_DISCOVERY_H

#include "estimate.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The smallest page size: no write() crosses a multiple of it. */
#define HF_LOG_PAGE 4096

typedef struct hf_discovery hf_discovery;

/* Opens (creating, appending) the log at `path` for this process and writes
 * its start line.  `target` and `engine` are single words.  `status`, when
 * not NULL, receives the status line (status.h) at the first line after each
 * power of two of executions from 1024, when the plateau rule starts or stops holding, at
 * least every minute, and at close.  NULL with a one-line reason in `error`. */
hf_discovery *hf_discovery_open(const char *path, const char *target, const char *engine,
                                FILE *status, char *error, size_t error_size);

/* Counts one execution: the `count` distinct behaviours it showed (at most
 * 4096: its behaviour features), the logical time the run simulated, and
 * whether it failed.  Writes the log when a line is due; after a failed
 * run at once, since the harness aborts next.  Allocates only while the
 * table of behaviours grows. */
void hf_discovery_record(hf_discovery *d, const uint64_t *behaviours, size_t count, uint64_t logical_ns,
                         bool failed);

/* Writes a line now, when anything happened since the last one. */
void hf_discovery_flush(hf_discovery *d);

/* Flushes, prints the last status line, closes the log and frees `d`. */
void hf_discovery_close(hf_discovery *d);

/* This process's progress at its latest line, and the plateau rule on it. */
const hf_progress *hf_discovery_progress(const hf_discovery *d);
const hf_plateau *hf_discovery_plateau(const hf_discovery *d);

/* For harnesses: the log named by the environment variable HEISENFUZZ_LOG,
 * opened on the first call (so each process a fuzzer forks opens its own)
 * and flushed at exit; NULL when the variable is unset or empty.  A log
 * that cannot be opened ends the process: a one-line error, exit status 2. */
hf_discovery *hf_discovery_from_env(const char *target, const char *engine);

#endif
