#include "bootstrap.h"
#include "hw_topology.h"
#include "runtime.h"
#include "team.h"
#include "unit_records.h"
#include "../base/hwinfo_probe.h"
#include "../base/node_db.h"

#include <dash/dart/if/dart_team_group.h>

#include <stdlib.h>
#include <string.h>

/* Keyed (team-level) entries each node table offers besides the units. */
#define KEYED_ENTRIES UNIT_RECORDS_MAX_ENTRIES
#define SHM_ALIGN 64

/* What node roots tell each other first: enough to place every node's
 * records (sizes -> offsets), to see which hosts hold several DART nodes,
 * and whom to ask for a node's records in on-demand mode. */
struct node_info {
  int64_t  size;
  uint64_t host_hash;
  int64_t  root_unit;
};

/* Node-shared bookkeeping next to the table (written by the root before
 * a barrier, read-only afterwards). */
struct node_extras {
  int32_t host_shared;  /* my physical host holds other DART nodes */
  int32_t pad;
};

static struct {
  bool                      active;
  enum bootstrap_mode       mode;
  int32_t                   num_units, num_nodes, my_node;
  int                       reader;        /* my node rank = my lock pair */
  bool                      is_root;
  MPI_Comm                  node_comm, roots_comm, world;
  MPI_Win                   shm_win;
  struct node_db            db;
  struct node_extras       *extras;
  int32_t                  *slot_of;       /* unit -> slot */
  int32_t                  *node_of;       /* unit -> node */
  int32_t                  *unit_at_slot;  /* slot -> unit */
  int32_t                  *first_slot;    /* node -> its first slot, [N] = P */
  int32_t                  *root_of;       /* node -> its root's unit id */
  struct unit_record       *private_records; /* naive mode */
  MPI_Win                   fetch_win;     /* on-demand: node tables */
  MPI_Datatype              slot_type;
  struct bootstrap_counters counters;
} boot = { .shm_win = MPI_WIN_NULL, .fetch_win = MPI_WIN_NULL,
           .slot_type = MPI_DATATYPE_NULL };

static uint64_t host_hash(const char *host)
{
  uint64_t hash = UINT64_C(14695981039346656037);
  for (const unsigned char *c = (const unsigned char *)host; *c; ++c) {
    hash = (hash ^ *c) * UINT64_C(1099511628211);
  }
  return hash;
}

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/* Plain stores by node peers become visible to us (unified model). */
static int node_sync(void)
{
  MPI_Win_sync(boot.shm_win);
  int err = MPI_Barrier(boot.node_comm);
  MPI_Win_sync(boot.shm_win);
  return err;
}

#define MPI_TRY(function, expr)                                     \
  do {                                                              \
    int mpi_err_ = (expr);                                          \
    if (mpi_err_ != MPI_SUCCESS) {                                  \
      return report_mpi_error(call, function, mpi_err_);            \
    }                                                               \
  } while (0)

static void fill_own_record(const struct team *all,
                            const struct hw_topology *topo,
                            struct unit_record *rec)
{
  memset(rec, 0, sizeof *rec);
  rec->unit = runtime.myid;
  rec->node_id = all->my_node;
  rec->node_rank = all->node_rank;
  rec->node_size = all->node_size;
  hwinfo_probe(topo->topology, &rec->hwinfo);
}

/* ---- naive: everyone allgathers everything --------------------------- */

static int compare_hash_node(const void *a, const void *b)
{
  const uint64_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0;
}

/* Marks hosts that hold several nodes, reading every record once. */
static dart_ret_t mark_shared_hosts_all(const char *call)
{
  int32_t n = boot.num_nodes;
  uint64_t (*pairs)[2] = calloc((size_t)n, sizeof *pairs);
  bool *shared = calloc((size_t)n, sizeof *shared);
  if (pairs == NULL || shared == NULL) {
    free(pairs);
    free(shared);
    return report_error(DART_ERR_NOMEM, call, "out of memory for %d nodes",
                        (int)n);
  }
  for (int32_t u = 0; u < boot.num_units; ++u) {
    const struct unit_record *r = &boot.private_records[u];
    pairs[r->node_id][0] = host_hash(r->hwinfo.host);
    pairs[r->node_id][1] = (uint64_t)r->node_id;
  }
  boot.counters.records_read += (uint64_t)boot.num_units;
  qsort(pairs, (size_t)n, sizeof *pairs, compare_hash_node);
  for (int32_t i = 0; i + 1 < n; ++i) {
    if (pairs[i][0] == pairs[i + 1][0]) {
      shared[pairs[i][1]] = shared[pairs[i + 1][1]] = true;
    }
  }
  for (int32_t u = 0; u < boot.num_units; ++u) {
    struct unit_record *r = &boot.private_records[u];
    if (shared[r->node_id]) {
      hwinfo_mark_node(&r->hwinfo, r->node_id);
    }
  }
  free(pairs);
  free(shared);
  return DART_OK;
}

static dart_ret_t bootstrap_naive(const char *call,
                                  const struct unit_record *mine)
{
  size_t rec = sizeof *mine;
  boot.private_records = malloc((size_t)boot.num_units * rec);
  if (boot.private_records == NULL) {
    return report_error(DART_ERR_NOMEM, call,
                        "out of memory for %d unit records",
                        (int)boot.num_units);
  }
  MPI_TRY("MPI_Allgather",
          MPI_Allgather(mine, (int)rec, MPI_BYTE, boot.private_records,
                        (int)rec, MPI_BYTE, boot.world));
  uint64_t others = (uint64_t)boot.num_units - 1;
  boot.counters.records_written += (uint64_t)boot.num_units;
  boot.counters.records_received += others;
  boot.counters.bytes_sent += rec;
  boot.counters.bytes_received += others * rec;
  boot.counters.slot_bytes = rec;
  return mark_shared_hosts_all(call);
}

/* ---- node-roots and on-demand: one shared table per node ------------- */

/* Segment layout: extras, the staging slots (node rank order, where each
 * unit drops its record before the table's layout is known), the int32
 * maps, then the table. Every unit can compute it from team ALL. */
static size_t slot_bytes(void)
{
  return node_db_slot_bytes(sizeof(struct unit_record));
}

static size_t staging_offset(void)
{
  return round_up(sizeof(struct node_extras), SHM_ALIGN);
}

static size_t maps_offset(int node_size)
{
  return staging_offset() + round_up((size_t)node_size * slot_bytes(),
                                     SHM_ALIGN);
}

static size_t table_offset(int node_size)
{
  return maps_offset(node_size) +
         round_up(sizeof(int32_t) * (3 * (size_t)boot.num_units +
                                     2 * (size_t)boot.num_nodes + 1),
                  SHM_ALIGN);
}

static struct node_db_geometry table_geometry(const struct team *all)
{
  return (struct node_db_geometry){
    .record_size = sizeof(struct unit_record),
    .num_records = (uint32_t)boot.num_units,
    .num_keyed = KEYED_ENTRIES,
    .num_readers = all->node_size,
    .lock_kind = runtime.env.nodedb_lock,
  };
}

/* The root allocates the node's segment; everyone maps it. */
static dart_ret_t map_node_segment(const char *call, const struct team *all,
                                   unsigned char **base)
{
  struct node_db_geometry g = table_geometry(all);
  size_t bytes = table_offset(all->node_size) + node_db_bytes(&g) +
                 SHM_ALIGN;
  void *mine = NULL;
  MPI_TRY("MPI_Win_allocate_shared",
          MPI_Win_allocate_shared(boot.is_root ? (MPI_Aint)bytes : 0, 1,
                                  MPI_INFO_NULL, boot.node_comm, &mine,
                                  &boot.shm_win));
  MPI_Win_set_errhandler(boot.shm_win, MPI_ERRORS_RETURN);
  MPI_Aint size = 0;
  int disp = 0;
  void *root = NULL;
  MPI_TRY("MPI_Win_shared_query",
          MPI_Win_shared_query(boot.shm_win, 0, &size, &disp, &root));
  MPI_TRY("MPI_Win_lock_all",
          MPI_Win_lock_all(MPI_MODE_NOCHECK, boot.shm_win));
  /* Mappings are page-aligned, so every process rounds to the same byte. */
  *base = (unsigned char *)round_up((uintptr_t)root, SHM_ALIGN);
  boot.extras = (struct node_extras *)*base;
  boot.slot_of = (int32_t *)(*base + maps_offset(all->node_size));
  boot.node_of = boot.slot_of + boot.num_units;
  boot.unit_at_slot = boot.node_of + boot.num_units;
  boot.first_slot = boot.unit_at_slot + boot.num_units;
  boot.root_of = boot.first_slot + boot.num_nodes + 1;
  return DART_OK;
}

/* Root, before the segment exists: every node's size, host and root. */
static dart_ret_t root_learn_nodes(const char *call, const struct team *all,
                                   const struct unit_record *mine,
                                   struct node_info **infos)
{
  struct node_info me = { all->node_size, host_hash(mine->hwinfo.host),
                          runtime.myid };
  *infos = malloc((size_t)boot.num_nodes * sizeof **infos);
  if (*infos == NULL) {
    return report_error(DART_ERR_NOMEM, call, "out of memory for %d nodes",
                        (int)boot.num_nodes);
  }
  MPI_TRY("MPI_Allgather", MPI_Allgather(&me, 3, MPI_INT64_T, *infos, 3,
                                         MPI_INT64_T, boot.roots_comm));
  boot.counters.bytes_sent += sizeof me;
  boot.counters.bytes_received += sizeof me * ((uint64_t)boot.num_nodes - 1);
  return DART_OK;
}

/* Root: node offsets and roots into the segment, format the table. */
static dart_ret_t root_prepare(const char *call, const struct team *all,
                               const struct node_info *infos,
                               unsigned char *table)
{
  int32_t slot = 0;
  boot.extras->host_shared = 0;
  for (int32_t k = 0; k < boot.num_nodes; ++k) {
    boot.first_slot[k] = slot;
    boot.root_of[k] = (int32_t)infos[k].root_unit;
    slot += (int32_t)infos[k].size;
    if (k != boot.my_node &&
        infos[k].host_hash == infos[boot.my_node].host_hash) {
      boot.extras->host_shared = 1;
    }
  }
  boot.first_slot[boot.num_nodes] = slot;
  if (slot != boot.num_units) {
    return report_error(DART_ERR_OTHER, call,
                        "node sizes add up to %d units, not %d", (int)slot,
                        (int)boot.num_units);
  }
  struct node_db_geometry g = table_geometry(all);
  int rc = node_db_format(&boot.db, table, &g);
  if (rc != 0) {
    return report_error(DART_ERR_OTHER, call,
                        "cannot format the node table: %s", strerror(rc));
  }
  return DART_OK;
}

static unsigned char *staging_slot(int node_rank)
{
  return (unsigned char *)boot.extras + staging_offset() +
         (size_t)node_rank * slot_bytes();
}

/* Every unit: its own record into the node's segment (no reader yet). */
static void store_own_record(const struct unit_record *mine)
{
  unsigned char *slot = staging_slot(mine->node_rank);
  memcpy(node_db_slot_record(slot), mine, sizeof *mine);
  node_db_slot_set_filled(slot);
  boot.counters.records_written += 1;
}

/* Root: host names of a host with several DART nodes get "-n<node>". */
static void root_mark_hosts(int node_size)
{
  for (int r = 0; boot.extras->host_shared && r < node_size; ++r) {
    struct unit_record *rec = node_db_slot_record(staging_slot(r));
    hwinfo_mark_node(&rec->hwinfo, rec->node_id);
  }
}

static dart_ret_t gather_arguments(const char *call, int **counts,
                                   int **displs)
{
  *counts = malloc((size_t)boot.num_nodes * sizeof(int));
  *displs = malloc((size_t)boot.num_nodes * sizeof(int));
  if (*counts == NULL || *displs == NULL) {
    free(*counts);
    free(*displs);
    return report_error(DART_ERR_NOMEM, call, "out of memory for %d nodes",
                        (int)boot.num_nodes);
  }
  for (int32_t k = 0; k < boot.num_nodes; ++k) {
    (*displs)[k] = boot.first_slot[k];
    (*counts)[k] = boot.first_slot[k + 1] - boot.first_slot[k];
  }
  return DART_OK;
}

/* Root, node-roots mode: the node tables gathered straight into the
 * shared table (MPI places the own node's part too), then indexed. */
static dart_ret_t root_exchange_records(const char *call,
                                        const struct team *all)
{
  int *counts, *displs;
  dart_ret_t ret = gather_arguments(call, &counts, &displs);
  if (ret != DART_OK) {
    return ret;
  }
  int err = MPI_Allgatherv(staging_slot(0), all->node_size, boot.slot_type,
                           node_db_slot(&boot.db, 0), counts, displs,
                           boot.slot_type, boot.roots_comm);
  free(counts);
  free(displs);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Allgatherv", err);
  }
  uint64_t others = (uint64_t)(boot.num_units - all->node_size);
  boot.counters.records_written += others;
  boot.counters.records_received += others;
  boot.counters.bytes_sent += (uint64_t)all->node_size * boot.db.slot_size;
  boot.counters.bytes_received += others * boot.db.slot_size;
  for (int32_t s = 0; s < boot.num_units; ++s) {
    const void *slot = node_db_slot(&boot.db, (uint32_t)s);
    const struct unit_record *r = node_db_slot_record_const(slot);
    if (!node_db_slot_filled(slot) || r->unit < 0 ||
        r->unit >= boot.num_units) {
      return report_error(DART_ERR_OTHER, call,
                          "node table slot %d holds no valid record", (int)s);
    }
    boot.unit_at_slot[s] = r->unit;
    boot.slot_of[r->unit] = s;
    boot.node_of[r->unit] = r->node_id;
  }
  boot.counters.records_read += (uint64_t)boot.num_units;
  return DART_OK;
}

/* Root, on-demand mode: own records into place, and only the job map
 * (unit ids in slot order) over the network. */
static dart_ret_t root_exchange_job_map(const char *call,
                                        const struct team *all)
{
  int32_t first = boot.first_slot[boot.my_node];
  memcpy(node_db_slot(&boot.db, (uint32_t)first), staging_slot(0),
         (size_t)all->node_size * slot_bytes());
  for (int r = 0; r < all->node_size; ++r) {
    boot.unit_at_slot[first + r] = all->global_of[all->node_peers[r]];
  }
  int *counts, *displs;
  dart_ret_t ret = gather_arguments(call, &counts, &displs);
  if (ret != DART_OK) {
    return ret;
  }
  int err = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
                           boot.unit_at_slot, counts, displs, MPI_INT32_T,
                           boot.roots_comm);
  free(counts);
  free(displs);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Allgatherv", err);
  }
  uint64_t others = (uint64_t)(boot.num_units - all->node_size);
  boot.counters.bytes_sent += sizeof(int32_t) * (uint64_t)all->node_size;
  boot.counters.bytes_received += sizeof(int32_t) * others;
  for (int32_t k = 0; k < boot.num_nodes; ++k) {
    for (int32_t s = boot.first_slot[k]; s < boot.first_slot[k + 1]; ++s) {
      int32_t u = boot.unit_at_slot[s];
      if (u < 0 || u >= boot.num_units) {
        return report_error(DART_ERR_OTHER, call,
                            "job map slot %d names unit %d", (int)s, (int)u);
      }
      boot.slot_of[u] = s;
      boot.node_of[u] = k;
    }
  }
  return DART_OK;
}

/* Two node barriers in all: one after every unit dropped its record (and
 * the root formatted the table), one after the root's exchange. */
static dart_ret_t bootstrap_shared(const char *call, const struct team *all,
                                   const struct unit_record *mine)
{
  struct node_info *infos = NULL;
  dart_ret_t ret = DART_OK;
  if (boot.is_root) {
    ret = root_learn_nodes(call, all, mine, &infos);
  }
  unsigned char *base = NULL, *table = NULL;
  if (ret == DART_OK) {
    ret = map_node_segment(call, all, &base);
  }
  if (ret == DART_OK) {
    table = base + table_offset(all->node_size);
    store_own_record(mine);
    if (boot.is_root) {
      ret = root_prepare(call, all, infos, table);
    }
  }
  free(infos);
  if (ret != DART_OK) {
    return ret;
  }
  MPI_TRY("MPI_Barrier", node_sync());
  if (!boot.is_root && node_db_attach(&boot.db, table) != 0) {
    return report_error(DART_ERR_OTHER, call, "no node table to attach to");
  }
  boot.counters.slot_bytes = boot.db.slot_size;
  MPI_TRY("MPI_Type_contiguous",
          MPI_Type_contiguous((int)boot.db.slot_size, MPI_BYTE,
                              &boot.slot_type));
  MPI_TRY("MPI_Type_commit", MPI_Type_commit(&boot.slot_type));
  if (boot.is_root) {
    root_mark_hosts(all->node_size);
    ret = boot.mode == BOOTSTRAP_ON_DEMAND ? root_exchange_job_map(call, all)
                                           : root_exchange_records(call, all);
    if (ret != DART_OK) {
      return ret;
    }
  }
  MPI_TRY("MPI_Barrier", node_sync());
  if (boot.mode == BOOTSTRAP_ON_DEMAND && boot.num_nodes > 1) {
    /* Node roots expose their tables for one-sided fetches. */
    void *slots = boot.is_root ? node_db_slot(&boot.db, 0) : NULL;
    MPI_Aint bytes = boot.is_root ? (MPI_Aint)(boot.db.slot_size *
                                               (size_t)boot.num_units)
                                  : 0;
    MPI_TRY("MPI_Win_create",
            MPI_Win_create(slots, bytes, 1, MPI_INFO_NULL, boot.world,
                           &boot.fetch_win));
    MPI_Win_set_errhandler(boot.fetch_win, MPI_ERRORS_RETURN);
    MPI_TRY("MPI_Win_lock_all",
            MPI_Win_lock_all(MPI_MODE_NOCHECK, boot.fetch_win));
  }
  return DART_OK;
}

/* ---- init, exit, counters -------------------------------------------- */

static void log_node_counters(const char *call)
{
  enum { N = sizeof(struct bootstrap_counters) / sizeof(uint64_t) };
  uint64_t sum[N];
  MPI_Reduce(&boot.counters, sum, N, MPI_UINT64_T, MPI_SUM, 0,
             boot.node_comm);
  if (boot.is_root) {
    const struct bootstrap_counters *c = (const void *)sum;
    static const char *const names[] = { "node-roots", "naive",
                                         "on-demand" };
    LOG_DEBUG(call,
              "bootstrap %s: node %d, %d units on %d nodes: records written "
              "%llu, read %llu, received %llu; bytes sent %llu, received "
              "%llu; hwloc loaded %llu, adopted %llu; %.3f ms (root)",
              names[boot.mode], (int)boot.my_node, (int)boot.num_units,
              (int)boot.num_nodes, (unsigned long long)c->records_written,
              (unsigned long long)c->records_read,
              (unsigned long long)c->records_received,
              (unsigned long long)c->bytes_sent,
              (unsigned long long)c->bytes_received,
              (unsigned long long)c->topology_loads,
              (unsigned long long)c->topology_adoptions,
              1e-6 * (double)boot.counters.init_ns);
  }
}

dart_ret_t bootstrap_init(const char *call)
{
  struct team *all = team_lookup(DART_TEAM_ALL);
  double start = MPI_Wtime();
  memset(&boot.counters, 0, sizeof boot.counters);
  boot.mode = runtime.env.bootstrap;
  boot.num_units = all->size;
  boot.num_nodes = all->num_nodes;
  boot.my_node = all->my_node;
  boot.reader = all->node_rank;
  boot.is_root = all->node_rank == 0;
  boot.node_comm = all->node_comm;
  boot.roots_comm = all->node_roots_comm;
  boot.world = all->comm;

  struct hw_topology topo;
  hw_topology_open(call, boot.node_comm, &topo);
  boot.counters.topology_loads = topo.loaded;
  boot.counters.topology_adoptions = topo.adopted;
  struct unit_record mine;
  fill_own_record(all, &topo, &mine);
  hw_topology_close(&topo);

  dart_ret_t ret = boot.mode == BOOTSTRAP_NAIVE
                       ? bootstrap_naive(call, &mine)
                       : bootstrap_shared(call, all, &mine);
  /* Both modes synchronized the node since everyone adopted. */
  hw_topology_remove_file(&topo);
  boot.active = true; /* finalize frees whatever exists */
  if (ret != DART_OK) {
    bootstrap_finalize();
    return ret;
  }
  boot.counters.init_ns = (uint64_t)((MPI_Wtime() - start) * 1e9);
  if (runtime.env.log_level >= LOG_LEVEL_DEBUG) {
    log_node_counters(call);
  }
  return DART_OK;
}

void bootstrap_finalize(void)
{
  if (!boot.active) {
    return;
  }
  boot.active = false;
  if (boot.fetch_win != MPI_WIN_NULL) {
    MPI_Win_unlock_all(boot.fetch_win);
    MPI_Win_free(&boot.fetch_win);
  }
  if (boot.shm_win != MPI_WIN_NULL) {
    MPI_Barrier(boot.node_comm); /* nobody reads any more */
    if (boot.is_root) {
      node_db_destroy(&boot.db);
    }
    MPI_Win_unlock_all(boot.shm_win);
    MPI_Win_free(&boot.shm_win);
  }
  if (boot.slot_type != MPI_DATATYPE_NULL) {
    MPI_Type_free(&boot.slot_type);
  }
  free(boot.private_records);
  boot.private_records = NULL;
  memset(&boot.db, 0, sizeof boot.db);
}

void bootstrap_counters_get(struct bootstrap_counters *out)
{
  *out = boot.counters;
}

enum bootstrap_mode bootstrap_mode_in_use(void) { return boot.mode; }

/* ---- the unit_records.h interface ------------------------------------ */

/* On-demand: the record from its node's table, kept in ours. */
static dart_ret_t fetch_record(int32_t unit, uint32_t slot,
                               struct unit_record *out)
{
  union {
    uint64_t      state;
    unsigned char bytes[sizeof(uint64_t) + sizeof(struct unit_record) + 8];
  } buffer;
  int target = boot.root_of[boot.node_of[unit]];
  int count = (int)boot.db.slot_size;
  int err = MPI_Get(&buffer, count, MPI_BYTE, target,
                    (MPI_Aint)slot * (MPI_Aint)boot.db.slot_size, count,
                    MPI_BYTE, boot.fetch_win);
  if (err == MPI_SUCCESS) {
    err = MPI_Win_flush(target, boot.fetch_win);
  }
  if (err != MPI_SUCCESS) {
    return report_mpi_error("unit_record_get", "MPI_Get", err);
  }
  if (!node_db_slot_filled(&buffer)) {
    return report_error(DART_ERR_OTHER, "unit_record_get",
                        "node %d has no record of unit %d",
                        (int)boot.node_of[unit], (int)unit);
  }
  memcpy(out, node_db_slot_record_const(&buffer), sizeof *out);
  node_db_write(&boot.db, slot, out);
  boot.counters.fetches += 1;
  return DART_OK;
}

dart_ret_t unit_record_get(int32_t unit, struct unit_record *out)
{
  if (!boot.active) {
    return report_error(DART_ERR_NOTINIT, __func__,
                        "DART is not initialized (call dart_init first)");
  }
  if (out == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "out is NULL");
  }
  if (unit < 0 || unit >= boot.num_units) {
    return report_error(DART_ERR_INVAL, __func__,
                        "unit %d out of range [0, %d)", (int)unit,
                        (int)boot.num_units);
  }
  /* A racy count is fine; an atomic RMW here would cost more than the
   * read it counts. */
  boot.counters.lookups += 1;
  if (boot.private_records != NULL) {
    *out = boot.private_records[unit];
    return DART_OK;
  }
  uint32_t slot = (uint32_t)boot.slot_of[unit];
  if (node_db_read(&boot.db, boot.reader, slot, out)) {
    return DART_OK;
  }
  if (boot.mode != BOOTSTRAP_ON_DEMAND || boot.fetch_win == MPI_WIN_NULL) {
    return report_error(DART_ERR_OTHER, __func__,
                        "record of unit %d missing from the node table",
                        (int)unit);
  }
  return fetch_record(unit, slot, out);
}

int32_t unit_records_num_nodes(void)
{
  return boot.active ? boot.num_nodes : 0;
}

static dart_ret_t entries_available(const char *call, const void *value)
{
  if (!boot.active) {
    return report_error(DART_ERR_NOTINIT, call,
                        "DART is not initialized (call dart_init first)");
  }
  if (value == NULL) {
    return report_error(DART_ERR_INVAL, call, "value is NULL");
  }
  if (boot.private_records != NULL) {
    return report_error(DART_ERR_OTHER, call,
                        "node entries need a node table "
                        "(DART_BOOTSTRAP=node-roots or on-demand)");
  }
  return DART_OK;
}

dart_ret_t unit_records_entry_put(uint64_t key, const void *value)
{
  dart_ret_t ret = entries_available(__func__, value);
  if (ret == DART_OK && !node_db_write_keyed(&boot.db, key, value)) {
    ret = report_error(DART_ERR_NOMEM, __func__,
                       "all %d node entries are taken", KEYED_ENTRIES);
  }
  return ret;
}

dart_ret_t unit_records_entry_get(uint64_t key, void *value)
{
  dart_ret_t ret = entries_available(__func__, value);
  if (ret == DART_OK &&
      !node_db_read_keyed(&boot.db, boot.reader, key, value)) {
    ret = DART_ERR_NOTFOUND; /* an answer, not an error: no log line */
  }
  return ret;
}
