# ctest: each man page renders, and groff has nothing to warn about.
# Run as: cmake -DPAGES=a.1|b.1 -P man_pages.cmake
string(REPLACE "|" ";" pages "${PAGES}")
foreach(page IN LISTS pages)
  execute_process(COMMAND groff -man -Tutf8 -ww -z ${page} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
    message(FATAL_ERROR "${page}: groff exit ${rc}:\n${err}")
  endif()
  file(READ ${page} text)
  if(text MATCHES "@PROJECT_VERSION@")
    message(FATAL_ERROR "${page} still holds @PROJECT_VERSION@")
  endif()
endforeach()
