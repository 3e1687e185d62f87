# Robustness tests: robust_atomics (see the test programs this file registers).

# Threads across units: 4 threads per unit under DART_THREAD_MULTIPLE,
# put/get read-back and one shared fetch-and-op counter (item 6 of the
# robustness issue: Open MPI's osc/ucx failed under concurrent RMA).
add_executable(test_threads_stress test_threads_stress.c)
target_link_libraries(test_threads_stress PRIVATE dart MPI::MPI_C
                      Threads::Threads)
dart_add_mpi_test(test_threads_stress UNITS 2 4 NODES 1 2 TIMEOUT 240)
