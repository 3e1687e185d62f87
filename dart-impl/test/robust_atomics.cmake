# Robustness tests: robust_atomics (see the test programs this file registers).

# Threads across units: 4 threads per unit under DART_THREAD_MULTIPLE,
# put/get read-back and one shared fetch-and-op counter (item 6 of the
# robustness issue: Open MPI's osc/ucx failed under concurrent RMA); then
# batched accumulates, a compare-and-swap counter and handle transfers
# (a tenth of the iterations: 35 s at 4 units across the virtual hosts).
add_executable(test_threads_stress test_threads_stress.c)
target_link_libraries(test_threads_stress PRIVATE dart MPI::MPI_C
                      Threads::Threads)
# Iterations per thread: 10,000 takes 2-15 s with Open MPI at 2 and 4
# units; MPICH's RMA under MPI_THREAD_MULTIPLE with 4 oversubscribed units
# across cliques manages about 20 iterations a second, the sanitizers
# slow everything down several times.
set(stress_iters 10000)
set(stress_iters_u4 10000)
if(DART_MPI_IMPL STREQUAL "mpich")
  set(stress_iters_u4 300)
endif()
if(DART_TEST_CLUSTER)
  # Over TCP between the virtual hosts 10,000 iterations take 90 s at 2
  # units (scripts/test.sh cluster-openmpi): fewer keep it well inside the
  # timeout at 4.
  set(stress_iters 3000)
  set(stress_iters_u4 1000)
endif()
if(DART_SANITIZE)
  set(stress_iters 2000)
  math(EXPR stress_iters_u4 "${stress_iters_u4} / 5")
endif()
dart_add_mpi_test(test_threads_stress UNITS 2 NODES 1 2 TIMEOUT 240
                  ARGS ${stress_iters})
dart_add_mpi_test(test_threads_stress UNITS 4 NODES 1 2 TIMEOUT 240
                  ARGS ${stress_iters_u4})
# Open MPI's osc/ucx, unserialized, also leaked remote keys (a UCX warning
# per key at exit) on runs whose data came out right: that fails too.
foreach(name test_threads_stress.u2.n1 test_threads_stress.u2.n2
             test_threads_stress.u4.n1 test_threads_stress.u4.n2)
  set_tests_properties(${name} PROPERTIES
    FAIL_REGULAR_EXPRESSION "not returned to mpool;MPI_ERR")
endforeach()

# Memory calls under threads: 4 threads per unit allocate, fill, check and
# free local-pool blocks in a 1 MiB pool that grows and shrinks at once,
# then blocks of one pool allocator, then collective segments on a team
# each, all at the same time. Rounds as
# for test_threads_stress, whose limits (MPICH with threads, the cluster,
# the sanitizers) hold here too.
add_executable(test_threads_memory test_threads_memory.c)
target_link_libraries(test_threads_memory PRIVATE dart MPI::MPI_C
                      Threads::Threads)
set(memory_env DART_LOCAL_POOL_MIB=1 DART_LOCAL_POOL_MAX_MIB=256
    DART_POOL_SHRINK_MS=0 DART_POOL_GRACE_US=1000)
dart_add_mpi_test(test_threads_memory UNITS 2 NODES 1 2 TIMEOUT 240
                  ENV ${memory_env} ARGS ${stress_iters})
dart_add_mpi_test(test_threads_memory UNITS 4 NODES 1 2 TIMEOUT 240
                  ENV ${memory_env} ARGS ${stress_iters_u4})
dart_add_mpi_test(test_threads_memory NAME noshm UNITS 2 NODES 1
                  TIMEOUT 240 ENV ${memory_env} DART_SHM_PATH=off
                  ARGS ${stress_iters})

# The other MT-safe and MT-team calls from 4 threads per unit: locality
# queries (the first one building the tree), edits of caller-owned domain
# copies and locality splits of groups, group algebra, two-sided
# messages on a tag per thread, collectives, segment metadata and
# registrations on a team per thread, derived types and operations of each
# thread's own. Rounds: a fifth of test_threads_stress's iterations, whose
# limits hold here too.
add_executable(test_threads_calls test_threads_calls.c)
target_link_libraries(test_threads_calls PRIVATE dart Threads::Threads)
math(EXPR calls_rounds "${stress_iters} / 5")
math(EXPR calls_rounds_u4 "${stress_iters_u4} / 5")
dart_add_mpi_test(test_threads_calls UNITS 2 NODES 1 2 TIMEOUT 240
                  ARGS ${calls_rounds})
dart_add_mpi_test(test_threads_calls UNITS 4 NODES 1 2 TIMEOUT 240
                  ARGS ${calls_rounds_u4})
dart_add_mpi_test(test_threads_calls NAME noshm UNITS 2 NODES 1
                  TIMEOUT 240 ENV DART_SHM_PATH=off ARGS ${calls_rounds})

# The alignment rule of every atomic entry, on every path: misaligned
# targets refused untouched, every aligned offset of every type exact,
# the 1-/2-byte compare-and-swap at every position of its 4-byte word
# (items 2 and 3 of the robustness issue).
add_executable(test_atomics_align test_atomics_align.c)
target_link_libraries(test_atomics_align PRIVATE dart MPI::MPI_C)
dart_add_mpi_test(test_atomics_align UNITS 1 2 4 NODES 1 2 TIMEOUT 240)
dart_add_mpi_test(test_atomics_align NAME noshm UNITS 1 2 4
                  ENV DART_SHM_PATH=off TIMEOUT 240)

# One-element accumulates through MPI gathered per target (acc_batch.h):
# exact results, issue order of one origin, sends at free; with the
# default limit, a limit of 7 (full batches go out by themselves), and off.
add_executable(test_accumulate_batch test_accumulate_batch.c)
target_link_libraries(test_accumulate_batch PRIVATE dart MPI::MPI_C)
dart_add_mpi_test(test_accumulate_batch UNITS 1 2 3 4 NODES 1 2)
dart_add_mpi_test(test_accumulate_batch NAME noshm UNITS 2 4
                  ENV DART_SHM_PATH=off)
dart_add_mpi_test(test_accumulate_batch NAME limit7 UNITS 2 4 NODES 2
                  ENV DART_ACCUMULATE_BATCH=7)
dart_add_mpi_test(test_accumulate_batch NAME unbatched UNITS 2 4 NODES 2
                  ENV DART_ACCUMULATE_BATCH=0)

# Atomics by message (DART_REMOTE_ATOMICS=message, rma/am_atomics.h), on
# several nodes where they are used: the target serves them from inside
# any waiting DART call, one origin's order holds, and the CPU atomics of
# node peers and the target's own are atomic together; then the atomics,
# alignment, batching and threaded tests again on that path.
add_executable(test_atomics_message test_atomics_message.c)
target_link_libraries(test_atomics_message PRIVATE dart MPI::MPI_C)
set(message_env DART_REMOTE_ATOMICS=message)
dart_add_mpi_test(test_atomics_message UNITS 2 4 NODES 1 2 TIMEOUT 240
                  ENV ${message_env})
dart_add_mpi_test(test_atomics_message NAME noshm UNITS 2 NODES 2
                  TIMEOUT 240 ENV ${message_env} DART_SHM_PATH=off)
dart_add_mpi_test(test_atomics_message NAME thread UNITS 2 4 NODES 2
                  TIMEOUT 240 ENV ${message_env} DART_PROGRESS_THREAD=on)
dart_add_mpi_test(test_atomics NAME message UNITS 2 4 NODES 2
                  ENV ${message_env})
dart_add_mpi_test(test_atomics_align NAME message UNITS 2 4 NODES 2
                  TIMEOUT 240 ENV ${message_env})
dart_add_mpi_test(test_accumulate_batch NAME message UNITS 2 4 NODES 2
                  ENV ${message_env})
dart_add_mpi_test(test_threads_stress NAME message UNITS 2 NODES 2
                  TIMEOUT 240 ENV ${message_env} ARGS ${stress_iters})
# White-box: requests the target cannot resolve in its portion are
# refused, nothing is written, and the origin gets the error.
add_executable(test_atomics_message_refused test_atomics_message_refused.c)
target_link_libraries(test_atomics_message_refused PRIVATE dart_internal)
dart_add_mpi_test(test_atomics_message_refused UNITS 2 4 NODES 2
                  ENV ${message_env})
