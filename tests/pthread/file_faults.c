/*
 * file_faults.c — a program whose writes may fail, for file faults
 * (`-- --file-faults`: schedule/pthread_files.c).  Two threads each write
 * a part of a record to a file of their own, sync it and rename it into
 * place; main then reads both parts back and checks them.
 *
 * argv[1] says how the threads write:
 *   careless  one write, its result not looked at: a short write or a
 *             write error leaves a part short, and main's check fails (the
 *             bug file faults must find: no schedule without them does);
 *   careful   writes until all is written, and on an error says so and
 *             exits with status 1: the program refuses a failed disk, as
 *             it should, and no run fails.
 */
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { PART = 48 };

static int careful;

static void refuse(const char *what, const char *path) {
    fprintf(stderr, "file_faults: %s %s failed\n", what, path);
    exit(1);
}

static void write_all(int fd, const char *data, size_t size, const char *path) {
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0) refuse("write to", path);
        data += n;
        size -= (size_t)n;
    }
}

static void *write_part(void *arg) {
    int part = (int)(long)arg;
    char data[PART], temporary[32], final[32];
    memset(data, 'a' + part, sizeof data);
    snprintf(temporary, sizeof temporary, "part%d.tmp", part);
    snprintf(final, sizeof final, "part%d", part);
    int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert(fd >= 0);
    if (careful) {
        write_all(fd, data, sizeof data, temporary);
        if (fsync(fd) != 0) refuse("fsync of", temporary);
    } else {
        (void)!write(fd, data, sizeof data);
        (void)fsync(fd);
    }
    close(fd);
    assert(rename(temporary, final) == 0);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "careless") && strcmp(argv[1], "careful"))) {
        fprintf(stderr, "usage: %s careless|careful\n", argv[0]);
        return 2;
    }
    careful = !strcmp(argv[1], "careful");
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, write_part, (void *)i);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    for (int part = 0; part < 2; part++) {
        char path[32], back[PART + 1];
        snprintf(path, sizeof path, "part%d", part);
        int fd = open(path, O_RDONLY);
        assert(fd >= 0);
        ssize_t n = read(fd, back, sizeof back);
        close(fd);
        assert(n == PART && "a part lost bytes");
    }
    return 0;
}
