/*
 * sha1.h — SHA-1 of an input, in hex: the name libFuzzer gives the file it
 * writes for a crashing input (crash-HEX), so a discovery log can say
 * which file replays a crash.  An identifier, not a security measure.
 */
#ifndef HF_SHA1_H
#define HF_SHA1_H

#include <stddef.h>
#include <stdint.h>

/* Writes the 40 lower-case hex digits and a NUL into `hex`. */
void hf_sha1_hex(const uint8_t *data, size_t size, char hex[41]);

#endif
