/*
 * log_file.h — the logread and chart fuzzers read their input as a
 * discovery log file, as the tool does: these helpers keep one temporary
 * file per process and rewrite it with each input.
 */
#ifndef HF_SELF_LOG_FILE_H
#define HF_SELF_LOG_FILE_H

#include <stddef.h>
#include <stdint.h>

/* The path of the file now holding `data`; exits on an I/O error (the
 * machine's fault, not the input's). */
const char *self_log_file(const uint8_t *data, size_t size);

/* A second path in the same temporary directory, for output. */
const char *self_out_file(void);

#endif
