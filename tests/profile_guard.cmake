# profile_guard.cmake: the test suite must not write the learner's machine profile
# (build/<preset>/machine_profile.tsv, which the lessons' predictions read).
#   cmake -DMODE=record -DPROFILE=<file> -DRECORD=<file> -P profile_guard.cmake
#     before the suite: the profile's SHA-256, or "absent"
#   cmake -DMODE=check  -DPROFILE=<file> -DRECORD=<file> -P profile_guard.cmake
#     after it: fails when the profile is not what it was
if(EXISTS "${PROFILE}")
  file(SHA256 "${PROFILE}" now)
else()
  set(now "absent")
endif()
if(MODE STREQUAL "record")
  file(WRITE "${RECORD}" "${now}")
elseif(MODE STREQUAL "check")
  file(READ "${RECORD}" before)
  if(NOT before STREQUAL now)
    message(FATAL_ERROR "${PROFILE} changed during the test suite (before: ${before}, after: "
                        "${now}): a test wrote the learner's machine profile; tests must use "
                        "their own (TANG_MACHINE_PROFILE)")
  endif()
  message(STATUS "${PROFILE}: unchanged (${now})")
else()
  message(FATAL_ERROR "profile_guard.cmake: MODE must be record or check")
endif()
