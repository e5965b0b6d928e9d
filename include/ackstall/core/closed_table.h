// ackstall/core/closed_table.h — helpers for a closed vocabulary kept as one constexpr table of
// rows, one row per enumerator in enum order (core/limit_cause.h, core/stall_kind.h): the check
// that the rows are in order, and one column of the table as an array.
#pragma once

#include <array>
#include <cstddef>

namespace ackstall::core {

// Row i names enumerator i: a value's row is its index.
template <class Row, std::size_t N, class E>
constexpr bool in_enum_order(const Row (&table)[N], E Row::*field) noexcept {
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(table[i].*field) != i) return false;
  return true;
}

// One column of the table, in row order.
template <class Row, std::size_t N, class T>
constexpr std::array<T, N> column_of(const Row (&table)[N], T Row::*field) noexcept {
  std::array<T, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = table[i].*field;
  return out;
}

}  // namespace ackstall::core
