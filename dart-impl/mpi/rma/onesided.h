/* One-sided transfers: module state that dart_exit releases. */
#ifndef DART_MPI_ONESIDED_H
#define DART_MPI_ONESIDED_H

/* Forgets every handle not consumed by the application. */
void onesided_module_finalize(void);

#endif
