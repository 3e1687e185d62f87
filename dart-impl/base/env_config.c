#include "base/env_config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

struct choice {
  const char *name;
  int         value;
};

static const struct choice log_levels[] = {
  { "error", LOG_LEVEL_ERROR }, { "warn", LOG_LEVEL_WARN },
  { "info", LOG_LEVEL_INFO },   { "debug", LOG_LEVEL_DEBUG },
  { "trace", LOG_LEVEL_TRACE }, { NULL, 0 }
};
static const struct choice on_off[] = {
  { "on", 1 }, { "off", 0 }, { "1", 1 }, { "0", 0 }, { NULL, 0 }
};
static const struct choice pool_exposures[] = {
  { "auto", POOL_EXPOSE_AUTO }, { "prefix", POOL_EXPOSE_PREFIX },
  { "whole", POOL_EXPOSE_WHOLE }, { NULL, 0 }
};
static const struct choice remote_atomics_modes[] = {
  { "mpi", REMOTE_ATOMICS_MPI }, { "message", REMOTE_ATOMICS_MESSAGE },
  { NULL, 0 }
};
static const struct choice bootstrap_modes[] = {
  { "node-roots", BOOTSTRAP_NODE_ROOTS }, { "naive", BOOTSTRAP_NAIVE },
  { "on-demand", BOOTSTRAP_ON_DEMAND },   { NULL, 0 }
};
static const struct choice lock_modes[] = {
  { "hybrid", LOCK_MODE_HYBRID },   { "cpu", LOCK_MODE_CPU },
  { "mpi-mcs", LOCK_MODE_MPI_MCS }, { "mpi-win-lock", LOCK_MODE_MPI_WIN_LOCK },
  { NULL, 0 }
};
static const struct choice lock_policies[] = {
  { "seed", LOCK_POLICY_SEED }, { "history", LOCK_POLICY_HISTORY },
  { NULL, 0 }
};

static const struct choice nodedb_locks[] = {
  { "2n", SHARED_RW_LOCK_2N }, { "rwlock", SHARED_RW_LOCK_PTHREAD },
  { "none", SHARED_RW_LOCK_NONE }, { NULL, 0 }
};

static const char *const known_variables[] = {
  "DART_LOG_LEVEL", "DART_SHM_PATH", "DART_UNITS_PER_NODE",
  "DART_BOOTSTRAP", "DART_LOCK_MODE", "DART_MPI_COUNT_LIMIT",
  "DART_LOCAL_POOL_MIB", "DART_LOCAL_POOL_MAX_MIB", "DART_NODEDB_LOCK",
  "DART_LOCK_POLICY", "DART_PROGRESS_THREAD", "DART_SHM_SYNC",
  "DART_ACCUMULATE_BATCH", "DART_POOL_GRACE_US", "DART_POOL_EXPOSURE",
  "DART_POOL_SHRINK_MS", "DART_REMOTE_ATOMICS", "DART_STALL_WARN_MS",
  "DART_RMA_PIECE_KIB", "DART_REDUCE_GATHER_UNITS",
  "DART_CHECK_REDUCTIONS", NULL
};

static int read_choice(const char *var, const struct choice *choices,
                       int *value, char *why, size_t why_len)
{
  const char *text = getenv(var);
  if (text == NULL || text[0] == '\0') {
    return 0; /* keep the default */
  }
  for (const struct choice *c = choices; c->name != NULL; ++c) {
    if (strcmp(text, c->name) == 0) {
      *value = c->value;
      return 0;
    }
  }
  int used = snprintf(why, why_len, "%s='%s' is not one of:", var, text);
  for (const struct choice *c = choices; c->name != NULL && used >= 0 &&
                                         (size_t)used < why_len; ++c) {
    used += snprintf(why + used, why_len - (size_t)used, " %s", c->name);
  }
  return -1;
}

static int read_int(const char *var, int min, int max, int *value,
                    char *why, size_t why_len)
{
  const char *text = getenv(var);
  if (text == NULL || text[0] == '\0') {
    return 0;
  }
  char *end = NULL;
  errno = 0;
  long parsed = strtol(text, &end, 10);
  /* Digits only, with an optional minus: strtol would also skip leading
   * blanks and take a plus, which no other setting accepts. */
  bool plain = isdigit((unsigned char)text[0]) ||
               (text[0] == '-' && isdigit((unsigned char)text[1]));
  if (!plain || errno != 0 || *end != '\0' || parsed < min ||
      parsed > max) {
    snprintf(why, why_len, "%s='%s' is not an integer in [%d, %d]", var,
             text, min, max);
    return -1;
  }
  *value = (int)parsed;
  return 0;
}

/* `auto` (leaves *value as it is) or an integer as read_int takes it. */
static int read_auto_or_int(const char *var, int min, int max, int *value,
                            char *why, size_t why_len)
{
  const char *text = getenv(var);
  if (text != NULL && strcmp(text, "auto") == 0) {
    return 0;
  }
  if (read_int(var, min, max, value, why, why_len) != 0) {
    snprintf(why, why_len, "%s='%s' is neither auto nor an integer in "
             "[%d, %d]", var, text, min, max);
    return -1;
  }
  return 0;
}

static void warn_unknown_variables(void)
{
  for (char **entry = environ; entry != NULL && *entry != NULL; ++entry) {
    if (strncmp(*entry, "DART_", 5) != 0) {
      continue;
    }
    size_t name_len = strcspn(*entry, "=");
    int known = 0;
    for (const char *const *k = known_variables; *k != NULL; ++k) {
      if (strlen(*k) == name_len && strncmp(*entry, *k, name_len) == 0) {
        known = 1;
        break;
      }
    }
    if (!known) {
      LOG_WARN("dart_init", "ignoring unknown environment variable %.*s",
               (int)name_len, *entry);
    }
  }
}

int env_config_read(struct env_config *cfg, char *why, size_t why_len)
{
  int log_level = LOG_LEVEL_WARN;
  int shm = 1;
  int shm_sync = 1;
  int bootstrap = BOOTSTRAP_NODE_ROOTS;
  int lock = LOCK_MODE_HYBRID;
  int policy = LOCK_POLICY_SEED;
  int progress = 0;
  int units_per_node = 0;
  int count_limit = INT_MAX;
  int pool_mib = 64;
  int pool_max_mib = 0;
  int nodedb_lock = SHARED_RW_LOCK_2N;
  int accumulate_batch = 1024;
  int pool_grace_us = -1;
  int pool_shrink_ms = 1000;
  int pool_exposure = POOL_EXPOSE_AUTO;
  int remote_atomics = REMOTE_ATOMICS_MPI;
  int stall_warn_ms = 10000;
  int rma_piece_kib = -1;
  int reduce_gather_units = 8;
  int check_reductions = 0;

  if (read_choice("DART_LOG_LEVEL", log_levels, &log_level, why, why_len) ||
      read_choice("DART_SHM_PATH", on_off, &shm, why, why_len) ||
      read_choice("DART_SHM_SYNC", on_off, &shm_sync, why, why_len) ||
      read_choice("DART_BOOTSTRAP", bootstrap_modes, &bootstrap, why,
                  why_len) ||
      read_choice("DART_LOCK_MODE", lock_modes, &lock, why, why_len) ||
      read_choice("DART_NODEDB_LOCK", nodedb_locks, &nodedb_lock, why,
                  why_len) ||
      read_choice("DART_LOCK_POLICY", lock_policies, &policy, why,
                  why_len) ||
      read_choice("DART_PROGRESS_THREAD", on_off, &progress, why, why_len) ||
      read_choice("DART_CHECK_REDUCTIONS", on_off, &check_reductions, why,
                  why_len) ||
      read_choice("DART_POOL_EXPOSURE", pool_exposures, &pool_exposure, why,
                  why_len) ||
      read_choice("DART_REMOTE_ATOMICS", remote_atomics_modes,
                  &remote_atomics, why, why_len) ||
      read_int("DART_UNITS_PER_NODE", 0, INT_MAX, &units_per_node, why,
               why_len) ||
      read_int("DART_MPI_COUNT_LIMIT", 1, INT_MAX, &count_limit, why,
               why_len) ||
      read_int("DART_LOCAL_POOL_MIB", 1, 1 << 20, &pool_mib, why,
               why_len) ||
      read_int("DART_LOCAL_POOL_MAX_MIB", 0, 1 << 26, &pool_max_mib, why,
               why_len) ||
      read_int("DART_ACCUMULATE_BATCH", 0, 1 << 20, &accumulate_batch, why,
               why_len) ||
      read_int("DART_POOL_GRACE_US", 0, 60000000, &pool_grace_us, why,
               why_len) ||
      read_int("DART_POOL_SHRINK_MS", -1, 86400000, &pool_shrink_ms, why,
               why_len) ||
      read_int("DART_STALL_WARN_MS", 0, 86400000, &stall_warn_ms, why,
               why_len) ||
      read_auto_or_int("DART_RMA_PIECE_KIB", 0, 1 << 20, &rma_piece_kib,
                       why, why_len) ||
      read_int("DART_REDUCE_GATHER_UNITS", 0, 1024, &reduce_gather_units,
               why, why_len)) {
    return -1;
  }
  if (pool_max_mib != 0 && pool_max_mib < pool_mib) {
    snprintf(why, why_len, "DART_LOCAL_POOL_MAX_MIB=%d is below "
             "DART_LOCAL_POOL_MIB=%d, the pool's first size", pool_max_mib,
             pool_mib);
    return -1;
  }
  cfg->log_level          = (enum log_level)log_level;
  cfg->shared_memory_path = shm != 0;
  cfg->shm_sync           = shm_sync != 0;
  cfg->units_per_node     = units_per_node;
  cfg->bootstrap          = (enum bootstrap_mode)bootstrap;
  cfg->lock_mode          = (enum lock_mode)lock;
  cfg->lock_policy        = (enum lock_policy)policy;
  cfg->progress_thread    = progress != 0;
  cfg->mpi_count_limit    = count_limit;
  cfg->local_pool_mib     = pool_mib;
  cfg->local_pool_max_mib = pool_max_mib;
  cfg->nodedb_lock        = (enum shared_rw_lock_kind)nodedb_lock;
  cfg->accumulate_batch   = accumulate_batch;
  cfg->remote_atomics     = (enum remote_atomics)remote_atomics;
  cfg->pool_grace_us      = pool_grace_us;
  cfg->pool_shrink_ms     = pool_shrink_ms;
  cfg->pool_exposure      = (enum pool_exposure)pool_exposure;
  cfg->stall_warn_ms      = stall_warn_ms;
  cfg->rma_piece_kib      = rma_piece_kib;
  cfg->reduce_gather_units = reduce_gather_units;
  cfg->check_reductions   = check_reductions != 0;
  /* The level must be in force before the warnings below are filtered. */
  log_set_level(cfg->log_level);
  warn_unknown_variables();
  return 0;
}
