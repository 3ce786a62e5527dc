/*
 * encode_fuzzer.c — the minimizer's re-encoding (hf_encode_deviations,
 * fuzz/minimize/minimize.c) round trip: arbitrary bytes become a list of deviations
 * (gaps between indices, widths 0..8, values of that width) as the
 * minimizer edits them; it is encoded, then decoded by a run asking
 * decisions of those widths.  The run must take exactly those deviations
 * with exactly those raw values, and the size hf_encode_deviations
 * announces must be the size it writes.
 */
#include "decide.h"
#include "self_check.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A gap reaches 255 + 255 * 16 decisions (below); its deviation then takes
 * that many skip-only records, an advance record, the gap and 8 value bytes. */
enum { MAX_DEVIATIONS = 256, MAX_GAP = 255 + 255 * 16, MAX_DEVIATION_BYTES = MAX_GAP / 255 + 6 + 1 + 8 };

static hf_deviation devs[MAX_DEVIATIONS];
static hf_decider d;

/* A decision that reads `width` value bytes. */
static void decide_width(hf_decider *dec, unsigned width) {
    if (width == 0) hf_decide_bool(dec, HF_DECISION_FAULT, false);
    else if (width == 8) hf_decide_u64(dec, HF_DECISION_WORKLOAD, 0);
    else hf_decide_range(dec, HF_DECISION_TASK, 0, (1ull << (8 * width)) - 1, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t count = 0, pos = 0;
    uint64_t index = 0;
    /* Each deviation: gap (1 byte; gaps of 255 and more via a second byte),
     * width (low nibble mod 9), value bytes. */
    while (pos + 2 <= size && count < MAX_DEVIATIONS) {
        uint64_t gap = data[pos++];
        if (gap == 255 && pos < size) gap += (uint64_t)data[pos++] * 16;   /* long gaps: 255-records */
        unsigned width = pos < size ? (data[pos++] & 15) % 9 : 0;   /* the gap may have used the last byte */
        uint64_t value = 0;
        for (unsigned i = 0; i < width; i++) value |= (uint64_t)(pos < size ? data[pos++] : 0) << (8 * i);
        index += count ? gap + 1 : gap;
        devs[count++] = (hf_deviation){index, value, (uint8_t)width};
    }
    size_t need = hf_encode_deviations(devs, count, NULL, 0);
    static uint8_t bytes[MAX_DEVIATIONS * MAX_DEVIATION_BYTES];
    SELF_CHECK(need <= sizeof bytes, "%zu deviations need %zu bytes", count, need);
    size_t wrote = hf_encode_deviations(devs, count, bytes, sizeof bytes);
    SELF_CHECK(wrote == need, "announced %zu bytes, wrote %zu", need, wrote);

    hf_decider_init(&d, need ? bytes : NULL, need);
    size_t next = 0;
    uint64_t last = count ? devs[count - 1].index : 0;
    for (uint64_t i = 0; count && i <= last; i++)
        decide_width(&d, next < count && devs[next].index == i ? devs[next++].width : 1);
    SELF_CHECK(d.deviations == count, "%zu deviations encoded, %u decoded", count, d.deviations);
    for (size_t k = 0; k < count; k++) {
        const hf_deviation *got = &d.taken[k], *want = &devs[k];
        SELF_CHECK(got->index == want->index && got->value == want->value && got->width == want->width,
                   "deviation %zu: encoded {%llu, %llu, %u}, decoded {%llu, %llu, %u}", k,
                   (unsigned long long)want->index, (unsigned long long)want->value, want->width,
                   (unsigned long long)got->index, (unsigned long long)got->value, got->width);
    }
    return 0;
}
