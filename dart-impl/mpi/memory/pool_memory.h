/* Address space for the local pool: every unit reserves a large, sparse
 * range of node-shared memory once at init, node peers map all of it, and
 * the pool commits pieces of it as it grows and releases them when they
 * stay empty. The mappings stay until dart_exit, so a peer's mapping never
 * goes stale, though pages in it may go (what a peer may touch is the
 * pool's exposure: pool_exposure.h, docs/design.md, "The local pool"). */
#ifndef DART_MPI_POOL_MEMORY_H
#define DART_MPI_POOL_MEMORY_H

#include <dash/dart/if/dart_types.h>

#include <mpi.h>
#include <stddef.h>

/* Collective over `node_comm`: each member reserves `reserve` bytes
 * (a sparse file in shared memory) with its first `commit` bytes backed
 * by memory now, and maps every member's reservation. On success
 * *node_bases (malloc'ed, node rank -> mapping, each `reserve` bytes;
 * free with pool_memory_unmap) and *fd (mine, for pool_memory_commit).
 * Every member gets the same result. */
dart_ret_t pool_memory_map(const char *call, MPI_Comm node_comm,
                           size_t reserve, size_t commit, int *fd,
                           char ***node_bases);

/* Backs [offset, offset + bytes) of my reservation with memory. Returns
 * 0 or an errno value (ENOSPC: the node's shared memory is full). */
int pool_memory_commit(int fd, size_t offset, size_t bytes);

/* Returns the pages of [offset, offset + bytes) of my reservation to the
 * system; the range stays reserved and mapped (reads give zeros). */
void pool_memory_release(int fd, size_t offset, size_t bytes);

/* Unmaps `count` reservations of `reserve` bytes and frees the array. */
void pool_memory_unmap(char **node_bases, int count, size_t reserve);

/* Default reservation per unit: the machine's physical memory, capped so
 * that a node's `node_size` reservations fit the address space. */
size_t pool_memory_default_reserve(int node_size);

#endif
