/* Start-up shared by the MPI RMA peers. */
#ifndef MPI_PEER_H
#define MPI_PEER_H

/* MPI_Init, rank and size in MPI_COMM_WORLD; MPI errors abort the job
 * with MPI's message rather than letting a peer run on. */
void mpi_peer_start(int *argc, char ***argv, int *me, int *units);

#endif
