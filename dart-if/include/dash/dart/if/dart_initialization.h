/**
 * \file dash/dart/if/dart_initialization.h
 *
 * \brief Start-up and shutdown of the DART runtime.
 */
#ifndef DASH__DART__IF__DART_INITIALIZATION_H_
#define DASH__DART__IF__DART_INITIALIZATION_H_

#include <stdbool.h>

#include "dart_types.h"
#include "dart_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \defgroup DartInit Initialization and shutdown
 * \brief Starting and stopping the runtime.
 *
 * Every other call that returns dart_ret_t, except dart_config() and the
 * dart_domain_* calls on caller-owned domain objects, returns
 * #DART_ERR_NOTINIT before dart_init() and after dart_exit().
 * @{
 */

/**
 * \brief Starts the DART runtime.
 *
 * Starts MPI (with `MPI_THREAD_SINGLE`) unless the program already did; in
 * that case DART borrows the running MPI and leaves its shutdown to the
 * program. Reads the `DART_*` environment variables, creates
 * #DART_TEAM_ALL (every process of the MPI job, global unit ids equal to
 * the ranks in `MPI_COMM_WORLD`), exchanges the units' hardware records
 * and sets up the local allocation pool of dart_memalloc().
 *
 * Collective over all processes of the job. Thread safety: MT-none.
 *
 * \param[in,out] argc Pointer to the program's argument count, handed to
 *                     MPI; may be NULL.
 * \param[in,out] argv Pointer to the program's argument vector, handed
 *                     to MPI; may be NULL.
 * \retval DART_OK        Started.
 * \retval DART_ERR_INVAL A `DART_*` environment variable holds a value
 *                        that is not accepted (the log line names it
 *                        and the accepted values).
 * \retval DART_ERR_OTHER DART is already initialized; MPI was finalized
 *                        already (DART cannot start twice in a process
 *                        whose MPI it started and stopped); or an MPI
 *                        call failed.
 * \retval DART_ERR_NOMEM Out of memory while setting up.
 */
dart_ret_t dart_init(int *argc, char ***argv) DART_NOTHROW;

/**
 * \brief Starts the DART runtime as dart_init() does, asking for
 *        concurrent calls from several threads.
 *
 * Requests `MPI_THREAD_MULTIPLE` when DART starts MPI. #DART_THREAD_MULTIPLE
 * is granted if and only if the MPI in use provides
 * `MPI_THREAD_MULTIPLE`; what concurrent calls are then allowed is stated
 * with every call (\ref dart_threads).
 *
 * Collective over all processes of the job. Thread safety: MT-none.
 *
 * \param[in,out] argc          As for dart_init().
 * \param[in,out] argv          As for dart_init().
 * \param[out]    thread_safety Receives the level provided:
 *                              #DART_THREAD_MULTIPLE or
 *                              #DART_THREAD_SINGLE (also on failure).
 * \retval DART_OK        Started.
 * \retval DART_ERR_INVAL `thread_safety` is NULL, or as for dart_init().
 * \retval DART_ERR_OTHER As for dart_init().
 * \retval DART_ERR_NOMEM As for dart_init().
 */
dart_ret_t dart_init_thread(
  int*                          argc,
  char***                       argv,
  dart_thread_support_level_t * thread_safety) DART_NOTHROW;

/**
 * \brief Stops the DART runtime.
 *
 * Waits until every unit has arrived, then releases everything the
 * runtime holds: teams the program left behind, their segments, locks,
 * allocators, types and operations. Finalizes MPI only if dart_init()
 * started it. Afterwards dart_initialized() is false and every call
 * returns #DART_ERR_NOTINIT.
 *
 * Collective over #DART_TEAM_ALL. Thread safety: MT-none.
 *
 * \retval DART_OK          Stopped.
 * \retval DART_ERR_OTHER   An MPI call failed on the way; the runtime is
 *                          stopped all the same.
 * \retval DART_ERR_NOTINIT DART is not initialized.
 */
dart_ret_t dart_exit() DART_NOTHROW;

/**
 * \brief Tells whether the runtime is running.
 *
 * Local; may be called at any time. Thread safety: MT-safe.
 *
 * \return true between a successful dart_init() or dart_init_thread() and
 *         dart_exit(), false before and after.
 */
bool dart_initialized() DART_NOTHROW;

/**
 * \brief Terminates all units of the program at once, without cleanup.
 *
 * Aborts the MPI job when MPI is running, otherwise ends the calling
 * process. Never returns.
 *
 * Local (its effect is global); may be called at any time. Thread
 * safety: MT-safe.
 *
 * \param[in] errorcode Exit status, for example #DART_EXIT_ABORT.
 */
void dart_abort(int errorcode) __attribute__((noreturn));

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DASH__DART__IF__DART_INITIALIZATION_H_ */
