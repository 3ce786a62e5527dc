/*
 * pthread_signals.c — signals between a program's threads, as far as a
 * program that takes them in a thread of its own needs (pbzip2 does): each
 * thread's mask (pthread_sigmask, sigprocmask), sigwait, and pthread_kill
 * of a signal the receiving thread blocks.
 *
 * The real mask belongs to the one OS thread every task and the engine run
 * on, so the program's changes never reach it: libFuzzer's own handlers
 * (SIGINT, SIGSEGV, ...) keep working.  A thread starts with its creator's
 * mask, as pthread_create gives it; main starts with none blocked, as a
 * fresh process would (the fuzzer's own mask is no part of the run).  A
 * signal sent to a thread that blocks it stays pending until the thread
 * takes it with sigwait, which blocks on the scheduler until one of its
 * set is pending.  A signal the thread does not block would run a handler
 * or the default action, which the layer does not model: pthread_kill then
 * fails the run, naming the call.
 *
 * Handlers (sigaction, signal) are the program's, kept for the run, never
 * installed: the process's handlers are the engine's and the sanitizers',
 * and no signal reaches a run from outside it.
 */
#define _GNU_SOURCE   /* sigset_t, clockid_t, NSIG */
#include "pthread_layer.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>

static void change_mask(sigset_t *mask, int how, const sigset_t *set) {
    for (int s = 1; s < NSIG; s++) {
        if (!sigismember(set, s)) continue;
        if (how == SIG_UNBLOCK) sigdelset(mask, s);
        else sigaddset(mask, s);
    }
}

int hfp_pthread_sigmask(int how, const sigset_t *set, sigset_t *old);
int hfp_pthread_sigmask(int how, const sigset_t *set, sigset_t *old) {
    hfp_thread *self = hfp_self();
    if (old) *old = self->signals_blocked;
    if (!set) return 0;
    if (how == SIG_SETMASK) self->signals_blocked = *set;
    else if (how == SIG_BLOCK || how == SIG_UNBLOCK) change_mask(&self->signals_blocked, how, set);
    else return EINVAL;
    /* As the kernel does: these two cannot be blocked. */
    sigdelset(&self->signals_blocked, SIGKILL);
    sigdelset(&self->signals_blocked, SIGSTOP);
    return 0;
}

int hfp_sigprocmask(int how, const sigset_t *set, sigset_t *old);
int hfp_sigprocmask(int how, const sigset_t *set, sigset_t *old) {
    int error = hfp_pthread_sigmask(how, set, old);
    if (!error) return 0;
    errno = error;
    return -1;
}

int hfp_sigwait(const sigset_t *set, int *taken);
int hfp_sigwait(const sigset_t *set, int *taken) {
    hfp_point();
    hfp_thread *self = hfp_self();
    for (;;) {
        for (int s = 1; s < NSIG; s++) {
            if (!sigismember(set, s) || !sigismember(&self->signals_pending, s)) continue;
            sigdelset(&self->signals_pending, s);
            *taken = s;
            return 0;
        }
        self->signals_awaited = set;
        hfp_block(&self->signal_waiters, "sigwait", 0);
        self->signals_awaited = NULL;
    }
}

int hfp_pthread_kill(pthread_t thread, int sig);
int hfp_pthread_kill(pthread_t thread, int sig) {
    hfp_point();
    hfp_thread *t = hfp_thread_of(thread);
    if (!t) return ESRCH;
    if (sig == 0) return 0;   /* whether the thread is there */
    if (sig < 0 || sig >= NSIG) return EINVAL;
    bool awaited = t->signals_awaited && sigismember(t->signals_awaited, sig);
    if (!awaited && !sigismember(&t->signals_blocked, sig))
        hf_fail(HF_FAIL_CONFIG, NULL, "pthread_kill in %s of signal %d to %s, which does not block it (a handler "
                "or the default action): not supported by the pthread layer", hf_task_name(hf_self()), sig,
                hf_task_name((int)thread));
    sigaddset(&t->signals_pending, sig);
    hfp_wake_all(&t->signal_waiters);
    return 0;
}

/* The dispositions the program set in this run (else the defaults). */
static struct {
    uint32_t run;
    struct sigaction action[NSIG];
} dispositions;

static struct sigaction *disposition(int sig) {
    if (dispositions.run != hfp.run) {
        memset(&dispositions, 0, sizeof dispositions);   /* SIG_DFL, nothing blocked */
        dispositions.run = hfp.run;
    }
    return &dispositions.action[sig];
}

int hfp_sigaction(int sig, const struct sigaction *action, struct sigaction *old);
int hfp_sigaction(int sig, const struct sigaction *action, struct sigaction *old) {
    if (sig < 1 || sig >= NSIG || (action && (sig == SIGKILL || sig == SIGSTOP))) {
        errno = EINVAL;
        return -1;
    }
    struct sigaction *kept = disposition(sig);
    if (old) *old = *kept;
    if (action) *kept = *action;
    return 0;
}

void (*hfp_signal(int sig, void (*handler)(int)))(int);
void (*hfp_signal(int sig, void (*handler)(int)))(int) {
    struct sigaction action = {0}, old;
    action.sa_handler = handler;
    return hfp_sigaction(sig, &action, &old) == 0 ? old.sa_handler : SIG_ERR;
}
