/* The cache line that layouts shared between units are padded to, so that
 * what different units write never shares a line: 64 bytes on the x86-64
 * and AArch64 machines DART runs on (where a line is larger this costs
 * false sharing, never correctness). */
#ifndef DART_BASE_CACHE_LINE_H
#define DART_BASE_CACHE_LINE_H

#define CACHE_LINE 64

#endif
