# dart_add_mpi_test(<target> UNITS <n>... [NODES <k>...] [ENV <VAR=value>...]
#                   [ARGS <arg>...] [NAME <suffix>] [TIMEOUT <s>])
#
# Registers one ctest per (units, simulated nodes) pair, named
# <target>[.<suffix>].u<n>.n<k>, launched as "mpiexec -n <n> <target>".
# k > 1 splits the units into k "nodes": with MPICH through
# MPIR_CVAR_NUM_CLIQUES (MPI itself then treats them as separate nodes),
# otherwise through the runtime's own DART_UNITS_PER_NODE switch.
# Pairs with k > n are skipped.

# Every launch may run more units than cores, and CI runs as root.
set(DART_TEST_ENV_openmpi
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1)
set(DART_TEST_ENV_mpich "")
set(DART_TEST_ENV_other "")

function(dart_add_mpi_test target)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "UNITS;NODES;ENV;ARGS" ${ARGN})
  if(NOT T_NODES)
    set(T_NODES 1)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  set(base ${target})
  if(T_NAME)
    set(base ${target}.${T_NAME})
  endif()
  foreach(n IN LISTS T_UNITS)
    foreach(k IN LISTS T_NODES)
      if(k GREATER n)
        continue()
      endif()
      set(env ${DART_TEST_ENV_${DART_MPI_IMPL}} ${T_ENV})
      if(k GREATER 1)
        if(DART_MPI_IMPL STREQUAL "mpich")
          list(APPEND env MPIR_CVAR_NUM_CLIQUES=${k})
        else()
          math(EXPR per_node "(${n} + ${k} - 1) / ${k}")
          list(APPEND env DART_UNITS_PER_NODE=${per_node})
        endif()
      endif()
      set(name ${base}.u${n}.n${k})
      add_test(NAME ${name}
        COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n}
                ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${target}>
                ${MPIEXEC_POSTFLAGS} ${T_ARGS})
      set_tests_properties(${name} PROPERTIES
        ENVIRONMENT "${env}" TIMEOUT ${T_TIMEOUT} PROCESSORS ${n}
        LABELS "mpi;${DART_MPI_IMPL}")
    endforeach()
  endforeach()
endfunction()
