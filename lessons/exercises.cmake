# exercises.cmake: one static library per exercise, built from the learner's
# stub or from the reference solution.
#
#   TANG_EXERCISES_USE_SOLUTIONS=ON  (default; the release preset, the README, CI)
#       exercise_NN_<name> is compiled from lessons/NN_x/solution/<name>.cpp
#   TANG_EXERCISES_USE_SOLUTIONS=OFF (the `learner` preset, build/learner)
#       exercise_NN_<name> is compiled from lessons/NN_x/exercise/<name>.cpp,
#       the file the learner edits
#
# Either way the library defines the same functions (namespace tang::mine,
# declared in lessons/NN_x/exercise/<name>.hpp). The lessons call them, and the
# exercise tests (tests/exercises/) check them. An exercise library links only
# what it needs (LIBS), never the lesson that runs it: no cycles.
include_guard(GLOBAL)

#
# WITH_REFERENCE also compiles the reference solution a second time, with its
# namespace renamed (mine -> reference), into <target>_reference, which <target>
# links: the functions are then there as tang::reference::... in every build, and
# in the learner build the lessons compare your draws with them
# (common/reference_check.hpp).
#
# tang_add_exercise(<target> <name> LIBS ... [WITH_REFERENCE])
function(tang_add_exercise target name)
  cmake_parse_arguments(ARG "WITH_REFERENCE" "" "LIBS" ${ARGN})
  set(solution ${CMAKE_CURRENT_SOURCE_DIR}/solution/${name}.cpp)
  if(TANG_EXERCISES_USE_SOLUTIONS)
    set(source ${solution})
  else()
    set(source ${CMAKE_CURRENT_SOURCE_DIR}/exercise/${name}.cpp)
  endif()
  add_library(${target} STATIC ${source})
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC ${ARG_LIBS})
  if(ARG_WITH_REFERENCE)
    add_library(${target}_reference STATIC ${solution})
    target_compile_definitions(${target}_reference PRIVATE mine=reference)
    target_include_directories(${target}_reference PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
    target_link_libraries(${target}_reference PUBLIC ${ARG_LIBS})
    target_link_libraries(${target} PUBLIC ${target}_reference)
  endif()
endfunction()
