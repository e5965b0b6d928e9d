# Compiler warnings and sanitizers, applied through one interface target that every ackstall
# target links privately.
add_library(ackstall_options INTERFACE)
add_library(ackstall::options ALIAS ackstall_options)
target_compile_options(ackstall_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wnon-virtual-dtor
  -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
if(ACKSTALL_WERROR)
  target_compile_options(ackstall_options INTERFACE -Werror)
endif()
if(ACKSTALL_SANITIZE)
  target_compile_options(ackstall_options INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(ackstall_options INTERFACE -fsanitize=address,undefined)
endif()

# ackstall_add_library(NAME SOURCES... [DEPS ...]): a layer library with its public headers in
# include/ackstall/<NAME>/, an ackstall::<NAME> alias; INSTALL adds it to the exported package
# (core and net: the parts another project links with find_package(ackstall)).
function(ackstall_add_library name)
  cmake_parse_arguments(ARG "INSTALL" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(ackstall_${name} ${ARG_SOURCES})
  add_library(ackstall::${name} ALIAS ackstall_${name})
  set_target_properties(ackstall_${name} PROPERTIES OUTPUT_NAME ackstall_${name} EXPORT_NAME ${name})
  target_include_directories(ackstall_${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>)
  target_compile_features(ackstall_${name} PUBLIC cxx_std_23)
  target_link_libraries(ackstall_${name} PUBLIC ${ARG_PUBLIC_DEPS}
                        PRIVATE ${ARG_PRIVATE_DEPS} $<BUILD_INTERFACE:ackstall_options>)
  if(ARG_INSTALL)
    set_property(GLOBAL APPEND PROPERTY ACKSTALL_INSTALL_TARGETS ackstall_${name})
  endif()
endfunction()
