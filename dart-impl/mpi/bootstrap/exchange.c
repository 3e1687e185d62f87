/* The bootstrap's exchanges (see bootstrap.h for the modes). */
#include "base/hwinfo_probe.h"
#include "base/cache_line.h"
#include "mpi/bootstrap/state.h"
#include "mpi/core/runtime.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SHM_ALIGN CACHE_LINE

/* What node roots tell each other first: enough to place every node's
 * records (sizes -> offsets), to see which hosts hold several DART nodes,
 * whom to ask for a node's records in on-demand mode, and whether every
 * node got its table (so that all fail alike if one did not). */
struct node_info {
  int64_t  size;
  uint64_t host_hash;
  int64_t  root_unit;
  int64_t  ok;
};


static uint64_t host_hash(const char *host)
{
  uint64_t hash = UINT64_C(14695981039346656037);
  for (const unsigned char *c = (const unsigned char *)host; *c; ++c) {
    hash = (hash ^ *c) * UINT64_C(1099511628211);
  }
  return hash;
}

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

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

dart_ret_t bootstrap_exchange_naive(const char *call,
                                    const struct unit_record *mine)
{
  size_t rec = sizeof *mine;
  boot.private_records = malloc((size_t)boot.num_units * rec);
  if (boot.private_records == NULL) {
    return report_error(DART_ERR_NOMEM, call,
                        "out of memory for %d unit records",
                        (int)boot.num_units);
  }
  MPI_TRY(call, "MPI_Allgather",
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

/* Segment layout: the staging slots (node rank order, where each unit
 * drops its record before the table's layout is known), the int32 maps,
 * then the table. Every unit computes it from team ALL. */
static size_t slot_bytes(void)
{
  return node_db_slot_bytes(sizeof(struct unit_record));
}

static size_t maps_offset(int node_size)
{
  return round_up((size_t)node_size * slot_bytes(), SHM_ALIGN);
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
    .num_keyed = UNIT_RECORDS_MAX_ENTRIES,
    .num_readers = all->node_size,
    .lock_kind = runtime.env.nodedb_lock,
  };
}

size_t bootstrap_segment_bytes(const struct team *all)
{
  struct node_db_geometry g = table_geometry(all);
  return table_offset(all->node_size) + node_db_bytes(&g);
}

static void point_into_segment(int node_size)
{
  boot.slot_of = (int32_t *)(boot.segment + maps_offset(node_size));
  boot.node_of = boot.slot_of + boot.num_units;
  boot.unit_at_slot = boot.node_of + boot.num_units;
  boot.first_slot = boot.unit_at_slot + boot.num_units;
  boot.root_of = boot.first_slot + boot.num_nodes + 1;
}

static unsigned char *staging_slot(int node_rank)
{
  return boot.segment + (size_t)node_rank * slot_bytes();
}

/* Every unit: its own record into the node's segment (no reader yet). */
static void store_own_record(const struct unit_record *mine)
{
  unsigned char *slot = staging_slot(mine->node_rank);
  memcpy(node_db_slot_record(slot), mine, sizeof *mine);
  node_db_slot_set_filled(slot);
  boot.counters.records_written += 1;
}

/* Root: every node's size, host, root and health, from the other roots. */
static dart_ret_t root_learn_nodes(const char *call, const struct team *all,
                                   const struct unit_record *mine,
                                   bool node_ok, struct node_info *infos)
{
  struct node_info me = { all->node_size, host_hash(mine->hwinfo.host),
                          runtime.myid, node_ok };
  MPI_TRY(call, "MPI_Allgather",
          MPI_Allgather(&me, 4, MPI_INT64_T, infos, 4, MPI_INT64_T,
                        boot.roots_comm));
  boot.counters.bytes_sent += sizeof me;
  boot.counters.bytes_received += sizeof me * ((uint64_t)boot.num_nodes - 1);
  for (int32_t k = 0; k < boot.num_nodes; ++k) {
    if (!infos[k].ok) {
      return report_error(DART_ERR_OTHER, call,
                          "node %d has no node table (see its log); "
                          "DART_BOOTSTRAP=naive does without", (int)k);
    }
  }
  return DART_OK;
}

/* Root: node offsets and roots into the segment, format the table, and
 * give a host holding several DART nodes a "-n<node>" suffix. */
static dart_ret_t root_prepare(const char *call, const struct team *all,
                               const struct node_info *infos)
{
  int32_t slot = 0;
  bool host_shared = false;
  for (int32_t k = 0; k < boot.num_nodes; ++k) {
    boot.first_slot[k] = slot;
    boot.root_of[k] = (int32_t)infos[k].root_unit;
    slot += (int32_t)infos[k].size;
    host_shared |= k != boot.my_node &&
                   infos[k].host_hash == infos[boot.my_node].host_hash;
  }
  boot.first_slot[boot.num_nodes] = slot;
  if (slot != boot.num_units) {
    return report_error(DART_ERR_OTHER, call,
                        "node sizes add up to %d units, not %d", (int)slot,
                        (int)boot.num_units);
  }
  for (int r = 0; host_shared && r < all->node_size; ++r) {
    struct unit_record *rec = node_db_slot_record(staging_slot(r));
    hwinfo_mark_node(&rec->hwinfo, rec->node_id);
  }
  struct node_db_geometry g = table_geometry(all);
  int rc = node_db_format(&boot.db, boot.segment + table_offset(all->node_size),
                          &g);
  if (rc != 0) {
    return report_error(DART_ERR_OTHER, call,
                        "cannot format the node table: %s", strerror(rc));
  }
  return DART_OK;
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
  MPI_TRY(call, "MPI_Type_contiguous",
          MPI_Type_contiguous((int)slot_bytes(), MPI_BYTE, &boot.slot_type));
  MPI_TRY(call, "MPI_Type_commit", MPI_Type_commit(&boot.slot_type));
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
  boot.counters.bytes_sent += (uint64_t)all->node_size * slot_bytes();
  boot.counters.bytes_received += others * slot_bytes();
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

/* Root: everything between the two node synchronizations. It always
 * joins the roots' first allgather, so a node without a table fails
 * every node alike instead of leaving the others waiting. */
static dart_ret_t root_build(const char *call, const struct team *all,
                             const struct unit_record *mine, bool node_ok)
{
  struct node_info *infos = malloc((size_t)boot.num_nodes * sizeof *infos);
  if (infos == NULL) {
    return report_error(DART_ERR_NOMEM, call, "out of memory for %d nodes",
                        (int)boot.num_nodes);
  }
  dart_ret_t ret = root_learn_nodes(call, all, mine, node_ok, infos);
  if (ret == DART_OK) {
    ret = root_prepare(call, all, infos);
  }
  free(infos);
  if (ret != DART_OK) {
    return ret;
  }
  return boot.mode == BOOTSTRAP_ON_DEMAND ? root_exchange_job_map(call, all)
                                          : root_exchange_records(call, all);
}

dart_ret_t bootstrap_exchange_shared(const char *call, const struct team *all,
                                     const struct unit_record *mine,
                                     bool segment_ok)
{
  boot.counters.slot_bytes = slot_bytes();
  if (segment_ok) {
    point_into_segment(all->node_size);
    store_own_record(mine);
  }
  /* 1st node synchronization: records are in, and the node agrees on
   * whether every unit mapped the segment. */
  int ok = segment_ok, node_ok = 0;
  atomic_thread_fence(memory_order_seq_cst);
  MPI_TRY(call, "MPI_Allreduce",
          MPI_Allreduce(&ok, &node_ok, 1, MPI_INT, MPI_MIN, boot.node_comm));
  atomic_thread_fence(memory_order_seq_cst);
  int result = DART_OK;
  if (boot.is_root) {
    result = root_build(call, all, mine, node_ok != 0);
  }
  /* 2nd: the root's verdict, and the table it built, reach the node. */
  atomic_thread_fence(memory_order_seq_cst);
  MPI_TRY(call, "MPI_Bcast", MPI_Bcast(&result, 1, MPI_INT, 0, boot.node_comm));
  atomic_thread_fence(memory_order_seq_cst);
  if (result != DART_OK) {
    return boot.is_root ? (dart_ret_t)result
                        : report_error((dart_ret_t)result, call,
                                       "the node table could not be built "
                                       "(see the node root's log)");
  }
  if (!boot.is_root &&
      node_db_attach(&boot.db, boot.segment + table_offset(all->node_size)) !=
          0) {
    return report_error(DART_ERR_OTHER, call, "no node table to attach to");
  }
  if (boot.mode == BOOTSTRAP_ON_DEMAND && boot.num_nodes > 1) {
    /* Node roots expose their tables for one-sided fetches. */
    void *slots = boot.is_root ? node_db_slot(&boot.db, 0) : NULL;
    MPI_Aint bytes =
        boot.is_root ? (MPI_Aint)(slot_bytes() * (size_t)boot.num_units) : 0;
    MPI_TRY(call, "MPI_Win_create",
            MPI_Win_create(slots, bytes, 1, MPI_INFO_NULL, boot.world,
                           &boot.fetch_win));
    MPI_Win_set_errhandler(boot.fetch_win, MPI_ERRORS_RETURN);
    MPI_TRY(call, "MPI_Win_lock_all",
            MPI_Win_lock_all(MPI_MODE_NOCHECK, boot.fetch_win));
  }
  return DART_OK;
}
