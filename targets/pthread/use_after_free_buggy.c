/*
 * use_after_free_buggy.c — a use after free across threads: the worker
 * marks its job done and then still reads it, while main frees the job as
 * soon as it sees it done.  AddressSanitizer reports the read (build the
 * fuzzer with an ASan build of heisenfuzz).  Fewest preemptions: 1 (the
 * worker, between marking done and its last read).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct job {
    int id;
    long result;
    atomic_int done;
};

static long total;

static void *worker(void *arg) {
    struct job *job = arg;
    job->result = (long)job->id * 3;
    atomic_store(&job->done, 1);
    total += job->id;          /* the job may be freed by now */
    return NULL;
}

int main(void) {
    struct job *job = calloc(1, sizeof *job);
    if (!job) return 1;
    job->id = 7;
    pthread_t t;
    pthread_create(&t, NULL, worker, job);
    while (!atomic_load(&job->done)) sched_yield();
    printf("result %ld\n", job->result);
    free(job);
    pthread_join(t, NULL);
    return total == 7 ? 0 : 1;
}
