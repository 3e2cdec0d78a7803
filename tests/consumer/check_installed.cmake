# consumer.installed_files: the files the package promises are where its variables say.
#   cmake -DFILES=<file>|<file>... -P check_installed.cmake
string(REPLACE "|" ";" files "${FILES}")
set(missing "")
foreach(file IN LISTS files)
  if(NOT EXISTS "${file}")
    string(APPEND missing "\n  ${file}")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "missing from the installed package:${missing}")
endif()
list(LENGTH files count)
message("all ${count} files installed")
