# Header-only libraries for the MinGW cross build (the libraries and the ackstall tool).
#
# Debian packages CLI11, {fmt}, nlohmann-json and tl-expected for the host only, but all four are
# header libraries ({fmt} with FMT_HEADER_ONLY). The cross build must not see the host's /usr/include
# (glibc's headers would shadow MinGW's), so it gets a directory in the build tree that exposes
# exactly /usr/include/{CLI,fmt,nlohmann,tl} and nothing else, and the targets the tool links
# (CLI11::CLI11, fmt::fmt, nlohmann_json::nlohmann_json, tl::expected) are defined on top of it. Nothing is
# copied into the source tree; the packages come from scripts/deps.sh like every other one.
set(ACKSTALL_HOST_INCLUDE_DIR /usr/include CACHE PATH
    "Where the host's CLI11, fmt, nlohmann-json and tl-expected headers are (cross builds)")
set(_dir ${CMAKE_BINARY_DIR}/cross-headers)
file(MAKE_DIRECTORY ${_dir})
foreach(_lib CLI fmt nlohmann tl)
  if(NOT EXISTS ${ACKSTALL_HOST_INCLUDE_DIR}/${_lib})
    message(FATAL_ERROR "cross build of the tool: ${ACKSTALL_HOST_INCLUDE_DIR}/${_lib} is missing "
                        "(install libcli11-dev, libfmt-dev, nlohmann-json3-dev and libexpected-dev: scripts/deps.sh build)")
  endif()
  file(CREATE_LINK ${ACKSTALL_HOST_INCLUDE_DIR}/${_lib} ${_dir}/${_lib} SYMBOLIC)
endforeach()

function(_ackstall_header_lib target)
  add_library(${target} INTERFACE IMPORTED)
  set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${_dir})
  # -isystem: the libraries' own warnings are not ours to fix under -Werror.
  set_target_properties(${target} PROPERTIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES ${_dir})
endfunction()
_ackstall_header_lib(CLI11::CLI11)
_ackstall_header_lib(nlohmann_json::nlohmann_json)
_ackstall_header_lib(fmt::fmt)
_ackstall_header_lib(tl::expected)
set_target_properties(fmt::fmt PROPERTIES INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY)
