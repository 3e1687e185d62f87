/* State the bootstrap leaves behind for the record readers, shared by
 * bootstrap.c (init/exit), bootstrap/exchange.c (the modes) and
 * unit_records.c (the readers). Internal to those three. */
#ifndef DART_MPI_BOOTSTRAP_STATE_H
#define DART_MPI_BOOTSTRAP_STATE_H

#include "base/node_db.h"
#include "mpi/bootstrap/bootstrap.h"
#include "mpi/bootstrap/unit_records.h"
#include "mpi/model/team.h"

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

struct bootstrap_state {
  bool                      active;
  enum bootstrap_mode       mode;
  int32_t                   num_units, num_nodes, my_node;
  int                       reader;        /* my node rank = my lock pair */
  bool                      is_root;
  MPI_Comm                  node_comm, roots_comm, world;

  /* node-roots and on-demand: the node's segment, a /dev/shm file */
  unsigned char            *segment;
  size_t                    segment_bytes;
  struct node_db            db;
  int32_t                  *slot_of;       /* unit -> slot */
  int32_t                  *node_of;       /* unit -> node */
  int32_t                  *unit_at_slot;  /* slot -> unit */
  int32_t                  *first_slot;    /* node -> first slot, [N] = P */
  int32_t                  *root_of;       /* node -> its root's unit id */
  MPI_Win                   fetch_win;     /* on-demand: node tables */
  MPI_Datatype              slot_type;

  /* naive: every record in private memory */
  struct unit_record       *private_records;

  struct bootstrap_counters counters;
};

extern struct bootstrap_state boot;

/* Bytes of the node segment (node-roots and on-demand); every unit
 * computes the same from team ALL. */
size_t bootstrap_segment_bytes(const struct team *all);

/* The exchanges, collective over DART_TEAM_ALL. `segment_ok` says whether
 * this unit mapped the node segment (shared modes). */
dart_ret_t bootstrap_exchange_naive(const char *call,
                                    const struct unit_record *mine);
dart_ret_t bootstrap_exchange_shared(const char *call, const struct team *all,
                                     const struct unit_record *mine,
                                     bool segment_ok);

#endif
