/*
 * invocation.h — what a pthread program's main runs with besides the
 * schedule: its arguments, the file on its stdin (the environment is fixed
 * by the layer: schedule/pthread_libc.c), whether its writes and syncs of
 * files may fail (file faults) and whether the machine may crash under it
 * (crashes: schedule/pthread_files.c).  A program's fuzzer takes them
 * from its command line (`PROG_fuzzer [FLAGS] -- [--stdin FILE]
 * [--file-faults] [--crashes] ARGS`) or the environment (HEISENFUZZ_ARGS,
 * HEISENFUZZ_STDIN, HEISENFUZZ_FILE_FAULTS=1, HEISENFUZZ_CRASHES=1), and keeps
 * them beside every schedule file it writes, as FILE.args, so that the
 * file replays without them being given again.
 *
 * FILE.args is text, one item a line, '#' lines ignored:
 *
 *     arg VALUE       one argument of main, in order (VALUE: the rest of the line)
 *     stdin PATH      the file on stdin (an absolute path)
 *     file-faults     writes and syncs of files are fault decisions
 *     crashes         a machine crash may strike at calls that change files
 *
 * An argument cannot hold a newline (it could not be written there).
 */
#ifndef HF_INVOCATION_H
#define HF_INVOCATION_H

#include <stdbool.h>
#include <stddef.h>

enum { HF_INVOCATION_MAX_ARGS = 256 };

/* The layer's switches, each off unless given. */
typedef enum {
    HF_SWITCH_FILE_FAULTS,             /* --file-faults */
    HF_SWITCH_CRASHES,                 /* --crashes */
    HF_SWITCHES
} hf_switch;

typedef struct hf_invocation {
    int argc;                          /* main's arguments after argv[0] */
    char *args[HF_INVOCATION_MAX_ARGS];
    char *stdin_path;                  /* absolute; NULL: an empty stdin */
    bool on[HF_SWITCHES];
} hf_invocation;

/* Anything but no arguments, an empty stdin, no file faults and no
 * crashes: only then is a record written. */
bool hf_invocation_given(const hf_invocation *inv);

/* Takes `--` and what follows it off the command line (*argc shrinks), into
 * `inv`: first the layer's own options (`--stdin FILE`, `--stdin=FILE`,
 * `--file-faults`, `--crashes`), then
 * an optional `--`, then the program's arguments.  Returns 1 when there was
 * a `--`, 0 when not, 2 after a one-line message (prefixed `prog`). */
int hf_invocation_from_command_line(int *argc, char **argv, hf_invocation *inv, const char *prog);

/* From the environment: HEISENFUZZ_PROGRAM_ARGS (newline-separated; what
 * the `--` form hands its child processes) or else HEISENFUZZ_ARGS (split
 * at spaces and tabs, no quoting), HEISENFUZZ_STDIN,
 * HEISENFUZZ_FILE_FAULTS and HEISENFUZZ_CRASHES (1: on). */
void hf_invocation_from_env(hf_invocation *inv);

/* Puts `inv` into the environment, so that libFuzzer's child processes
 * (-fork, -jobs, -workers: they get the command line without `--`) run the
 * program the same way. */
void hf_invocation_to_env(const hf_invocation *inv);

/* Reads the record beside `schedule` (schedule.args) into `inv`.  Returns 1
 * when read, 0 when there is none (inv untouched), 2 after a one-line
 * message. */
int hf_invocation_read_record(const char *schedule, hf_invocation *inv);

/* The record's text for `inv`, in `text` (NUL-terminated); false when it
 * does not fit or an argument holds a newline. */
bool hf_invocation_format(const hf_invocation *inv, char *text, size_t size);

/* Writes the record beside `schedule` (temporary file, then rename), or
 * removes a stale one when `inv` is not given.  Returns 0, or -1 after a
 * one-line message. */
int hf_invocation_write_record(const char *schedule, const hf_invocation *inv);

/* Makes `inv` what the next runs of the program get: reads its stdin file.
 * Returns 0, or 2 after a one-line message naming a missing file. */
int hf_invocation_apply(const hf_invocation *inv);

#endif
