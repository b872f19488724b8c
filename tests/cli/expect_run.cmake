# Runs CMD (a ;-list), then checks its exit code is CODE and that its output
# (stdout + stderr) matches every regex in MATCH (a |-separated list of
# ;-free patterns is awkward, so MATCH is a ;-list passed with \; escapes).
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(NOT rc STREQUAL CODE)
  message(FATAL_ERROR "exit code ${rc}, expected ${CODE}\n--- output ---\n${all}")
endif()
foreach(pattern IN LISTS MATCH)
  if(NOT all MATCHES "${pattern}")
    message(FATAL_ERROR "output does not match '${pattern}'\n--- output ---\n${all}")
  endif()
endforeach()
