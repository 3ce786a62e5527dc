/*
 * disk.c — a disk per node: named files, each with two byte images.
 *
 * `live` is what reads see; `durable` is what is on the media and survives
 * a crash.  A write changes `live` at once and is queued as volatile; a
 * successful fsync applies the file's volatile writes to `durable`.  At a
 * crash (sim_disk_crash), depending on the run's fault profile:
 *   - without HF_FAULT_DISK_LOST_WRITES it was a process crash: the
 *     operating system still writes the volatile data out;
 *   - with it, a machine crash: the volatile writes are lost — and with
 *     HF_FAULT_DISK_TORN_WRITE a decision may let the oldest few survive,
 *     the last of them torn (only a prefix reached the media).
 * A failed fsync forgets the volatile writes it covered: they never reach
 * the media although reads still see them, as on Linux after EIO, which is
 * why a careful program crashes on an fsync error.  Creating, renaming and
 * deleting are atomic and durable at once.
 */
#include "sim_state.h"

#include <assert.h>
#include <string.h>

/* ---- Byte images ------------------------------------------------------------ */

static void image_reserve(sim_image *img, uint64_t size) {
    if (size <= img->cap) return;
    uint64_t cap = img->cap ? img->cap : 64;
    while (cap < size) cap *= 2;
    uint8_t *bytes = hf_alloc(cap);   /* zeroed: a gap reads as zeros */
    if (img->size) memcpy(bytes, img->bytes, img->size);
    img->bytes = bytes;
    img->cap = cap;
}

static void image_write(sim_image *img, uint64_t offset, const void *data, size_t size) {
    image_reserve(img, offset + size);
    if (offset > img->size) memset(img->bytes + img->size, 0, offset - img->size);
    memcpy(img->bytes + offset, data, size);
    if (offset + size > img->size) img->size = offset + size;
}

static void image_copy(sim_image *to, const sim_image *from) {
    to->size = 0;
    image_reserve(to, from->size);
    if (from->size) memcpy(to->bytes, from->bytes, from->size);
    to->size = from->size;
}

/* ---- Files -------------------------------------------------------------------- */

static sim_file **find_link(sim_node *n, const char *name) {
    sim_file **link = &n->files;
    while (*link && strcmp((*link)->name, name) != 0) link = &(*link)->next;
    return link;
}

static sim_file *find(sim_node *n, const char *name) { return *find_link(n, name); }

static sim_file *create(sim_node *n, const char *name) {
    sim_file *f = hf_alloc(sizeof *f);
    f->name = hf_strdup(name);
    f->next = n->files;
    n->files = f;
    return f;
}

static void forget_volatile(sim_file *f) {
    f->volatile_head = f->volatile_tail = NULL;
    f->volatile_count = 0;
}

static uint64_t volatile_bytes(const sim_file *f) {
    uint64_t total = 0;
    for (const sim_write *w = f->volatile_head; w; w = w->next) total += w->size;
    return total;
}

/* Every disk call takes its time, during which others run: the work is
 * done at its end, so a crash in between leaves no trace of it. */
static void take_time(uint64_t ns) {
    if (ns) hf_sleep(ns);
    else hf_switch_point();
}

/* ---- Calls ---------------------------------------------------------------------- */

/* A write at `offset`, or at the end of the file when `append`: the end
 * as it is when the write lands, after its time has passed. */
static hf_io write_file(const char *file, bool append, uint64_t offset, const void *data, size_t size,
                        uint64_t *written_at) {
    assert(file && (data || size == 0));
    sim_node *n = sim_self_node("hf_disk_write");
    take_time(hf_w.sim->o.disk.write_ns);
    sim_file *f = find(n, file);
    if (append) offset = f ? f->live.size : 0;
    if (sim_fault_possible(HF_FAULT_DISK_WRITE_ERROR) &&
        hf_decide_bool(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_DISK_WRITE_ERROR, false)) {
        sim_fault(HF_FAULT_DISK_WRITE_ERROR, "write error n%d %s %zu B at %llu", n->id, file, size,
                  (unsigned long long)offset);
        return HF_IO_ERROR;
    }
    if (!f) f = create(n, file);
    image_write(&f->live, offset, data, size);
    sim_write *w = hf_alloc(sizeof *w);
    w->offset = offset;
    w->size = size;
    w->data = size ? memcpy(hf_alloc(size), data, size) : NULL;
    if (f->volatile_tail) f->volatile_tail->next = w; else f->volatile_head = w;
    f->volatile_tail = w;
    f->volatile_count++;
    if (written_at) *written_at = offset;
    return HF_IO_OK;
}

hf_io hf_disk_write(const char *file, uint64_t offset, const void *data, size_t size) {
    return write_file(file, false, offset, data, size, NULL);
}

hf_io hf_disk_append(const char *file, const void *data, size_t size, uint64_t *offset) {
    return write_file(file, true, 0, data, size, offset);
}

hf_io hf_disk_read(const char *file, uint64_t offset, void *buf, size_t size, size_t *got) {
    assert(file && (buf || size == 0) && got);
    sim_node *n = sim_self_node("hf_disk_read");
    *got = 0;
    take_time(hf_w.sim->o.disk.read_ns);
    sim_file *f = find(n, file);
    if (!f) return HF_IO_NOT_FOUND;
    if (offset >= f->live.size) return HF_IO_OK;
    size_t count = f->live.size - offset < size ? (size_t)(f->live.size - offset) : size;
    memcpy(buf, f->live.bytes + offset, count);
    *got = count;
    if (sim_fault_possible(HF_FAULT_DISK_READ_CORRUPTION) &&
        hf_decide_bool(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_DISK_READ_CORRUPTION, false)) {
        uint64_t at = hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 0, count - 1, 0);
        uint8_t flip = (uint8_t)hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 1, 255, 1);
        ((uint8_t *)buf)[at] ^= flip;
        sim_fault(HF_FAULT_DISK_READ_CORRUPTION, "read corruption n%d %s byte %llu (xor 0x%02x)", n->id, file,
                  (unsigned long long)(offset + at), flip);
    }
    return HF_IO_OK;
}

hf_io hf_disk_fsync(const char *file) {
    assert(file);
    sim_node *n = sim_self_node("hf_disk_fsync");
    take_time(hf_w.sim->o.disk.fsync_ns);
    sim_file *f = find(n, file);
    if (!f) return HF_IO_NOT_FOUND;
    if (sim_fault_possible(HF_FAULT_DISK_FSYNC_ERROR) &&
        hf_decide_bool(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_DISK_FSYNC_ERROR, false)) {
        sim_fault(HF_FAULT_DISK_FSYNC_ERROR, "fsync error n%d %s (%u unsynced writes, %llu B, never reach the media)",
                  n->id, file, f->volatile_count, (unsigned long long)volatile_bytes(f));
        forget_volatile(f);
        return HF_IO_ERROR;
    }
    for (sim_write *w = f->volatile_head; w; w = w->next) image_write(&f->durable, w->offset, w->data, w->size);
    forget_volatile(f);
    return HF_IO_OK;
}

hf_io hf_disk_rename(const char *from, const char *to) {
    assert(from && to);
    sim_node *n = sim_self_node("hf_disk_rename");
    take_time(hf_w.sim->o.disk.write_ns);
    sim_file *f = find(n, from);
    if (!f) return HF_IO_NOT_FOUND;
    if (strcmp(from, to) == 0) return HF_IO_OK;
    sim_file **old = find_link(n, to);
    if (*old) *old = (*old)->next;
    f->name = hf_strdup(to);
    return HF_IO_OK;
}

hf_io hf_disk_delete(const char *file) {
    assert(file);
    sim_node *n = sim_self_node("hf_disk_delete");
    take_time(hf_w.sim->o.disk.write_ns);
    sim_file **link = find_link(n, file);
    if (!*link) return HF_IO_NOT_FOUND;
    *link = (*link)->next;
    return HF_IO_OK;
}

hf_io hf_disk_size(const char *file, uint64_t *size) {
    assert(file && size);
    sim_file *f = find(sim_self_node("hf_disk_size"), file);
    if (!f) return HF_IO_NOT_FOUND;
    *size = f->live.size;
    return HF_IO_OK;
}

/* ---- Crash -------------------------------------------------------------------------- */

static bool images_equal(const sim_image *a, const sim_image *b) {
    return a->size == b->size && (a->size == 0 || memcmp(a->bytes, b->bytes, a->size) == 0);
}

/* A machine crash: the media keep what was synced — and, after a torn-write
 * decision, the oldest few volatile writes, the last of them cut short. */
static void lose_volatile(sim_node *n, sim_file *f) {
    uint32_t count = f->volatile_count, keep = 0;
    size_t torn = 0;
    bool tear = count > 0 && sim_fault_possible(HF_FAULT_DISK_TORN_WRITE) &&
                hf_decide_bool(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_DISK_TORN_WRITE, false);
    if (tear) {
        keep = (uint32_t)hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 0, count - 1, count - 1);
        const sim_write *w = f->volatile_head;
        for (uint32_t i = 0; i < keep; i++) w = w->next;
        torn = w->size ? (size_t)hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 0, w->size - 1, w->size / 2) : 0;
        sim_fault(HF_FAULT_DISK_TORN_WRITE, "torn write n%d %s %zu/%zu (unsynced write %u of %u)", n->id, f->name,
                  torn, w->size, keep + 1, count);
    }
    uint64_t lost_bytes = 0;
    uint32_t i = 0;
    for (const sim_write *w = f->volatile_head; w; w = w->next, i++) {
        if (i < keep) {
            image_write(&f->durable, w->offset, w->data, w->size);
        } else if (i == keep && tear) {
            if (torn) image_write(&f->durable, w->offset, w->data, torn);
            lost_bytes += w->size - torn;
        } else {
            lost_bytes += w->size;
        }
    }
    /* Writes that a failed fsync forgot are lost too, though none is pending. */
    if (count > keep || !images_equal(&f->live, &f->durable))
        sim_fault(HF_FAULT_DISK_LOST_WRITES, "lost writes n%d %s: %u unsynced writes (%llu B) of %u", n->id,
                  f->name, count - keep, (unsigned long long)lost_bytes, count);
    image_copy(&f->live, &f->durable);
}

void sim_disk_crash(hf_sim *s, sim_node *n) {
    (void)s;
    bool machine_crash = sim_fault_possible(HF_FAULT_DISK_LOST_WRITES);
    for (sim_file *f = n->files; f; f = f->next) {
        if (machine_crash) {
            lose_volatile(n, f);
        } else {   /* the operating system lives on and writes the data out */
            for (sim_write *w = f->volatile_head; w; w = w->next)
                image_write(&f->durable, w->offset, w->data, w->size);
        }
        forget_volatile(f);
    }
}
