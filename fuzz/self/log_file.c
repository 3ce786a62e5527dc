/*
 * log_file.c — one temporary file per fuzzer process (log_file.h).
 */
#define _GNU_SOURCE   /* mkdtemp */
#include "log_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[256], log_path[300], out_path[300];

static void cleanup(void) {
    unlink(log_path);
    unlink(out_path);
    rmdir(dir);
}

static void make_dir(void) {
    if (dir[0]) return;
    /* Memory, where there is a tmpfs: rewriting a file on this machine's
     * disk costs a millisecond, most of a run. */
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/hf-self-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(2);
    }
    snprintf(log_path, sizeof log_path, "%s/discovery.log", dir);
    snprintf(out_path, sizeof out_path, "%s/out", dir);
    atexit(cleanup);
}

const char *self_log_file(const uint8_t *data, size_t size) {
    make_dir();
    FILE *f = fopen(log_path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(log_path);
        exit(2);
    }
    return log_path;
}

const char *self_out_file(void) {
    make_dir();
    return out_path;
}
