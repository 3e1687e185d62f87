# The lifecycle table (test_lifecycle_table.h): every call before
# dart_init and after dart_exit (test_lifecycle_notinit.c), and on freed
# or destroyed objects (test_lifecycle_stale.c).
dart_test_family(test_lifecycle
  PARTS test_lifecycle_notinit test_lifecycle_stale
  LIBS dart MPI::MPI_C)
dart_add_mpi_test(test_lifecycle UNITS 1 2 4 NODES 1 2)
