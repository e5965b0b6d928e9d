// ackstall/ttcp/pattern.h — the deterministic -s / --verify stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ackstall::ttcp {

// Writes bytes [offset, offset + out.size()) of the stream: byte i is byte i % 8 of
// splitmix64(i / 8), so any slice can be produced (and checked) on its own.
void fill_pattern(std::span<std::byte> out, std::uint64_t offset) noexcept;

}  // namespace ackstall::ttcp
