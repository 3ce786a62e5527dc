/*
 * sha1.c — SHA-1 (FIPS 180-4), one call over a whole buffer: crash inputs
 * are small and hashed once, so there is no streaming interface.
 */
#include "sha1.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static uint32_t rotate_left(uint32_t x, int n) { return x << n | x >> (32 - n); }

static void compress(uint32_t h[5], const uint8_t block[64]) {
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
               (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
    for (int i = 16; i < 80; i++) w[i] = rotate_left(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) { f = (b & c) | (~b & d); k = 0x5a827999u; }
        else if (i < 40) { f = b ^ c ^ d; k = 0x6ed9eba1u; }
        else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8f1bbcdcu; }
        else { f = b ^ c ^ d; k = 0xca62c1d6u; }
        uint32_t t = rotate_left(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rotate_left(b, 30);
        b = a;
        a = t;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e;
}

void hf_sha1_hex(const uint8_t *data, size_t size, char hex[41]) {
    assert(data || size == 0);
    uint32_t h[5] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u};
    size_t whole = size - size % 64;
    for (size_t at = 0; at < whole; at += 64) compress(h, data + at);
    /* The tail, a 1 bit, zeros, and the length in bits: one or two blocks. */
    uint8_t tail[128] = {0};
    size_t rest = size - whole;
    if (rest) memcpy(tail, data + whole, rest);
    tail[rest] = 0x80;
    size_t blocks = rest + 1 + 8 <= 64 ? 1 : 2;
    uint64_t bits = (uint64_t)size * 8;
    for (int i = 0; i < 8; i++) tail[blocks * 64 - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t b = 0; b < blocks; b++) compress(h, tail + 64 * b);
    for (int i = 0; i < 5; i++) snprintf(hex + 8 * i, 9, "%08x", h[i]);
}
