/* cygwin_piece.h: how many bytes the next WSASendTo of a stream send carries.

   Self-contained C99 (and C++); no Cygwin or Windows headers.  The patch
   in this directory (0001-Cygwin-send_internal-cut-stream-sends-below-SO_SNDBU.patch)
   adds this function verbatim to winsup/cygwin/fhandler/socket_inet.cc, and
   ackstall compiles and tests it (tests/contrib/cygwin_piece_test.cc) against
   its chunk policies (include/ackstall/core/chunk_policy.h: `robust' where a
   whole MSS fits below SO_SNDBUF, `cygwin' elsewhere, except the SNDBUF_SET
   rule below); ackstall's policy `cygwin-patch' calls it.

   KB823764: a send of at least SO_SNDBUF bytes on a nonblocking socket is not
   completed until all of it is acknowledged, so its last segment, without a
   partner, waits for the peer's delayed-ACK timer.  Pieces below SO_SNDBUF let
   AFD take the next piece while one is in flight.  With S = SO_SNDBUF (WMEM),
   M = MSS, LEN = the length of this send (all of its buffers), LEFT = bytes
   of it still to send, and SNDBUF_SET = whether Winsock's SO_SNDBUF is known
   to be WMEM (the application set SO_SNDBUF; when it did not, Windows'
   dynamic send buffering sizes AFD's quota and WMEM is only Cygwin's
   default).  The first rule that holds decides:

   - SNDBUF_SET and LEN < S: whole.  A send below SO_SNDBUF cannot trigger
     KB823764, and whole it keeps S plus one send in flight, as today's cut
     does.  The rule is the send's, not the rest's: the rest of a send of at
     least S, once below S, is still cut as below (sent whole, its short
     last segment waits behind a full quota for the peer's delayed ACK).
   - S >= 5M and M <= CYGWIN_PIECE_JUMBO_MSS: pieces of M * floor (S / 4M),
     about a quarter of S in whole MSS, so that AFD still holds three or more
     pieces when it completes one; the rest goes with the last piece while it
     is shorter than that piece plus one MSS (no piece shorter than M).
   - M < S < 5M, or M > CYGWIN_PIECE_JUMBO_MSS: Lev Bishop's 2006 chunking
     (cygwin list, "Re: very poor cygwin scp performance in some situations",
     get_chunk): a send shorter than S goes whole; else the largest whole MSS
     below S, one MSS less when the rest would be shorter than one MSS.
   - S <= M, or M unknown (0): pieces of S, as Cygwin cut them before (no
     whole MSS fits below S).
   - S == 0 (no AFD buffering): not cut, up to CYGWIN_PIECE_MAX a piece.

   The result is in [1, LEFT] for LEFT > 0, and 0 for LEFT == 0 (LEFT <= LEN;
   LEFT > LEN is taken as LEN unknown: SNDBUF_SET's rule does not apply).  */

#ifndef CYGWIN_PIECE_H
#define CYGWIN_PIECE_H

/* Largest piece: the largest length send () takes (an int).  */
#define CYGWIN_PIECE_MAX 0x7fffffffULL
/* Above this MSS (jumbo frames) quarter-quota pieces are one or two
   segments; the seed's larger pieces are used instead.  */
#define CYGWIN_PIECE_JUMBO_MSS 4096U

static inline unsigned long long
cygwin_piece (unsigned long long left, unsigned long long len,
              unsigned int wmem, unsigned int mss, int sndbuf_set)
{
  unsigned long long base;

  if (wmem == 0)
    return left < CYGWIN_PIECE_MAX ? left : CYGWIN_PIECE_MAX;
  if (sndbuf_set && len < wmem && left <= len)
    return left;
  if (mss == 0 || wmem <= mss)
    return left < wmem ? left : wmem;
  base = mss;
  if (wmem < 5ULL * mss || mss > CYGWIN_PIECE_JUMBO_MSS)
    {
      if (left < wmem)
        return left;
      base *= (wmem - 1) / mss;
      if (left - base < mss && base > mss)
        return base - mss;
      return base;
    }
  base *= wmem / (4ULL * mss);
  return left < base + mss ? left : base;
}

#endif /* CYGWIN_PIECE_H */
