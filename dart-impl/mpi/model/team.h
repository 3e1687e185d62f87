/* Teams: the table indexed by team id, and what each team owns. */
#ifndef DART_MPI_TEAM_H
#define DART_MPI_TEAM_H

#include "mpi/model/segment.h"

#include <dash/dart/if/dart_types.h>

#include <mpi.h>
#include <stdbool.h>

#define TEAM_ID_MAX INT16_MAX

struct team {
  dart_team_t  id;
  MPI_Comm     comm;            /* ranks = team unit ids */
  int          size;
  int          my_rank;
  dart_unit_t *global_of;       /* team unit -> global unit, ascending */

  MPI_Comm     node_comm;       /* team members sharing my (simulated)
                                   node, ranks in team unit order */
  int          node_size;
  int          node_rank;
  int         *node_rank_of;    /* team unit -> node-local rank, -1 elsewhere */
  int         *node_peers;      /* node-local rank -> team unit */

  int          num_nodes;
  int         *node_of;         /* team unit -> its node: nodes numbered
                                   0.. in the order of their lowest team
                                   unit (node 0 holds unit 0) */
  int          my_node;         /* node_of[my_rank] */

  MPI_Win      dynamic_win;     /* in lock_all for the team's life;
                                   MPI_WIN_NULL for single-unit teams */
  bool         dynamic_win_exposes; /* my memory was attached to it (the
                                       barrier then needs MPI_Win_sync) */

  struct segment_table segments;

  struct team_sync *sync;       /* shared-memory barrier and reductions;
                                   NULL: MPI's (team_sync.h) */

  struct team_locality *locality; /* NULL until dart_team_locality_init */
};

/* Indexed by team id; NULL where the caller is in no such team. */
extern struct team *team_table[TEAM_ID_MAX + 1];

/* The team with this id if the caller is a member, else NULL. O(1). */
static inline struct team *team_lookup(dart_team_t id)
{
  return id < 0 ? NULL : team_table[id];
}

/* Like team_lookup, but logs "unknown team" on behalf of `call`. */
struct team *team_lookup_or_report(const char *call, dart_team_t id);

/* Team unit of a global unit, or -1 if it is not a member. O(log size). */
int team_rank_of_global(const struct team *team, dart_unit_t global);

/* What a service of a higher layer keeps per team (shared-memory sync,
 * segments, locks, locality): init.c hands the list to team_module_init,
 * so the team module includes none of them. `created` (NULL: nothing to
 * do) runs, collective over the team, as the last step of building it;
 * `destroyed` runs, collective, first when a team goes, the services in
 * reverse order. `destroyed` must also cope with a team whose `created`
 * never ran (a build that failed half-way). */
struct team_service {
  dart_ret_t (*created)(const char *call, struct team *team);
  void (*destroyed)(struct team *team);
};

/* Builds DART_TEAM_ALL on `world` (taking ownership of it); `services`
 * serve it and every team created until team_module_finalize. */
dart_ret_t team_module_init(const char *call, MPI_Comm world,
                            const struct team_service *services,
                            int num_services);
/* Destroys every team this unit still belongs to (DART_TEAM_ALL last). */
dart_ret_t team_module_finalize(const char *call);

/* Collective over `parent`: creates the team of `members` (ascending
 * global ids, `count` of them; count 0 on a non-member). Ids are agreed
 * with one all-reduce that also detects a group which differs between
 * units or is no subset of the parent, so every unit returns the same
 * code for those. After it non-members return; the members build the
 * team among themselves, with the parent's node table. */
dart_ret_t team_create(const char *call, struct team *parent,
                       const dart_unit_t *members, size_t count,
                       bool group_given, dart_team_t *newteam);

/* Collective over the team: frees everything it owns. */
dart_ret_t team_destroy(const char *call, struct team *team);

#endif
