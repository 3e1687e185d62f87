/* White-box: each team's node structure (shared-memory sub-communicator,
 * node numbering, translation arrays, window) against an independent view
 * of which units share a node, computed here straight from MPI and the
 * documented simulated-node switch; across the virtual cluster
 * (test_cluster.h) also against the hosts the run was launched on. */
#include "test.h"
#include "test_cluster.h"
#include "test_nodes.h"
#include "mpi/core/runtime.h"
#include "mpi/model/team.h"
#include "mpi/bootstrap/unit_records.h"

#include <stdlib.h>
#include <string.h>


static void check_team(dart_team_t id, const long long *keys)
{
  struct team *team = team_lookup(id);
  ASSERT(team != NULL);
  long long my_key = keys[runtime.myid];
  int expected_node_size = 0, distinct = 0;
  for (int u = 0; u < team->size; ++u) {
    long long key = keys[team->global_of[u]];
    int first = 1;
    for (int v = 0; v < u; ++v) {
      first = first && keys[team->global_of[v]] != key;
    }
    distinct += first;
    if (key == my_key) {
      /* Same node: reachable by node rank, and the peer table agrees. */
      ASSERT(team->node_rank_of[u] >= 0);
      ASSERT_EQ(team->node_peers[team->node_rank_of[u]], u);
      expected_node_size++;
    } else {
      ASSERT_EQ(team->node_rank_of[u], -1);
    }
  }
  ASSERT_EQ(team->node_size, expected_node_size);
  ASSERT_EQ(team->num_nodes, distinct);
  ASSERT_EQ(team->node_rank_of[team->my_rank], team->node_rank);
  ASSERT(team->my_node >= 0 && team->my_node < team->num_nodes);
  ASSERT_EQ(team->node_of[team->my_rank], team->my_node);
  ASSERT_EQ(team->dynamic_win != MPI_WIN_NULL, team->size > 1);
  /* The node communicator holds exactly the node peers, in team order. */
  int node_comm_size, node_comm_rank;
  MPI_Comm_size(team->node_comm, &node_comm_size);
  MPI_Comm_rank(team->node_comm, &node_comm_rank);
  ASSERT_EQ(node_comm_size, team->node_size);
  ASSERT_EQ(node_comm_rank, team->node_rank);
  int *peers = malloc((size_t)team->node_size * sizeof(int));
  MPI_Allgather(&team->my_rank, 1, MPI_INT, peers, 1, MPI_INT,
                team->node_comm);
  for (int r = 0; r < team->node_size; ++r) {
    ASSERT_EQ(peers[r], team->node_peers[r]);
  }
  free(peers);
  /* Every unit's node: equal exactly where the keys are, numbered in the
   * order of each node's lowest unit. */
  int next_node = 0;
  for (int u = 0; u < team->size; ++u) {
    int node = -1;
    for (int v = 0; v < u && node < 0; ++v) {
      if (keys[team->global_of[v]] == keys[team->global_of[u]]) {
        node = team->node_of[v];
      }
    }
    if (node < 0) {
      node = next_node++;
    }
    ASSERT_EQ(team->node_of[u], node);
  }
  /* Node indices are distinct per node and shared within one. */
  int mine[2] = { team->my_node, (int)(my_key % 1000003) };
  int *all = malloc(2 * (size_t)team->size * sizeof(int));
  MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, team->comm);
  for (int u = 0; u < team->size; ++u) {
    int same_key = keys[team->global_of[u]] == my_key;
    ASSERT_EQ(all[2 * u] == team->my_node, same_key);
  }
  free(all);
}

static void node_structure(void)
{
  long long *keys = test_node_keys(runtime.size);

  check_team(DART_TEAM_ALL, keys);
  /* Real hosts: one per entry of the cluster layout (one outside it), and
   * MPI's shared-memory split agrees with that layout. */
  struct test_cluster cluster;
  int hosts = test_cluster_get(&cluster);
  if (hosts > 0) {
    test_cluster_check_self(&cluster, runtime.myid, runtime.size);
    for (int u = 0; u < runtime.size; ++u) {
      int same_host = test_cluster_host_of(&cluster, u) ==
                      test_cluster_host_of(&cluster, runtime.myid);
      ASSERT_EQ(keys[u] / 100000 == keys[runtime.myid] / 100000, same_host);
    }
  } else {
    hosts = 1;
    cluster.units[0] = runtime.size;
  }
  /* With cliques or the switch set, DART_TEAM_ALL must really span nodes:
   * the switch cuts each host's units into nodes of p. */
  const char *cliques = getenv("MPIR_CVAR_NUM_CLIQUES");
  const char *per_node = getenv("DART_UNITS_PER_NODE");
  struct team *all = team_lookup(DART_TEAM_ALL);
  if (per_node != NULL) {
    int p = atoi(per_node), expected = 0;
    for (int h = 0; h < hosts; ++h) {
      expected += (cluster.units[h] + p - 1) / p;
    }
    ASSERT_EQ(all->num_nodes, expected);
  } else if (cliques != NULL && runtime.size > 1) {
    ASSERT(all->num_nodes > 1);
  } else if (cliques == NULL) {
    ASSERT_EQ(all->num_nodes, hosts);
  }
  /* The bootstrap's records say the same: node, its size, the host name. */
  ASSERT_EQ(unit_records_num_nodes(), all->num_nodes);
  for (int u = 0; u < runtime.size; ++u) {
    struct unit_record r;
    ASSERT_OK(unit_record_get(u, &r));
    ASSERT_EQ(r.unit, u);
    int same = keys[u] == keys[runtime.myid];
    ASSERT_EQ(r.node_id == all->my_node, same);
    if (same) {
      ASSERT_EQ(r.node_size, all->node_size);
    }
    if (cluster.name[0][0] != '\0') {
      const char *host = cluster.name[test_cluster_host_of(&cluster, u)];
      size_t len = strlen(host);
      ASSERT(strncmp(r.hwinfo.host, host, len) == 0);
      ASSERT(r.hwinfo.host[len] == '\0' ||
             (per_node != NULL && r.hwinfo.host[len] == '-'));
    }
  }

  /* Sub-teams: the odd units, and a clone of everything. */
  dart_group_t odd;
  ASSERT_OK(dart_group_create(&odd));
  for (int u = 1; u < runtime.size; u += 2) {
    ASSERT_OK(dart_group_addmember(odd, DART_GLOBAL_UNIT_ID(u)));
  }
  dart_team_t t_odd, t_clone, t_most;
  ASSERT_OK(dart_team_create(DART_TEAM_ALL, odd, &t_odd));
  ASSERT_OK(dart_team_clone(DART_TEAM_ALL, &t_clone));
  if (t_odd != DART_TEAM_NULL) {
    check_team(t_odd, keys);
    ASSERT_OK(dart_team_destroy(&t_odd));
  }
  check_team(t_clone, keys);
  /* All but the first unit, made from the clone: a sub-team of a
   * sub-team, one unit short on the first node. */
  dart_group_t most;
  ASSERT_OK(dart_group_create(&most));
  for (int u = 1; u < runtime.size; ++u) {
    ASSERT_OK(dart_group_addmember(most, DART_GLOBAL_UNIT_ID(u)));
  }
  ASSERT_OK(dart_team_create(t_clone, most, &t_most));
  ASSERT_EQ(t_most != DART_TEAM_NULL, runtime.myid != 0);
  if (t_most != DART_TEAM_NULL) {
    check_team(t_most, keys);
    ASSERT_OK(dart_team_destroy(&t_most));
  }
  ASSERT_OK(dart_team_destroy(&t_clone));
  ASSERT_OK(dart_group_destroy(&most));
  ASSERT_OK(dart_group_destroy(&odd));
  free(keys);
}

static const struct test_case cases[] = {
  { "node_structure", node_structure },
};

int main(int argc, char **argv)
{
  return test_run_dart(argc, argv, TEST_CASES(cases));
}
