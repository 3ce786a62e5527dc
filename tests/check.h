/*
 * check.h — the tests' one assertion: CHECK(cond, "what it means", ...).
 *
 * Each check prints "ok - <what>" or "not ok - <what> (file:line: cond)";
 * tests/run.sh counts those lines.  A test program returns check_exit().
 */
#ifndef HF_CHECK_H
#define HF_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int check_failures, check_count;

static void check_report(int ok, const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 5, 6), unused));
static void check_report(int ok, const char *file, int line, const char *cond, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    check_count++;
    printf(ok ? "ok - " : "not ok - ");
    vprintf(fmt, ap);
    if (!ok) {
        printf(" (%s:%d: %s)", file, line, cond);
        check_failures++;
    }
    printf("\n");
    fflush(stdout);
    va_end(ap);
}

#define CHECK(cond, ...) check_report((cond) ? 1 : 0, __FILE__, __LINE__, #cond, __VA_ARGS__)

static int check_exit(void) __attribute__((unused));
static int check_exit(void) { return check_failures ? 1 : 0; }

#endif
