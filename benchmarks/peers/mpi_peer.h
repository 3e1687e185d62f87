/* Start-up shared by the MPI RMA peers. */
#ifndef MPI_PEER_H
#define MPI_PEER_H

/* MPI_Init, rank and size in MPI_COMM_WORLD; MPI errors abort the job
 * with MPI's message rather than letting a peer run on. */
void mpi_peer_start(int *argc, char ***argv, int *me, int *units);

/* Ends a run that stops early (a bad argument) with `code`: starts MPI if
 * it is not yet, and meets every other process in a barrier before
 * MPI_Finalize, so the one process that printed the message is not killed
 * by the launcher before its output is out when another process, on
 * another host, exits first. Returns `code`. */
int mpi_peer_stop(int *argc, char ***argv, int code);

/* Ends a finished run: MPI_Finalize, after the teardown DART itself runs
 * before MPI_Finalize where MPICH's can hang across hosts (see
 * dart-impl/mpi/core/quirks.h, quiet_before_finalize; it comes after
 * every timed phase, so the comparison with DART stays fair). Returns
 * `code`. */
int mpi_peer_finish(int code);

#endif
