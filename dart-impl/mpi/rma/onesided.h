/* One-sided transfers: module state that dart_exit releases. */
#ifndef DART_MPI_ONESIDED_H
#define DART_MPI_ONESIDED_H

struct segment;

/* Forgets every handle not consumed by the application. */
void onesided_module_finalize(void);

/* Before `seg` goes (memory/globmem.c, while its window is still there):
 * handles not yet consumed whose transfers went to it release their MPI
 * requests and count as complete (the API asks for all accesses to be
 * complete before a free), so that a later wait or test on them succeeds
 * without touching the segment's window, freed or reused by then. */
void onesided_segment_freed(const struct segment *seg);

#endif
