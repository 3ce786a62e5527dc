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
 *   start INSTANCE UNIX_S PID TARGET ENGINE ENGINE_PID
 *   seen INSTANCE BEHAVIOUR COUNT
 *   stats INSTANCE WALL_S EXECUTIONS LOGICAL_S BEHAVIOURS F1 F2 GOOD_TURING CHAO1 CRASHES
 *
 *   INSTANCE     12 hex digits naming this process's stretch of the log
 *   UNIX_S       when it began, seconds since 1970 (3 decimals)
 *   TARGET       the target's name; a pthread program's is the program's,
 *                its fuzzer's name less _fuzzer (hf_target_log_name)
 *   ENGINE_PID   the engine instance it runs in: under afl-fuzz the fork
 *                server that forked it (each child of an instance's fork
 *                server logs as a process of its own), else PID; older
 *                logs lack it, and each of their processes is an instance
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
 * A process that logs what a report needs (`heisenfuzz report`) also writes,
 * in lines older logs lack (their readers show those facts as unknown):
 *
 *   facts INSTANCE 1
 *   property INSTANCE INDEX KIND FILE:LINE MESSAGE
 *   held INSTANCE INDEX EVALUATED HELD FAILED FIRST_HELD
 *   fault INSTANCE KIND ALLOWED ENABLED INJECTED
 *   crash INSTANCE EXECUTION OUTCOME PROPERTY INPUT_SHA1 FILE MESSAGE
 *   seen INSTANCE BEHAVIOUR COUNT CATEGORY
 *
 *   facts        right after the start line: this process writes the lines
 *                below, so a fact it has no line for is a zero, not unknown
 *   property     once per property compiled into the fuzzer, right after
 *                facts: INDEX 0, 1, ... in catalogue order; KIND always,
 *                always_or_unreachable, sometimes, reachable, unreachable
 *                or eventually; MESSAGE escaped (below), cut to fit a line
 *   held         a property's counts so far in this process, when they
 *                changed: runs that EVALUATED it, runs in which it HELD at
 *                least once, runs in which it FAILED (was false) at least
 *                once; FIRST_HELD the execution (of this process, from 1)
 *                that first held it, or - for none yet
 *   fault        a fault kind's counts so far, when they changed: runs
 *                whose options ALLOWED it, runs whose fault profile ENABLED
 *                it, faults of the kind INJECTED in all runs; KIND the
 *                fault's name with '_' for spaces (drop, torn_write, ...)
 *   crash        a failed run: its EXECUTION (of this process), OUTCOME
 *                (property, deadlock, step_budget, ...), the failing
 *                PROPERTY's index or -, the SHA-1 of the input (libFuzzer
 *                names the crash file it writes crash-SHA1), FILE where the
 *                engine writes the input (libFuzzer: its artifact prefix +
 *                crash-SHA1) or - when the engine does not say, MESSAGE
 *                escaped
 *   CATEGORY     on seen lines: the behaviour's kind (behaviour.h):
 *                interleaving, state, property, message or fault
 *
 * Escaped text has every byte below '!' or above '~', and '%', written as
 * %XX (two upper-case hex digits); an empty text is written as - (and a
 * text "-" as %2D).
 *
 * The seen, held, fault and crash lines a stats line accounts for come
 * before it.  A line is
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
#include "sim.h"

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

/* What a report needs of a run besides its behaviours (the facts lines
 * above), gathered by the harness from the runtime. */
enum {
    HF_LOG_PROPERTIES_MAX = 4096,   /* properties a log accounts for */
    HF_LOG_EVALUATED = 1,           /* bits of hf_run_facts.properties */
    HF_LOG_HELD = 2,
    HF_LOG_FAILED = 4,
};

typedef struct hf_log_property {
    const char *kind;        /* "always", "sometimes", ... (hf_prop_kind_name) */
    const char *file;
    int line;
    const char *message;
} hf_log_property;

typedef struct hf_run_facts {
    const uint64_t *behaviours;      /* its distinct behaviours (at most 4096) */
    const uint8_t *categories;       /* each one's hf_feature_kind, or NULL: unknown */
    size_t count;
    uint64_t logical_ns;             /* logical time the run simulated */
    const uint8_t *properties;       /* per declared property, HF_LOG_* bits; NULL: none evaluated */
    uint32_t faults_allowed;         /* fault kinds (HF_FAULT_BIT mask) the options allowed */
    uint32_t faults_enabled;         /* those the run's profile enabled */
    const uint64_t *faults_injected; /* HF_FAULT_KIND_COUNT counts, or NULL: none */
    bool failed;
    /* For a failed run: */
    const char *outcome;             /* hf_outcome_name */
    const char *message;             /* the verdict's reason */
    long property;                   /* the failing property's index, or -1 */
    const char *input_sha1;          /* 40 hex digits */
    const char *replay_file;         /* where the engine writes the input, or NULL */
} hf_run_facts;

/* Declares the properties compiled into the fuzzer (at most
 * HF_LOG_PROPERTIES_MAX) and writes the facts and property lines: once,
 * right after opening, before the first run is recorded.  Without it a
 * process logs as before (no facts lines). */
void hf_discovery_declare(hf_discovery *d, const hf_log_property *properties, size_t count);

/* hf_discovery_record with the run's facts; after hf_discovery_declare. */
void hf_discovery_record_run(hf_discovery *d, const hf_run_facts *run);

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
