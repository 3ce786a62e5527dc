/*
 * invocation.c — what a program sees of the world it is started in: its
 * arguments (argv[1] is the word it expects on stdin, argv[2] the number it
 * expects after it), its stdin (read by main and by a thread, the same
 * bytes in every run), and an environment that is the layer's fixed set,
 * never the real one, whose changes last until the run ends.  Every check
 * is an assert, so a run that sees anything else fails.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static int number;

static void *read_number(void *arg) {
    (void)arg;
    int c;
    while ((c = getchar()) == ' ' || c == '\n') {}
    ungetc(c, stdin);
    assert(scanf("%d", &number) == 1);
    return NULL;
}

int main(int argc, char **argv, char **envp) {
    assert(argc == 3);
    assert(strcmp(argv[0], "program") == 0 && argv[3] == NULL);
    char word[64];
    assert(fgets(word, sizeof word, stdin) != NULL);
    word[strcspn(word, "\n")] = '\0';
    assert(strcmp(word, argv[1]) == 0);
    pthread_t t;
    pthread_create(&t, NULL, read_number, NULL);
    pthread_join(t, NULL);
    assert(number == atoi(argv[2]));
    assert(getchar() == '\n' && getchar() == EOF);

    /* The fixed environment, whatever the fuzzer was started with. */
    assert(envp == environ);
    int count = 0;
    for (char **e = environ; *e; e++) {
        assert(strncmp(*e, "HEISENFUZZ", 10) != 0);
        count++;
    }
    assert(count == 8);
    assert(strcmp(getenv("PATH"), "/usr/bin:/bin") == 0);
    assert(strcmp(getenv("HOME"), "/nonexistent") == 0);
    assert(strcmp(getenv("TZ"), "UTC") == 0);
    assert(getenv("HEISENFUZZ_ARGS") == NULL && getenv("USERPROFILE_NOT_SET") == NULL);
    /* A change lasts for the run: the next run starts from the fixed set. */
    assert(getenv("SEEN_BEFORE") == NULL);
    assert(setenv("SEEN_BEFORE", "1", 0) == 0 && strcmp(getenv("SEEN_BEFORE"), "1") == 0);
    assert(unsetenv("PATH") == 0 && getenv("PATH") == NULL);
    printf("read %s %d\n", word, number);
    return 0;
}
