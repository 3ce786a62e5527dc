/*
 * files.c — whole-file reads, atomic writes and output directories for the tool.
 */
#define _DEFAULT_SOURCE   /* mkstemp, fsync */
#include "files.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint8_t *hf_read_file(const char *path, size_t *size, char *error, size_t error_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(error, error_size, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    uint8_t *data = malloc(cap);
    for (;;) {
        if (!data) break;
        len += fread(data + len, 1, cap - len, f);
        if (len < cap) break;
        uint8_t *grown = realloc(data, cap * 2);
        if (!grown) { free(data); data = NULL; break; }
        data = grown;
        cap *= 2;
    }
    int failed = ferror(f) || !data;
    int saved = errno;
    fclose(f);
    if (failed) {
        free(data);
        snprintf(error, error_size, "cannot read %s: %s", path, data ? strerror(saved) : "out of memory");
        return NULL;
    }
    *size = len;
    return data;
}

static int write_via_temporary(const char *path, const void *data, size_t size, bool sync, char *error,
                               size_t error_size) {
    size_t tmp_len = strlen(path) + sizeof ".tmp.XXXXXX";
    char *tmp = malloc(tmp_len);
    if (!tmp) { snprintf(error, error_size, "out of memory writing %s", path); return -1; }
    snprintf(tmp, tmp_len, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(error, error_size, "cannot create a temporary file beside %s: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    const char *p = data;
    size_t left = size;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        p += n;
        left -= (size_t)n;
    }
    /* mkstemp makes the file 0600; the result is an ordinary output file,
     * so it gets what open(..., 0666) would: 0666 less the umask. */
    mode_t mask = umask(0);
    umask(mask);
    int ok = left == 0 && fchmod(fd, 0666 & ~mask) == 0 && (!sync || fsync(fd) == 0);
    int saved = errno;   /* from write or fsync, whichever failed */
    if (close(fd) != 0 && ok) { ok = 0; saved = errno; }
    if (ok && rename(tmp, path) != 0) { ok = 0; saved = errno; }
    if (!ok) {
        snprintf(error, error_size, "cannot write %s: %s", path, strerror(saved));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

int hf_make_dir(const char *path, hf_dir_parents parents, char *error, size_t error_size) {
    assert(path && *path && (parents == HF_DIR_ONLY || parents == HF_DIR_AND_PARENTS));
    char buf[PATH_MAX];
    if (strlen(path) >= sizeof buf) {
        snprintf(error, error_size, "cannot create %s: %s", path, strerror(ENAMETOOLONG));
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", path);
    /* Each parent in turn; one that exists already (EEXIST) is fine here, and
     * whether it is a directory shows at the next mkdir or the stat below. */
    for (char *p = buf + 1; parents == HF_DIR_AND_PARENTS && *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            snprintf(error, error_size, "cannot create %s: %s: %s", path, buf, strerror(errno));
            return -1;
        }
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
        snprintf(error, error_size, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(error, error_size, "cannot create %s: %s", path, strerror(ENOTDIR));
        return -1;
    }
    return 0;
}

int hf_write_file(const char *path, const void *data, size_t size, char *error, size_t error_size) {
    return write_via_temporary(path, data, size, true, error, error_size);
}

int hf_publish_file(const char *path, const void *data, size_t size, char *error, size_t error_size) {
    return write_via_temporary(path, data, size, false, error, error_size);
}
