/*
 * profile.c — what the calm run of a target that preempts at its accesses
 * tells the runs after it: a number for each access site, which sites can
 * race, and how many accesses at those sites each task makes.  SURW weighs
 * tasks by the third and chooses only at the second (generate.c); POS sees
 * races only there.
 *
 * A site is an instruction's offset in the program image, which moves
 * with the runtime linked beside the program (-O0, -O2, a sanitizer); its
 * number is the order in which the calm run first reached it, which does
 * not, so the reads-from pairs and the ordering constraints (decide.h)
 * that name sites by number mean the same in every build.
 *
 * The same run notes which task spawned which, so that SURW can count
 * among a task's events those of the tasks it has yet to spawn.
 *
 * The calm run is the one earlier run every input of a target shares, so a
 * run that uses what it tells is still a function of its bytes alone.  It
 * is learnt from once per process and target, before any other run of the
 * target: from the first run itself when that is the calm run (the empty
 * input: a campaign's first execution), else from a calm run made first
 * (hf_profile_runs counts those).  Every access is noted: a site can race
 * when a location it touched was touched by another task too, and by a
 * store (either's); at the end, each task's events are its accesses at
 * such sites and its pthread calls.
 * A site the calm run never ran may race, for all it knows.  One it ran and
 * never saw race is taken as thread-private or read-only (a loop bound, a
 * constant table): an access there is no event, and SURW does not choose at
 * it.  That is the "selective" of SURW: on a real machine such accesses
 * interleave too, but no order of them changes what the program computes.
 */
#include "world.h"

#include <stdlib.h>
#include <string.h>

/* A site and whether it can race; a location with the task that touched it
 * first, whether another did, whether any store did, and, until it is seen
 * to race, every site that touched it: each of them can race once it does,
 * the first task's earliest accesses as much as the latest. */
typedef struct site_entry { uintptr_t site; uint32_t id; bool races; } site_entry;
typedef struct site_node { uintptr_t site; struct site_node *next; } site_node;
typedef struct location_entry { uintptr_t location; site_node *sites; int task; bool shared, stored; } location_entry;
/* How many accesses one task made at one site: key site << 9 | task. */
typedef struct count_entry { uintptr_t key; uint32_t count; } count_entry;

/* Open addressing, at most half full, growing by doubling: `key` is the
 * first field of each entry, 0 an empty slot. */
typedef struct table { void *slots; size_t entry_size, capacity, count; } table;

static struct {
    const hf_target *target;
    bool learning;                   /* the calm run is being made */
    table sites, locations, counts;
    table unseen;                    /* sites the calm run never ran, numbered in this run */
    uint64_t runs;                   /* calm runs made to learn, in this process */
    int tasks;
    /* By task id - 1: the accesses at sites that can race the task made
     * itself, and those of the tasks it spawned from this one on
     * (this one, its later siblings and all their descendants). */
    uint32_t events[HF_MAX_TASKS], from_here_on[HF_MAX_TASKS];
    /* The ids of each task's children in the order it spawned them: those
     * of task id from child[first_child[id - 1]] on, child_count[id - 1]. */
    int child[HF_MAX_TASKS], first_child[HF_MAX_TASKS], child_count[HF_MAX_TASKS];
} calm;

static uintptr_t *key_at(const table *t, size_t i) { return (uintptr_t *)((char *)t->slots + i * t->entry_size); }

static void *find(table *t, uintptr_t key) {
    if (!t->capacity) return NULL;
    size_t i = hf_mix64(key) & (t->capacity - 1);
    while (*key_at(t, i) && *key_at(t, i) != key) i = (i + 1) & (t->capacity - 1);
    return key_at(t, i);
}

/* The entry of `key`, added (zeroed, but for its key) when missing. */
static void *add(table *t, uintptr_t key) {
    assert(key);
    uintptr_t *e = find(t, key);
    if (e && *e) return e;
    if (2 * (t->count + 1) > t->capacity) {
        table grown = {calloc(t->capacity ? 2 * t->capacity : 1024, t->entry_size), t->entry_size,
                       t->capacity ? 2 * t->capacity : 1024, 0};
        if (!grown.slots) { fprintf(stderr, "heisenfuzz: out of memory for the calm run's profile\n"); abort(); }
        for (size_t i = 0; i < t->capacity; i++)
            if (*key_at(t, i)) memcpy(find(&grown, *key_at(t, i)), key_at(t, i), t->entry_size);
        grown.count = t->count;
        free(t->slots);
        *t = grown;
    }
    e = find(t, key);
    *e = key;
    t->count++;
    return e;
}

static void clear(table *t, size_t entry_size) {
    free(t->slots);
    *t = (table){NULL, entry_size, 0, 0};
}

static void free_sites(site_node *n) {
    while (n) {
        site_node *next = n->next;
        free(n);
        n = next;
    }
}

static void clear_locations(void) {
    for (size_t i = 0; i < calm.locations.capacity; i++) {
        location_entry *l = (location_entry *)key_at(&calm.locations, i);
        if (l->location) free_sites(l->sites);
    }
    clear(&calm.locations, sizeof(location_entry));
}

void hf_profile_free(void) {
    clear(&calm.sites, sizeof(site_entry));
    clear_locations();
    clear(&calm.counts, sizeof(count_entry));
    clear(&calm.unseen, sizeof(site_entry));
    calm.target = NULL;
    calm.learning = false;
}

/* Takes each task's events and children from the calm run just made.  A
 * task's id is above its parent's, so going down the ids each task is
 * complete before it counts towards its parent and its earlier siblings. */
static void note_tasks(void) {
    int n = calm.tasks = hf_w.task_count;
    uint32_t subtree[HF_MAX_TASKS], later_siblings[HF_MAX_TASKS + 1] = {0};
    for (int i = 0; i < n; i++) calm.events[i] = hf_w.tasks[i].facts.events;
    /* While the run was made every access counted, as any site may race. */
    for (size_t i = 0; i < calm.counts.capacity; i++) {
        const count_entry *c = (const count_entry *)key_at(&calm.counts, i);
        if (!c->key || ((const site_entry *)find(&calm.sites, c->key >> 9))->races) continue;
        int task = (int)(c->key & 511);
        assert(task >= 1 && task <= n && calm.events[task - 1] >= c->count);
        calm.events[task - 1] -= c->count;
    }
    for (int i = 0; i < n; i++) {
        subtree[i] = calm.events[i];
        calm.child_count[i] = 0;
    }
    for (int i = n - 1; i >= 0; i--) {
        int parent = hf_w.tasks[i].parent;
        assert(parent <= i);
        calm.from_here_on[i] = subtree[i] + later_siblings[parent];
        later_siblings[parent] = calm.from_here_on[i];
        if (parent) {
            subtree[parent - 1] += subtree[i];
            calm.child_count[parent - 1]++;
        }
    }
    for (int i = 0, at = 0; i < n; i++) {
        calm.first_child[i] = at;
        at += calm.child_count[i];
        calm.child_count[i] = 0;
    }
    for (int i = 0; i < n; i++) {
        int parent = hf_w.tasks[i].parent;
        if (parent) calm.child[calm.first_child[parent - 1] + calm.child_count[parent - 1]++] = i + 1;
    }
}

void hf_profile_run_starts(const hf_target *t, bool calm_run) {
    if (calm.target != t && t->preempt_at_accesses) {
        if (calm_run) {
            hf_profile_free();
            calm.target = t;
            calm.learning = true;
        } else {   /* the calm run first, and this one after it */
            hf_result ignored;
            hf_run(t, NULL, 0, &ignored);
            calm.runs++;
        }
    }
    if (calm.unseen.count) clear(&calm.unseen, sizeof(site_entry));
}

void hf_profile_run_ends(void) {
    if (!calm.learning) return;
    calm.learning = false;
    note_tasks();
    clear_locations();
    clear(&calm.counts, sizeof(count_entry));
}

/* A site's entry while the calm run is made, numbered as it first appears. */
static site_entry *calm_site(uintptr_t site) {
    site_entry *s = add(&calm.sites, site);
    if (!s->id) s->id = (uint32_t)calm.sites.count;
    return s;
}

/* A site the calm run never reached: numbered after the calm run's sites,
 * in the order this run reaches them, the same in every build, as the
 * calm run's order is. */
static uint32_t unseen_site(uintptr_t site) {
    site_entry *s = add(&calm.unseen, site);
    if (!s->id) s->id = (uint32_t)(calm.sites.count + calm.unseen.count);
    return s->id;
}

uint32_t hf_profile_site(uintptr_t site, uintptr_t location, bool store, int task, bool *may_race) {
    assert(site);
    *may_race = true;
    if (calm.learning) {
        location_entry *l = add(&calm.locations, location);
        site_entry *s = calm_site(site);
        uint32_t id = s->id;
        if (!l->task) l->task = task;
        l->shared |= l->task != task;
        l->stored |= store;
        if (l->shared && l->stored) {
            s->races = true;
            for (const site_node *n = l->sites; n; n = n->next) calm_site(n->site)->races = true;
            free_sites(l->sites);
            l->sites = NULL;
        } else {
            site_node **at = &l->sites;
            while (*at && (*at)->site != site) at = &(*at)->next;
            if (!*at) {
                *at = malloc(sizeof **at);
                if (!*at) { fprintf(stderr, "heisenfuzz: out of memory for the calm run's profile\n"); abort(); }
                **at = (site_node){site, NULL};
            }
        }
        return id;
    }
    if (calm.target != hf_w.target) return 0;
    site_entry *s = find(&calm.sites, site);
    if (s && s->site) {
        *may_race = s->races;
        return s->id;
    }
    return unseen_site(site);
}

uint32_t hf_profile_call_site(uintptr_t site) {
    assert(site);
    if (calm.learning) return calm_site(site)->id;
    if (calm.target != hf_w.target) return 0;
    site_entry *s = find(&calm.sites, site);
    return s && s->site ? s->id : unseen_site(site);
}

/* Counted once the access has run, as the task's events are: a task parked
 * at an access when the calm run ended (a run that failed, or main that
 * returned) never made it. */
void hf_profile_access_ran(uintptr_t site, int task) {
    if (!calm.learning) return;
    assert(task >= 1 && task < 512);
    ((count_entry *)add(&calm.counts, site << 9 | (uintptr_t)task))->count++;
}

uint64_t hf_profile_runs(void) { return calm.runs; }

uint32_t hf_profile_calm_events(int id, int spawned) {
    if (calm.learning || calm.target != hf_w.target || id > calm.tasks) return 0;
    uint32_t events = calm.events[id - 1];
    if (spawned < calm.child_count[id - 1])
        events += calm.from_here_on[calm.child[calm.first_child[id - 1] + spawned] - 1];
    return events;
}
