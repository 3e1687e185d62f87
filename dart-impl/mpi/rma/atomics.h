/* Atomics: module set-up at dart_init. */
#ifndef DART_MPI_ATOMICS_H
#define DART_MPI_ATOMICS_H

/* Probes which MPI types order unsigned MIN/MAX correctly. */
void atomics_module_init(void);

#endif
