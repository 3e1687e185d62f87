/* White-box: the bootstrap in the mode DART_BOOTSTRAP selects. Every unit
 * reads every unit's record and checks it against the team's node layout
 * and an independent view of it (test_nodes.h); all units must see the
 * same bytes; the init counters must match the exact figures each mode
 * promises (O(P) per node for node-roots, O(P x units per node) naive);
 * node entries are shared by a node's units and by nobody else; bad
 * input is refused. */
#include "test.h"
#include "test_nodes.h"
#include "mpi/bootstrap/bootstrap.h"
#include "mpi/core/runtime.h"
#include "mpi/model/team.h"
#include "mpi/bootstrap/unit_records.h"
#include "base/hwinfo_probe.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { COUNTERS = sizeof(struct bootstrap_counters) / sizeof(uint64_t) };

/* Sums of the node's units' counters, on every unit of the node. */
static struct bootstrap_counters node_sum(const struct bootstrap_counters *c)
{
  struct bootstrap_counters sum;
  MPI_Allreduce(c, &sum, COUNTERS, MPI_UINT64_T, MPI_SUM,
                team_lookup(DART_TEAM_ALL)->node_comm);
  return sum;
}

static void check_init_counters(void)
{
  struct team *all = team_lookup(DART_TEAM_ALL);
  struct bootstrap_counters mine;
  bootstrap_counters_get(&mine);
  ASSERT_EQ(mine.lookups, 0);
  ASSERT_EQ(mine.topology_loads + mine.topology_adoptions, 1);
  struct bootstrap_counters c = node_sum(&mine);
  /* The node's topology is loaded once and adopted by everyone else. */
  ASSERT_EQ(c.topology_loads, 1);
  uint64_t P = (uint64_t)all->size, n = (uint64_t)all->node_size;
  uint64_t N = (uint64_t)all->num_nodes, slot = mine.slot_bytes;
  uint64_t info = 32; /* size, host hash, root, health per node root */
  switch (bootstrap_mode_in_use()) {
  case BOOTSTRAP_NODE_ROOTS:
    ASSERT_EQ(slot, 8 + (sizeof(struct unit_record) + 7) / 8 * 8);
    ASSERT_EQ(c.records_written, P);
    ASSERT_EQ(c.records_read, P);
    ASSERT_EQ(c.records_received, P - n);
    ASSERT_EQ(c.bytes_sent, info + n * slot);
    ASSERT_EQ(c.bytes_received, info * (N - 1) + (P - n) * slot);
    break;
  case BOOTSTRAP_NAIVE:
    ASSERT_EQ(slot, sizeof(struct unit_record));
    ASSERT_EQ(c.records_written, n * P);
    ASSERT_EQ(c.records_read, n * P);
    ASSERT_EQ(c.records_received, n * (P - 1));
    ASSERT_EQ(c.bytes_sent, n * slot);
    ASSERT_EQ(c.bytes_received, n * (P - 1) * slot);
    break;
  case BOOTSTRAP_ON_DEMAND:
    ASSERT_EQ(c.records_written, n);
    ASSERT_EQ(c.records_read, 0);
    ASSERT_EQ(c.records_received, 0);
    ASSERT_EQ(c.bytes_sent, info + 4 * n);
    ASSERT_EQ(c.bytes_received, info * (N - 1) + 4 * (P - n));
    break;
  }
  ASSERT_EQ(c.fetches, 0);
}

/* FNV-1a over every record as this unit reads it. */
static uint64_t read_all(const long long *keys, char (*hosts)[sizeof(
                             ((dart_hwinfo_t *)0)->host)])
{
  struct team *all = team_lookup(DART_TEAM_ALL);
  int *node_of = malloc((size_t)all->size * sizeof(int));
  ASSERT(node_of != NULL);
  MPI_Allgather(&all->my_node, 1, MPI_INT, node_of, 1, MPI_INT, all->comm);
  uint64_t hash = UINT64_C(14695981039346656037);
  for (int u = 0; u < all->size; ++u) {
    struct unit_record r;
    memset(&r, 0xff, sizeof r);
    ASSERT_OK(unit_record_get(u, &r));
    ASSERT_EQ(r.unit, u);
    ASSERT_EQ(r.node_id, node_of[u]);
    ASSERT_EQ(r.node_id == all->my_node, keys[u] == keys[runtime.myid]);
    if (r.node_id == all->my_node) {
      ASSERT_EQ(r.node_rank, all->node_rank_of[u]);
      ASSERT_EQ(r.node_size, all->node_size);
    }
    ASSERT(r.node_rank >= 0 && r.node_rank < r.node_size);
    ASSERT(r.hwinfo.host[0] != '\0');
    ASSERT(strnlen(r.hwinfo.host, sizeof r.hwinfo.host) <
           sizeof r.hwinfo.host);
    memcpy(hosts[u], r.hwinfo.host, sizeof hosts[u]);
    const unsigned char *b = (const unsigned char *)&r;
    for (size_t i = 0; i < sizeof r; ++i) {
      hash = (hash ^ b[i]) * UINT64_C(1099511628211);
    }
  }
  free(node_of);
  return hash;
}

static void check_own_hardware(void)
{
  struct unit_record r;
  ASSERT_OK(unit_record_get(runtime.myid, &r));
  char host[sizeof r.hwinfo.host];
  ASSERT_EQ(gethostname(host, sizeof host), 0);
  host[sizeof host - 1] = '\0';
  ASSERT_EQ(strncmp(r.hwinfo.host, host, strlen(host)), 0);
  ASSERT(r.hwinfo.cpu_id >= 0);
  ASSERT(r.hwinfo.core_id >= 0);
  ASSERT(r.hwinfo.num_cores >= 1);
  ASSERT(r.hwinfo.num_sockets >= 1);
  ASSERT(r.hwinfo.min_threads >= 1);
  ASSERT(r.hwinfo.max_threads >= r.hwinfo.min_threads);
  ASSERT(r.hwinfo.system_memory_bytes > 0);
  ASSERT(r.hwinfo.num_scopes >= 1);
  ASSERT_EQ(r.hwinfo.scopes[0].scope, DART_LOCALITY_SCOPE_CORE);
  ASSERT_EQ(r.hwinfo.scopes[0].index, r.hwinfo.core_id);
  for (int s = 1; s < r.hwinfo.num_scopes; ++s) {
    /* Finest first: scope values never grow going outwards. */
    ASSERT(r.hwinfo.scopes[s].scope <= r.hwinfo.scopes[s - 1].scope);
  }
  /* The node's shared topology says what a private load says. */
  hwloc_topology_t topology;
  ASSERT_EQ(hwloc_topology_init(&topology), 0);
  ASSERT_EQ(hwloc_topology_load(topology), 0);
  dart_hwinfo_t own;
  hwinfo_probe(topology, &own);
  hwloc_topology_destroy(topology);
  ASSERT_EQ(r.hwinfo.num_cores, own.num_cores);
  ASSERT_EQ(r.hwinfo.num_numa, own.num_numa);
  ASSERT_EQ(r.hwinfo.num_sockets, own.num_sockets);
  ASSERT_EQ(r.hwinfo.min_threads, own.min_threads);
  ASSERT_EQ(r.hwinfo.max_threads, own.max_threads);
  ASSERT_EQ(r.hwinfo.system_memory_bytes, own.system_memory_bytes);
  /* Caches differ between core kinds; compare on the same CPU only (an
   * unbound unit may have moved since init). */
  for (int l = 0; own.cpu_id == r.hwinfo.cpu_id &&
                  l < DART_LOCALITY_MAX_CACHE_LEVELS; ++l) {
    ASSERT_EQ(r.hwinfo.cache_sizes[l], own.cache_sizes[l]);
    ASSERT_EQ(r.hwinfo.cache_line_sizes[l], own.cache_line_sizes[l]);
  }
}

/* Node entries: the node root puts, every unit of the node reads. */
static void check_node_entries(void)
{
  struct team *all = team_lookup(DART_TEAM_ALL);
  unsigned char value[UNIT_RECORDS_ENTRY_BYTES];
  unsigned char back[UNIT_RECORDS_ENTRY_BYTES];
  memset(value, all->my_node + 1, sizeof value);
  if (bootstrap_mode_in_use() == BOOTSTRAP_NAIVE) {
    ASSERT_RET(unit_records_entry_put(1, value), DART_ERR_OTHER);
    ASSERT_RET(unit_records_entry_get(1, back), DART_ERR_OTHER);
    return;
  }
  ASSERT_RET(unit_records_entry_get(1, back), DART_ERR_NOTFOUND);
  ASSERT_RET(unit_records_entry_put(1, NULL), DART_ERR_INVAL);
  ASSERT_RET(unit_records_entry_get(1, NULL), DART_ERR_INVAL);
  MPI_Barrier(all->node_comm); /* nobody put before everyone looked */
  if (all->node_rank == 0) {
    for (uint64_t k = 1; k <= UNIT_RECORDS_MAX_ENTRIES; ++k) {
      ASSERT_OK(unit_records_entry_put(k * 1000003, value));
    }
    ASSERT_RET(unit_records_entry_put(UINT64_MAX, value), DART_ERR_NOMEM);
    ASSERT_OK(unit_records_entry_put(1000003, value)); /* replacing fits */
  }
  MPI_Barrier(all->node_comm);
  for (uint64_t k = 1; k <= UNIT_RECORDS_MAX_ENTRIES; ++k) {
    memset(back, 0, sizeof back);
    ASSERT_OK(unit_records_entry_get(k * 1000003, back));
    ASSERT_EQ(memcmp(back, value, sizeof value), 0); /* my node's value */
  }
  ASSERT_RET(unit_records_entry_get(UINT64_MAX, back), DART_ERR_NOTFOUND);
}

static void records_and_counters(void)
{
  struct unit_record r;
  ASSERT_RET(unit_record_get(0, &r), DART_ERR_NOTINIT);
  ASSERT_OK(dart_init(&test_argc, &test_argv));
  struct team *all = team_lookup(DART_TEAM_ALL);
  int P = all->size;
  long long *keys = test_node_keys(P);
  check_init_counters();
  ASSERT_EQ(unit_records_num_nodes(), all->num_nodes);

  char (*hosts)[sizeof r.hwinfo.host] = calloc((size_t)P, sizeof *hosts);
  ASSERT(hosts != NULL);
  uint64_t hash = read_all(keys, hosts);
  /* Same host name exactly when on the same (simulated) node. */
  for (int u = 0; u < P; ++u) {
    for (int v = 0; v < P; ++v) {
      ASSERT_EQ(strcmp(hosts[u], hosts[v]) == 0, keys[u] == keys[v]);
    }
  }
  uint64_t lo = 0, hi = 0;
  MPI_Allreduce(&hash, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&hash, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  ASSERT_EQ(lo, hi); /* every unit saw the same bytes */
  check_own_hardware();

  struct bootstrap_counters c;
  bootstrap_counters_get(&c);
  uint64_t remote = (uint64_t)(P - all->node_size);
  if (bootstrap_mode_in_use() == BOOTSTRAP_ON_DEMAND) {
    /* Each remote record crossed the network at least once per node (a
     * peer may have inserted it first), and never twice for one unit. */
    ASSERT(c.fetches <= remote);
    ASSERT(node_sum(&c).fetches >= remote);
  } else {
    ASSERT_EQ(c.fetches, 0);
  }
  /* A second pass is served locally. */
  uint64_t fetched = c.fetches;
  ASSERT_EQ(read_all(keys, hosts), hash);
  bootstrap_counters_get(&c);
  ASSERT_EQ(c.fetches, fetched);
  ASSERT_EQ(c.lookups, 2 * (uint64_t)P + 1);

  check_node_entries();
  ASSERT_RET(unit_record_get(-1, &r), DART_ERR_INVAL);
  ASSERT_RET(unit_record_get(P, &r), DART_ERR_INVAL);
  ASSERT_RET(unit_record_get(0, NULL), DART_ERR_INVAL);
  free(hosts);
  free(keys);
  ASSERT_OK(dart_exit());
  ASSERT_RET(unit_record_get(0, &r), DART_ERR_NOTINIT);
  ASSERT_EQ(unit_records_num_nodes(), 0);
  ASSERT_RET(unit_records_entry_get(1, &r), DART_ERR_NOTINIT);
}

static const struct test_case cases[] = {
  { "records_and_counters", records_and_counters },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
