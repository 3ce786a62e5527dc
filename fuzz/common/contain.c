/*
 * contain.c — work in a child process, crashes reported (contain.h).
 */
#define _GNU_SOURCE   /* sigaction, sigaltstack, strsignal, MAP_ANONYMOUS */
#include "contain.h"

#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- Crash reports ----------------------------------------------------------- */

static void (*crash_report)(const char *what);
static volatile sig_atomic_t crash_reported;

static void report_once(const char *what) {
    if (crash_reported) return;
    crash_reported = 1;
    crash_report(what);
}

static void on_fatal_signal(int sig) {
    report_once(strsignal(sig));
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Sanitizers call it before they end the process (their report printed). */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
static void on_sanitizer_death(void) { report_once("a sanitizer report"); }

void hf_on_crash(void (*report)(const char *what)) {
    assert(report);
    crash_report = report;
    crash_reported = 0;
    static char alternate_stack[64 * 1024];
    stack_t ss = {.ss_sp = alternate_stack, .ss_size = sizeof alternate_stack, .ss_flags = 0};
    sigaltstack(&ss, NULL);
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sa.sa_flags = SA_ONSTACK;
        sigaction(fatal[i], &sa, NULL);
    }
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_sanitizer_death);
}

/* ---- Contained work ------------------------------------------------------------ */

/* The shared memory: how the work ended, then what it wrote. */
typedef struct shared_header {
    volatile int end;   /* an hf_contained_end; HF_CONTAINED_LOST until said */
} shared_header;

enum { HEADER_SIZE = 64 };   /* keeps the work's part aligned for anything */

static struct {
    hf_contained_crash *crash;
    void *context;
    shared_header *header;
} child;

static void child_crashed(const char *what) {
    child.crash(child.context, (char *)child.header + HEADER_SIZE, what);
    child.header->end = HF_CONTAINED_CRASHED;
    fflush(stdout);
    fflush(stderr);
    _exit(0);
}

hf_contained_end hf_contain(hf_contained_work *work, hf_contained_crash *crash, void *context, void *shared,
                            size_t size) {
    assert(work && crash && (shared || size == 0));
    _Static_assert(sizeof(shared_header) <= HEADER_SIZE, "the header fits");
    size_t mapped = HEADER_SIZE + size;
    void *map = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        fprintf(stderr, "heisenfuzz: cannot map memory for a run in a child process: %s\n", strerror(errno));
        return HF_CONTAINED_LOST;
    }
    shared_header *header = map;
    header->end = HF_CONTAINED_LOST;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "heisenfuzz: cannot start a child process for a run: %s\n", strerror(errno));
        munmap(map, mapped);
        return HF_CONTAINED_LOST;
    }
    if (pid == 0) {
        child.crash = crash;
        child.context = context;
        child.header = header;
        hf_on_crash(child_crashed);
        work(context, (char *)map + HEADER_SIZE);
        header->end = HF_CONTAINED_DONE;
        fflush(stdout);
        fflush(stderr);
        _exit(0);   /* no exit handlers: they belong to the parent (a leak check would see its memory) */
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    hf_contained_end end = (hf_contained_end)header->end;
    if (end == HF_CONTAINED_LOST) {
        if (WIFSIGNALED(status))
            fprintf(stderr, "heisenfuzz: a run in a child process ended by %s before it could say how it went\n",
                    strsignal(WTERMSIG(status)));
        else
            fprintf(stderr, "heisenfuzz: a run in a child process exited (status %d) before it could say how it "
                            "went\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    } else if (size) {
        memcpy(shared, (char *)map + HEADER_SIZE, size);
    }
    munmap(map, mapped);
    return end;
}

hf_contained_end hf_contain_if(bool contain, hf_contained_work *work, hf_contained_crash *crash, void *context,
                               void *shared, size_t size) {
    if (contain) return hf_contain(work, crash, context, shared, size);
    work(context, shared);
    return HF_CONTAINED_DONE;
}
