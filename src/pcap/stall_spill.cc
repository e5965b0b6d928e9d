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
  return std::shared_ptr<StallSpill>(new StallSpill(f));
}

StallSpill::StallSpill(std::FILE* file) : file_(file) {}

StallSpill::~StallSpill() { std::fclose(file_); }

bool StallSpill::append(const Stall& s) {
  if (failed_) return false;
  if (block_.empty()) block_.reserve(kBlock);
  block_.push_back(s);
  ++count_;
  return block_.size() < kBlock || write_block();
}

bool StallSpill::write_block() {
  const std::size_t written = std::fwrite(block_.data(), sizeof(Stall), block_.size(), file_);
  if (written != block_.size()) {
    failed_ = true;
    count_ -= block_.size() - written;
  }
  block_.clear();
  return !failed_;
}

bool StallSpill::for_each(const std::function<void(const Stall&)>& f) {
  if (!block_.empty() && !write_block()) return false;
  if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0) return false;
  std::vector<Stall> block(4096);
  std::uint64_t left = count_;
  while (left > 0) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left, block.size()));
    const std::size_t got = std::fread(block.data(), sizeof(Stall), want, file_);
    for (std::size_t i = 0; i < got; ++i) f(block[i]);
    if (got < want) {
      std::fseek(file_, 0, SEEK_END);  // a write may not follow a read without a seek (C11 7.21.5.3)
      return false;
    }
    left -= got;
  }
  std::fseek(file_, 0, SEEK_END);  // appends continue at the end (and a write may not follow a read without one)
  return true;
}

}  // namespace ackstall::pcap
