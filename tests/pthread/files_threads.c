/*
 * files_threads.c — a program that works on files, for the per-run file
 * system (schedule/pthread_files.c): it reads the file argv[1], appends a
 * mark to it, and copies it into out/ in two halves, one thread each; then
 * renames the copy, lists out/ and reads the copy back.
 *
 * Every run makes out/ with mkdir and out/copy.tmp with O_EXCL, and asserts
 * that argv[1] does not end in the mark yet: a run that saw what an earlier
 * one wrote fails.  With argv[2] "racy", each thread appends its half at
 * the end it read with lseek, and a half can land on the other's (a lost
 * write the search must find); with "dup", the program calls dup, which
 * the layer does not cover.
 */
#include <assert.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char MARK[] = "-- copied\n";

static char input[4096];
static size_t input_size;
static int copy_fd;
static int racy;

typedef struct half { size_t offset, size; } half;

static void *write_half(void *arg) {
    const half *h = arg;
    off_t at = (off_t)h->offset;
    if (racy) at = lseek(copy_fd, 0, SEEK_END);
    ssize_t n = pwrite(copy_fd, input + h->offset, h->size, at);
    assert(n == (ssize_t)h->size);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [racy|dup]\n", argv[0]);
        return 2;
    }
    racy = argc > 2 && !strcmp(argv[2], "racy");
    if (argc > 2 && !strcmp(argv[2], "dup")) dup(1);

    FILE *in = fopen(argv[1], "r");
    assert(in);
    input_size = fread(input, 1, sizeof input, in);
    fclose(in);
    assert(input_size >= strlen(MARK) && "the input is too short");
    assert(memcmp(input + input_size - strlen(MARK), MARK, strlen(MARK)) != 0 && "an earlier run's mark");
    FILE *append = fopen(argv[1], "a");
    assert(append && fputs(MARK, append) >= 0 && fclose(append) == 0);

    assert(mkdir("out", 0755) == 0 && "out/ is there already");
    copy_fd = open("out/copy.tmp", O_RDWR | O_CREAT | O_EXCL, 0644);
    assert(copy_fd >= 3);
    half halves[2] = {{0, input_size / 2}, {input_size / 2, input_size - input_size / 2}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, write_half, &halves[i]);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    struct stat st;
    assert(fstat(copy_fd, &st) == 0);
    assert(st.st_size == (off_t)input_size && "the copy lost a half");
    assert(fsync(copy_fd) == 0 && close(copy_fd) == 0);
    assert(rename("out/copy.tmp", "out/copy") == 0);

    DIR *d = opendir("out");
    assert(d);
    int names = 0;
    for (struct dirent *e; (e = readdir(d));) {
        assert(!strcmp(e->d_name, "copy"));
        names++;
    }
    closedir(d);
    assert(names == 1);

    char back[sizeof input];
    FILE *copy = fopen("out/copy", "r");
    assert(copy);
    size_t n = fread(back, 1, sizeof back, copy);
    fclose(copy);
    if (!racy) assert(n == input_size && memcmp(back, input, n) == 0);
    printf("copied %zu bytes\n", n);
    return 0;
}
