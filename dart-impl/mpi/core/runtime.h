/* Process-wide runtime state and the checks every API call starts with. */
#ifndef DART_MPI_RUNTIME_H
#define DART_MPI_RUNTIME_H

#include "base/env_config.h"
#include "base/logging.h"

#include <mpi.h>
#include <stdbool.h>

struct runtime {
  bool              initialized;
  bool              owns_mpi;          /* dart_init started MPI */
  int               thread_level;      /* MPI level provided */
  int               myid;              /* rank in DART_TEAM_ALL */
  int               size;
  int               simulated_node;    /* index of my simulated node inside
                                          my physical node (0 when off) */
  bool              oversubscribed;    /* my host runs more units than
                                          the CPUs they may run on; known
                                          only where MPI's waits need it
                                          (init.c), else false */
  int               tag_ub;            /* largest user tag */
  MPI_Comm          user_p2p_comm;     /* dart_send/recv only */
  struct env_config env;
};

extern struct runtime runtime;

/* Marks the element-sized fast paths (put/get, atomics): they start on a
 * cache line of their own. With the default 16-byte alignment, where a
 * function happens to land decided 1 ns of an 8-byte put (about 15%):
 * the same code measured 6.2 or 7.2 ns depending on the link layout.
 * 512 rather than 64: an entry (all are below 512 bytes) then never
 * straddles a 4 KiB page, which cost 0.3 ns of an 8-byte put + flush
 * (5.54 -> 5.84 ns) whenever code added elsewhere in the library moved
 * dart_put or dart_flush across a page boundary. */
#define DART_HOT_ENTRY __attribute__((aligned(512)))

/* Logs and returns DART_ERR_NOTINIT unless the runtime is up. */
#define REQUIRE_INIT() REQUIRE_INIT_IN(__func__)

/* The same on behalf of the public call `call` (in its out-of-line part). */
#define REQUIRE_INIT_IN(call)                                               \
  do {                                                                      \
    if (!runtime.initialized) {                                             \
      return report_error(DART_ERR_NOTINIT, call,                           \
                          "DART is not initialized (call dart_init first)"); \
    }                                                                       \
  } while (0)

/* Collective over `world`: whether the units on my machine (under my
 * kernel, by its boot id; by host name where that cannot be read) are
 * more than the CPUs in the union of their affinity masks. */
bool runtime_host_oversubscribed(MPI_Comm world);

/* Logs an MPI failure (with MPI's own message) and returns DART_ERR_OTHER. */
dart_ret_t report_mpi_error(const char *call, const char *mpi_function,
                            int mpi_error);

/* DART_OK, or the report of a failed MPI call on behalf of `call`. */
static inline dart_ret_t mpi_result(const char *call,
                                    const char *mpi_function, int mpi_error)
{
  return mpi_error == MPI_SUCCESS
             ? DART_OK
             : report_mpi_error(call, mpi_function, mpi_error);
}

/* The one MPI error macro: evaluates `expr`, an MPI call; on failure logs
 * it and returns DART_ERR_OTHER from the enclosing function. Functions
 * that must clean up write `if ((ret = mpi_result(...)) != DART_OK)`. */
#define MPI_TRY(call, mpi_function, expr)                                  \
  do {                                                                     \
    int mpi_try_err_ = (expr);                                             \
    if (mpi_try_err_ != MPI_SUCCESS) {                                     \
      return report_mpi_error(call, mpi_function, mpi_try_err_);           \
    }                                                                      \
  } while (0)

#endif
