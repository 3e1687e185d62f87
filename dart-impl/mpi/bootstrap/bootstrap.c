/* Bootstrap at dart_init and its end at dart_exit (see bootstrap.h). */
#include "base/hwinfo_probe.h"
#include "base/shm_file.h"
#include "mpi/bootstrap/hw_topology.h"
#include "mpi/bootstrap/state.h"
#include "mpi/core/runtime.h"

#include <dash/dart/if/dart_team_group.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct bootstrap_state boot = { .roots_comm = MPI_COMM_NULL,
                                .fetch_win = MPI_WIN_NULL,
                                .slot_type = MPI_DATATYPE_NULL };

/* The one message a node root sends its units at the start: where the
 * shared topology and the node segment are. Plain bytes. */
struct node_note {
  struct hw_topology_note hw;
  int32_t                 segment_ok;
  char                    segment[SHM_FILE_PATH_MAX];
};

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

/* Root: the node segment, a fresh file in /dev/shm. */
static void root_create_segment(const char *call, struct node_note *note)
{
  int fd = shm_file_create("dart-node", boot.segment_bytes, note->segment);
  if (fd >= 0) {
    boot.segment = shm_file_map_fd(fd, boot.segment_bytes);
    close(fd);
  }
  if (boot.segment == NULL) {
    LOG_WARN(call, "cannot create the node table (%zu bytes) in /dev/shm: "
             "%s", boot.segment_bytes, strerror(errno));
    if (fd >= 0) {
      unlink(note->segment);
    }
    return;
  }
  note->segment_ok = 1;
}

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
  boot.world = all->comm;
  bool shared = boot.mode != BOOTSTRAP_NAIVE;
  boot.segment_bytes = shared ? bootstrap_segment_bytes(all) : 0;
  /* The node roots exchange the records among themselves (exchange.c);
   * ranks in node order, like all->my_node. */
  boot.roots_comm = MPI_COMM_NULL;
  if (shared) {
    int err = MPI_Comm_split(all->comm, boot.is_root ? 0 : MPI_UNDEFINED,
                             all->my_rank, &boot.roots_comm);
    if (err != MPI_SUCCESS) {
      return report_mpi_error(call, "MPI_Comm_split", err);
    }
    if (boot.roots_comm != MPI_COMM_NULL) {
      MPI_Comm_set_errhandler(boot.roots_comm, MPI_ERRORS_RETURN);
    }
  }

  /* The root loads hwloc and makes the segment; one broadcast tells the
   * node where both are. */
  struct node_note note;
  struct hw_topology topo;
  memset(&note, 0, sizeof note);
  if (boot.is_root) {
    hw_topology_load(call, all->node_size > 1, &topo, &note.hw);
    if (shared) {
      root_create_segment(call, &note);
    }
  }
  int err = MPI_Bcast(&note, (int)sizeof note, MPI_BYTE, 0, boot.node_comm);
  if (err != MPI_SUCCESS) {
    if (boot.roots_comm != MPI_COMM_NULL) {
      MPI_Comm_free(&boot.roots_comm);
    }
    return report_mpi_error(call, "MPI_Bcast", err);
  }
  if (!boot.is_root) {
    hw_topology_adopt(call, &note.hw, &topo);
    if (shared && note.segment_ok) {
      boot.segment = shm_file_map(note.segment, boot.segment_bytes);
    }
  }
  boot.counters.topology_loads = topo.loaded;
  boot.counters.topology_adoptions = topo.adopted;
  struct unit_record mine;
  fill_own_record(all, &topo, &mine);
  hw_topology_close(&topo);

  dart_ret_t ret =
      shared ? bootstrap_exchange_shared(call, all, &mine, boot.segment != NULL)
             : bootstrap_exchange_naive(call, &mine);
  /* Both exchanges synchronized the node after everyone mapped both
   * files: names can go, mappings stay. */
  hw_topology_remove_file(&topo);
  if (boot.is_root && note.segment_ok) {
    unlink(note.segment);
  }
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
  if (boot.mode != BOOTSTRAP_NAIVE) {
    MPI_Barrier(boot.node_comm); /* nobody reads any more */
    if (boot.is_root && boot.db.header != NULL) {
      node_db_destroy(&boot.db);
    }
    if (boot.segment != NULL) {
      munmap(boot.segment, boot.segment_bytes);
    }
  }
  if (boot.slot_type != MPI_DATATYPE_NULL) {
    MPI_Type_free(&boot.slot_type);
  }
  if (boot.roots_comm != MPI_COMM_NULL) {
    MPI_Comm_free(&boot.roots_comm);
  }
  free(boot.private_records);
  boot.private_records = NULL;
  boot.segment = NULL;
  memset(&boot.db, 0, sizeof boot.db);
}

void bootstrap_counters_get(struct bootstrap_counters *out)
{
  *out = boot.counters;
}

enum bootstrap_mode bootstrap_mode_in_use(void) { return boot.mode; }
