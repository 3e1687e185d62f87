/* bench-distance: blocking put/get latency from unit 0 to every other
 * unit, DART next to plain MPI RMA (the seed's figures 3 and 4: latency
 * against logical distance, flat inside a node, a step at the first unit
 * of the next node). Run it with simulated nodes (DART_UNITS_PER_NODE, or
 * MPICH's cliques) to see the step on one machine.
 *
 *   dart     dart_put_blocking / dart_get_blocking on a
 *            dart_team_memalloc_aligned segment of DART_TEAM_ALL
 *   mpi-rma  MPI_Put + MPI_Win_flush / MPI_Get + MPI_Win_flush on an
 *            MPI_Win_allocate window in a lock_all epoch (Open MPI does not
 *            see simulated nodes: this stays shared memory there)
 *   mpi-dyn  the same on a dynamic window (MPI_Win_create_dynamic +
 *            MPI_Win_attach), the window DART uses between nodes
 *
 * Unit 0 measures; the others wait for its stop message in an MPI_Test
 * loop that yields the core (RMA that needs the target's progress gets it;
 * oversubscribed runs share the cores).
 * Usage: bench-distance [--reps R] [--iters K] [--max-bytes B] [--csv FILE]
 * (--distance is implied: sizes are 8 B and B, default 1 MiB). */
#include "dart_app.h"
#include "latency.h"
#include "measure.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>

enum { TAG_STOP = 4712 };

struct op {
  dart_gptr_t seg;    /* the target's part of the DART segment */
  MPI_Win     win, dyn;
  MPI_Aint   *dyn_base; /* every unit's attached block */
  int         target;
  size_t      bytes;
  char       *buf;
};

static void dart_put_op(void *ctx)
{
  struct op *o = ctx;
  CHECK(dart_put_blocking(o->seg, o->buf, o->bytes, DART_TYPE_BYTE,
                          DART_TYPE_BYTE));
}

static void dart_get_op(void *ctx)
{
  struct op *o = ctx;
  CHECK(dart_get_blocking(o->buf, o->seg, o->bytes, DART_TYPE_BYTE,
                          DART_TYPE_BYTE));
}

static void mpi_put_op(void *ctx)
{
  struct op *o = ctx;
  MPI_Put(o->buf, (int)o->bytes, MPI_BYTE, o->target, 0, (int)o->bytes,
          MPI_BYTE, o->win);
  MPI_Win_flush(o->target, o->win);
}

static void mpi_get_op(void *ctx)
{
  struct op *o = ctx;
  MPI_Get(o->buf, (int)o->bytes, MPI_BYTE, o->target, 0, (int)o->bytes,
          MPI_BYTE, o->win);
  MPI_Win_flush(o->target, o->win);
}

static void dyn_put_op(void *ctx)
{
  struct op *o = ctx;
  MPI_Put(o->buf, (int)o->bytes, MPI_BYTE, o->target,
          o->dyn_base[o->target], (int)o->bytes, MPI_BYTE, o->dyn);
  MPI_Win_flush(o->target, o->dyn);
}

static void dyn_get_op(void *ctx)
{
  struct op *o = ctx;
  MPI_Get(o->buf, (int)o->bytes, MPI_BYTE, o->target,
          o->dyn_base[o->target], (int)o->bytes, MPI_BYTE, o->dyn);
  MPI_Win_flush(o->target, o->dyn);
}

/* A key per unit equal for units on the same node as DART cuts nodes:
 * MPI's shared-memory split, cut into DART_UNITS_PER_NODE pieces. */
static int node_key(void)
{
  MPI_Comm shared;
  int me, local, leader;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me,
                      MPI_INFO_NULL, &shared);
  MPI_Comm_rank(shared, &local);
  leader = me;
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, shared);
  MPI_Comm_free(&shared);
  const char *per_node = getenv("DART_UNITS_PER_NODE");
  long p = per_node != NULL ? strtol(per_node, NULL, 10) : 0;
  return p > 0 ? leader * 65536 + (int)(local / p) : leader * 65536;
}

static void wait_for_stop(void)
{
  MPI_Request req;
  int stop = 0, done = 0;
  MPI_Irecv(&stop, 1, MPI_INT, 0, TAG_STOP, MPI_COMM_WORLD, &req);
  while (!done) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done) {
      sched_yield();
    }
  }
}

static const struct {
  const char *model, *operation;
  measure_op  op;
} kernels[] = {
  { "dart", "put", dart_put_op },    { "mpi-rma", "put", mpi_put_op },
  { "mpi-dyn", "put", dyn_put_op },  { "dart", "get", dart_get_op },
  { "mpi-rma", "get", mpi_get_op },  { "mpi-dyn", "get", dyn_get_op },
};

static void measure_all(const struct lat_params *p, struct op *o,
                        const int *keys, int units, FILE *csv)
{
  long long sizes[16];
  int n = lat_sizes(p, sizes);
  dart_gptr_t base = o->seg;
  for (o->target = 1; o->target < units; ++o->target) {
    o->seg = base;
    o->seg.unitid = o->target;
    int same = keys[o->target] == keys[0];
    for (int s = 0; s < n; ++s) {
      o->bytes = (size_t)sizes[s];
      int iters = measure_iters_for(sizes[s], p->iters);
      for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; ++k) {
        lat_report(csv, kernels[k].model, kernels[k].operation, sizes[s],
                   o->target, same,
                   measure_ns(kernels[k].op, o, iters, p->reps));
      }
    }
  }
  o->seg = base;
}

int main(int argc, char **argv)
{
  struct lat_params p;
  int code;
  if (lat_parse_args(argc, argv, "bench-distance", &p, &code)) {
    return dart_app_stop(&argc, &argv, code);
  }
  p.distance = 1;
  if (p.max_bytes > INT32_MAX) {
    p.max_bytes = INT32_MAX; /* one MPI call's count */
  }
  dart_global_unit_t me;
  size_t units;
  dart_app_start(&argc, &argv, &me, &units);
  if (units < 2) {
    if (me.id == 0) {
      fprintf(stderr, "bench-distance: needs at least 2 units\n");
    }
    CHECK(dart_exit());
    return 2;
  }

  struct op o = { .buf = calloc(1, (size_t)p.max_bytes) };
  char *win_mem = NULL;
  int *keys = malloc(units * sizeof(int));
  char *dyn_mem = calloc(1, (size_t)p.max_bytes);
  o.dyn_base = malloc(units * sizeof(MPI_Aint));
  if (o.buf == NULL || keys == NULL || dyn_mem == NULL || o.dyn_base == NULL) {
    fprintf(stderr, "bench-distance: out of memory\n");
    dart_abort(DART_EXIT_ABORT);
  }
  CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, (size_t)p.max_bytes,
                                   DART_TYPE_BYTE, &o.seg));
  MPI_Win_allocate((MPI_Aint)p.max_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                   &win_mem, &o.win);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, o.win);
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &o.dyn);
  MPI_Win_attach(o.dyn, dyn_mem, (MPI_Aint)p.max_bytes);
  MPI_Aint mine;
  MPI_Get_address(dyn_mem, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, o.dyn_base, 1, MPI_AINT, MPI_COMM_WORLD);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, o.dyn);
  int key = node_key();
  MPI_Allgather(&key, 1, MPI_INT, keys, 1, MPI_INT, MPI_COMM_WORLD);

  int rc = 0;
  if (me.id == 0) {
    FILE *csv = lat_csv_open(&p, "bench-distance");
    if (p.csv != NULL && csv == NULL) {
      rc = 1;
    } else {
      const char *per_node = getenv("DART_UNITS_PER_NODE");
      printf("bench-distance: %zu units, DART_UNITS_PER_NODE=%s, median of "
             "%d rounds, ns per operation\n\n"
             "| model | operation | bytes | target | same node | ns |\n"
             "|---|---|---:|---:|---|---:|\n",
             units, per_node != NULL ? per_node : "(not set)", p.reps);
      measure_all(&p, &o, keys, (int)units, csv);
      if (csv != NULL) {
        fclose(csv);
      }
    }
    int stop = 1;
    for (int u = 1; u < (int)units; ++u) {
      MPI_Send(&stop, 1, MPI_INT, u, TAG_STOP, MPI_COMM_WORLD);
    }
  } else {
    wait_for_stop();
  }

  MPI_Win_unlock_all(o.dyn);
  MPI_Win_detach(o.dyn, dyn_mem);
  MPI_Win_free(&o.dyn);
  MPI_Win_unlock_all(o.win);
  MPI_Win_free(&o.win);
  free(dyn_mem);
  free(o.dyn_base);
  CHECK(dart_team_memfree(o.seg));
  free(keys);
  free(o.buf);
  CHECK(dart_exit());
  return rc;
}
