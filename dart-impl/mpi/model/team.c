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
  if (team->node_comm != MPI_COMM_NULL) {
    MPI_Comm_free(&team->node_comm);
  }
  if (team->comm != MPI_COMM_NULL) {
    MPI_Comm_free(&team->comm);
  }
  free(team->global_of);
  free(team->node_rank_of);
  free(team->node_peers);
  free(team->node_of);
  free(team);
}

/* A team on `comm` (taken over, freed on failure) with its per-unit
 * arrays allocated and nothing else; NULL after reporting. */
static struct team *team_alloc(const char *call, dart_team_t id,
                               MPI_Comm comm)
{
  struct team *team = calloc(1, sizeof *team);
  if (team == NULL) {
    MPI_Comm_free(&comm);
    report_error(DART_ERR_NOMEM, call, "out of memory for team %d", (int)id);
    return NULL;
  }
  team->id = id;
  team->comm = comm;
  team->node_comm = MPI_COMM_NULL;
  team->dynamic_win = MPI_WIN_NULL;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_size(comm, &team->size);
  MPI_Comm_rank(comm, &team->my_rank);
  size_t n = (size_t)team->size;
  team->global_of = malloc(n * sizeof(dart_unit_t));
  team->node_rank_of = malloc(n * sizeof(int));
  team->node_of = malloc(n * sizeof(int));
  if (team->global_of == NULL || team->node_rank_of == NULL ||
      team->node_of == NULL) {
    team_free_resources(team);
    report_error(DART_ERR_NOMEM, call, "out of memory for team %d", (int)id);
    return NULL;
  }
  return team;
}

/* The node fields of `team` from `label` (one per team unit, equal
 * exactly for units on one node, each in [0, num_labels)): node_of,
 * num_nodes, my_node, node_size, node_rank, node_peers, node_rank_of.
 * Local: every member derives the same from the same labels. */
static dart_ret_t number_nodes(const char *call, struct team *team,
                               const int *label, int num_labels)
{
  int *node_of_label = malloc((size_t)num_labels * sizeof(int));
  if (node_of_label == NULL) {
    return report_error(DART_ERR_NOMEM, call, "out of memory for team %d",
                        (int)team->id);
  }
  for (int l = 0; l < num_labels; ++l) {
    node_of_label[l] = -1;
  }
  int nodes = 0;
  for (int u = 0; u < team->size; ++u) {
    if (node_of_label[label[u]] < 0) {
      node_of_label[label[u]] = nodes++;
    }
    team->node_of[u] = node_of_label[label[u]];
  }
  free(node_of_label);
  team->num_nodes = nodes;
  team->my_node = team->node_of[team->my_rank];
  team->node_size = 0;
  for (int u = 0; u < team->size; ++u) {
    team->node_size += team->node_of[u] == team->my_node;
  }
  team->node_peers = malloc((size_t)team->node_size * sizeof(int));
  if (team->node_peers == NULL) {
    return report_error(DART_ERR_NOMEM, call, "out of memory for team %d",
                        (int)team->id);
  }
  int r = 0;
  for (int u = 0; u < team->size; ++u) {
    if (team->node_of[u] == team->my_node) {
      team->node_peers[r] = u;
      team->node_rank_of[u] = r++;
    } else {
      team->node_rank_of[u] = -1;
    }
  }
  team->node_rank = team->node_rank_of[team->my_rank];
  return DART_OK;
}

/* DART_TEAM_ALL's node communicator: MPI's shared-memory split, cut
 * further into simulated nodes when DART_UNITS_PER_NODE is set (a unit's
 * simulated node is fixed here from its rank on its physical node). The
 * only place that asks MPI which units share a node: every other team
 * takes that from DART_TEAM_ALL's node_of. */
static dart_ret_t build_all_node_comm(const char *call, struct team *team)
{
  dart_ret_t ret = DART_OK;
  MPI_Comm shared = MPI_COMM_NULL;
  ret = mpi_result(call, "MPI_Comm_split_type",
                   MPI_Comm_split_type(team->comm, MPI_COMM_TYPE_SHARED,
                                       team->my_rank, MPI_INFO_NULL, &shared));
  if (ret != DART_OK) {
    return ret;
  }
  int units_per_node = runtime.env.units_per_node;
  if (units_per_node <= 0) {
    team->node_comm = shared;
    return DART_OK;
  }
  int physical_rank;
  MPI_Comm_rank(shared, &physical_rank);
  runtime.simulated_node = physical_rank / units_per_node;
  ret = mpi_result(call, "MPI_Comm_split",
                   MPI_Comm_split(shared, runtime.simulated_node, team->my_rank,
                                  &team->node_comm));
  MPI_Comm_free(&shared);
  return ret;
}

/* What every team sets up once its node fields and node_comm are in
 * place: the dynamic window and the services' per-team state. */
static dart_ret_t team_open(const char *call, struct team *team)
{
  dart_ret_t ret = DART_OK;
  /* Some MPIs cannot create a dynamic window on one process, and a
   * single-unit team reaches all its memory directly anyway. */
  if (team->size > 1) {
    ret = mpi_result(
        call, "MPI_Win_create_dynamic",
        MPI_Win_create_dynamic(MPI_INFO_NULL, team->comm, &team->dynamic_win));
    if (ret != DART_OK) {
      return ret;
    }
    MPI_Win_set_errhandler(team->dynamic_win, MPI_ERRORS_RETURN);
    ret = mpi_result(call, "MPI_Win_lock_all",
                     MPI_Win_lock_all(MPI_MODE_NOCHECK, team->dynamic_win));
    if (ret != DART_OK) {
      return ret;
    }
  }
  for (int s = 0; s < num_services; ++s) {
    if (services[s].created != NULL &&
        (ret = services[s].created(call, team)) != DART_OK) {
      return ret;
    }
  }
  LOG_DEBUG(call, "team %d: %d units, %d nodes, %d units on my node",
            (int)team->id, team->size, team->num_nodes, team->node_size);
  return DART_OK;
}

/* DART_TEAM_ALL, collective over `world`: one all-gather tells every
 * unit the global id and the node (the team unit of its node's rank 0)
 * of every other. */
static dart_ret_t team_build_all(const char *call, MPI_Comm world,
                                 struct team **out)
{
  struct team *team = team_alloc(call, DART_TEAM_ALL, world);
  if (team == NULL) {
    return DART_ERR_NOMEM;
  }
  int *pairs = malloc(2 * (size_t)team->size * sizeof(int));
  dart_ret_t ret = pairs == NULL
                       ? report_error(DART_ERR_NOMEM, call, "out of memory")
                       : build_all_node_comm(call, team);
  if (ret != DART_OK) {
    goto done;
  }
  MPI_Group node_group, team_group;
  int node_root = 0, leader = MPI_UNDEFINED;
  MPI_Comm_group(team->node_comm, &node_group);
  MPI_Comm_group(team->comm, &team_group);
  MPI_Group_translate_ranks(node_group, 1, &node_root, team_group, &leader);
  MPI_Group_free(&node_group);
  MPI_Group_free(&team_group);
  int mine[2] = { (int)runtime.myid, leader };
  MPI_Request request;
  ret = mpi_result(call, "MPI_Iallgather",
                   progress_complete(MPI_Iallgather(mine, 2, MPI_INT, pairs, 2,
                                                    MPI_INT, team->comm,
                                                    &request),
                                     &request));
  if (ret != DART_OK) {
    goto done;
  }
  int *label = pairs; /* the leaders, packed in place */
  for (int u = 0; u < team->size; ++u) {
    team->global_of[u] = pairs[2 * u];
    label[u] = pairs[2 * u + 1];
  }
  if ((ret = number_nodes(call, team, label, team->size)) != DART_OK) {
    goto done;
  }
  int node_size, node_rank;
  MPI_Comm_size(team->node_comm, &node_size);
  MPI_Comm_rank(team->node_comm, &node_rank);
  if (node_size != team->node_size || node_rank != team->node_rank) {
    /* MPI orders a split by its key, the team rank; it cannot differ. */
    ret = report_error(DART_ERR_OTHER, call,
                       "MPI's node communicator (%d units, I am %d) "
                       "disagrees with the node table (%d, %d)",
                       node_size, node_rank, team->node_size, team->node_rank);
    goto done;
  }
  ret = team_open(call, team);
done:
  free(pairs);
  if (ret != DART_OK) {
    team_free_resources(team);
    return ret;
  }
  *out = team;
  return DART_OK;
}

/* A communicator of `ranks` (`count` ascending ranks of `comm`),
 * collective over those units only: a polled MPI_Comm_idup for the whole
 * of `comm`, else MPI_Comm_create_group. The tag tells apart creations a
 * unit takes part in back to back with different peers. */
static dart_ret_t comm_of_ranks(const char *call, MPI_Comm comm,
                                const int *ranks, int count, int tag,
                                MPI_Comm *out)
{
  int size;
  MPI_Comm_size(comm, &size);
  if (count == size) {
    MPI_Request request;
    return mpi_result(call, "MPI_Comm_idup",
                      progress_complete(MPI_Comm_idup(comm, out, &request),
                                        &request));
  }
  MPI_Group whole, group;
  MPI_Comm_group(comm, &whole);
  MPI_Group_incl(whole, count, ranks, &group);
  MPI_Group_free(&whole);
  int err = MPI_Comm_create_group(comm, group, tag, out);
  MPI_Group_free(&group);
  return mpi_result(call, "MPI_Comm_create_group", err);
}

/* A sub-team of `parent` from its ascending member list, collective over
 * the members only (non-members are not involved at all). Blocking MPI
 * communicator creation spins in some MPIs (README, Troubleshooting), so
 * this builds at most one communicator on the members and one on the
 * node peers, and takes everything else from the parent's tables. */
static dart_ret_t team_build_sub(const char *call, struct team *parent,
                                 dart_team_t id, const dart_unit_t *members,
                                 int count, struct team **out)
{
  int *parent_ranks = malloc((size_t)count * sizeof(int));
  if (parent_ranks == NULL) {
    return report_error(DART_ERR_NOMEM, call, "out of memory");
  }
  for (int i = 0; i < count; ++i) {
    parent_ranks[i] = team_rank_of_global(parent, members[i]);
  }
  MPI_Comm comm = MPI_COMM_NULL;
  dart_ret_t ret = comm_of_ranks(call, parent->comm, parent_ranks, count,
                                 (int)id, &comm);
  struct team *team = ret == DART_OK ? team_alloc(call, id, comm) : NULL;
  if (team == NULL) {
    free(parent_ranks);
    return ret != DART_OK ? ret : DART_ERR_NOMEM;
  }
  /* Members ascend, and so do parent ranks with them: team unit r is
   * members[r]. The parent's node numbers serve as labels (every team's
   * node table comes down from DART_TEAM_ALL's). */
  int *label = parent_ranks; /* in place: rank r is read, then replaced */
  for (int r = 0; r < count; ++r) {
    team->global_of[r] = members[r];
    label[r] = parent->node_of[parent_ranks[r]];
  }
  ret = number_nodes(call, team, label, parent->num_nodes);
  free(parent_ranks);
  if (ret != DART_OK) {
    goto fail;
  }
  ret = comm_of_ranks(call, team->comm, team->node_peers, team->node_size,
                      (int)id, &team->node_comm);
  if (ret != DART_OK || (ret = team_open(call, team)) != DART_OK) {
    goto fail;
  }
  *out = team;
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
  dart_ret_t ret = team_build_all(call, world, &all);
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
   * hash == min of hash), on the group size and on whether any unit
   * passed no group (NULL: "not a member"; it votes neutrally on the
   * rest). */
  long long votes[6] = {
    next_team_seq,
    stranger >= 0,
    group_given ? hash : LLONG_MIN,
    group_given ? -hash : LLONG_MIN,
    group_given ? (long long)count : 0,
    !group_given,
  };
  /* Polled (team_sync.h): also the gate in front of MPI_Comm_split. */
  MPI_Request request;
  int err = MPI_Iallreduce(MPI_IN_PLACE, votes, 6, MPI_LONG_LONG, MPI_MAX,
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
  /* Every unit the group names must know that it is in it: one that
   * passed no group (NULL, "not a member") while the others name it
   * would be waited for in the creation of the communicator for ever.
   * Counted only where some unit passed NULL (votes[5]): units that all
   * passed the same group know their membership. */
  long long claimed = votes[4];
  if (votes[5]) {
    claimed = is_member;
    err = MPI_Iallreduce(MPI_IN_PLACE, &claimed, 1, MPI_LONG_LONG, MPI_SUM,
                         parent->comm, &request);
    if (err == MPI_SUCCESS) {
      err = progress_wait(&request);
    }
    if (err != MPI_SUCCESS) {
      return report_mpi_error(call, "MPI_Iallreduce", err);
    }
  }
  if (claimed != votes[4]) {
    return report_error(DART_ERR_INVAL, call,
                        "%lld of the %lld units the group names passed no "
                        "group (NULL) to the creation of a team of team %d",
                        votes[4] - claimed, votes[4], (int)parent->id);
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

  if (!is_member) {
    return DART_OK;
  }
  struct team *team = NULL;
  dart_ret_t ret = team_build_sub(call, parent, id, members, (int)count,
                                  &team);
  if (ret != DART_OK) {
    return ret;
  }
  team_table[id] = team;
  *newteam = id;
  return DART_OK;
}
