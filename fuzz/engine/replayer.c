/*
 * replayer.c — the engine of a fuzzer built without one: main() runs each
 * input file named on the command line once through the harness, as
 * libFuzzer does when given files.  A failing input aborts (harness.c), so
 * the exit status says whether it failed.  It lets a user's target replay
 * where no fuzzing engine is installed (a plain CI job), and answers
 * HEISENFUZZ_TOOL like every fuzzer binary.
 */
#include "files.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    LLVMFuzzerInitialize(&argc, &argv);
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fprintf(argc < 2 ? stderr : stdout, "usage: %s FILE...  (runs each input once; a failing one aborts)\n",
                argv[0]);
        return argc < 2 ? 2 : 0;
    }
    for (int i = 1; i < argc; i++) {
        char error[512];
        size_t size;
        uint8_t *data = hf_read_file(argv[i], &size, error, sizeof error);
        if (!data) {
            fprintf(stderr, "%s: %s\n", argv[0], error);
            return 2;
        }
        fprintf(stderr, "Running: %s\n", argv[i]);
        LLVMFuzzerTestOneInput(data, size);
        free(data);
        fprintf(stderr, "Executed %s\n", argv[i]);
    }
    return 0;
}
