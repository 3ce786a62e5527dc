/*
 * features.c — a pthread program that uses the pthread layer's every part
 * and checks, with assert, what POSIX promises of each whatever the
 * schedule: thread-locals and errno per thread, the mutex kinds' error
 * codes, timed waits on the logical clock, rwlocks, barriers, spinlocks,
 * semaphores, keys with destructors, once, C11 threads, rand(), signals
 * between threads (masks, sigwait, pthread_kill, handlers kept), a pipe
 * between threads, the processor count, getopt from the start.  The test
 * (tests/test_pthread.sh) fuzzes it and expects no failure.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

enum { WORKERS = 3 };

static __thread int mine = 5;                 /* every thread starts from 5 */
static pthread_mutex_t recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t checked;
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t barrier;
static pthread_spinlock_t spin;
static sem_t slots;
static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_int once_calls, destructor_calls, in_table, spin_holders;
static int table[4];

static void init_once(void) { atomic_fetch_add(&once_calls, 1); }
static void destroy_value(void *v) { free(v); atomic_fetch_add(&destructor_calls, 1); }

static void *worker(void *arg) {
    int n = (int)(long)arg;
    assert(mine == 5);
    mine = n;
    errno = 100 + n;
    pthread_once(&once, init_once);

    pthread_mutex_lock(&recursive);
    pthread_mutex_lock(&recursive);
    assert(pthread_mutex_trylock(&checked) == 0 || errno == 100 + n);
    pthread_mutex_unlock(&checked);
    pthread_mutex_unlock(&recursive);
    pthread_mutex_unlock(&recursive);

    pthread_rwlock_wrlock(&table_lock);
    table[n % 4] += n;
    pthread_rwlock_unlock(&table_lock);
    pthread_rwlock_rdlock(&table_lock);
    assert(table[n % 4] >= n);
    pthread_rwlock_unlock(&table_lock);

    sem_wait(&slots);
    assert(atomic_fetch_add(&in_table, 1) < 2);    /* at most two hold a slot */
    sched_yield();
    atomic_fetch_sub(&in_table, 1);
    sem_post(&slots);

    pthread_spin_lock(&spin);
    assert(atomic_fetch_add(&spin_holders, 1) == 0);
    atomic_fetch_sub(&spin_holders, 1);
    pthread_spin_unlock(&spin);

    int *value = malloc(sizeof *value);
    assert(value);
    *value = n;
    pthread_setspecific(key, value);
    pthread_barrier_wait(&barrier);
    assert(*(int *)pthread_getspecific(key) == n);

    assert(mine == n);
    assert(errno == 100 + n);
    return (void *)(long)(n * 10);
}

static int c11_worker(void *arg) {
    mtx_t *m = arg;
    mtx_lock(m);
    mtx_unlock(m);
    thrd_yield();
    return 7;
}

static int pipe_fds[2];

/* Reads what main writes into the pipe (waiting while it is empty), then
 * takes the signal main sends; returns its number. */
static void *take_signal(void *set) {
    char word[4];
    assert(read(pipe_fds[0], word, 4) == 4 && word[0] == 'p' && word[3] == 'g');
    int sig = 0;
    assert(sigwait(set, &sig) == 0);
    return (void *)(long)sig;
}

static void ignore(int sig) { (void)sig; }

int main(void) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&checked, &attr);
    pthread_mutexattr_destroy(&attr);
    pthread_barrier_init(&barrier, NULL, WORKERS);
    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
    sem_init(&slots, 0, 2);
    pthread_key_create(&key, destroy_value);

    /* Error-checking mutex: relocking and foreign unlocks are errors. */
    assert(pthread_mutex_lock(&checked) == 0);
    assert(pthread_mutex_lock(&checked) == EDEADLK);
    assert(pthread_mutex_unlock(&checked) == 0);
    assert(pthread_mutex_unlock(&checked) == EPERM);

    /* Timed waits run on the logical clock: nobody signals, so they time out
     * after exactly the time asked for. */
    struct timespec start, deadline, end;
    clock_gettime(CLOCK_REALTIME, &start);
    deadline = start;
    deadline.tv_sec += 2;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    pthread_mutex_lock(&m);
    int r;
    do r = pthread_cond_timedwait(&c, &m, &deadline);
    while (r == 0);                       /* a spurious wake-up returns 0 */
    assert(r == ETIMEDOUT);
    pthread_mutex_unlock(&m);
    clock_gettime(CLOCK_REALTIME, &end);
    assert(end.tv_sec == start.tv_sec + 2 && end.tv_nsec == start.tv_nsec);
    time_t before = time(NULL);
    sleep(3);
    usleep(500000);
    assert(time(NULL) == before + 3);

    pthread_t t[WORKERS];
    for (long i = 0; i < WORKERS; i++) assert(pthread_create(&t[i], NULL, worker, (void *)(i + 1)) == 0);
    assert(!pthread_equal(t[0], t[1]) && pthread_equal(pthread_self(), pthread_self()));
    for (int i = 0; i < WORKERS; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        assert((long)ret == (i + 1) * 10);
    }
    assert(atomic_load(&once_calls) == 1);
    assert(atomic_load(&destructor_calls) == WORKERS);
    assert(mine == 5);
    assert(table[1] == 1 && table[2] == 2 && table[3] == 3);

    mtx_t cm;
    mtx_init(&cm, mtx_plain);
    thrd_t ct;
    assert(thrd_create(&ct, c11_worker, &cm) == thrd_success);
    int res;
    assert(thrd_join(ct, &res) == thrd_success && res == 7);
    mtx_destroy(&cm);

    /* Signals: the thread inherits main's mask, so SIGUSR1 waits for its
     * sigwait whenever it comes; a handler is the program's to read back. */
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    assert(pthread_sigmask(SIG_BLOCK, &usr1, NULL) == 0);
    assert(pipe(pipe_fds) == 0);
    pthread_t taker;
    assert(pthread_create(&taker, NULL, take_signal, &usr1) == 0);
    assert(write(pipe_fds[1], "ping", 4) == 4);
    assert(pthread_kill(taker, SIGUSR1) == 0);
    void *taken;
    pthread_join(taker, &taken);
    assert((long)taken == SIGUSR1);
    assert(close(pipe_fds[1]) == 0);
    char rest;
    assert(read(pipe_fds[0], &rest, 1) == 0 && close(pipe_fds[0]) == 0);   /* no writer left: the end */
    assert(signal(SIGUSR2, ignore) == SIG_DFL && signal(SIGUSR2, SIG_DFL) == ignore);
    assert(sysconf(_SC_NPROCESSORS_ONLN) == 4);

    /* getopt starts over in every run, as in a fresh process. */
    char *options[] = {"program", "-v", "file", NULL};
    assert(getopt(3, options, "v") == 'v' && getopt(3, options, "v") == -1 && optind == 2);

    /* rand() is a decision: any value, but always one in range. */
    int v = rand();
    assert(v >= 0 && v <= RAND_MAX);
    unsigned seed = 1;
    assert(rand_r(&seed) <= RAND_MAX);
    printf("all checks passed\n");
    return 0;
}
