# dart_add_bad_input_test(<name> CODE <exit code> MATCH <text>
#                         [UNITS <n>] [ENV <VAR=value>...]
#                         COMMAND <target or program> [<arg>...])
#
# A ctest that runs the command (through mpiexec -n <n> when UNITS is
# given and the command is a target) and passes only when it exits with
# <exit code> and prints <text> (cmake/check_exit.sh).
function(dart_add_bad_input_test name)
  cmake_parse_arguments(T "" "CODE;MATCH;UNITS" "ENV;COMMAND" ${ARGN})
  list(POP_FRONT T_COMMAND program)
  if(TARGET ${program})
    set(program $<TARGET_FILE:${program}>)
  endif()
  set(launch "")
  if(T_UNITS)
    set(launch ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_UNITS})
  endif()
  add_test(NAME bad-input.${name}
    COMMAND ${PROJECT_SOURCE_DIR}/cmake/check_exit.sh ${T_CODE} ${T_MATCH}
            ${launch} ${program} ${T_COMMAND})
  set_tests_properties(bad-input.${name} PROPERTIES
    ENVIRONMENT "${DART_TEST_ENV_${DART_MPI_IMPL}};${T_ENV}" TIMEOUT 60
    LABELS "bad-input")
  dart_cluster_label(bad-input.${name} "${T_UNITS}")
endfunction()
