/*
 * use_after_free.c — the twin of use_after_free_buggy.c: main joins the
 * worker before it frees the job.
 */
#include <pthread.h>
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
    total += job->id;
    return NULL;
}

int main(void) {
    struct job *job = calloc(1, sizeof *job);
    if (!job) return 1;
    job->id = 7;
    pthread_t t;
    pthread_create(&t, NULL, worker, job);
    pthread_join(t, NULL);
    printf("result %ld\n", job->result);
    free(job);
    return total == 7 ? 0 : 1;
}
