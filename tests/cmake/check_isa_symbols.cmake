# ctest: the objects of one kernel set (core/src/isa, built once per instruction set) define no
# global symbol outside that set's namespaces. A weak symbol shared between the sets (an inline
# function or template instantiated in each, with the same name) would be kept once by the linker,
# and the AVX-512 build of it could then run on a CPU without AVX-512.
# Run as: cmake -DNM=nm -DISA=avx2 -DOBJECTS=a.o|b.o -P check_isa_symbols.cmake
string(REPLACE "|" ";" objects "${OBJECTS}")
set(bad "")
foreach(obj IN LISTS objects)
  execute_process(COMMAND ${NM} -C --defined-only --extern-only ${obj}
    OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${obj}")
  endif()
  string(REPLACE "\n" ";" lines "${out}")
  foreach(line IN LISTS lines)
    if(line STREQUAL "")
      continue()
    endif()
    # (DW.ref.__gxx_personality_v0: a pointer to the C++ runtime's one function, the same in every set.)
    if(NOT line MATCHES "stepformer::cpu::${ISA}::|Eigen_${ISA}|DW\\.ref\\.__gxx_personality_v0$")
      string(APPEND bad "\n  ${obj}: ${line}")
    endif()
  endforeach()
endforeach()
list(LENGTH objects n)
if(n EQUAL 0)
  message(FATAL_ERROR "no objects given for kernel set ${ISA}")
endif()
if(bad)
  message(FATAL_ERROR "kernel set ${ISA} defines symbols outside its namespaces:${bad}")
endif()
message(STATUS "kernel set ${ISA}: ${n} objects, every global symbol in its namespaces")
