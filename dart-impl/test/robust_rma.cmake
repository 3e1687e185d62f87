# Robustness tests: robust_rma (see the test programs this file registers).
#
# test_fuzz_rma: deterministic fuzzing of put/get in every form and of the
# atomics with valid and invalid arguments (fixed seed, a few seconds per
# run): exact data for valid calls, DART_ERR_INVAL with one log line and
# not one byte written for invalid ones, guard bytes around every buffer.
# 1, 2 and 4 units on one node and on two (simulated) nodes, and again
# with the shared-memory path off (everything through MPI RMA and MPI
# atomics). scripts/soak.sh runs the same program with many seeds.
add_executable(test_fuzz_rma test_fuzz_rma.c)
target_link_libraries(test_fuzz_rma PRIVATE dart MPI::MPI_C m)
# Four units run fewer calls each: oversubscribed MPICH polls hard.
foreach(units 1 2 4)
  set(args "")
  if(units EQUAL 4)
    set(args --iters 1000)
  endif()
  dart_add_mpi_test(test_fuzz_rma UNITS ${units} NODES 1 2 ARGS ${args}
                    TIMEOUT 300)
  dart_add_mpi_test(test_fuzz_rma NAME noshm UNITS ${units} NODES 1 2
                    ENV DART_SHM_PATH=off ARGS ${args} TIMEOUT 300)
endforeach()
