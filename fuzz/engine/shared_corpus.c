/*
 * shared_corpus.c — the directory of new inputs the processes of one
 * campaign share (shared_corpus.h).
 */
#define _DEFAULT_SOURCE   /* strdup */
#include "shared_corpus.h"
#include "files.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Other processes followed at most; a campaign has at most a few dozen. */
enum { PEERS_MAX = 256 };

struct hf_shared_corpus {
    char *dir;
    long pid;
    uint64_t written;
    int peers;
    struct peer {
        long pid;
        uint64_t next;        /* the first file of it not taken yet */
        uint64_t next_after;  /* what `next` becomes after this scan */
    } peer[PEERS_MAX];
};

hf_shared_corpus *hf_shared_open(const char *dir, char *error, size_t error_size) {
    assert(dir);
    if (hf_make_dir(dir, HF_DIR_AND_PARENTS, error, error_size) != 0) return NULL;
    hf_shared_corpus *s = calloc(1, sizeof *s);
    if (s) s->dir = strdup(dir);
    if (!s || !s->dir) {
        free(s);
        snprintf(error, error_size, "out of memory opening the shared corpus %s", dir);
        return NULL;
    }
    s->pid = (long)getpid();
    return s;
}

static char *path_of(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (path) snprintf(path, n, "%s/%s", dir, name);
    return path;
}

bool hf_shared_put(hf_shared_corpus *s, const uint8_t *data, size_t size) {
    char name[64], error[512];
    snprintf(name, sizeof name, "%ld-%llu", s->pid, (unsigned long long)s->written);
    char *path = path_of(s->dir, name);
    int written = path ? hf_publish_file(path, data, size, error, sizeof error) : -1;
    free(path);
    if (written != 0) return false;
    s->written++;
    return true;
}

/* PID-N, exactly (temporary files and anything else are not inputs). */
static bool parse_name(const char *name, long *pid, uint64_t *n) {
    char *end;
    errno = 0;
    *pid = strtol(name, &end, 10);
    if (end == name || *end != '-' || errno || *pid <= 0) return false;
    const char *rest = end + 1;
    if (*rest < '0' || *rest > '9') return false;
    unsigned long long v = strtoull(rest, &end, 10);
    if (*end || errno) return false;
    *n = v;
    return true;
}

static struct peer *peer_of(hf_shared_corpus *s, long pid) {
    for (int i = 0; i < s->peers; i++)
        if (s->peer[i].pid == pid) return &s->peer[i];
    if (s->peers == PEERS_MAX) return NULL;
    s->peer[s->peers] = (struct peer){.pid = pid};
    return &s->peer[s->peers++];
}

uint32_t hf_shared_take(hf_shared_corpus *s, hf_shared_take_fn *take, void *context) {
    DIR *d = opendir(s->dir);
    if (!d) return 0;
    uint32_t taken = 0;
    struct dirent *e;
    /* A peer writes its files in order, each whole, but readdir may list
     * them in any: every file from `next` on is taken, and `next` moves
     * past the last one only when the listing is done. */
    while ((e = readdir(d))) {
        long pid;
        uint64_t n;
        if (!parse_name(e->d_name, &pid, &n) || pid == s->pid) continue;
        struct peer *p = peer_of(s, pid);
        if (!p || n < p->next) continue;
        if (n + 1 > p->next_after) p->next_after = n + 1;
        char *path = path_of(s->dir, e->d_name), error[512];
        size_t size = 0;
        uint8_t *data = path ? hf_read_file(path, &size, error, sizeof error) : NULL;
        free(path);
        if (!data) continue;
        take(context, data, size);
        taken++;
    }
    closedir(d);
    for (int i = 0; i < s->peers; i++)
        if (s->peer[i].next_after > s->peer[i].next) s->peer[i].next = s->peer[i].next_after;
    return taken;
}

void hf_shared_close(hf_shared_corpus *s) {
    if (!s) return;
    free(s->dir);
    free(s);
}
