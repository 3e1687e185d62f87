/* dart_init / dart_exit and the process-level queries. */
#include "mpi/bootstrap/bootstrap.h"
#include "mpi/collective/team_sync.h"
#include "mpi/core/quirks.h"
#include "mpi/core/runtime.h"
#include "mpi/core/serialize.h"
#include "mpi/locality/team_locality.h"
#include "mpi/lock/lock.h"
#include "mpi/memory/globmem.h"
#include "mpi/memory/local_pool.h"
#include "mpi/model/datatype.h"
#include "mpi/model/operation.h"
#include "mpi/model/target.h"
#include "mpi/model/team.h"
#include "mpi/rma/acc_batch.h"
#include "mpi/rma/am_atomics.h"
#include "mpi/rma/atomics.h"
#include "mpi/rma/onesided.h"

#include <dash/dart/if/dart_initialization.h>
#include <dash/dart/if/dart_team_group.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the services keep per team, set up and torn down by the team
 * module (team.h) in this order and in reverse. */
static const struct team_service team_services[] = {
  { team_sync_create, team_sync_free }, /* shared-memory barrier */
  { NULL, team_segments_free },         /* collective allocations */
  { NULL, locks_team_destroyed },
  { NULL, team_locality_free },
};

static dart_ret_t start_mpi(const char *call, int *argc, char ***argv,
                            int requested)
{
  int started = 0, finished = 0;
  MPI_Initialized(&started);
  MPI_Finalized(&finished);
  if (finished) {
    return report_error(DART_ERR_OTHER, call,
                        "MPI was already finalized (by an earlier dart_exit "
                        "or by the application); DART cannot start again");
  }
  if (started) {
    runtime.owns_mpi = false;
    MPI_Query_thread(&runtime.thread_level);
    return DART_OK;
  }
  mpi_quirks_before_init(requested);
  int err = MPI_Init_thread(argc, argv, requested, &runtime.thread_level);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Init_thread", err);
  }
  runtime.owns_mpi = true;
  return DART_OK;
}

static void stop_mpi(void)
{
  if (runtime.owns_mpi) {
    MPI_Finalize();
    runtime.owns_mpi = false;
  }
}

/* Tears everything down (collective over all units). `in_finalize`: run
 * from MPI_Finalize itself (at_mpi_finalize), which goes on finalizing MPI
 * afterwards. */
static dart_ret_t stop_dart(const char *call, bool in_finalize)
{
  dart_ret_t ret = DART_OK;
  /* Atomics this unit sent by message are applied before the last
   * barrier: after it nobody serves them (am_atomics.h). Unflushed ones
   * break the API's rule (flush before the end), as at a free
   * (acc_batch_free): said once. */
  int waiting = 0;
  int err = acc_batch_send_every_segment(&waiting);
  if (waiting > 0) {
    LOG_WARN(call, "%d accumulates not flushed: sent now (flush before "
             "dart_exit)", waiting);
  }
  if (err != MPI_SUCCESS) {
    ret = report_mpi_error(call, "MPI_Accumulate", err);
  }
  if (am_atomics_quiesce(call) != DART_OK) {
    ret = DART_ERR_OTHER;
  }
  /* Everyone must be done with everyone's memory before windows go. */
  err = team_barrier(DART_TEAM_ALL);
  if (err != MPI_SUCCESS) {
    ret = report_mpi_error(call, "MPI_Barrier", err);
  }
  am_atomics_finalize();
  bootstrap_finalize();
  onesided_module_finalize();
  allocators_finalize();
  local_pool_finalize();
  if (team_module_finalize(call) != DART_OK) {
    ret = DART_ERR_OTHER;
  }
  operation_module_finalize();
  datatype_module_finalize();
  MPI_Comm_free(&runtime.user_p2p_comm);
  /* No thread's target cache may hit any more: put and get check for
   * initialization only after a miss. */
  target_forget_all();
  runtime.initialized = false;
  /* Collective, so here and not in stop_mpi: a failed dart_init may stop
   * MPI on some units only. */
  if (runtime.owns_mpi || in_finalize) {
    mpi_quirks_before_finalize();
  } else {
    mpi_quirks_before_user_finalize();
  }
  if (in_finalize) {
    runtime.owns_mpi = false; /* MPI is finalizing already */
  }
  stop_mpi();
  log_set_unit(-1);
  return ret;
}

/* An application that calls MPI_Finalize while DART runs (the API asks
 * for dart_exit first): MPI_Finalize deletes MPI_COMM_SELF's attributes
 * before anything else, while all of MPI still works, and the one
 * dart_init sets runs DART's teardown there, on every unit alike. With
 * DART's windows still open MPICH's MPI_Finalize aborted in UCX, and a
 * later dart_exit touched shared memory MPI had unmapped. dart_exit then
 * only says what happened. */
static int self_keyval = MPI_KEYVAL_INVALID;
static bool exiting;               /* dart_exit removes the attribute */
static bool stopped_in_finalize;   /* at_mpi_finalize stopped DART */

static int at_mpi_finalize(MPI_Comm comm, int keyval, void *value,
                           void *extra)
{
  (void)comm;
  (void)keyval;
  (void)value;
  (void)extra;
  if (!exiting && runtime.initialized) {
    report_error(DART_ERR_OTHER, "MPI_Finalize", "called before dart_exit: "
                 "DART stops first");
    stop_dart("MPI_Finalize", true);
    stopped_in_finalize = true;
  }
  return MPI_SUCCESS;
}

static void hook_mpi_finalize(const char *call)
{
  int err = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_mpi_finalize,
                                   &self_keyval, NULL);
  if (err == MPI_SUCCESS) {
    err = MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
  }
  if (err != MPI_SUCCESS) {
    LOG_WARN(call, "cannot hook into MPI_Finalize (MPI error %d): an "
             "MPI_Finalize before dart_exit will fail", err);
  }
}

static void unhook_mpi_finalize(void)
{
  if (self_keyval != MPI_KEYVAL_INVALID) {
    exiting = true; /* the deletion calls at_mpi_finalize */
    MPI_Comm_delete_attr(MPI_COMM_SELF, self_keyval);
    MPI_Comm_free_keyval(&self_keyval);
    exiting = false;
  }
}

/* The settings every unit must share: each unit reads its own
 * environment, and the modules built on them assume one value everywhere
 * (a node split, a lock's protocol, a chunking of large counts); units
 * that disagree hung in dart_init or later, or aborted in MPI. One
 * all-reduce of each value and its negation (MAX of both: the largest and
 * the smallest) at start-up, so that every unit fails alike. `invalid`:
 * why this unit's own DART_* settings are invalid, or NULL; it still
 * takes part, and then every unit fails (the others waited for it in
 * MPI_Init or in this all-reduce when it returned alone). */
static dart_ret_t settings_agree(const char *call, MPI_Comm world,
                                 const struct env_config *env,
                                 const char *invalid)
{
  const struct {
    const char *name;
    long        value;
  } shared[] = {
    { "DART_SHM_PATH", env->shared_memory_path },
    { "DART_SHM_SYNC", env->shm_sync },
    { "DART_UNITS_PER_NODE", env->units_per_node },
    { "DART_BOOTSTRAP", (long)env->bootstrap },
    { "DART_LOCK_MODE", (long)env->lock_mode },
    { "DART_MPI_COUNT_LIMIT", env->mpi_count_limit },
    { "DART_REMOTE_ATOMICS", (long)env->remote_atomics },
    { "DART_POOL_EXPOSURE", (long)env->pool_exposure },
  };
  enum { N = sizeof shared / sizeof shared[0] };
  /* [0]: whether some unit's settings are invalid; then the pairs. */
  long mine[1 + 2 * N], all[1 + 2 * N];
  mine[0] = invalid != NULL;
  for (int i = 0; i < N; ++i) {
    mine[1 + 2 * i] = shared[i].value;
    mine[2 + 2 * i] = -shared[i].value;
  }
  int err = MPI_Allreduce(mine, all, 1 + 2 * N, MPI_LONG, MPI_MAX, world);
  if (err != MPI_SUCCESS) {
    return report_mpi_error(call, "MPI_Allreduce", err);
  }
  if (invalid != NULL) {
    return report_error(DART_ERR_INVAL, call, "%s", invalid);
  }
  if (all[0] != 0) {
    return report_error(DART_ERR_INVAL, call, "another unit's DART_* "
                        "settings are invalid (its log says which); every "
                        "unit fails alike");
  }
  for (int i = 0; i < N; ++i) {
    if (all[1 + 2 * i] != -all[2 + 2 * i]) {
      const char *here = getenv(shared[i].name);
      return report_error(DART_ERR_INVAL, call, "%s differs between units "
                          "(here: %s); it must be the same for all",
                          shared[i].name, here != NULL ? here : "unset");
    }
  }
  return DART_OK;
}

static dart_ret_t init_common(const char *call, int *argc, char ***argv,
                              int requested)
{
  if (runtime.initialized) {
    return report_error(DART_ERR_OTHER, call, "DART is already initialized");
  }
  char why[256] = "";
  struct env_config env;
  /* Invalid settings fail dart_init in settings_agree, on every unit:
   * until then this unit starts MPI like the others (with zeros for
   * settings, none of which is used before that). */
  bool invalid = env_config_read(&env, why, sizeof why) != 0;
  if (invalid) {
    memset(&env, 0, sizeof env);
  }
  dart_ret_t ret = start_mpi(call, argc, argv, requested);
  if (ret != DART_OK) {
    if (invalid) {
      (void)report_error(DART_ERR_INVAL, call, "%s", why);
    }
    return ret;
  }
  runtime.env = env;
  /* Before any RMA: whether this MPI needs its one-sided calls
   * serialized at the granted thread level (core/serialize.h). */
  mpi_serialize_setup(mpi_quirks_serialize_rma(runtime.thread_level));

  MPI_Comm world = MPI_COMM_NULL;
  int err = MPI_Comm_dup(MPI_COMM_WORLD, &world);
  if (err != MPI_SUCCESS) {
    ret = report_mpi_error(call, "MPI_Comm_dup", err);
    goto fail_mpi;
  }
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  MPI_Comm_rank(world, &runtime.myid);
  MPI_Comm_size(world, &runtime.size);
  log_set_unit(runtime.myid);
  if ((ret = settings_agree(call, world, &env, invalid ? why : NULL)) !=
          DART_OK ||
      (ret = mpi_quirks_detect(call, world)) != DART_OK) {
    MPI_Comm_free(&world);
    goto fail_mpi;
  }
  /* Only MPICH's waits need to know (core/quirks.h, mpi_rma_waits_yield):
   * elsewhere the collective is skipped and the answer stays no. */
  runtime.oversubscribed =
      mpi_quirks.rma_waits_spin && runtime_host_oversubscribed(world);

  void *tag_ub = NULL;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
  runtime.tag_ub = flag ? *(int *)tag_ub : 32767;

  err = MPI_Comm_dup(world, &runtime.user_p2p_comm);
  if (err != MPI_SUCCESS) {
    ret = report_mpi_error(call, "MPI_Comm_dup", err);
    MPI_Comm_free(&world);
    goto fail_mpi;
  }
  MPI_Comm_set_errhandler(runtime.user_p2p_comm, MPI_ERRORS_RETURN);

  if (!target_key_layout_ok()) {
    ret = report_error(DART_ERR_OTHER, call, "unsupported ABI: dart_gptr_t's "
                       "bit fields are not laid out as this build assumes");
    goto fail_comms;
  }
  if ((ret = datatype_module_init(call)) != DART_OK) {
    goto fail_comms;
  }
  if ((ret = operation_module_init(call)) != DART_OK) {
    goto fail_types;
  }
  atomics_module_init();
  acc_batch_setup(env.accumulate_batch);
  /* The team table takes ownership of `world` from here on. */
  ret = team_module_init(call, world, team_services,
                         (int)(sizeof team_services / sizeof team_services[0]));
  if (ret != DART_OK) {
    goto fail_ops;
  }
  if ((ret = bootstrap_init(call)) != DART_OK) {
    team_module_finalize(call);
    goto fail_ops;
  }
  if ((ret = am_atomics_init(call, team_lookup(DART_TEAM_ALL))) != DART_OK) {
    bootstrap_finalize();
    team_module_finalize(call);
    goto fail_ops;
  }
  if ((ret = local_pool_init(call, (size_t)env.local_pool_mib << 20,
                             (size_t)env.local_pool_max_mib << 20)) !=
      DART_OK) {
    am_atomics_finalize();
    bootstrap_finalize();
    team_module_finalize(call);
    goto fail_ops;
  }
  runtime.initialized = true;
  hook_mpi_finalize(call);
  LOG_DEBUG(call, "started: %d units, MPI thread level %d, %s MPI",
            runtime.size, runtime.thread_level,
            runtime.owns_mpi ? "owns" : "borrows");
  return DART_OK;

fail_ops:
  operation_module_finalize();
fail_types:
  datatype_module_finalize();
fail_comms:
  MPI_Comm_free(&runtime.user_p2p_comm);
fail_mpi:
  log_set_unit(-1);
  stop_mpi();
  return ret;
}

dart_ret_t dart_init(int *argc, char ***argv)
{
  return init_common(__func__, argc, argv, MPI_THREAD_SINGLE);
}

dart_ret_t dart_init_thread(int *argc, char ***argv,
                            dart_thread_support_level_t *thread_safety)
{
  if (thread_safety == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "thread_safety is NULL");
  }
  *thread_safety = DART_THREAD_SINGLE;
  dart_ret_t ret = init_common(__func__, argc, argv, MPI_THREAD_MULTIPLE);
  if (ret == DART_OK && runtime.thread_level >= MPI_THREAD_MULTIPLE) {
    *thread_safety = DART_THREAD_MULTIPLE;
  }
  return ret;
}

dart_ret_t dart_exit(void)
{
  if (stopped_in_finalize) {
    stopped_in_finalize = false;
    return report_error(DART_ERR_OTHER, __func__, "MPI_Finalize ran before "
                        "dart_exit and stopped DART; call dart_exit first");
  }
  REQUIRE_INIT();
  int finished = 0;
  MPI_Finalized(&finished);
  if (finished) {
    /* MPI went without DART's hook (hook_mpi_finalize failed): the
     * windows, the node-shared memory and the communicators went with it,
     * nothing can be torn down together any more. DART just stops. */
    runtime.initialized = false;
    runtime.owns_mpi = false;
    target_forget_all();
    dart_ret_t ret = report_error(DART_ERR_OTHER, __func__, "MPI was "
                                  "finalized before dart_exit; call "
                                  "dart_exit first");
    log_set_unit(-1);
    return ret;
  }
  unhook_mpi_finalize();
  return stop_dart(__func__, false);
}

bool dart_initialized(void) { return runtime.initialized; }

void dart_abort(int errorcode)
{
  int started = 0, finished = 0;
  MPI_Initialized(&started);
  MPI_Finalized(&finished);
  if (started && !finished) {
    MPI_Abort(MPI_COMM_WORLD, errorcode);
  }
  /* Without MPI (or if MPI_Abort returned) end this process at least,
   * with the requested status. */
  _Exit(errorcode);
}

dart_ret_t dart_myid(dart_global_unit_t *myid)
{
  if (myid == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "myid is NULL");
  }
  myid->id = DART_UNDEFINED_UNIT_ID;
  REQUIRE_INIT();
  myid->id = runtime.myid;
  return DART_OK;
}

dart_ret_t dart_size(size_t *size)
{
  if (size == NULL) {
    return report_error(DART_ERR_INVAL, __func__, "size is NULL");
  }
  *size = 0;
  REQUIRE_INIT();
  *size = (size_t)runtime.size;
  return DART_OK;
}
