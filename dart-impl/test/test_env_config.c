/* The environment switches: defaults, every accepted value, and a clear
 * message for a bad one. */
#include "base/env_config.h"
#include "test.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const all_vars[] = {
  "DART_LOG_LEVEL", "DART_SHM_PATH", "DART_UNITS_PER_NODE",
  "DART_BOOTSTRAP", "DART_LOCK_MODE", "DART_MPI_COUNT_LIMIT",
  "DART_LOCAL_POOL_MIB", "DART_LOCAL_POOL_MAX_MIB", "DART_NODEDB_LOCK",
  "DART_LOCK_POLICY", "DART_PROGRESS_THREAD", "DART_SHM_SYNC",
  "DART_REMOTE_ATOMICS", "DART_STALL_WARN_MS", "DART_RMA_PIECE_KIB", NULL
};

static void read_switches(void)
{
  for (const char *const *v = all_vars; *v != NULL; ++v) {
    unsetenv(*v);
  }
  struct env_config cfg;
  char why[256];
  ASSERT(env_config_read(&cfg, why, sizeof why) == 0);
  ASSERT(cfg.log_level == LOG_LEVEL_WARN);
  ASSERT(cfg.shared_memory_path);
  ASSERT(cfg.units_per_node == 0);
  ASSERT(cfg.bootstrap == BOOTSTRAP_NODE_ROOTS);
  ASSERT(cfg.lock_mode == LOCK_MODE_HYBRID);
  ASSERT(cfg.mpi_count_limit == INT_MAX);
  ASSERT(cfg.local_pool_mib == 64);
  ASSERT(cfg.nodedb_lock == SHARED_RW_LOCK_2N);
  ASSERT(cfg.local_pool_max_mib == 0);
  ASSERT(cfg.lock_policy == LOCK_POLICY_SEED);
  ASSERT(!cfg.progress_thread);
  ASSERT(cfg.shm_sync);
  ASSERT(cfg.remote_atomics == REMOTE_ATOMICS_MPI);
  ASSERT(cfg.stall_warn_ms == 10000);
  ASSERT(cfg.rma_piece_kib == -1);

  setenv("DART_LOG_LEVEL", "debug", 1);
  setenv("DART_SHM_PATH", "off", 1);
  setenv("DART_UNITS_PER_NODE", "3", 1);
  setenv("DART_BOOTSTRAP", "naive", 1);
  setenv("DART_LOCK_MODE", "mpi-mcs", 1);
  setenv("DART_MPI_COUNT_LIMIT", "7", 1);
  setenv("DART_LOCAL_POOL_MIB", "2", 1);
  setenv("DART_LOCAL_POOL_MAX_MIB", "128", 1);
  setenv("DART_LOCK_POLICY", "history", 1);
  setenv("DART_PROGRESS_THREAD", "on", 1);
  setenv("DART_SHM_SYNC", "off", 1);
  setenv("DART_REMOTE_ATOMICS", "message", 1);
  setenv("DART_STALL_WARN_MS", "0", 1);
  setenv("DART_RMA_PIECE_KIB", "0", 1);
  ASSERT(env_config_read(&cfg, why, sizeof why) == 0);
  ASSERT(cfg.rma_piece_kib == 0);
  ASSERT(cfg.remote_atomics == REMOTE_ATOMICS_MESSAGE);
  ASSERT(cfg.stall_warn_ms == 0);
  ASSERT(!cfg.shm_sync);
  ASSERT(cfg.local_pool_mib == 2);
  ASSERT(cfg.local_pool_max_mib == 128);
  ASSERT(cfg.log_level == LOG_LEVEL_DEBUG);
  ASSERT(!cfg.shared_memory_path);
  ASSERT(cfg.units_per_node == 3);
  ASSERT(cfg.bootstrap == BOOTSTRAP_NAIVE);
  ASSERT(cfg.lock_mode == LOCK_MODE_MPI_MCS);
  ASSERT(cfg.mpi_count_limit == 7);
  ASSERT(cfg.lock_policy == LOCK_POLICY_HISTORY);
  ASSERT(cfg.progress_thread);
  setenv("DART_BOOTSTRAP", "on-demand", 1);
  setenv("DART_LOCK_MODE", "mpi-win-lock", 1);
  ASSERT(env_config_read(&cfg, why, sizeof why) == 0);
  ASSERT(cfg.bootstrap == BOOTSTRAP_ON_DEMAND);
  ASSERT(cfg.lock_mode == LOCK_MODE_MPI_WIN_LOCK);
  setenv("DART_NODEDB_LOCK", "rwlock", 1);
  ASSERT(env_config_read(&cfg, why, sizeof why) == 0);
  ASSERT(cfg.nodedb_lock == SHARED_RW_LOCK_PTHREAD);
  setenv("DART_NODEDB_LOCK", "none", 1);
  setenv("DART_RMA_PIECE_KIB", "48", 1);
  ASSERT(env_config_read(&cfg, why, sizeof why) == 0);
  ASSERT(cfg.nodedb_lock == SHARED_RW_LOCK_NONE);
  ASSERT(cfg.rma_piece_kib == 48);
  setenv("DART_RMA_PIECE_KIB", "auto", 1);
  ASSERT(env_config_read(&cfg, why, sizeof why) == 0);
  ASSERT(cfg.rma_piece_kib == -1);

  /* Bad values: refused with a message naming variable and choices. */
  struct { const char *var, *value, *mention; } bad[] = {
    { "DART_LOG_LEVEL", "verbose", "trace" },
    { "DART_SHM_PATH", "yes", "off" },
    { "DART_SHM_SYNC", "maybe", "off" },
    { "DART_UNITS_PER_NODE", "-1", "DART_UNITS_PER_NODE" },
    { "DART_UNITS_PER_NODE", "2x", "DART_UNITS_PER_NODE" },
    { "DART_UNITS_PER_NODE", " 2", "DART_UNITS_PER_NODE" },
    { "DART_UNITS_PER_NODE", "+2", "DART_UNITS_PER_NODE" },
    { "DART_UNITS_PER_NODE", "-", "DART_UNITS_PER_NODE" },
    { "DART_MPI_COUNT_LIMIT", "0", "[1, " },
    { "DART_MPI_COUNT_LIMIT", "99999999999", "DART_MPI_COUNT_LIMIT" },
    { "DART_LOCAL_POOL_MIB", "0", "DART_LOCAL_POOL_MIB" },
    { "DART_BOOTSTRAP", "fast", "node-roots" },
    { "DART_LOCK_MODE", "spin", "hybrid" },
    { "DART_NODEDB_LOCK", "mcs", "rwlock" },
    { "DART_LOCAL_POOL_MAX_MIB", "-1", "DART_LOCAL_POOL_MAX_MIB" },
    /* Below DART_LOCAL_POOL_MIB=2, set above. */
    { "DART_LOCAL_POOL_MAX_MIB", "1", "DART_LOCAL_POOL_MIB=2" },
    { "DART_LOCK_POLICY", "lru", "history" },
    { "DART_PROGRESS_THREAD", "maybe", "off" },
    { "DART_REMOTE_ATOMICS", "shmem", "message" },
    { "DART_STALL_WARN_MS", "-1", "DART_STALL_WARN_MS" },
    { "DART_STALL_WARN_MS", "86400001", "DART_STALL_WARN_MS" },
    { "DART_RMA_PIECE_KIB", "-1", "neither auto" },
    { "DART_RMA_PIECE_KIB", "1048577", "[0, 1048576]" },
    { "DART_RMA_PIECE_KIB", "Auto", "DART_RMA_PIECE_KIB" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    char *saved = getenv(bad[i].var) ? strdup(getenv(bad[i].var)) : NULL;
    setenv(bad[i].var, bad[i].value, 1);
    why[0] = '\0';
    ASSERT(env_config_read(&cfg, why, sizeof why) == -1);
    ASSERT(strstr(why, bad[i].var) != NULL);
    ASSERT(strstr(why, bad[i].mention) != NULL);
    if (saved != NULL) {
      setenv(bad[i].var, saved, 1);
      free(saved);
    }
  }
  printf("test_env_config: passed\n");
}

static const struct test_case cases[] = {
  { "read_switches", read_switches },
};

int main(int argc, char **argv)
{
  return test_run(argc, argv, TEST_CASES(cases));
}
