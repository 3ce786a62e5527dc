/*
 * estimate.c — Good-Turing, Chao1 and the plateau rule.
 */
#include "estimate.h"

#include <assert.h>

double hf_good_turing(uint64_t f1, uint64_t executions) {
    return executions ? (double)f1 / (double)executions : 1.0;
}

double hf_chao1(uint64_t behaviours, uint64_t f1, uint64_t f2) {
    assert(f1 + f2 <= behaviours);
    double s = (double)behaviours, a = (double)f1, b = (double)f2;
    /* The bias-corrected form when nothing was seen twice: f1²/(2·f2)
     * would divide by zero. */
    return f2 ? s + a * a / (2.0 * b) : s + a * (a - 1.0) / 2.0;
}

/* Whether the effort grew HF_PLATEAU_GROWTH-fold from `since` to `now`:
 * since * GROWTH <= now, in integers that cannot overflow, so a long
 * campaign's counts lose nothing to rounding. */
static bool quiet_enough(uint64_t since, uint64_t now) {
    assert(since <= now);
    return since <= now / HF_PLATEAU_GROWTH;
}

void hf_plateau_update(hf_plateau *p, const hf_progress *now) {
    if (p->started) {
        assert(now->executions >= p->quiet_since.executions);
        assert(now->logical_ns >= p->quiet_since.logical_ns);
        assert(now->behaviours >= p->quiet_since.behaviours);
    }
    if (!p->started || now->behaviours != p->quiet_since.behaviours) {
        p->started = true;
        p->quiet_since = *now;
    }
    /* Quiet over the last 9/10 of both clocks of effort: logical time, so
     * a stall is read in simulated hours, and executions, so a target that
     * never sleeps (no logical time at all) is still judged.  Measured
     * against ground truth (bench --plateau), a quiet third was often a
     * lull: searches went on finding after gaps of 6x the effort spent. */
    bool quiet = quiet_enough(p->quiet_since.logical_ns, now->logical_ns) &&
                 quiet_enough(p->quiet_since.executions, now->executions);
    /* Good-Turing's expectation of new behaviours in another stretch as
     * long as the quiet one, 9n/10 executions: (f1/n)·(9n/10), so in effect
     * at most one behaviour seen only once. */
    double expected_new = hf_good_turing(now->f1, now->executions) * (double)now->executions *
                          (HF_PLATEAU_GROWTH - 1) / HF_PLATEAU_GROWTH;
    p->holds = now->executions >= HF_PLATEAU_MIN_EXECUTIONS && now->behaviours > 0 && quiet &&
               expected_new < HF_PLATEAU_MAX_EXPECTED_NEW;
}
