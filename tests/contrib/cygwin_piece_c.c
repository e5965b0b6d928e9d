/* Compiles contrib/cygwin/cygwin_piece.h as C99 (as the Cygwin patch uses it) and exports it to
   the C++ test under a name of its own. */
#include "cygwin_piece.h"

unsigned long long cygwin_piece_as_c(unsigned long long left, unsigned long long len, unsigned int wmem,
                                     unsigned int mss, int sndbuf_set);

unsigned long long cygwin_piece_as_c(unsigned long long left, unsigned long long len, unsigned int wmem,
                                     unsigned int mss, int sndbuf_set) {
  return cygwin_piece(left, len, wmem, mss, sndbuf_set);
}
