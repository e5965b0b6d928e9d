#include "ackstall/pcap/stall_spill.h"

#include <type_traits>
#include <vector>

#include "ackstall/pcap/stall_scanner.h"

namespace ackstall::pcap {

// Written and read back by the same process: the bytes of the struct are the format.
static_assert(std::is_trivially_copyable_v<Stall>);

std::shared_ptr<StallSpill> StallSpill::create() {
  std::FILE* f = std::tmpfile();
  if (f == nullptr) return nullptr;
  // 64 KiB a write (stdio's default is 4 KiB: a system call every 56 stalls).
  std::setvbuf(f, nullptr, _IOFBF, std::size_t{1} << 16);
  return std::shared_ptr<StallSpill>(new StallSpill(f));
}

StallSpill::~StallSpill() { std::fclose(file_); }

bool StallSpill::append(const Stall& s) {
  if (failed_) return false;
  if (std::fwrite(&s, sizeof s, 1, file_) != 1) {
    failed_ = true;
    return false;
  }
  ++count_;
  return true;
}

bool StallSpill::for_each(const std::function<void(const Stall&)>& f) const {
  if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0) return false;
  std::vector<Stall> block(4096);
  std::uint64_t left = count_;
  while (left > 0) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left, block.size()));
    const std::size_t got = std::fread(block.data(), sizeof(Stall), want, file_);
    for (std::size_t i = 0; i < got; ++i) f(block[i]);
    if (got < want) return false;
    left -= got;
  }
  std::fseek(file_, 0, SEEK_END);  // appends continue at the end
  return true;
}

}  // namespace ackstall::pcap
