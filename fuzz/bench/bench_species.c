/*
 * bench_species.c — `heisenfuzz bench --species`: which definition of a
 * run's behaviour makes a useful "species" for the discovery estimators.
 *
 * Three candidates, counted over the same runs (uniform random decisions):
 *   trace      the trace hash: every event, every time stamp
 *   signature  the run signature: the set of its behaviour features
 *   feature    each behaviour feature on its own, counted by incidence (a
 *              run is a sample that shows a set of species, as coverage
 *              elements are in Böhme's STADS)
 * A useful species saturates — its Chao1 estimate converges to the count
 * actually seen and Good-Turing falls — while still telling different
 * behaviours apart.  A species that never repeats (f1 close to S) makes
 * every estimate say "everything is still new", forever.
 */
#include "commands.h"
#include "estimate.h"
#include "run.h"
#include "species.h"
#include "strategy.h"
#include "targets.h"
#include "options.h"
#include "tool.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_row(const char *name, uint64_t n, const hf_species *s) {
    printf("  %-10s n=%-9" PRIu64 " S=%-8" PRIu64 " f1=%-8" PRIu64 " f2=%-8" PRIu64
           " good-turing=%.2e chao1=%.0f S/chao1=%.2f\n",
           name, n, s->distinct, s->f1, s->f2, hf_good_turing(s->f1, n), hf_chao1(s->distinct, s->f1, s->f2),
           (double)s->distinct / hf_chao1(s->distinct, s->f1, s->f2));
}

static int species_target(const hf_target *t, uint64_t runs) {
    hf_species trace, signature, feature;
    if (!hf_species_init(&trace) || !hf_species_init(&signature) || !hf_species_init(&feature)) return 2;
    hf_random_strategy random;
    hf_random_strategy_init(&random, 1);
    printf("%s\n", t->name);
    uint64_t next_report = runs / 100 ? runs / 100 : 1;
    for (uint64_t n = 1; n <= runs; n++) {
        hf_result r;
        hf_run_strategy(t, &random.base, &r);
        hf_species_add(&trace, r.trace_hash);
        const hf_features *f = hf_last_features();
        hf_species_add(&signature, hf_features_signature(f));
        for (uint32_t k = 0; k < f->count; k++) hf_species_add(&feature, f->list[k]);
        if (n == next_report || n == runs) {
            print_row("trace", n, &trace);
            print_row("signature", n, &signature);
            print_row("feature", n, &feature);
            next_report *= 10;
        }
    }
    hf_species_free(&trace);
    hf_species_free(&signature);
    hf_species_free(&feature);
    return 0;
}

typedef struct species_options {
    uint64_t runs;
} species_options;

static const species_options species_defaults = {.runs = 100000};

static const hf_option species_option_table[] = {
    {.name = "runs", HF_UINT(species_options, runs, 1, UINT64_MAX), .value_name = "N", .help = "runs per target"},
};

const hf_command_spec hf_bench_species_spec = {
    .name = "bench --species",
    .operands = "[TARGET...]",
    .summary = "how three species (trace hash, run signature, behaviour feature) saturate over random runs of "
               "each target",
    .options_first = true,   /* the targets end the options */
    HF_OPTION_TABLE(species_option_table),
    .defaults = &species_defaults,
    .size = sizeof(species_options),
};

int hf_bench_species(int argc, char **argv) {
    species_options o;
    char **targets;
    int count;
    int parsed = hf_options_parse(&hf_bench_species_spec, argc, argv, &o, &targets, &count);
    if (parsed != HF_PARSED) return parsed;
    int status = 0;
    if (count > 0) {
        for (int i = 0; i < count && !status; i++) {
            const hf_target *t = hf_tool_target(targets[i]);
            status = t ? species_target(t, o.runs) : 2;
        }
    } else {
        for (const hf_target *const *t = hf_target_list(); *t && !status; t++) status = species_target(*t, o.runs);
    }
    return status;
}
