# bounded_command(<out-var> <program> [<arg>...]): the command line that runs <program> with
# its address space limited to MEMORY_LIMIT_MB mebibytes (ulimit -v), when that variable is
# set and not empty; else the command itself. Included by ctest scripts (cmake -P) whose
# inputs are hostile: such an input must not exhaust memory, and past the limit the
# program's allocation fails, which its exit status and output then show.
function(bounded_command out_var)
  set(command ${ARGN})
  if(DEFINED MEMORY_LIMIT_MB AND NOT MEMORY_LIMIT_MB STREQUAL "")
    math(EXPR limit_kb "${MEMORY_LIMIT_MB} * 1024")
    list(PREPEND command /bin/sh -c "ulimit -v ${limit_kb} && exec \"\$0\" \"\$@\"")
  endif()
  set(${out_var} ${command} PARENT_SCOPE)
endfunction()
