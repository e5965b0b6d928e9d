#include <iostream>
#include <span>

#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#endif

#include "ackstall/cli/run.h"

int main(int argc, char** argv) {
#if defined(_WIN32)
  // ttcp without -s moves binary data through stdin/stdout: no CRLF translation.
  _setmode(_fileno(stdin), _O_BINARY);
  _setmode(_fileno(stdout), _O_BINARY);
#endif
  return ackstall::tools::run(std::span<const char* const>(argv, static_cast<std::size_t>(argc)),
                              {std::cout, std::cerr, &std::cin});
}
