#include "mpi/model/team.h"
#include "mpi/core/progress.h"
#include "mpi/core/runtime.h"

#include <dash/dart/if/dart_team_group.h>

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

struct team *team_table[TEAM_ID_MAX + 1];
/* Team ids come from a sequence that never wraps: the parent's members
 * agree on max(next) for a new team. While the sequence fits a team id,
 * the id is the sequence (ascending, never reused, so a stale team id
 * cannot reach a new team); past TEAM_ID_MAX ids of destroyed teams come
 * back round robin (team_id_after_wrap): a long run that creates and
 * destroys teams must not fail after 32767 of them. */
static long long next_team_seq = 1;
static const struct team_service *services;
static int num_services;

struct team *team_lookup_or_report(const char *call, dart_team_t id)
{
  struct team *team = team_lookup(id);
  if (team == NULL) {
    report_error(DART_ERR_INVAL, call,
                 "unknown team %d (never created, destroyed, or the caller "
                 "is not a member)", (int)id);
  }
  return team;
}

int team_rank_of_global(const struct team *team, dart_unit_t global)
{
  int lo = 0, hi = team->size - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (team->global_of[mid] == global) {
      return mid;
    }
    if (team->global_of[mid] < global) {
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return -1;
}

static void team_free_resources(struct team *team)
{
  for (int s = num_services - 1; s >= 0; --s) {
    services[s].destroyed(team);
  }
  if (team->dynamic_win != MPI_WIN_NULL) {
    MPI_Win_unlock_all(team->dynamic_win);
    MPI_Win_free(&team->dynamic_win);
  }
  if (team->node_roots_comm != MPI_COMM_NULL) {
    MPI_Comm_free(&team->node_roots_comm);
  }
  if (team->node_comm != MPI_COMM_NULL) {
    MPI_Comm_free(&team->node_comm);
  }
  if (team->comm != MPI_COMM_NULL) {
    MPI_Comm_free(&team->comm);
  }
  free(team->global_of);
  free(team->node_rank_of);
  free(team->node_peers);
  free(team);
}

/* The shared-memory communicator of the team, cut further into simulated
 * nodes when DART_UNITS_PER_NODE is set. A unit's simulated node is fixed
 * at init from its rank on its physical node, so every team agrees. */
static dart_ret_t build_node_comm(const char *call, struct team *team)
{
  dart_ret_t ret = DART_OK;
  MPI_Comm shared = MPI_COMM_NULL;
  ret = mpi_result(call, "MPI_Comm_split_type",
                   MPI_Comm_split_type(team->comm, MPI_COMM_TYPE_SHARED,
                                       team->my_rank, MPI_INFO_NULL, &shared));
  if (ret != DART_OK) {
    goto fail;
  }
  int units_per_node = runtime.env.units_per_node;
  if (units_per_node <= 0) {
    team->node_comm = shared;
    return DART_OK;
  }
  if (team->id == DART_TEAM_ALL) {
    int physical_rank;
    MPI_Comm_rank(shared, &physical_rank);
    runtime.simulated_node = physical_rank / units_per_node;
  }
  ret = mpi_result(call, "MPI_Comm_split",
                   MPI_Comm_split(shared, runtime.simulated_node, team->my_rank,
                                  &team->node_comm));
  if (ret != DART_OK) {
    goto fail;
  }
  MPI_Comm_free(&shared);
  return DART_OK;
fail:
  if (shared != MPI_COMM_NULL) {
    MPI_Comm_free(&shared);
  }
  return ret;
}

/* Collective over `comm`: fills in everything a team owns. */
static dart_ret_t team_build(const char *call, dart_team_t id, MPI_Comm comm,
                             struct team **out)
{
  dart_ret_t ret = DART_OK;
  struct team *team = calloc(1, sizeof *team);
  if (team == NULL) {
    MPI_Comm_free(&comm);
    return report_error(DART_ERR_NOMEM, call, "out of memory for team %d",
                        (int)id);
  }
  team->id = id;
  team->comm = comm;
  team->node_comm = MPI_COMM_NULL;
  team->node_roots_comm = MPI_COMM_NULL;
  team->dynamic_win = MPI_WIN_NULL;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_size(comm, &team->size);
  MPI_Comm_rank(comm, &team->my_rank);

  team->global_of = malloc((size_t)team->size * sizeof(dart_unit_t));
  team->node_rank_of = malloc((size_t)team->size * sizeof(int));
  if (team->global_of == NULL || team->node_rank_of == NULL) {
    ret = report_error(DART_ERR_NOMEM, call, "out of memory for team %d",
                       (int)id);
    goto fail;
  }
  dart_unit_t me = runtime.myid;
  ret = mpi_result(call, "MPI_Allgather",
                   MPI_Allgather(&me, 1, MPI_INT32_T, team->global_of, 1,
                                 MPI_INT32_T, comm));
  if (ret != DART_OK) {
    goto fail;
  }
  if ((ret = build_node_comm(call, team)) != DART_OK) {
    goto fail;
  }
  MPI_Comm_size(team->node_comm, &team->node_size);
  MPI_Comm_rank(team->node_comm, &team->node_rank);
  team->node_peers = malloc((size_t)team->node_size * sizeof(int));
  if (team->node_peers == NULL) {
    ret = report_error(DART_ERR_NOMEM, call, "out of memory for team %d",
                       (int)id);
    goto fail;
  }
  ret = mpi_result(call, "MPI_Allgather",
                   MPI_Allgather(&team->my_rank, 1, MPI_INT, team->node_peers,
                                 1, MPI_INT, team->node_comm));
  if (ret != DART_OK) {
    goto fail;
  }
  for (int u = 0; u < team->size; ++u) {
    team->node_rank_of[u] = -1;
  }
  for (int r = 0; r < team->node_size; ++r) {
    team->node_rank_of[team->node_peers[r]] = r;
  }

  ret = mpi_result(call, "MPI_Comm_split",
                   MPI_Comm_split(comm,
                                  team->node_rank == 0 ? 0 : MPI_UNDEFINED,
                                  team->my_rank, &team->node_roots_comm));
  if (ret != DART_OK) {
    goto fail;
  }
  int node_info[2] = { 0, 0 };
  if (team->node_roots_comm != MPI_COMM_NULL) {
    MPI_Comm_set_errhandler(team->node_roots_comm, MPI_ERRORS_RETURN);
    MPI_Comm_size(team->node_roots_comm, &node_info[0]);
    MPI_Comm_rank(team->node_roots_comm, &node_info[1]);
  }
  ret = mpi_result(call, "MPI_Bcast",
                   MPI_Bcast(node_info, 2, MPI_INT, 0, team->node_comm));
  if (ret != DART_OK) {
    goto fail;
  }
  team->num_nodes = node_info[0];
  team->my_node = node_info[1];

  /* Some MPIs cannot create a dynamic window on one process, and a
   * single-unit team reaches all its memory directly anyway. */
  if (team->size > 1) {
    ret = mpi_result(
        call, "MPI_Win_create_dynamic",
        MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &team->dynamic_win));
    if (ret != DART_OK) {
      goto fail;
    }
    MPI_Win_set_errhandler(team->dynamic_win, MPI_ERRORS_RETURN);
    ret = mpi_result(call, "MPI_Win_lock_all",
                     MPI_Win_lock_all(MPI_MODE_NOCHECK, team->dynamic_win));
    if (ret != DART_OK) {
      goto fail;
    }
  }
  for (int s = 0; s < num_services; ++s) {
    if (services[s].created != NULL &&
        (ret = services[s].created(call, team)) != DART_OK) {
      goto fail;
    }
  }
  *out = team;
  LOG_DEBUG(call, "team %d: %d units, %d nodes, %d units on my node",
            (int)id, team->size, team->num_nodes, team->node_size);
  return DART_OK;
fail:
  team_free_resources(team);
  return ret;
}

dart_ret_t team_module_init(const char *call, MPI_Comm world,
                            const struct team_service *team_services,
                            int num_team_services)
{
  services = team_services;
  num_services = num_team_services;
  next_team_seq = 1;
  runtime.simulated_node = 0;
  struct team *all = NULL;
  dart_ret_t ret = team_build(call, DART_TEAM_ALL, world, &all);
  if (ret == DART_OK) {
    team_table[DART_TEAM_ALL] = all;
  }
  return ret;
}

dart_ret_t team_destroy(const char *call, struct team *team)
{
  /* Polled gate (team_sync.h) in front of the blocking window and
   * communicator frees. */
  int err = progress_gate(team->comm);
  if (err != MPI_SUCCESS) {
    report_mpi_error(call, "MPI_Ibarrier", err);
  }
  team_table[team->id] = NULL;
  team_free_resources(team);
  return DART_OK;
}

dart_ret_t team_module_finalize(const char *call)
{
  /* Teams the application left behind: every unit walks the same ids in
   * the same (descending) order, so the collective frees match up. */
  for (int id = TEAM_ID_MAX; id >= 0; --id) {
    if (team_table[id] != NULL) {
      if (id != DART_TEAM_ALL) {
        LOG_DEBUG(call, "destroying team %d left by the application", id);
      }
      team_destroy(call, team_table[id]);
    }
  }
  return DART_OK;
}

/* FNV-1a over the member list; equal groups give equal hashes. */
static uint64_t group_hash(const dart_unit_t *members, size_t count)
{
  uint64_t hash = UINT64_C(14695981039346656037);
  hash = (hash ^ (uint64_t)count) * UINT64_C(1099511628211);
  for (size_t i = 0; i < count; ++i) {
    hash = (hash ^ (uint32_t)members[i]) * UINT64_C(1099511628211);
  }
  return hash >> 1; /* fits a positive long long */
}

static dart_team_t team_id_of_seq(long long seq)
{
  return (dart_team_t)((seq - 1) % TEAM_ID_MAX + 1);
}

/* Past the first TEAM_ID_MAX teams: moves `*seq` (the same on every
 * member of `parent`) to the first sequence number from there whose id
 * no unit of the parent knows (spec: the id differs from every team known
 * to a unit of the parent). Collective over the parent: one all-reduce
 * (bitwise or) of the ids each unit knows. */
static dart_ret_t team_id_after_wrap(const char *call, struct team *parent,
                                     long long *seq)
{
  enum { WORDS = (TEAM_ID_MAX + 1 + 63) / 64 };
  uint64_t known[WORDS] = { 0 };
  for (int id = 0; id <= TEAM_ID_MAX; ++id) {
    if (team_table[id] != NULL) {
      known[id / 64] |= UINT64_C(1) << (id % 64);
    }
  }
  MPI_Request request;
  int err = MPI_Iallreduce(MPI_IN_PLACE, known, WORDS, MPI_UINT64_T, MPI_BOR,
                           parent->comm, &request);
  if (err == MPI_SUCCESS) {
    err = progress_wait(&request);
  }
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Iallreduce", err);
  }
  for (long long s = *seq; s < *seq + TEAM_ID_MAX; ++s) {
    dart_team_t id = team_id_of_seq(s);
    if ((known[id / 64] & (UINT64_C(1) << (id % 64))) == 0) {
      *seq = s;
      return DART_OK;
    }
  }
  return report_error(DART_ERR_OTHER, call,
                      "all %d team ids are in use by units of team %d",
                      TEAM_ID_MAX, (int)parent->id);
}

dart_ret_t team_create(const char *call, struct team *parent,
                       const dart_unit_t *members, size_t count,
                       bool group_given, dart_team_t *newteam)
{
  *newteam = DART_TEAM_NULL;
  bool is_member = false;
  dart_unit_t stranger = DART_UNDEFINED_UNIT_ID;
  for (size_t i = 0; i < count; ++i) {
    if (members[i] == runtime.myid) {
      is_member = true;
    }
    if (stranger < 0 && team_rank_of_global(parent, members[i]) < 0) {
      stranger = members[i];
    }
  }
  long long hash = group_given ? (long long)group_hash(members, count) : 0;
  /* One all-reduce (MAX) agrees on the id, on whether every group is a
   * subset of the parent, on whether all given groups are equal (max of
   * hash == min of hash) and on the group size. A unit that passed no
   * group (NULL: "not a member") votes neutrally. */
  long long votes[5] = {
    next_team_seq,
    stranger >= 0,
    group_given ? hash : LLONG_MIN,
    group_given ? -hash : LLONG_MIN,
    group_given ? (long long)count : 0,
  };
  /* Polled (team_sync.h): also the gate in front of MPI_Comm_split. */
  MPI_Request request;
  int err = MPI_Iallreduce(MPI_IN_PLACE, votes, 5, MPI_LONG_LONG, MPI_MAX,
                           parent->comm, &request);
  if (err == MPI_SUCCESS) {
    err = progress_wait(&request);
  }
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Iallreduce", err);
  }
  if (votes[1]) {
    if (stranger >= 0) {
      return report_error(DART_ERR_INVAL, call,
                          "group holds unit %d, which is not in parent "
                          "team %d", (int)stranger, (int)parent->id);
    }
    return report_error(DART_ERR_INVAL, call,
                        "another unit's group is not a subset of parent "
                        "team %d", (int)parent->id);
  }
  if (votes[2] != LLONG_MIN && votes[2] != -votes[3]) {
    return report_error(DART_ERR_INVAL, call,
                        "the units of team %d passed different groups",
                        (int)parent->id);
  }
  if (votes[4] == 0) {
    return DART_OK; /* empty group: no team, on every unit alike */
  }
  long long seq = votes[0];
  if (seq > TEAM_ID_MAX) {
    dart_ret_t ret = team_id_after_wrap(call, parent, &seq);
    if (ret != DART_OK) {
      return ret;
    }
  }
  dart_team_t id = team_id_of_seq(seq);
  next_team_seq = seq + 1;

  MPI_Comm comm = MPI_COMM_NULL;
  err = MPI_Comm_split(parent->comm, is_member ? 0 : MPI_UNDEFINED,
                       parent->my_rank, &comm);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Comm_split", err);
  }
  if (!is_member) {
    return DART_OK;
  }
  struct team *team = NULL;
  dart_ret_t ret = team_build(call, id, comm, &team);
  if (ret != DART_OK) {
    return ret;
  }
  team_table[id] = team;
  *newteam = id;
  return DART_OK;
}
