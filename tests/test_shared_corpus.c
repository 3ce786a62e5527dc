/*
 * test_shared_corpus.c — the directory through which a campaign's AFL++
 * instances hand each other new inputs (fuzz/engine/shared_corpus.c): each input
 * another process put is taken once, whole, and none of one's own; files
 * that are not inputs (a temporary file half-written, anything else) are
 * left alone; a directory that cannot be made is refused with its name.
 */
#define _DEFAULT_SOURCE   /* mkdtemp */
#include "check.h"
#include "shared_corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct takings {
    uint32_t count;
    char text[16][32];
} takings;

static void take(void *context, uint8_t *data, size_t size) {
    takings *t = context;
    if (t->count < 16 && size < sizeof t->text[0]) {
        memcpy(t->text[t->count], data, size);
        t->text[t->count][size] = '\0';
    }
    t->count++;
    free(data);
}

static bool took(const takings *t, const char *text) {
    for (uint32_t i = 0; i < t->count && i < 16; i++)
        if (!strcmp(t->text[i], text)) return true;
    return false;
}

/* Another process puts `count` inputs "<prefix>0", "<prefix>1", ... */
static void put_from_another_process(const char *dir, const char *prefix, int count) {
    pid_t pid = fork();
    if (pid == 0) {
        char error[512], text[32];
        hf_shared_corpus *s = hf_shared_open(dir, error, sizeof error);
        for (int i = 0; s && i < count; i++) {
            int n = snprintf(text, sizeof text, "%s%d", prefix, i);
            if (!hf_shared_put(s, (const uint8_t *)text, (size_t)n)) _exit(1);
        }
        hf_shared_close(s);
        _exit(s ? 0 : 1);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "another process put %d inputs in %s", count, dir);
}

int main(void) {
    char dir[] = "/tmp/hf-shared-XXXXXX", error[512];
    CHECK(mkdtemp(dir) != NULL, "a temporary directory");
    char corpus[sizeof dir + 16];
    snprintf(corpus, sizeof corpus, "%s/corpus", dir);

    hf_shared_corpus *s = hf_shared_open(corpus, error, sizeof error);
    CHECK(s != NULL, "the shared corpus is made where it is missing%s%s", s ? "" : ": ", s ? "" : error);
    if (!s) return check_exit();
    takings t = {0};
    CHECK(hf_shared_take(s, take, &t) == 0 && t.count == 0, "an empty directory hands over nothing");

    CHECK(hf_shared_put(s, (const uint8_t *)"mine", 4), "an input is put");
    put_from_another_process(corpus, "a", 3);
    char junk[sizeof corpus + 32];
    snprintf(junk, sizeof junk, "%s/1-0.tmp.Xy12ab", corpus);   /* as hf_write_file's temporary files */
    FILE *f = fopen(junk, "w");
    if (f) fputs("half", f), fclose(f);
    snprintf(junk, sizeof junk, "%s/README", corpus);
    f = fopen(junk, "w");
    if (f) fputs("notes", f), fclose(f);

    uint32_t n = hf_shared_take(s, take, &t);
    CHECK(n == 3 && t.count == 3 && took(&t, "a0") && took(&t, "a1") && took(&t, "a2"),
          "the other process's three inputs are taken whole, and nothing else (took %u)", n);
    CHECK(!took(&t, "mine") && !took(&t, "half") && !took(&t, "notes"),
          "one's own input, a temporary file and a stray file are not taken");

    t = (takings){0};
    CHECK(hf_shared_take(s, take, &t) == 0, "a second look takes none of them again (took %u)", t.count);
    put_from_another_process(corpus, "b", 2);
    put_from_another_process(corpus, "c", 1);
    n = hf_shared_take(s, take, &t);
    CHECK(n == 3 && took(&t, "b0") && took(&t, "b1") && took(&t, "c0"),
          "what two more processes put later is taken, once (took %u)", n);
    hf_shared_close(s);

    char blocked[sizeof dir + 32];
    snprintf(blocked, sizeof blocked, "%s/README/corpus", corpus);   /* under a regular file */
    error[0] = '\0';
    CHECK(hf_shared_open(blocked, error, sizeof error) == NULL && strstr(error, blocked),
          "a directory that cannot be made is refused, named (%s)", error);

    char command[sizeof dir + 16];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    CHECK(system(command) == 0, "the temporary directory is removed");
    return check_exit();
}
