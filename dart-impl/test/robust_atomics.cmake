# Robustness tests: robust_atomics (see the test programs this file registers).

# Threads across units: 4 threads per unit under DART_THREAD_MULTIPLE,
# put/get read-back and one shared fetch-and-op counter (item 6 of the
# robustness issue: Open MPI's osc/ucx failed under concurrent RMA).
add_executable(test_threads_stress test_threads_stress.c)
target_link_libraries(test_threads_stress PRIVATE dart MPI::MPI_C
                      Threads::Threads)
dart_add_mpi_test(test_threads_stress UNITS 2 4 NODES 1 2 TIMEOUT 240)

# The alignment rule of every atomic entry, on every path: misaligned
# targets refused untouched, every aligned offset of every type exact,
# the 1-/2-byte compare-and-swap at every position of its 4-byte word
# (items 2 and 3 of the robustness issue).
add_executable(test_atomics_align test_atomics_align.c)
target_link_libraries(test_atomics_align PRIVATE dart MPI::MPI_C)
dart_add_mpi_test(test_atomics_align UNITS 1 2 4 NODES 1 2 TIMEOUT 240)
dart_add_mpi_test(test_atomics_align NAME noshm UNITS 1 2 4
                  ENV DART_SHM_PATH=off TIMEOUT 240)
