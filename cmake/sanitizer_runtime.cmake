# accel_sanitizer_preload(<out_var>): "LD_PRELOAD=<the sanitizer runtime>" when this build
# instruments its code with AddressSanitizer or ThreadSanitizer (the asan and tsan presets'
# CMAKE_CXX_FLAGS), else "".
#
# Why: a program nvcc links itself (the vector-add example, the static-cudart program), or
# Python running Numba's tests, is not built with the project's flags, so the sanitizer
# runtime is not in its own library list; when it loads the instrumented libcudart.so.13 or
# simulated driver, the runtime comes too late and the program dies at start (SIGSEGV, no
# output). Preloading the compiler's runtime puts it first, as the sanitizer requires.
# Programs CMake links get the runtime from CMAKE_EXE_LINKER_FLAGS and need nothing.
function(accel_sanitizer_preload out_var)
  set(runtime "")
  if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
    set(runtime libasan.so)
  elseif(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*thread")
    set(runtime libtsan.so)
  endif()
  set(preload "")
  if(runtime)
    execute_process(COMMAND "${CMAKE_CXX_COMPILER}" -print-file-name=${runtime}
                    OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(IS_ABSOLUTE "${path}" AND EXISTS "${path}")
      set(preload "LD_PRELOAD=${path}")
    else()
      message(WARNING "accel: ${CMAKE_CXX_COMPILER} names no ${runtime}: programs nvcc links "
                      "will fail at start under this sanitizer build")
    endif()
  endif()
  set(${out_var} "${preload}" PARENT_SCOPE)
endfunction()
