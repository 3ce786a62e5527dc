/*
 * files.h — reading inputs whole, writing files so that an existing one
 * is never left half-written (temporary file, then rename), and making the
 * directories they go into.
 */
#ifndef HF_FILES_H
#define HF_FILES_H

#include <stddef.h>
#include <stdint.h>

/* Reads a whole file.  On failure returns NULL and leaves a one-line reason
 * (naming the file) in `error`. */
uint8_t *hf_read_file(const char *path, size_t *size, char *error, size_t error_size);

/* Writes `path` atomically and durably (synced before the rename).
 * Returns 0, or -1 with a reason in `error`. */
int hf_write_file(const char *path, const void *data, size_t size, char *error, size_t error_size);

/* As hf_write_file, without the sync: for files other processes are to
 * read whole now, not ones that must outlive a crash of the machine (a
 * sync costs milliseconds, as much as a run). */
int hf_publish_file(const char *path, const void *data, size_t size, char *error, size_t error_size);

/* The directories commands write their files into.  HF_DIR_AND_PARENTS makes
 * every missing parent too (mkdir -p); HF_DIR_ONLY makes the last part alone,
 * for a command that takes a missing parent as a mistyped path. */
typedef enum hf_dir_parents { HF_DIR_ONLY, HF_DIR_AND_PARENTS } hf_dir_parents;

/* Makes the directory `path` unless it is one already.  Returns 0 when
 * `path` is a directory afterwards, or -1 with a one-line reason naming it
 * in `error`. */
int hf_make_dir(const char *path, hf_dir_parents parents, char *error, size_t error_size);

#endif
