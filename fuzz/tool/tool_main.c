/*
 * tool_main.c — main() of the heisenfuzz program.  The command code
 * (heisenfuzz.c and the cmd_*.c files) is also linked into every fuzzer
 * binary, which runs it when handed HEISENFUZZ_TOOL (harness.c); only this
 * file is the program's own.
 */
#include "commands.h"
#include "tool.h"

int main(int argc, char **argv) { return hf_tool_main(argc, argv); }
