# Robustness tests: robust_locks (see the test programs this file registers).

# Liveness without a progress thread: a remote acquire completes while
# the lock's home unit waits inside a collective, team or memory call or
# a receive. Only meaningful across nodes.
add_executable(test_locks_liveness test_locks_liveness.c)
target_link_libraries(test_locks_liveness PRIVATE dart MPI::MPI_C)
dart_add_mpi_test(test_locks_liveness UNITS 2 4 NODES 2 4 TIMEOUT 120)
dart_add_mpi_test(test_locks_liveness NAME history UNITS 4 NODES 2
                  ENV DART_LOCK_POLICY=history TIMEOUT 120)

# No livelock on dart_lock_try_acquire, after atomic traffic and lock
# churn; one node and across nodes.
add_executable(test_locks_trylock test_locks_trylock.c)
target_link_libraries(test_locks_trylock PRIVATE dart MPI::MPI_C)
dart_add_mpi_test(test_locks_trylock UNITS 2 4 NODES 1 2 4 TIMEOUT 180)
dart_add_mpi_test(test_locks_trylock NAME history UNITS 4 NODES 2
                  ENV DART_LOCK_POLICY=history TIMEOUT 180)

# Several threads per unit on the same locks, on and off their home node.
add_executable(test_locks_threads test_locks_threads.c)
target_link_libraries(test_locks_threads PRIVATE dart MPI::MPI_C Threads::Threads)
dart_add_mpi_test(test_locks_threads UNITS 2 4 NODES 1 2 4
                  ARGS --require-multiple TIMEOUT 180)
