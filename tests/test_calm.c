/*
 * test_calm.c — which runs' behaviour the engine keeps (fuzz/engine/calm.h): the
 * first few runs always; after them a run only while fewer than half of
 * the runs so far were calmer, so a storm among calm runs is refused and
 * admitted again once storms are most runs; the calmest runs always;
 * deviation counts of one bit length alike.
 */
#include "calm.h"
#include "check.h"

#include <string.h>

int main(void) {
    hf_calmness c;
    memset(&c, 0, sizeof c);
    bool first_few = true;
    for (int i = 0; i < 8; i++) first_few &= hf_calmness_admits(&c, i % 2 ? 3000 : 1);
    CHECK(first_few, "the first 8 runs are admitted, storms among them");

    memset(&c, 0, sizeof c);
    for (int i = 0; i < 100; i++) hf_calmness_admits(&c, 5);
    int refused = 0, first_admitted = -1;
    for (int k = 1; k <= 150; k++) {
        if (!hf_calmness_admits(&c, 500)) refused++;
        else if (first_admitted < 0) first_admitted = k;
    }
    CHECK(refused == 100 && first_admitted == 101,
          "after 100 runs of 5 deviations, runs of 500 are refused until they are most runs (refused %d, first admitted %d)",
          refused, first_admitted);
    CHECK(hf_calmness_admits(&c, 0) && hf_calmness_admits(&c, 5), "the calmest runs are admitted");

    memset(&c, 0, sizeof c);
    for (int i = 0; i < 50; i++) hf_calmness_admits(&c, 10);
    for (int i = 0; i < 50; i++) hf_calmness_admits(&c, 100);
    bool same = true;
    for (int i = 0; i < 10; i++) same &= hf_calmness_admits(&c, 40) == hf_calmness_admits(&c, 63);
    CHECK(same && !hf_calmness_admits(&c, 200), "40 and 63 deviations are one kind of run; 200 is refused among 10s and 100s");
    return check_exit();
}
