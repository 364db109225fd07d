# exercises.cmake: one static library per exercise, holding both versions of its
# functions and the switch between them, in every build:
#
#   exercise/<name>.cpp   your file, the stub you fill in     (namespace tang::mine)
#   solution/<name>.cpp   the reference solution               (namespace tang::reference)
#   <name>_switch.cpp     what the lessons call                (namespace tang): the
#                         reference solution, or yours when the program is started
#                         with --yours (common/exercise_code.hpp)
#
# The functions are declared in exercise/<name>.hpp. Editing your file rebuilds that
# one file and relinks. The exercise tests (tests/exercises/) run twice: against the
# reference (label exercise_NN) and against yours (label yours_NN). An exercise
# library links only what it needs (LIBS), never the lesson that runs it: no cycles.
include_guard(GLOBAL)

# tang_add_exercise(<target> <name> LIBS ...)
function(tang_add_exercise target name)
  cmake_parse_arguments(ARG "" "" "LIBS" ${ARGN})
  add_library(${target} STATIC exercise/${name}.cpp solution/${name}.cpp ${name}_switch.cpp)
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/lessons)
  target_link_libraries(${target} PUBLIC tang_common ${ARG_LIBS})
endfunction()
