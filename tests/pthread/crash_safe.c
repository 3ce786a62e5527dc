/*
 * crash_safe.c — a program that keeps its state in a file, for machine
 * crashes (`-- --crashes`: schedule/pthread_files.c).  Two threads each add
 * to a counter, under a lock, and save it: a record of 16 bytes (the count,
 * a mark, a check of the count) in the file "state".  At its start the
 * program reads what an earlier start left there and asserts that the file
 * is absent or holds a whole record: after a crash, that is what a program
 * that saves safely finds.
 *
 * argv[1] says how a thread saves:
 *   careless  writes a temporary file and renames it into place, without a
 *             sync: the rename survives a crash and the data does not, so
 *             the state is empty (the bug lost writes find);
 *   inplace   writes the record over the old one, then syncs it: a crash
 *             that loses the write leaves the old record whole, one that
 *             tears it leaves half of each (the bug only a torn write finds);
 *   careful   writes a temporary file, syncs it, then renames it into
 *             place: every crash leaves a whole record.
 */
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { RECORD = 16, SAVES_PER_THREAD = 2 };

enum { CARELESS, INPLACE, CAREFUL };

static int how = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t count;

static uint32_t check_of(uint32_t n) { return n * 2654435761u ^ 0x5a5a5a5au; }

static void encode(uint32_t n, unsigned char record[RECORD]) {
    uint32_t check = check_of(n);
    memcpy(record, &n, 4);
    memcpy(record + 4, "counter\n", 8);
    memcpy(record + 12, &check, 4);
}

/* The count a whole record holds; asserts that it is whole. */
static uint32_t decode(const unsigned char *record, ssize_t size) {
    assert(size == RECORD && "the state file is not one whole record");
    uint32_t n, check;
    memcpy(&n, record, 4);
    memcpy(&check, record + 12, 4);
    assert(!memcmp(record + 4, "counter\n", 8) && check == check_of(n) && "the state record is torn");
    return n;
}

/* Writes a new file and renames it into place, syncing it first or not. */
static void replace(const unsigned char *record, int sync) {
    int fd = open("state.tmp", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert(fd >= 0);
    assert(write(fd, record, RECORD) == RECORD);
    if (sync) assert(fsync(fd) == 0);
    close(fd);
    assert(rename("state.tmp", "state") == 0);
}

static void save(uint32_t n) {
    unsigned char record[RECORD];
    encode(n, record);
    int fd = how == INPLACE ? open("state", O_WRONLY) : -1;
    if (how == CARELESS) {
        replace(record, 0);
    } else if (fd < 0) {   /* careful, or the first in-place save: the file made safely */
        replace(record, 1);
    } else {
        assert(pwrite(fd, record, RECORD, 0) == RECORD);
        assert(fsync(fd) == 0);
        close(fd);
    }
}

static void *work(void *arg) {
    (void)arg;
    for (int i = 0; i < SAVES_PER_THREAD; i++) {
        pthread_mutex_lock(&lock);
        save(++count);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(int argc, char **argv) {
    const char *modes[] = {[CARELESS] = "careless", [INPLACE] = "inplace", [CAREFUL] = "careful"};
    for (int m = 0; m < 3; m++)
        if (argc == 2 && !strcmp(argv[1], modes[m])) how = m;
    if (how < 0) {
        fprintf(stderr, "usage: %s careless|inplace|careful\n", argv[0]);
        return 2;
    }
    int fd = open("state", O_RDONLY);
    if (fd >= 0) {
        unsigned char record[2 * RECORD];
        count = decode(record, read(fd, record, sizeof record));
        close(fd);
    }
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    return 0;
}
