# The lifecycle table (test_lifecycle.c): every call before dart_init and
# after dart_exit, and on freed or destroyed objects.
add_executable(test_lifecycle test_lifecycle.c)
target_link_libraries(test_lifecycle PRIVATE dart MPI::MPI_C)
dart_add_mpi_test(test_lifecycle UNITS 1 2 4 NODES 1 2)
