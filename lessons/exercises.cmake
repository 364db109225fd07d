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

# tang_add_exercise(<target> <name> LIBS ...)
function(tang_add_exercise target name)
  cmake_parse_arguments(ARG "" "" "LIBS" ${ARGN})
  if(TANG_EXERCISES_USE_SOLUTIONS)
    set(source ${CMAKE_CURRENT_SOURCE_DIR}/solution/${name}.cpp)
  else()
    set(source ${CMAKE_CURRENT_SOURCE_DIR}/exercise/${name}.cpp)
  endif()
  add_library(${target} STATIC ${source})
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC ${ARG_LIBS})
endfunction()
