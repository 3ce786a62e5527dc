/*
 * files.h — reading inputs whole, and writing files so that an existing
 * one is never left half-written (temporary file, then rename).
 */
#ifndef HF_FILES_H
#define HF_FILES_H

#include <stddef.h>
#include <stdint.h>

/* Reads a whole file.  On failure returns NULL and leaves a one-line reason
 * (naming the file) in `error`. */
uint8_t *hf_read_file(const char *path, size_t *size, char *error, size_t error_size);

/* Writes `path` atomically.  Returns 0, or -1 with a reason in `error`. */
int hf_write_file(const char *path, const void *data, size_t size, char *error, size_t error_size);

#endif
