# `stepformer --size` below the smallest window is clamped with a note, not refused, and the
# screenshot is written at the clamped size. Run as: cmake -DAPP=... -DOUT=... -P screenshot_size.cmake
file(REMOVE "${OUT}")
execute_process(
  COMMAND "${APP}" --preset untrained --no-train --size 100x100 --screenshot "${OUT}"
  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit code ${rc}: ${err}")
endif()
if(NOT err MATCHES "--size 100x100 is below the smallest window; using 320x240")
  message(FATAL_ERROR "no clamping note on stderr: '${err}'")
endif()
if(NOT EXISTS "${OUT}")
  message(FATAL_ERROR "no screenshot written at ${OUT}")
endif()
# A nonsense size is still an error.
execute_process(
  COMMAND "${APP}" --preset untrained --no-train --size 0x-3 --screenshot "${OUT}"
  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(rc EQUAL 0 OR NOT err MATCHES "bad --size '0x-3'")
  message(FATAL_ERROR "--size 0x-3 was accepted (exit ${rc}): ${err}")
endif()
