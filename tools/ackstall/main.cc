#include <iostream>
#include <span>

#include "app.h"

int main(int argc, char** argv) {
  return ackstall::tools::run(std::span<const char* const>(argv, static_cast<std::size_t>(argc)),
                              {std::cout, std::cerr});
}
